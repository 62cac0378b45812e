#include <config.h>
#include "core/container/sync.h"
#include "core/container/sync_transport.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/utils.h"

struct wire
{
  uint32_t type;
  int32_t errnum;
  int32_t value;
  uint32_t len;
};

static const char *
type_name (sync_type t)
{
  switch (t)
    {
    case SYNC_PID:
      return "pid";
    case SYNC_GO:
      return "go";
    case SYNC_HOOKS:
      return "hooks";
    case SYNC_HOOKS_DONE:
      return "hooks-done";
    case SYNC_SECCOMP:
      return "seccomp";
    case SYNC_SECCOMP_ACK:
      return "seccomp-ack";
    case SYNC_READY:
      return "ready";
    case SYNC_ERROR:
      return "error";
    case SYNC_MOUNT_SOURCE:
      return "mount-source";
    case SYNC_MOUNTS_DONE:
      return "mounts-done";
    }
  return "?";
}

/* One whole message: its header into *W, its payload (NUL-terminated, malloc'd) into
   *PAYLOAD, an fd it carried into *FD (else -1).  FLAGS: 0, or MSG_DONTWAIT.  The
   recv's result: > 0, 0 at end-of-file, -1 with errno. */
static ssize_t
recv_one (int sock, int flags, struct wire *w, char **payload, int *fd)
{
  struct iovec iov[2] = { { w, sizeof *w }, { NULL, 0 } };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2, .msg_control = u.buf, .msg_controllen = sizeof u.buf };
  struct cmsghdr *c;
  ssize_t r;

  *payload = NULL;
  *fd = -1;
  /* A buffer of the message's size (a peek tells it): not a 64 KiB one, whose pages the
     child would touch, each charged to the container's memory cgroup. */
  do
    r = recv (sock, w, sizeof *w, flags | MSG_PEEK | MSG_TRUNC);
  while (r < 0 && errno == EINTR);
  if (r <= 0)
    return r;
  if ((size_t) r > sizeof *w + SYNC_MAX_PAYLOAD)
    r = (ssize_t) (sizeof *w + SYNC_MAX_PAYLOAD);
  iov[1].iov_len = (size_t) r > sizeof *w ? (size_t) r - sizeof *w : 0;
  *payload = xmalloc (iov[1].iov_len + 1);
  iov[1].iov_base = *payload;
  do
    r = recvmsg (sock, &mh, flags | MSG_CMSG_CLOEXEC);
  while (r < 0 && errno == EINTR);
  if (r <= 0)
    {
      free (*payload);
      *payload = NULL;
      return r;
    }
  for (c = CMSG_FIRSTHDR (&mh); c; c = CMSG_NXTHDR (&mh, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len >= CMSG_LEN (sizeof (int)))
      memcpy (fd, CMSG_DATA (c), sizeof (int));
  if ((size_t) r < sizeof *w || w->len != (size_t) r - sizeof *w)
    w->len = UINT32_MAX; /* short: no message */
  else
    (*payload)[w->len] = '\0';
  return r;
}

/* A send or receive failed: the peer is gone, or going.  What it said before it went
   waits in our queue behind the failure the kernel reports first (ECONNRESET when it
   left a message of ours unread, EPIPE for a send), and is the real error: a
   SYNC_ERROR found there replaces *ERR.  Never blocks.  Returns -1. */
static int
take_peer_error (int sock, ocisbx_err **err)
{
  for (;;)
    {
      struct wire w;
      cleanup_free char *payload = NULL;
      int fd;
      ssize_t r = recv_one (sock, MSG_DONTWAIT, &w, &payload, &fd);

      if (r <= 0)
        return -1;
      if (fd >= 0)
        close (fd);
      if (w.type == SYNC_ERROR && w.len != UINT32_MAX)
        {
          err_freep (err);
          return err_takek (err, (err_kind) w.value, w.errnum, steal_ptr (&payload));
        }
    }
}

int
sync_pair (int fds[2], ocisbx_err **err)
{
  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) < 0)
    return err_set (err, errno, "socketpair");
  return 0;
}

