/* cgroups: the container's statistics, read from the files runc's fs (v1) and fs2 (v2)
   managers read, into cgroup_stats (stats.h); stats_json.c describes them for libocispec. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"
#include "core/cgroups/stats.h"

void
cgroup_stats_free (cgroup_stats *st)
{
  ocispec_clear (&cgroup_stats_type, st);
}

static void
u64s_add (cgroup_u64s *l, uint64_t v)
{
  l->v = realloc (l->v, (l->n + 1) * sizeof *l->v);
  if (l->v == NULL)
    abort ();
  l->v[l->n++] = v;
}

/* The whole file, or NULL when it is missing or unreadable (stats are best effort). */
static char *
text (const cg_hier *h, const char *file)
{
  char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;
  if (h == NULL || cg_read_h (h, file, &s, &e) < 0)
    return NULL;
  return s;
}

/* A number file ("max" is UINT64_MAX, as Go's GetCgroupParamUint); 0 when missing. */
static uint64_t
num (const cg_hier *h, const char *file)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (h == NULL || cg_read_u64 (h, file, &v, &e) < 0)
    return 0;
  return v;
}

static bool
has (const cg_hier *h, const char *file)
{
  cleanup_free char *p = h ? cg_file (h, file) : NULL;
  return p && access (p, F_OK) == 0;
}

/* KEY's value in a "key value" file; 0 when missing. */
static uint64_t
keyed (const cg_hier *h, const char *file, const char *key)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (h == NULL || cg_read_keyed (h, file, key, &v, &e) != 0)
    return 0;
  return v;
}

/* Whitespace-separated numbers ("100 200 \n") appended to L. */
static void
numbers (const char *s, cgroup_u64s *l)
{
  char *end;
  for (const char *p = s; p; p = end)
    {
      uint64_t v = strtoull (p, &end, 10);
      if (end == p)
        break;
      u64s_add (l, v);
    }
}

/* A cpu list "0-3,5" expanded into L. */
void
cg_stats_parse_list (const char *s, cgroup_u64s *l)
{
  char *end;
  for (const char *p = s; p && *p && *p != '\n';)
    {
      uint64_t lo = strtoull (p, &end, 10), hi = lo;
      if (end == p)
        return;
      if (*end == '-')
        {
          p = end + 1;
          hi = strtoull (p, &end, 10);
          if (end == p || hi < lo)
            return;
        }
      for (uint64_t i = lo; i <= hi; i++)
        u64s_add (l, i);
      p = *end == ',' ? end + 1 : NULL;
    }
}

