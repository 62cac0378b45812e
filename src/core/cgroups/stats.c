/* cgroups: statistics and OOM notification for `events`. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "../utils.h"
#include "internal.h"

void
cgroup_stats_free (cgroup_stats *st)
{
  free (st->cpu_percpu);
  for (size_t i = 0; i < st->mem_raw_len; i++)
    free (st->mem_raw_keys[i]);
  free (st->mem_raw_keys);
  free (st->mem_raw_values);
  memset (st, 0, sizeof *st);
}

/* Missing files leave the field 0: stats are best effort. */
static uint64_t
num (const cg_hier *h, const char *file)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (h == NULL || cg_read_u64 (h, file, &v, &e) < 0)
    return 0;
  return v;
}

static uint64_t
keyed (const cg_hier *h, const char *file, const char *key)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (h == NULL || cg_read_keyed (h, file, key, &v, &e) != 0)
    return 0;
  return v;
}

static uint64_t
limit (uint64_t v)
{
  /* v1 reports "unlimited" as a huge page-aligned number; v2 as "max". */
  return v >= (UINT64_MAX >> 2) ? 0 : v;
}

static void
mem_raw (const cg_hier *h, cgroup_stats *st)
{
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *save = NULL;
  if (h == NULL || cg_read_h (h, "memory.stat", &s, &e) < 0)
    return;
  for (char *line = strtok_r (s, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *sp = strchr (line, ' ');
      if (sp == NULL)
        continue;
      *sp = '\0';
      st->mem_raw_keys = realloc (st->mem_raw_keys, (st->mem_raw_len + 1) * sizeof (char *));
      st->mem_raw_values = realloc (st->mem_raw_values, (st->mem_raw_len + 1) * sizeof (uint64_t));
      if (st->mem_raw_keys == NULL || st->mem_raw_values == NULL)
        abort ();
      st->mem_raw_keys[st->mem_raw_len] = xstrdup (line);
      st->mem_raw_values[st->mem_raw_len++] = strtoull (sp + 1, NULL, 10);
    }
}

static uint64_t
raw (const cgroup_stats *st, const char *key)
{
  for (size_t i = 0; i < st->mem_raw_len; i++)
    if (strcmp (st->mem_raw_keys[i], key) == 0)
      return st->mem_raw_values[i];
  return 0;
}

static void
percpu (const cg_hier *h, cgroup_stats *st)
{
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *p, *end;
  if (h == NULL || cg_read_h (h, "cpuacct.usage_percpu", &s, &e) < 0)
    return;
  for (p = s;; p = end)
    {
      uint64_t v = strtoull (p, &end, 10);
      if (end == p)
        break;
      st->cpu_percpu = realloc (st->cpu_percpu, (st->cpu_percpu_len + 1) * sizeof (uint64_t));
      if (st->cpu_percpu == NULL)
        abort ();
      st->cpu_percpu[st->cpu_percpu_len++] = v;
    }
}

/* "MAJ:MIN Read N" (v1 blkio) or "MAJ:MIN rbytes=N wbytes=N ..." (v2 io.stat). */
static void
io_bytes (const cg_hier *h, const char *file, bool v2, cgroup_stats *st)
{
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *save = NULL;
  if (h == NULL || cg_read_h (h, file, &s, &e) < 0)
    return;
  for (char *line = strtok_r (s, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *p;
      if (v2)
        {
          if ((p = strstr (line, "rbytes=")))
            st->blkio_read_bytes += strtoull (p + 7, NULL, 10);
          if ((p = strstr (line, "wbytes=")))
            st->blkio_write_bytes += strtoull (p + 7, NULL, 10);
        }
      else if ((p = strstr (line, " Read ")))
        st->blkio_read_bytes += strtoull (p + 6, NULL, 10);
      else if ((p = strstr (line, " Write ")))
        st->blkio_write_bytes += strtoull (p + 7, NULL, 10);
    }
}

static void
stats_v1 (cgroup_manager *m, cgroup_stats *st)
{
  cg_hier *cpu = cg_find (m, "cpu"), *acct = cg_find (m, "cpuacct"), *mem = cg_find (m, "memory");
  cg_hier *pids = cg_find (m, "pids"), *blk = cg_find (m, "blkio");
  long hz = sysconf (_SC_CLK_TCK);

  st->cpu_usage_total = num (acct, "cpuacct.usage");
  if (hz > 0)
    {
      st->cpu_usage_user = keyed (acct, "cpuacct.stat", "user") * (1000000000ULL / hz);
      st->cpu_usage_kernel = keyed (acct, "cpuacct.stat", "system") * (1000000000ULL / hz);
    }
  percpu (acct, st);
  st->cpu_throttling_periods = keyed (cpu, "cpu.stat", "nr_periods");
  st->cpu_throttled_periods = keyed (cpu, "cpu.stat", "nr_throttled");
  st->cpu_throttled_time = keyed (cpu, "cpu.stat", "throttled_time");
  st->mem_usage = num (mem, "memory.usage_in_bytes");
  st->mem_max_usage = num (mem, "memory.max_usage_in_bytes");
  st->mem_limit = limit (num (mem, "memory.limit_in_bytes"));
  st->mem_failcnt = num (mem, "memory.failcnt");
  st->swap_usage = num (mem, "memory.memsw.usage_in_bytes");
  st->swap_limit = limit (num (mem, "memory.memsw.limit_in_bytes"));
  st->kernel_usage = num (mem, "memory.kmem.usage_in_bytes");
  st->oom_kill = keyed (mem, "memory.oom_control", "oom_kill");
  mem_raw (mem, st);
  st->mem_cache = raw (st, "cache");
  st->pids_current = num (pids, "pids.current");
  st->pids_limit = limit (num (pids, "pids.max"));
  io_bytes (blk, "blkio.throttle.io_service_bytes_recursive", false, st);
}

static void
stats_v2 (cgroup_manager *m, cgroup_stats *st)
{
  cg_hier *u = cg_unified (m);

  st->cpu_usage_total = keyed (u, "cpu.stat", "usage_usec") * 1000;
  st->cpu_usage_user = keyed (u, "cpu.stat", "user_usec") * 1000;
  st->cpu_usage_kernel = keyed (u, "cpu.stat", "system_usec") * 1000;
  st->cpu_throttling_periods = keyed (u, "cpu.stat", "nr_periods");
  st->cpu_throttled_periods = keyed (u, "cpu.stat", "nr_throttled");
  st->cpu_throttled_time = keyed (u, "cpu.stat", "throttled_usec") * 1000;
  st->mem_usage = num (u, "memory.current");
  st->mem_max_usage = num (u, "memory.peak");
  st->mem_limit = limit (num (u, "memory.max"));
  st->mem_failcnt = keyed (u, "memory.events", "max");
  st->swap_usage = num (u, "memory.swap.current");
  st->swap_limit = limit (num (u, "memory.swap.max"));
  st->oom_kill = keyed (u, "memory.events", "oom_kill");
  mem_raw (u, st);
  st->mem_cache = raw (st, "file");
  st->kernel_usage = raw (st, "kernel");
  st->pids_current = num (u, "pids.current");
  st->pids_limit = limit (num (u, "pids.max"));
  io_bytes (u, "io.stat", true, st);
}

int
cgroup_stats_read (cgroup_manager *m, cgroup_stats *st, ocisbx_err **err)
{
  cg_hier *h = cg_main (m);
  memset (st, 0, sizeof *st);
  if (h == NULL || access (h->dir, F_OK) < 0)
    return err_set (err, ENOENT, "cgroups: stats: `%s` does not exist", h ? h->dir : m->path);
  if (m->layout == CGROUP_LAYOUT_V2)
    stats_v2 (m, st);
  else
    stats_v1 (m, st);
  return 0;
}

/* v1: an eventfd registered on memory.oom_control through cgroup.event_control.
   v2: inotify on memory.events; cgroup_oom_ack compares the oom_kill count. */
int
cgroup_oom_fd (cgroup_manager *m, ocisbx_err **err)
{
  cg_hier *mem = cg_find (m, "memory");

  if (mem == NULL)
    return err_set (err, ENOTSUP, "cgroups: no memory controller for OOM events");
  if (mem->v2)
    {
      cleanup_free char *f = cg_file (mem, "memory.events");
      cleanup_close int fd = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
      if (fd < 0)
        return err_set (err, errno, "inotify_init1");
      if (inotify_add_watch (fd, f, IN_MODIFY) < 0)
        return err_set (err, errno, "inotify watch `%s`", f);
      m->oom_seen = keyed (mem, "memory.events", "oom_kill");
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
    uint64_t now = keyed (mem, "memory.events", "oom_kill");
    int happened = now > m->oom_seen;
    m->oom_seen = now;
    return happened;
  }
}
