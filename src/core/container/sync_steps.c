/* The steps of the sync protocol (sync.h), one function per side, on the messages of
   sync.c (sync_transport.h). */
#include <config.h>
#include "core/container/sync.h"
#include "core/container/sync_transport.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/utils.h"

/* ---- the child's steps ---- */

int
sync_report_pid (int sock, pid_t pid, ocisbx_err **err)
{
  return sync_send (sock, SYNC_PID, (int32_t) pid, NULL, 0, -1, err);
}

int
sync_wait_go (int sock, char **payload, ocisbx_err **err)
{
  sync_msg m;

  if (sync_recv (sock, SYNC_GO, &m, err) < 0)
    return -1;
  if (payload)
    *payload = steal_ptr (&m.payload);
  sync_msg_clear (&m);
  return 0;
}

int
sync_ask_mount_source (int sock, size_t index, int fd, ocisbx_err **err)
{
  sync_msg m;
  int got;

  if (sync_send (sock, SYNC_MOUNT_SOURCE, (int32_t) index, NULL, 0, fd, err) < 0
      || sync_recv (sock, SYNC_MOUNT_SOURCE, &m, err) < 0)
    return -1;
  got = steal_fd (&m.fd);
  sync_msg_clear (&m);
  if (got < 0)
    return err_set (err, EPROTO, "mounts[%zu]: no source from the runtime", index);
  return got;
}

int
sync_mounts_done (int sock, ocisbx_err **err)
{
  return sync_send (sock, SYNC_MOUNTS_DONE, 0, NULL, 0, -1, err);
}

int
sync_run_parent_hooks (int sock, ocisbx_err **err)
{
  sync_msg m;

  if (sync_send (sock, SYNC_HOOKS, 0, NULL, 0, -1, err) < 0 || sync_recv (sock, SYNC_HOOKS_DONE, &m, err) < 0)
    return -1;
  sync_msg_clear (&m);
  return 0;
}

int
sync_send_listener (int sock, int listener_fd, ocisbx_err **err)
{
  sync_msg m;

  if (sync_send (sock, SYNC_SECCOMP, listener_fd, NULL, 0, -1, err) < 0
      || sync_recv (sock, SYNC_SECCOMP_ACK, &m, err) < 0)
    return -1;
  sync_msg_clear (&m);
  return 0;
}

int
sync_ready (int sock, int master, ocisbx_err **err)
{
  return sync_send (sock, SYNC_READY, 0, NULL, 0, master, err);
}

/* ---- the parent's steps ---- */

int
sync_recv_pid (int sock, pid_t *pid, ocisbx_err **err)
{
  sync_msg m;

  if (sync_recv (sock, SYNC_PID, &m, err) < 0)
    return -1;
  *pid = m.value;
  sync_msg_clear (&m);
  return 0;
}

int
sync_send_go (int sock, const void *payload, size_t len, ocisbx_err **err)
{
  return sync_send (sock, SYNC_GO, 0, payload, len, -1, err);
}

int
sync_serve_mount_sources (int sock, const sync_mount_server *ms, ocisbx_err **err)
{
  for (;;)
    {
      cleanup_close int fd = -1;
      sync_msg m;
      int r;

      if (sync_recv_either (sock, SYNC_MOUNTS_DONE, SYNC_MOUNT_SOURCE, &m, err) < 0)
        return -1;
      if (m.type == (uint32_t) SYNC_MOUNTS_DONE)
        {
          sync_msg_clear (&m);
          return 0;
        }
      fd = ms->open_source (ms->arg, (size_t) m.value, m.fd, err);
      r = fd < 0 ? -1 : sync_send (sock, SYNC_MOUNT_SOURCE, m.value, NULL, 0, fd, err);
      sync_msg_clear (&m);
      if (r < 0)
        {
          sync_send_error (sock, *err);
          return -1;
        }
    }
}

int
sync_wait_hooks (int sock, ocisbx_err **err)
{
  sync_msg m;

  if (sync_recv (sock, SYNC_HOOKS, &m, err) < 0)
    return -1;
  sync_msg_clear (&m);
  return 0;
}

int
sync_hooks_done (int sock, ocisbx_err **err)
{
  return sync_send (sock, SYNC_HOOKS_DONE, 0, NULL, 0, -1, err);
}

int
sync_recv_listener (int sock, int *child_fd, ocisbx_err **err)
{
  sync_msg m;

  if (sync_recv (sock, SYNC_SECCOMP, &m, err) < 0)
    return -1;
  *child_fd = m.value;
  sync_msg_clear (&m);
  return 0;
}

int
sync_ack_listener (int sock, ocisbx_err **err)
{
  return sync_send (sock, SYNC_SECCOMP_ACK, 0, NULL, 0, -1, err);
}

int
sync_wait_ready (int sock, int *master, ocisbx_err **err)
{
  sync_msg m;

  if (sync_recv (sock, SYNC_READY, &m, err) < 0)
    return -1;
  *master = steal_fd (&m.fd);
  sync_msg_clear (&m);
  return 0;
}

int
sync_wait_exec (int sock, ocisbx_err **err)
{
  sync_msg m;
  char byte;
  ssize_t n;

  do
    n = recv (sock, &byte, 1, MSG_PEEK);
  while (n < 0 && errno == EINTR);
  if (n == 0)
    return 0; /* end-of-file: execve closed the channel */
  /* a message, or a failure (the child's error may wait behind it: sync_recv) */
  if (sync_recv (sock, SYNC_ERROR, &m, err) == 0)
    {
      sync_msg_clear (&m);
      return err_set (err, EPROTO, "sync: unexpected message from the process");
    }
  return -1;
}
