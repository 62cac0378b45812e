/* cgroups: a stats event as runc prints it (runc's types/events.go): the same keys,
   nesting and order, Go's omitempty rules (a zero number, an empty list or map left
   out where runc's struct tags say omitempty) and sorted map keys. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "core/utils.h"
#include "core/cgroups/stats.h"

static void
key (yajl_gen g, const char *k)
{
  yajl_gen_string (g, (const unsigned char *) k, strlen (k));
}

static void
u64 (yajl_gen g, uint64_t v)
{
  char buf[24];
  int n = snprintf (buf, sizeof buf, "%" PRIu64, v);
  yajl_gen_number (g, buf, n);
}

/* "k": v, always */
static void
field (yajl_gen g, const char *k, uint64_t v)
{
  key (g, k);
  u64 (g, v);
}

/* "k": v, unless v is 0 (omitempty) */
static void
field_nz (yajl_gen g, const char *k, uint64_t v)
{
  if (v)
    field (g, k, v);
}

/* "k": [v, ...], unless empty (omitempty) */
static void
list_ne (yajl_gen g, const char *k, const cgroup_u64s *l)
{
  if (l->n == 0)
    return;
  key (g, k);
  yajl_gen_array_open (g);
  for (size_t i = 0; i < l->n; i++)
    u64 (g, l->v[i]);
  yajl_gen_array_close (g);
}

static void
cpu (yajl_gen g, const cgroup_stats *st)
{
  key (g, "cpu");
  yajl_gen_map_open (g);
  key (g, "usage");
  yajl_gen_map_open (g);
  field_nz (g, "total", st->cpu.total);
  list_ne (g, "percpu", &st->cpu.percpu);
  list_ne (g, "percpu_kernel", &st->cpu.percpu_kernel);
  list_ne (g, "percpu_user", &st->cpu.percpu_user);
  field (g, "kernel", st->cpu.kernel);
  field (g, "user", st->cpu.user);
  yajl_gen_map_close (g);
  key (g, "throttling");
  yajl_gen_map_open (g);
  field_nz (g, "periods", st->cpu.periods);
  field_nz (g, "throttledPeriods", st->cpu.throttled_periods);
  field_nz (g, "throttledTime", st->cpu.throttled_time);
  yajl_gen_map_close (g);
  yajl_gen_map_close (g);
}

static void
cpuset (yajl_gen g, const cgroup_stats *st)
{
  key (g, "cpuset");
  yajl_gen_map_open (g);
  list_ne (g, "cpus", &st->cpuset.cpus);
  field (g, "cpu_exclusive", st->cpuset.cpu_exclusive);
  list_ne (g, "mems", &st->cpuset.mems);
  field (g, "mem_hardwall", st->cpuset.mem_hardwall);
  field (g, "mem_exclusive", st->cpuset.mem_exclusive);
  field (g, "memory_migrate", st->cpuset.memory_migrate);
  field (g, "memory_spread_page", st->cpuset.memory_spread_page);
  field (g, "memory_spread_slab", st->cpuset.memory_spread_slab);
  field (g, "memory_pressure", st->cpuset.memory_pressure);
  field (g, "sched_load_balance", st->cpuset.sched_load_balance);
  key (g, "sched_relax_domain_level");
  yajl_gen_integer (g, st->cpuset.sched_relax_domain_level);
  yajl_gen_map_close (g);
}

static void
mem_entry (yajl_gen g, const char *k, const cgroup_mem_entry *e)
{
  key (g, k);
  yajl_gen_map_open (g);
  field (g, "limit", e->limit);
  field_nz (g, "usage", e->usage);
  field_nz (g, "max", e->max);
  field (g, "failcnt", e->failcnt);
  yajl_gen_map_close (g);
}

static void
memory (yajl_gen g, const cgroup_stats *st)
{
  key (g, "memory");
  yajl_gen_map_open (g);
  field_nz (g, "cache", st->memory.cache);
  mem_entry (g, "usage", &st->memory.usage);
  mem_entry (g, "swap", &st->memory.swap);
  mem_entry (g, "kernel", &st->memory.kernel);
  mem_entry (g, "kernelTCP", &st->memory.kernel_tcp);
  if (st->memory.raw_len)
    {
      key (g, "raw");
      yajl_gen_map_open (g);
      for (size_t i = 0; i < st->memory.raw_len; i++)
        field (g, st->memory.raw_keys[i], st->memory.raw_values[i]);
      yajl_gen_map_close (g);
    }
  yajl_gen_map_close (g);
}

static void
blkio (yajl_gen g, const cgroup_stats *st)
{
  static const char *const names[CG_IO_KINDS]
      = { "ioServiceBytesRecursive", "ioServicedRecursive", "ioQueueRecursive", "ioServiceTimeRecursive",
          "ioWaitTimeRecursive",     "ioMergedRecursive",   "ioTimeRecursive",  "sectorsRecursive" };
  key (g, "blkio");
  yajl_gen_map_open (g);
  for (int k = 0; k < CG_IO_KINDS; k++)
    {
      if (st->blkio[k].n == 0)
        continue;
      key (g, names[k]);
      yajl_gen_array_open (g);
      for (size_t i = 0; i < st->blkio[k].n; i++)
        {
          const cgroup_blkio_entry *e = &st->blkio[k].v[i];
          yajl_gen_map_open (g);
          field_nz (g, "major", e->major);
          field_nz (g, "minor", e->minor);
          if (e->op[0])
            {
              key (g, "op");
              key (g, e->op);
            }
          field_nz (g, "value", e->value);
          yajl_gen_map_close (g);
        }
      yajl_gen_array_close (g);
    }
  yajl_gen_map_close (g);
}

static void
hugetlb (yajl_gen g, const cgroup_stats *st)
{
  key (g, "hugetlb");
  yajl_gen_map_open (g);
  for (size_t i = 0; i < st->hugetlb_len; i++)
    {
      key (g, st->hugetlb[i].page_size);
      yajl_gen_map_open (g);
      field_nz (g, "usage", st->hugetlb[i].usage);
      field_nz (g, "max", st->hugetlb[i].max);
      field (g, "failcnt", st->hugetlb[i].failcnt);
      yajl_gen_map_close (g);
    }
  yajl_gen_map_close (g);
}

char *
cgroup_stats_event_json (const char *id, const cgroup_stats *st)
{
  yajl_gen g = yajl_gen_alloc (NULL);
  const unsigned char *buf;
  size_t len;
  char *out;

  if (g == NULL)
    abort ();
  yajl_gen_map_open (g);
  key (g, "type");
  key (g, "stats");
  key (g, "id");
  key (g, id);
  key (g, "data");
  yajl_gen_map_open (g);
  cpu (g, st);
  cpuset (g, st);
  memory (g, st);
  key (g, "pids");
  yajl_gen_map_open (g);
  field_nz (g, "current", st->pids.current);
  field_nz (g, "limit", st->pids.limit);
  yajl_gen_map_close (g);
  blkio (g, st);
  hugetlb (g, st);
  key (g, "intel_rdt");
  yajl_gen_map_open (g);
  yajl_gen_map_close (g);
  key (g, "network_interfaces");
  yajl_gen_null (g);
  yajl_gen_map_close (g);
  yajl_gen_map_close (g);
  yajl_gen_get_buf (g, &buf, &len);
  out = xasprintf ("%.*s", (int) len, (const char *) buf);
  yajl_gen_free (g);
  return out;
}
