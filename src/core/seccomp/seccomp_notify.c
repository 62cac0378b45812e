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

int
seccomp_send_listener_pid (const oci_seccomp *sc, int notify_fd, pid_t pid, const char *state_json,
                           ocisbx_err **err)
{
  cleanup_close int sock = -1;
  cleanup_free char *meta = NULL;
  cleanup_free char *msg = NULL;
  char cbuf[CMSG_SPACE (sizeof (int))];
  struct iovec iov;
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *cm;
  size_t len;
  ssize_t r;

  if (sc == NULL || sc->listener_path == NULL || sc->listener_path[0] == '\0')
    return err_set (err, EINVAL, "config.json: .linux.seccomp.listenerPath: missing");
  if (notify_fd < 0)
    return err_set (err, EBADF, "seccomp: no listener fd to send");
  if (sc->listener_metadata != NULL)
    {
      cleanup_free char *esc = json_escape (sc->listener_metadata);
      meta = xasprintf (",\"metadata\":\"%s\"", esc);
    }
  msg = xasprintf ("{\"ociVersion\":\"%s\",\"fds\":[\"seccompFd\"],\"pid\":%d%s,\"state\":%s}", OCI_SPEC_VERSION,
                   (int) pid, meta ? meta : "", state_json && state_json[0] ? state_json : "{}");
  len = strlen (msg);

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
