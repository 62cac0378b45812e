/* cgroups for an unprivileged caller: a hierarchy we may not write is dropped, and the
   limits that needed it are dropped with a warning instead of failing the create (an
   unprivileged user has no other way to enforce them; --rootless=false makes them
   errors again).  A subtree delegated to the user (owned by it) is used as usual. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

void
cg_rootless_drop (cgroup_manager *m, size_t i, const char *why)
{
  cg_hier *h = &m->h[i];
  cleanup_err ocisbx_err *e = NULL;
  char *d;

  log_debug ("cgroups: rootless, without the %s hierarchy: %s", h->name[0] ? h->name : "cgroup2", why);
  /* remember what it carried, for the warnings about limits */
  d = xasprintf ("%s%s%s", m->denied ? m->denied : "", m->denied ? "," : "", h->v2 ? "unified" : h->controllers);
  free (m->denied);
  m->denied = d;
  if (h->created && cg_remove_hier (m, h, &e) < 0)
    log_debug ("cgroups: %s", e->msg);
  free (h->name);
  free (h->controllers);
  free (h->path);
  free (h->dir);
  free (h->own);
  memmove (&m->h[i], &m->h[i + 1], (m->n - i - 1) * sizeof *m->h);
  m->n--;
}

/* Can the limits of controller C be written?  On v2: the container's cgroup has C in
   its cgroup.controllers (a delegated subtree may lack some). */
static bool
usable (const cgroup_manager *m, const char *c)
{
  cg_hier *h = cg_find (m, c);
  cleanup_free char *avail = NULL;
  cleanup_free char *f = NULL;
  size_t l = strlen (c);

  if (h == NULL)
    return false;
  if (!(m->layout == CGROUP_LAYOUT_V2 && h->v2))
    return true;
  f = cg_file (h, "cgroup.controllers");
  if (read_file_at (AT_FDCWD, f, &avail, NULL, NULL) < 0)
    return false;
  for (char *p = avail; (p = strstr (p, c)); p += l)
    if ((p == avail || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\n' || p[l] == '\0'))
      return true;
  return false;
}

/* Was controller C on a hierarchy we dropped (or, on v2, is it missing from a tree we
   do have)?  Controllers this host never had keep their usual error. */
static bool
denied (const cgroup_manager *m, const char *c)
{
  if (usable (m, c))
    return false;
  if (m->layout == CGROUP_LAYOUT_V2)
    return true;
  return m->denied && cgroup_has_controller (m->denied, c);
}

static void
warn_dropped (const char *field, const char *c)
{
  log_warning ("cgroups: %s: not applied: uid %u may not write the %s cgroup (rootless, no delegated "
               "subtree); the container runs without this limit",
               field, (unsigned) geteuid (), c);
}

#define DROP(ptr, field, ctrl)                                                                     \
  do                                                                                               \
    {                                                                                              \
      if ((ptr) && denied (m, ctrl))                                                               \
        {                                                                                          \
          warn_dropped (".linux.resources." field, ctrl);                                          \
          (ptr) = NULL;                                                                            \
        }                                                                                          \
    }                                                                                              \
  while (0)

const oci_resources *
cg_rootless_resources (const cgroup_manager *m, const oci_resources *in, cg_rootless_storage *s)
{
  bool v2 = m->layout == CGROUP_LAYOUT_V2;

  if (in == NULL || !m->rootless)
    return in;
  s->res = *in;
  DROP (s->res.memory, "memory", "memory");
  DROP (s->res.pids, "pids", "pids");
  DROP (s->res.block_io, "blockIO", v2 ? "io" : "blkio");
  DROP (s->res.network, "network", "net_cls");
  if (s->res.hugepage_limits_len && denied (m, "hugetlb"))
    {
      warn_dropped (".linux.resources.hugepageLimits", "hugetlb");
      s->res.hugepage_limits = NULL;
      s->res.hugepage_limits_len = 0;
    }
  if (s->res.rdma_len && denied (m, "rdma"))
    {
      warn_dropped (".linux.resources.rdma", "rdma");
      s->res.rdma = NULL;
      s->res.rdma_len = 0;
    }
  if (s->res.unified.len && cg_unified (m) == NULL && m->denied && cgroup_has_controller (m->denied, "unified"))
    {
      warn_dropped (".linux.resources.unified", "cgroup2");
      memset (&s->res.unified, 0, sizeof s->res.unified);
    }
  if (s->res.cpu)
    {
      const oci_cpu *c = s->res.cpu;
      s->cpu = *c;
      if ((c->shares || c->quota || c->period || c->burst || c->realtime_runtime || c->realtime_period || c->idle)
          && denied (m, "cpu"))
        {
          warn_dropped (".linux.resources.cpu", "cpu");
          s->cpu.shares = s->cpu.burst = s->cpu.period = s->cpu.realtime_period = NULL;
          s->cpu.quota = s->cpu.realtime_runtime = s->cpu.idle = NULL;
        }
      if ((c->cpus || c->mems) && denied (m, "cpuset"))
        {
          warn_dropped (".linux.resources.cpu.cpus/mems", "cpuset");
          s->cpu.cpus = s->cpu.mems = NULL;
        }
      s->res.cpu = &s->cpu;
    }
  return &s->res;
}

int
cg_rootless_enter (cgroup_manager *m, size_t i, ocisbx_err **err)
{
  int e = (*err)->errnum;

  if (!m->rootless || (e != EACCES && e != EPERM && e != EROFS))
    return -1;
  /* We could create it but not move the init there (cgroup2 also wants write access
     to the common ancestor's cgroup.procs): whatever limits it has do not apply. */
  log_warning ("%s; the container runs outside this cgroup (rootless)", (*err)->msg);
  cg_rootless_drop (m, i, (*err)->msg);
  err_freep (err);
  return 0;
}
