/* cgroups: OOM notification for `events` ({"type":"oom"} lines). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

static uint64_t
oom_kills (const cg_hier *h)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (cg_read_keyed (h, "memory.events", "oom_kill", &v, &e) != 0)
    return 0;
  return v;
}

/* v1: an eventfd registered on memory.oom_control through cgroup.event_control.
   v2: inotify on memory.events; cgroup_oom_ack compares the oom_kill count. */
int
cgroup_oom_fd (cgroup_manager *m, ocisbx_err **err)
{
  cg_hier *mem = cg_find (m, "memory");

  if (mem == NULL)
    return err_setk (err, ERR_UNSUPPORTED, ENOTSUP, "cgroups: no memory controller for OOM events");
  if (mem->v2)
    {
      cleanup_free char *f = cg_file (mem, "memory.events");
      cleanup_close int fd = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
      if (fd < 0)
        return err_set (err, errno, "inotify_init1");
      if (inotify_add_watch (fd, f, IN_MODIFY) < 0)
        return err_set (err, errno, "inotify watch `%s`", f);
      m->oom_seen = oom_kills (mem);
      return steal_fd (&fd);
    }
  {
    cleanup_free char *oc = cg_file (mem, "memory.oom_control");
    cleanup_close int efd = eventfd (0, EFD_CLOEXEC | EFD_NONBLOCK);
    cleanup_close int ofd = open (oc, O_RDONLY | O_CLOEXEC);
    char buf[64];
    if (efd < 0)
      return err_set (err, errno, "eventfd");
    if (ofd < 0)
      return err_set (err, errno, "open `%s`", oc);
    snprintf (buf, sizeof buf, "%d %d", efd, ofd);
    if (cg_write_h (m, mem, "cgroup.event_control", buf, err) < 0)
      return err_wrap (err, "cgroups: OOM notification");
    return steal_fd (&efd);
  }
}

int
cgroup_oom_ack (cgroup_manager *m, int fd, ocisbx_err **err)
{
  cg_hier *mem = cg_find (m, "memory");
  char buf[4096] __attribute__ ((aligned (8)));
  ssize_t r;

  if (mem == NULL)
    return 0;
  if (!mem->v2)
    {
      uint64_t v;
      r = read (fd, &v, sizeof v);
      if (r < 0 && errno == EAGAIN)
        return 0;
      if (r < 0)
        return err_set (err, errno, "read OOM eventfd");
      /* The eventfd also fires when the cgroup goes away. */
      return access (mem->dir, F_OK) == 0 ? 1 : 0;
    }
  while ((r = read (fd, buf, sizeof buf)) > 0)
    ;
  {
    uint64_t now = oom_kills (mem);
    int happened = now > m->oom_seen;
    m->oom_seen = now;
    return happened;
  }
}