int
sync_send (int sock, sync_type type, int32_t value, const void *payload, size_t len, int fd,
           ocisbx_err **err)
{
  struct wire w = { type, 0, value, (uint32_t) len };
  struct iovec iov[2] = { { &w, sizeof w }, { (void *) payload, len } };
  union
  {
    char buf[CMSG_SPACE (sizeof (int))];
    struct cmsghdr align;
  } u;
  struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };

  if (len > SYNC_MAX_PAYLOAD)
    return err_set (err, EMSGSIZE, "sync: %s message", type_name (type));
  if (fd >= 0)
    {
      struct cmsghdr *c;
      memset (&u, 0, sizeof u);
      mh.msg_control = u.buf;
      mh.msg_controllen = sizeof u.buf;
      c = CMSG_FIRSTHDR (&mh);
      c->cmsg_level = SOL_SOCKET;
      c->cmsg_type = SCM_RIGHTS;
      c->cmsg_len = CMSG_LEN (sizeof (int));
      memcpy (CMSG_DATA (c), &fd, sizeof (int));
    }
  for (;;)
    {
      ssize_t r = sendmsg (sock, &mh, MSG_NOSIGNAL);
      if (r >= 0)
        return 0;
      if (errno != EINTR)
        {
          err_set (err, errno, "sync: send %s", type_name (type));
          return take_peer_error (sock, err);
        }
    }
}

void
sync_send_error (int sock, const ocisbx_err *err)
{
  /* the kind rides in VALUE */
  struct wire w = { SYNC_ERROR, err ? err->errnum : 0, err ? (int32_t) err->kind : 0, 0 };
  const char *msg = err && err->msg ? err->msg : "unknown error";
  size_t len = strlen (msg);
  struct iovec iov[2];
  struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

  if (len > SYNC_MAX_PAYLOAD)
    len = SYNC_MAX_PAYLOAD;
  w.len = len;
  iov[0] = (struct iovec){ &w, sizeof w };
  iov[1] = (struct iovec){ (void *) msg, len };
  while (sendmsg (sock, &mh, MSG_NOSIGNAL) < 0 && errno == EINTR)
    ;
}

void
sync_msg_clear (sync_msg *msg)
{
  if (msg->fd >= 0)
    close (msg->fd);
  msg->fd = -1;
  free (msg->payload);
  msg->payload = NULL;
}

int
sync_recv (int sock, sync_type want, sync_msg *msg, ocisbx_err **err)
{
  return sync_recv_either (sock, want, want, msg, err);
}

int
sync_recv_either (int sock, sync_type want, sync_type also, sync_msg *msg, ocisbx_err **err)
{
  struct wire w;
  cleanup_free char *payload = NULL;
  ssize_t r;
  int fd = -1;

  memset (msg, 0, sizeof *msg);
  msg->fd = -1;
  r = recv_one (sock, 0, &w, &payload, &fd);
  if (r < 0)
    {
      err_set (err, errno, "sync: receive %s", type_name (want));
      return take_peer_error (sock, err);
    }
  if (r == 0)
    return err_set (err, EPIPE, "sync: waiting for %s: the other side exited", type_name (want));
  if (w.len == UINT32_MAX)
    {
      if (fd >= 0)
        close (fd);
      return err_set (err, EPROTO, "sync: short %s message", type_name (want));
    }
  if (w.type == SYNC_ERROR)
    {
      if (fd >= 0)
        close (fd);
      return err_takek (err, (err_kind) w.value, w.errnum, steal_ptr (&payload));
    }
  if (w.type != (uint32_t) want && w.type != (uint32_t) also)
    {
      if (fd >= 0)
        close (fd);
      return err_set (err, EPROTO, "sync: expected %s, got %s", type_name (want), type_name (w.type));
    }
  msg->type = w.type;
  msg->errnum = w.errnum;
  msg->value = w.value;
  msg->len = w.len;
  msg->fd = fd;
  if (w.len)
    msg->payload = steal_ptr (&payload);
  return 0;
}
