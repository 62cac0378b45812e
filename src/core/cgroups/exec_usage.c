/* What an exec's cgroup of its own used (exec_cgroup.h): CPU time, peak memory, the
   limits it hit; as JSON through the libocispec engine. */
#include <config.h>
#include "core/cgroups/exec_cgroup.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/cgroups/cgroups_internal.h"
#include "core/utils.h"

/* A file that may be missing on this kernel: 0 then. */
static int
read_u64_opt (const cg_hier *h, const char *file, const char *key, uint64_t *out, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  int r;

  *out = 0;
  r = key ? cg_read_keyed (h, file, key, out, &e) : cg_read_u64 (h, file, out, &e);
  if (r < 0 && e->errnum != ENOENT)
    {
      *err = steal_ptr (&e);
      return err_wrap (err, "exec usage");
    }
  if (r != 0) /* no such file, or key (1) */
    *out = 0;
  return 0;
}

int
cg_exec_usage (const cgroup_manager *t, const char *name, exec_cgroup_usage *u, ocisbx_err **err)
{
  bool v2 = t->layout == CGROUP_LAYOUT_V2;
  const cg_hier *h;
  uint64_t v = 0;

  for (size_t i = 0; i < t->n; i++)
    if (strstr (t->h[i].path, name) && u->cgroup == NULL)
      u->cgroup = xstrdup (t->h[i].path);
  if ((h = cg_find (t, v2 ? "cpu" : "cpuacct")) && strstr (h->path, name))
    {
      if (read_u64_opt (h, v2 ? "cpu.stat" : "cpuacct.usage", v2 ? "usage_usec" : NULL, &v, err) < 0)
        return -1;
      u->cpu_ns = v2 ? v * 1000 : v;
    }
  if ((h = cg_find (t, "memory")) && strstr (h->path, name))
    {
      if (read_u64_opt (h, v2 ? "memory.peak" : "memory.max_usage_in_bytes", NULL, &u->memory_peak, err) < 0
          || read_u64_opt (h, v2 ? "memory.events" : "memory.oom_control", "oom_kill", &u->oom_kills, err) < 0)
        return -1;
    }
  if ((h = cg_find (t, "pids")) && strstr (h->path, name)
      && read_u64_opt (h, "pids.events", "max", &u->pids_limit_hits, err) < 0)
    return -1;
  u->limit_hit = u->oom_kills > 0 || u->pids_limit_hits > 0;
  return 0;
}

void
exec_cgroup_usage_clear (exec_cgroup_usage *u)
{
  free (u->cgroup);
  u->cgroup = NULL;
}

#define UF(json, kind, fl, m) { json, kind, fl, offsetof (exec_cgroup_usage, m), 0, NULL, NULL, NULL }
static const ocispec_field usage_fields[] = {
  UF ("cgroup", OCISPEC_STRING, 0, cgroup),
  UF ("exitCode", OCISPEC_INT32, 0, exit_code),
  UF ("cpuNs", OCISPEC_UINT64, 0, cpu_ns),
  UF ("memoryPeakBytes", OCISPEC_UINT64, 0, memory_peak),
  UF ("memoryLimitBytes", OCISPEC_INT64, 0, memory_limit),
  UF ("pidsLimit", OCISPEC_INT64, 0, pids_limit),
  UF ("cpuQuotaUs", OCISPEC_UINT64, 0, cpu_quota_us),
  UF ("oomKills", OCISPEC_UINT64, 0, oom_kills),
  UF ("pidsLimitHits", OCISPEC_UINT64, 0, pids_limit_hits),
  UF ("limitHit", OCISPEC_BOOL, 0, limit_hit),
};
static const ocispec_type usage_type
  = { "exec_cgroup_usage", sizeof (exec_cgroup_usage), usage_fields, sizeof usage_fields / sizeof usage_fields[0],
      NULL };

char *
exec_cgroup_usage_json (const exec_cgroup_usage *u, ocisbx_err **err)
{
  char *json = NULL, *msg = NULL;

  if (ocispec_generate (&usage_type, u, false, &json, NULL, &msg) < 0)
    {
      err_take (err, 0, msg);
      return NULL;
    }
  return json;
}
