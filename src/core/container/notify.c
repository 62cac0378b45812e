/* sd_notify through the container: notify.h. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "core/log.h"
#include "core/container/notify.h"
#include "core/utils.h"

const char *
notify_host_socket (void)
{
  const char *s = getenv ("NOTIFY_SOCKET");
  return s && *s ? s : NULL;
}

/* strv_append: ARR (of LEN) grows by one. */
static void
append_str (char ***arr, size_t *len, char *s)
{
  *arr = realloc (*arr, (*len + 2) * sizeof (char *));
  if (*arr == NULL)
    abort ();
  (*arr)[(*len)++] = s;
  (*arr)[*len] = NULL;
}

void
notify_config (oci_config *cfg, const char *state_dir)
{
  static const char *const opts[] = { "bind", "nosuid", "noexec", "nodev", "ro" };
  oci_mount *m;
  size_t j = 0;

  cfg->mounts = realloc (cfg->mounts, (cfg->mounts_len + 1) * sizeof *cfg->mounts);
  if (cfg->mounts == NULL)
    abort ();
  m = &cfg->mounts[cfg->mounts_len++];
  *m = (oci_mount) { .destination = xstrdup (NOTIFY_CONTAINER_DIR), .type = xstrdup ("bind"),
                     .source = xasprintf ("%s/" NOTIFY_DIR, state_dir) };
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    append_str (&m->options, &m->options_len, xstrdup (opts[i]));
  if (cfg->process == NULL)
    return;
  /* the container's NOTIFY_SOCKET is ours: any other one in the config goes */
  for (size_t i = 0; i < cfg->process->env_len; i++)
    if (strncmp (cfg->process->env[i], "NOTIFY_SOCKET=", 14) == 0)
      free (cfg->process->env[i]);
    else
      cfg->process->env[j++] = cfg->process->env[i];
  cfg->process->env_len = j;
  append_str (&cfg->process->env, &cfg->process->env_len,
              xstrdup ("NOTIFY_SOCKET=" NOTIFY_CONTAINER_DIR "/" NOTIFY_SOCKET_NAME));
}

int
notify_dir_create (int state_dirfd, ocisbx_err **err)
{
  if (mkdirat (state_dirfd, NOTIFY_DIR, 0755) < 0 || fchmodat (state_dirfd, NOTIFY_DIR, 0755, 0) < 0)
    return err_set (err, errno, "notify socket: mkdir `%s`", NOTIFY_DIR);
  return 0;
}

bool
notify_dir_exists (int state_dirfd)
{
  struct stat s;
  return fstatat (state_dirfd, NOTIFY_DIR, &s, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (s.st_mode);
}

int
notify_listen (int state_dirfd, ocisbx_err **err)
{
  cleanup_close int dir = openat (state_dirfd, NOTIFY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_close int fd = -1;
  struct sockaddr_un sa = { .sun_family = AF_UNIX };

  if (dir < 0)
    return err_set (err, errno, "notify socket: open `%s`", NOTIFY_DIR);
  /* through the dir's fd: the state dir's path may be longer than sun_path */
  snprintf (sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/" NOTIFY_SOCKET_NAME, dir);
  fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0)
    return err_set (err, errno, "notify socket: socket");
  if (unlinkat (dir, NOTIFY_SOCKET_NAME, 0) < 0 && errno != ENOENT)
    return err_set (err, errno, "notify socket: remove the old `%s`", NOTIFY_SOCKET_NAME);
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    return err_set (err, errno, "notify socket: bind `%s/%s`", NOTIFY_DIR, NOTIFY_SOCKET_NAME);
  /* any user of the container may notify (as runc and crun) */
  if (fchmodat (dir, NOTIFY_SOCKET_NAME, 0777, 0) < 0)
    return err_set (err, errno, "notify socket: chmod `%s`", NOTIFY_SOCKET_NAME);
  return steal_fd (&fd);
}

static void
send_host (const char *host, const char *msg)
{
  struct sockaddr_un sa = { .sun_family = AF_UNIX };
  size_t len = strlen (host);
  socklen_t salen;
  cleanup_close int fd = -1;

  if (len >= sizeof sa.sun_path)
    {
      log_warning ("NOTIFY_SOCKET `%s`: the path is too long", host);
      return;
    }
  memcpy (sa.sun_path, host, len);
  if (host[0] == '@') /* abstract namespace */
    sa.sun_path[0] = '\0';
  salen = offsetof (struct sockaddr_un, sun_path) + len + (host[0] == '@' ? 0 : 1);
  fd = socket (AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0 || sendto (fd, msg, strlen (msg), MSG_NOSIGNAL, (struct sockaddr *) &sa, salen) < 0)
    log_warning ("NOTIFY_SOCKET `%s`: send %s: %s", host, msg, strerror (errno));
}

/* Does the message have a line READY=1? */
static bool
has_ready (const char *msg)
{
  for (const char *line = msg; line; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    if (strncmp (line, "READY=1", 7) == 0 && (line[7] == '\n' || line[7] == '\0'))
      return true;
  return false;
}

int
notify_forward (int fd, const char *host)
{
  char buf[4096];
  ssize_t n;

  for (;;)
    {
      n = recv (fd, buf, sizeof buf - 1, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return 0; /* nothing more queued */
      buf[n] = '\0';
      if (has_ready (buf))
        {
          send_host (host, "READY=1");
          return 1;
        }
    }
}

int
notify_wait_ready (int fd, const char *host, pid_t pid, int pidfd, ocisbx_err **err)
{
  for (;;)
    {
      struct pollfd p[2] = { { fd, POLLIN, 0 }, { pidfd, POLLIN, 0 } };
      int r = poll (p, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : 100);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return err_set (err, errno, "notify socket: poll");
      if ((p[0].revents & POLLIN) && notify_forward (fd, host))
        return 1;
      if (pidfd >= 0 ? (p[1].revents & POLLIN) != 0 : (kill (pid, 0) < 0 && errno == ESRCH))
        return notify_forward (fd, host); /* a READY=1 sent just before the end */
    }
}
