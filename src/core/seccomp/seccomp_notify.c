/* SCMP_ACT_NOTIFY: take the listener fd from the child and hand it, with the container
   process state, to the agent at linux.seccomp.listenerPath (runtime-spec "Seccomp",
   "The Container Process State"). */
#include <config.h>
#include "core/seccomp/seccomp.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"

int
seccomp_fetch_listener_fd (pid_t child, int child_fd, ocisbx_err **err)
{
  cleanup_close int pidfd = (int) syscall (SYS_pidfd_open, child, 0);
  int fd;

  if (pidfd < 0)
    return err_set (err, errno, "seccomp: pidfd_open %d", (int) child);
  fd = (int) syscall (SYS_pidfd_getfd, pidfd, child_fd, 0);
  if (fd < 0)
    return err_set (err, errno, "seccomp: take the listener fd %d of process %d", child_fd, (int) child);
  return fd;
}

static int
connect_listener (const char *path, ocisbx_err **err)
{
  cleanup_close int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr = { .sun_family = AF_UNIX };

  if (fd < 0)
    return err_set (err, errno, "seccomp: socket");
  if (strlen (path) >= sizeof addr.sun_path)
    return err_set (err, ENAMETOOLONG, "seccomp: listenerPath `%s`", path);
  strcpy (addr.sun_path, path);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) < 0)
    return err_set (err, errno, "seccomp: connect to the seccomp agent at listenerPath `%s`", path);
  return steal_fd (&fd);
}

/* The container process state, as JSON without the generator's newline (as runc sends
   it); NULL with *err set when STATE_JSON is not a state document. */
static char *
process_state_json (const oci_seccomp *sc, pid_t pid, const char *state_json, size_t *len, ocisbx_err **err)
{
  char *fds[] = { (char *) "seccompFd" };
  oci_process_state ps = { .oci_version = (char *) OCI_SPEC_VERSION, .fds = fds, .fds_len = 1, .pid = (int32_t) pid,
                           .metadata = sc->listener_metadata };
  char *perr = NULL, *msg = NULL;

  if (state_json == NULL
      || ocispec_parse (&oci_state_type, "state", state_json, strlen (state_json), (void **) &ps.state, &perr) < 0)
    {
      err_take (err, 0, perr ? perr : xstrdup ("seccomp: no state to send to the listener"));
      return NULL;
    }
  if (ocispec_generate (&oci_process_state_type, &ps, false, &msg, len, &perr) < 0)
    err_take (err, 0, xasprintf ("seccomp: the container process state: %s", perr));
  else if (*len > 0 && msg[*len - 1] == '\n')
    msg[--*len] = '\0';
  free (perr);
  ocispec_free (&oci_state_type, ps.state);
  return msg;
}

int
seccomp_send_listener_pid (const oci_seccomp *sc, int notify_fd, pid_t pid, const char *state_json,
                           ocisbx_err **err)
{
  cleanup_close int sock = -1;
  cleanup_free char *msg = NULL;
  char cbuf[CMSG_SPACE (sizeof (int))];
  struct iovec iov;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *cm;
  size_t len = 0;
  ssize_t r;

  if (sc == NULL || sc->listener_path == NULL || sc->listener_path[0] == '\0')
    return err_set (err, EINVAL, "config.json: .linux.seccomp.listenerPath: missing");
  if (notify_fd < 0)
    return err_set (err, EBADF, "seccomp: no listener fd to send");
  msg = process_state_json (sc, pid, state_json, &len, err);
  if (msg == NULL)
    return -1;

  sock = connect_listener (sc->listener_path, err);
  if (sock < 0)
    return -1;
  memset (cbuf, 0, sizeof cbuf);
  cm = CMSG_FIRSTHDR (&mh);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cm), &notify_fd, sizeof (int));
  iov.iov_base = msg;
  iov.iov_len = len;
  do
    r = sendmsg (sock, &mh, MSG_NOSIGNAL);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return err_set (err, errno, "seccomp: send the listener fd to `%s`", sc->listener_path);
  /* A stream may take the message in parts: the fd went with the first one. */
  for (size_t done = r; done < len; done += r)
    {
      r = send (sock, msg + done, len - done, MSG_NOSIGNAL);
      if (r < 0 && errno == EINTR)
        r = 0;
      else if (r < 0)
        return err_set (err, errno, "seccomp: send the state to `%s`", sc->listener_path);
    }
  log_debug ("seccomp: listener fd sent to `%s`", sc->listener_path);
  return 0;
}

int
seccomp_send_listener (const oci_seccomp *sc, int notify_fd, const char *state_json, ocisbx_err **err)
{
  oci_state *st = NULL;
  char *perr = NULL;
  int pid, r;

  if (state_json == NULL
      || ocispec_parse (&oci_state_type, "state", state_json, strlen (state_json), (void **) &st, &perr) < 0)
    return err_take (err, 0, perr ? perr : xstrdup ("seccomp: no state to send to the listener"));
  pid = st->pid ? *st->pid : 0;
  ocispec_free (&oci_state_type, st);
  r = seccomp_send_listener_pid (sc, notify_fd, pid, state_json, err);
  return r;
}