static int
key_cmp (const void *a, const void *b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* memory.stat into memory.raw, sorted by key (Go prints a map so). */
static void
mem_raw (const cg_hier *h, cgroup_stats *st)
{
  ocispec_u64map *raw = &st->memory.raw;
  cleanup_free char *s = text (h, "memory.stat");
  cleanup_free char **lines = NULL;
  char *save = NULL;
  size_t n = 0;
  if (s == NULL)
    return;
  for (char *line = strtok_r (s, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    if (strchr (line, ' '))
      {
        lines = realloc (lines, (n + 1) * sizeof *lines);
        if (lines == NULL)
          abort ();
        lines[n++] = line;
      }
  qsort (lines, n, sizeof *lines, key_cmp);
  raw->keys = xmalloc ((n ? n : 1) * sizeof (char *));
  raw->values = xmalloc ((n ? n : 1) * sizeof (uint64_t));
  for (size_t i = 0; i < n; i++)
    {
      char *sp = strchr (lines[i], ' ');
      raw->keys[i] = xasprintf ("%.*s", (int) (sp - lines[i]), lines[i]);
      raw->values[i] = strtoull (sp + 1, NULL, 10);
    }
  raw->len = n;
}

static uint64_t
raw (const cgroup_stats *st, const char *key)
{
  for (size_t i = 0; i < st->memory.raw.len; i++)
    if (strcmp (st->memory.raw.keys[i], key) == 0)
      return st->memory.raw.values[i];
  return 0;
}

/* ---- hugetlb: one entry per page size the cgroup has files for ---- */

typedef struct
{
  const char *suffix; /* ".usage_in_bytes" (v1) or ".current" (v2) */
  cgroup_stats *st;
} huge_walk;

static int
huge_size (const char *name, unsigned char type, void *arg)
{
  huge_walk *w = arg;
  size_t nl = strlen (name), sl = strlen (w->suffix);
  cgroup_stats *st = w->st;
  if (strncmp (name, "hugetlb.", 8) != 0 || nl <= 8 + sl || strcmp (name + nl - sl, w->suffix) != 0)
    return 0;
  /* a page size has no dot: hugetlb.2MB.rsvd.* (reservations) is no page size of its own
     (runc lists the sizes of /sys/kernel/mm/hugepages) */
  if (memchr (name + 8, '.', nl - 8 - sl) != NULL)
    return 0;
  st->hugetlb = realloc (st->hugetlb, (st->hugetlb_len + 1) * sizeof *st->hugetlb);
  if (st->hugetlb == NULL)
    abort ();
  st->hugetlb[st->hugetlb_len++] = (cgroup_hugetlb_stat) { .page_size = xasprintf ("%.*s", (int) (nl - 8 - sl), name + 8) };
  return 0;
}

static int
huge_cmp (const void *a, const void *b)
{
  return strcmp (((const cgroup_hugetlb_stat *) a)->page_size, ((const cgroup_hugetlb_stat *) b)->page_size);
}

static void
hugetlb_stats (const cg_hier *h, cgroup_stats *st)
{
  huge_walk w = { h && h->v2 ? ".current" : ".usage_in_bytes", st };
  cleanup_close int fd = h ? open (h->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
  if (fd < 0 || dir_each (fd, huge_size, &w) < 0)
    return;
  qsort (st->hugetlb, st->hugetlb_len, sizeof *st->hugetlb, huge_cmp);
  for (size_t i = 0; i < st->hugetlb_len; i++)
    {
      cgroup_hugetlb_stat *e = &st->hugetlb[i];
      cleanup_free char *usage = xasprintf ("hugetlb.%s%s", e->page_size, w.suffix);
      e->usage = num (h, usage);
      if (h->v2)
        {
          cleanup_free char *events = xasprintf ("hugetlb.%s.events", e->page_size);
          e->failcnt = keyed (h, events, "max");
        }
      else
        {
          cleanup_free char *max = xasprintf ("hugetlb.%s.max_usage_in_bytes", e->page_size);
          cleanup_free char *fail = xasprintf ("hugetlb.%s.failcnt", e->page_size);
          e->max = num (h, max);
          e->failcnt = num (h, fail);
        }
    }
}

/* ---- v1 ---- */

static void
blkio_add (cgroup_blkio_list *l, uint64_t major, uint64_t minor, const char *op, size_t oplen, uint64_t v)
{
  cgroup_blkio_entry *e;
  l->v = realloc (l->v, (l->n + 1) * sizeof *l->v);
  if (l->v == NULL)
    abort ();
  e = &l->v[l->n++];
  *e = (cgroup_blkio_entry) { .major = major, .minor = minor, .op = oplen ? xasprintf ("%.*s", (int) oplen, op) : NULL,
                              .value = v };
}

/* A v1 blkio file ("MAJ:MIN Op N" or "MAJ:MIN N" lines, "Total N" skipped) into L;
   false when it is missing or has no entry (runc then tries its next group of files). */
bool
cg_stats_parse_blkio_v1 (const char *s, cgroup_blkio_list *l)
{
  char *end;
  if (s == NULL)
    return false;
  for (const char *line = s; *line; line = strchrnul (line, '\n'), line += *line == '\n')
    {
      uint64_t major = strtoull (line, &end, 10), minor, v;
      const char *op = "", *p;
      size_t oplen = 0;
      if (end == line || *end != ':')
        continue; /* "Total N" */
      minor = strtoull (end + 1, &end, 10);
      p = end + strspn (end, " ");
      if (*p < '0' || *p > '9')
        {
          op = p;
          oplen = strcspn (p, " \n");
          p += oplen;
        }
      v = strtoull (p, NULL, 10);
      blkio_add (l, major, minor, op, oplen, v);
    }
  return l->n > 0;
}

/* runc's order: the first group whose first file has entries gives the lists. */
static void
blkio_stats_v1 (const cg_hier *h, cgroup_stats *st)
{
  static const struct
  {
    const char *file;
    int kind;
  } bfq_debug[] = { { "blkio.bfq.sectors_recursive", CG_IO_SECTORS },
                    { "blkio.bfq.io_service_time_recursive", CG_IO_SERVICE_TIME },
                    { "blkio.bfq.io_wait_time_recursive", CG_IO_WAIT_TIME },
                    { "blkio.bfq.io_merged_recursive", CG_IO_MERGED },
                    { "blkio.bfq.io_queued_recursive", CG_IO_QUEUED },
                    { "blkio.bfq.time_recursive", CG_IO_TIME },
                    { "blkio.bfq.io_serviced_recursive", CG_IO_SERVICED },
                    { "blkio.bfq.io_service_bytes_recursive", CG_IO_SERVICE_BYTES },
                    { NULL, 0 } },
    bfq[] = { { "blkio.bfq.io_serviced_recursive", CG_IO_SERVICED },
              { "blkio.bfq.io_service_bytes_recursive", CG_IO_SERVICE_BYTES },
              { NULL, 0 } },
    cfq[] = { { "blkio.sectors_recursive", CG_IO_SECTORS },
              { "blkio.io_service_time_recursive", CG_IO_SERVICE_TIME },
              { "blkio.io_wait_time_recursive", CG_IO_WAIT_TIME },
              { "blkio.io_merged_recursive", CG_IO_MERGED },
              { "blkio.io_queued_recursive", CG_IO_QUEUED },
              { "blkio.time_recursive", CG_IO_TIME },
              { "blkio.io_serviced_recursive", CG_IO_SERVICED },
              { "blkio.io_service_bytes_recursive", CG_IO_SERVICE_BYTES },
              { NULL, 0 } },
    throttle_recursive[] = { { "blkio.throttle.io_serviced_recursive", CG_IO_SERVICED },
                             { "blkio.throttle.io_service_bytes_recursive", CG_IO_SERVICE_BYTES },
                             { NULL, 0 } },
    throttle[] = { { "blkio.throttle.io_serviced", CG_IO_SERVICED },
                   { "blkio.throttle.io_service_bytes", CG_IO_SERVICE_BYTES },
                   { NULL, 0 } };
  const __typeof__ (bfq[0]) *groups[] = { bfq_debug, bfq, cfq, throttle_recursive, throttle };

  for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
    {
      cleanup_free char *first = text (h, groups[g][0].file);
      if (!cg_stats_parse_blkio_v1 (first, &st->blkio[groups[g][0].kind]))
        continue;
      for (size_t i = 1; groups[g][i].file; i++)
        {
          cleanup_free char *s = text (h, groups[g][i].file);
          cg_stats_parse_blkio_v1 (s, &st->blkio[groups[g][i].kind]);
        }
      return;
    }
}

static void
mem_entry_v1 (const cg_hier *h, const char *kind, cgroup_mem_entry *e)
{
  cleanup_free char *usage = xasprintf ("memory%s.usage_in_bytes", kind);
  cleanup_free char *max = xasprintf ("memory%s.max_usage_in_bytes", kind);
  cleanup_free char *fail = xasprintf ("memory%s.failcnt", kind);
  cleanup_free char *limit = xasprintf ("memory%s.limit_in_bytes", kind);
  if (!has (h, usage))
    return; /* swap and kmem accounting are optional */
  *e = (cgroup_mem_entry) { .usage = num (h, usage), .max = num (h, max), .failcnt = num (h, fail),
                            .limit = num (h, limit) };
}

static void
cpuset_v1 (const cg_hier *h, cgroup_stats *st)
{
  cleanup_free char *cpus = text (h, "cpuset.cpus");
  cleanup_free char *mems = text (h, "cpuset.mems");
  cleanup_free char *relax = text (h, "cpuset.sched_relax_domain_level");
  cg_stats_parse_list (cpus, &st->cpuset.cpus);
  cg_stats_parse_list (mems, &st->cpuset.mems);
  st->cpuset.cpu_exclusive = num (h, "cpuset.cpu_exclusive");
  st->cpuset.mem_hardwall = num (h, "cpuset.mem_hardwall");
  st->cpuset.mem_exclusive = num (h, "cpuset.mem_exclusive");
  st->cpuset.memory_migrate = num (h, "cpuset.memory_migrate");
  st->cpuset.memory_spread_page = num (h, "cpuset.memory_spread_page");
  st->cpuset.memory_spread_slab = num (h, "cpuset.memory_spread_slab");
  st->cpuset.memory_pressure = num (h, "cpuset.memory_pressure");
  st->cpuset.sched_load_balance = num (h, "cpuset.sched_load_balance");
  st->cpuset.sched_relax_domain_level = relax ? strtoll (relax, NULL, 10) : 0;
}

/* cpuacct.usage_all: "cpu user system" then one "N USER SYSTEM" line per cpu. */
static void
percpu_modes (const char *s, cgroup_stats *st)
{
  const char *line = s ? strchr (s, '\n') : NULL;
  for (; line && *++line; line = strchr (line, '\n'))
    {
      uint64_t f[3];
      char *end;
      const char *p = line;
      int i;
      for (i = 0; i < 3; i++, p = end)
        {
          f[i] = strtoull (p, &end, 10);
          if (end == p)
            break;
        }
      if (i == 3)
        {
          u64s_add (&st->cpu.usage.percpu_user, f[1]);
          u64s_add (&st->cpu.usage.percpu_kernel, f[2]);
        }
    }
}

static void
stats_v1 (cgroup_manager *m, cgroup_stats *st)
{
  cg_hier *cpu = cg_find (m, "cpu"), *acct = cg_find (m, "cpuacct"), *mem = cg_find (m, "memory");
  cg_hier *pids = cg_find (m, "pids"), *blk = cg_find (m, "blkio"), *cpuset = cg_find (m, "cpuset");
  cg_hier *huge = cg_find (m, "hugetlb");
  long hz = sysconf (_SC_CLK_TCK);

  if (acct && access (acct->dir, F_OK) == 0)
    {
      cleanup_free char *percpu = text (acct, "cpuacct.usage_percpu");
      cleanup_free char *all = text (acct, "cpuacct.usage_all");
      if (hz > 0)
        {
          st->cpu.usage.user = keyed (acct, "cpuacct.stat", "user") * 1000000000ULL / hz;
          st->cpu.usage.kernel = keyed (acct, "cpuacct.stat", "system") * 1000000000ULL / hz;
        }
      st->cpu.usage.total = num (acct, "cpuacct.usage");
      numbers (percpu, &st->cpu.usage.percpu);
      percpu_modes (all, st);
    }
  st->cpu.throttling.periods = keyed (cpu, "cpu.stat", "nr_periods");
  st->cpu.throttling.throttled_periods = keyed (cpu, "cpu.stat", "nr_throttled");
  st->cpu.throttling.throttled_time = keyed (cpu, "cpu.stat", "throttled_time");
  if (cpuset)
    cpuset_v1 (cpuset, st);
  if (mem)
    {
      mem_raw (mem, st);
      st->memory.cache = raw (st, "cache");
      mem_entry_v1 (mem, "", &st->memory.usage);
      mem_entry_v1 (mem, ".memsw", &st->memory.swap);
      mem_entry_v1 (mem, ".kmem", &st->memory.kernel);
      mem_entry_v1 (mem, ".kmem.tcp", &st->memory.kernel_tcp);
    }
  if (pids && access (pids->dir, F_OK) == 0)
    {
      st->pids.current = num (pids, "pids.current");
      st->pids.limit = num (pids, "pids.max");
      if (st->pids.limit == UINT64_MAX)
        st->pids.limit = 0;
    }
  if (blk)
    blkio_stats_v1 (blk, st);
  /* hybrid: hugetlb may be bound to the unified hierarchy instead (resources_v1.c); runc
     does not look there, ocisbx reports the controller where it set the limits */
  if (huge == NULL)
    huge = cg_unified (m);
  hugetlb_stats (huge, st);
}

/* ---- v2 ---- */

/* io.stat: "MAJ:MIN rbytes=N wbytes=N rios=N wios=N dbytes=N dios=N" per device, mapped
   onto v1's lists as runc does (bytes: Read/Write; ios: Read/Write; the rest dropped). */
void
cg_stats_parse_io_v2 (const char *s, cgroup_stats *st)
{
  static const struct
  {
    const char *key, *op;
    int kind;
  } map[] = { { "rbytes=", "Read", CG_IO_SERVICE_BYTES },
              { "wbytes=", "Write", CG_IO_SERVICE_BYTES },
              { "rios=", "Read", CG_IO_SERVICED },
              { "wios=", "Write", CG_IO_SERVICED } };
  char *end;
  if (s == NULL)
    return;
  for (const char *line = s; *line; line = strchrnul (line, '\n'), line += *line == '\n')
    {
      uint64_t major = strtoull (line, &end, 10), minor;
      const char *eol = strchrnul (line, '\n');
      if (end == line || *end != ':')
        continue;
      minor = strtoull (end + 1, &end, 10);
      for (const char *p = end; p < eol;)
        {
          p += strspn (p, " ");
          for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
            if (strncmp (p, map[i].key, strlen (map[i].key)) == 0)
              blkio_add (&st->blkio[map[i].kind], major, minor, map[i].op, strlen (map[i].op),
                         strtoull (p + strlen (map[i].key), NULL, 10));
          p += strcspn (p, " \n");
        }
    }
}

static void
stats_v2 (cgroup_manager *m, cgroup_stats *st)
{
  cg_hier *u = cg_unified (m);
  cleanup_free char *io = text (u, "io.stat");

  st->cpu.usage.total = keyed (u, "cpu.stat", "usage_usec") * 1000;
  st->cpu.usage.user = keyed (u, "cpu.stat", "user_usec") * 1000;
  st->cpu.usage.kernel = keyed (u, "cpu.stat", "system_usec") * 1000;
  st->cpu.throttling.periods = keyed (u, "cpu.stat", "nr_periods");
  st->cpu.throttling.throttled_periods = keyed (u, "cpu.stat", "nr_throttled");
  st->cpu.throttling.throttled_time = keyed (u, "cpu.stat", "throttled_usec") * 1000;

  mem_raw (u, st);
  st->memory.cache = raw (st, "file");
  st->memory.usage = (cgroup_mem_entry) { .usage = num (u, "memory.current"), .limit = num (u, "memory.max"),
                                          .max = num (u, "memory.peak") };
  /* v1 reports memory+swap; v2's swap is swap alone: runc adds the memory figures */
  if (has (u, "memory.swap.current"))
    st->memory.swap = (cgroup_mem_entry) { .usage = num (u, "memory.swap.current"),
                                           .limit = num (u, "memory.swap.max") };
  st->memory.swap.usage += st->memory.usage.usage;
  if (st->memory.swap.limit != UINT64_MAX)
    st->memory.swap.limit += st->memory.usage.limit;

  if (has (u, "pids.current"))
    {
      st->pids.current = num (u, "pids.current");
      st->pids.limit = num (u, "pids.max");
      if (st->pids.limit == UINT64_MAX)
        st->pids.limit = 0;
    }
  else
    {
      cleanup_free char *procs = text (u, "cgroup.procs");
      for (const char *p = procs; p && (p = strchr (p, '\n')); p++)
        st->pids.current++;
    }
  cg_stats_parse_io_v2 (io, st);
  hugetlb_stats (u, st);
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
