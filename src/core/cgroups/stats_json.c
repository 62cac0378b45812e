/* cgroups: runc's events (runc's types/events.go) described for the libocispec engine,
   which prints them: the same keys, nesting and order (Go's encoder writes a struct's
   fields in their order), Go's omitempty where runc's struct tags say it, sorted map
   keys (stats.c sorts them). */
#include <config.h>
#include "core/cgroups/stats.h"

#include <stddef.h>

/* "key": ST.M as KIND, with FL (OCISPEC_F_OMITEMPTY: runc's `omitempty`) */
#define SF(json, kind, fl, st, m) { json, kind, fl, offsetof (st, m), 0, NULL, NULL, NULL }
/* a uint64 list of ST.M (a cgroup_u64s), left out when empty (runc's lists are omitempty) */
#define SL(json, st, m)                                                                             \
  { json, OCISPEC_UINT64ARR, 0, offsetof (st, m.v), offsetof (st, m.n), NULL, NULL, NULL }
/* a struct ST.M of type SUB, always printed (omitempty never leaves out a Go struct) */
#define SS(json, st, m, sub) { json, OCISPEC_INLINE, 0, offsetof (st, m), 0, sub, NULL, NULL }
#define OMIT OCISPEC_F_OMITEMPTY
#define U64 OCISPEC_UINT64
#define TYPE(st, fields) { #st, sizeof (st), fields, sizeof fields / sizeof fields[0], NULL }

static const ocispec_field cpu_usage_fields[] = {
  SF ("total", U64, OMIT, cgroup_cpu_usage, total),
  SL ("percpu", cgroup_cpu_usage, percpu),
  SL ("percpu_kernel", cgroup_cpu_usage, percpu_kernel),
  SL ("percpu_user", cgroup_cpu_usage, percpu_user),
  SF ("kernel", U64, 0, cgroup_cpu_usage, kernel),
  SF ("user", U64, 0, cgroup_cpu_usage, user),
};
static const ocispec_type cpu_usage_type = TYPE (cgroup_cpu_usage, cpu_usage_fields);

static const ocispec_field throttling_fields[] = {
  SF ("periods", U64, OMIT, cgroup_throttling, periods),
  SF ("throttledPeriods", U64, OMIT, cgroup_throttling, throttled_periods),
  SF ("throttledTime", U64, OMIT, cgroup_throttling, throttled_time),
};
static const ocispec_type throttling_type = TYPE (cgroup_throttling, throttling_fields);

static const ocispec_field cpu_fields[] = {
  SS ("usage", cgroup_cpu_stats, usage, &cpu_usage_type),
  SS ("throttling", cgroup_cpu_stats, throttling, &throttling_type),
};
static const ocispec_type cpu_type = TYPE (cgroup_cpu_stats, cpu_fields);

static const ocispec_field cpuset_fields[] = {
  SL ("cpus", cgroup_cpuset_stats, cpus),
  SF ("cpu_exclusive", U64, 0, cgroup_cpuset_stats, cpu_exclusive),
  SL ("mems", cgroup_cpuset_stats, mems),
  SF ("mem_hardwall", U64, 0, cgroup_cpuset_stats, mem_hardwall),
  SF ("mem_exclusive", U64, 0, cgroup_cpuset_stats, mem_exclusive),
  SF ("memory_migrate", U64, 0, cgroup_cpuset_stats, memory_migrate),
  SF ("memory_spread_page", U64, 0, cgroup_cpuset_stats, memory_spread_page),
  SF ("memory_spread_slab", U64, 0, cgroup_cpuset_stats, memory_spread_slab),
  SF ("memory_pressure", U64, 0, cgroup_cpuset_stats, memory_pressure),
  SF ("sched_load_balance", U64, 0, cgroup_cpuset_stats, sched_load_balance),
  SF ("sched_relax_domain_level", OCISPEC_INT64, 0, cgroup_cpuset_stats, sched_relax_domain_level),
};
static const ocispec_type cpuset_type = TYPE (cgroup_cpuset_stats, cpuset_fields);

static const ocispec_field mem_entry_fields[] = {
  SF ("limit", U64, 0, cgroup_mem_entry, limit),
  SF ("usage", U64, OMIT, cgroup_mem_entry, usage),
  SF ("max", U64, OMIT, cgroup_mem_entry, max),
  SF ("failcnt", U64, 0, cgroup_mem_entry, failcnt),
};
static const ocispec_type mem_entry_type = TYPE (cgroup_mem_entry, mem_entry_fields);

static const ocispec_field memory_fields[] = {
  SF ("cache", U64, OMIT, cgroup_memory_stats, cache),
  SS ("usage", cgroup_memory_stats, usage, &mem_entry_type),
  SS ("swap", cgroup_memory_stats, swap, &mem_entry_type),
  SS ("kernel", cgroup_memory_stats, kernel, &mem_entry_type),
  SS ("kernelTCP", cgroup_memory_stats, kernel_tcp, &mem_entry_type),
  SF ("raw", OCISPEC_UINT64MAP, 0, cgroup_memory_stats, raw), /* left out when empty */
};
static const ocispec_type memory_type = TYPE (cgroup_memory_stats, memory_fields);

static const ocispec_field pids_fields[] = {
  SF ("current", U64, OMIT, cgroup_pids_stats, current),
  SF ("limit", U64, OMIT, cgroup_pids_stats, limit),
};
static const ocispec_type pids_type = TYPE (cgroup_pids_stats, pids_fields);

static const ocispec_field blkio_entry_fields[] = {
  SF ("major", U64, OMIT, cgroup_blkio_entry, major),
  SF ("minor", U64, OMIT, cgroup_blkio_entry, minor),
  SF ("op", OCISPEC_STRING, OMIT, cgroup_blkio_entry, op),
  SF ("value", U64, OMIT, cgroup_blkio_entry, value),
};
static const ocispec_type blkio_entry_type = TYPE (cgroup_blkio_entry, blkio_entry_fields);

/* cgroup_stats.blkio[K] as runc's list NAME, left out when empty */
#define BLK(json, k)                                                                                \
  { json, OCISPEC_OBJARR, 0, (k) * sizeof (cgroup_blkio_list) + offsetof (cgroup_blkio_list, v),   \
    (k) * sizeof (cgroup_blkio_list) + offsetof (cgroup_blkio_list, n), &blkio_entry_type, NULL, NULL }
static const ocispec_field blkio_fields[] = {
  BLK ("ioServiceBytesRecursive", CG_IO_SERVICE_BYTES), BLK ("ioServicedRecursive", CG_IO_SERVICED),
  BLK ("ioQueueRecursive", CG_IO_QUEUED),               BLK ("ioServiceTimeRecursive", CG_IO_SERVICE_TIME),
  BLK ("ioWaitTimeRecursive", CG_IO_WAIT_TIME),         BLK ("ioMergedRecursive", CG_IO_MERGED),
  BLK ("ioTimeRecursive", CG_IO_TIME),                  BLK ("sectorsRecursive", CG_IO_SECTORS),
};
static const ocispec_type blkio_type
    = { "cgroup_blkio_list[]", sizeof (cgroup_blkio_list[CG_IO_KINDS]), blkio_fields,
        sizeof blkio_fields / sizeof blkio_fields[0], NULL };

static const ocispec_field hugetlb_fields[] = {
  /* member 0, page_size, is the key */
  SF ("usage", U64, OMIT, cgroup_hugetlb_stat, usage),
  SF ("max", U64, OMIT, cgroup_hugetlb_stat, max),
  SF ("failcnt", U64, 0, cgroup_hugetlb_stat, failcnt),
};
static const ocispec_type hugetlb_type = TYPE (cgroup_hugetlb_stat, hugetlb_fields);

/* ocisbx reads no Intel RDT statistics: runc's fields are all omitempty, so {} */
static const ocispec_type intel_rdt_type = { "intel_rdt", 0, NULL, 0, NULL };

static const ocispec_field stats_fields[] = {
  SS ("cpu", cgroup_stats, cpu, &cpu_type),
  SS ("cpuset", cgroup_stats, cpuset, &cpuset_type),
  SS ("memory", cgroup_stats, memory, &memory_type),
  SS ("pids", cgroup_stats, pids, &pids_type),
  SS ("blkio", cgroup_stats, blkio, &blkio_type),
  /* runc makes the map: {} when empty */
  { "hugetlb", OCISPEC_OBJMAP, OCISPEC_F_REQUIRED, offsetof (cgroup_stats, hugetlb),
    offsetof (cgroup_stats, hugetlb_len), &hugetlb_type, NULL, NULL },
  { "intel_rdt", OCISPEC_INLINE, 0, 0, 0, &intel_rdt_type, NULL, NULL },
  /* no network statistics (runc's are of interfaces it configures itself): a nil list */
  { "network_interfaces", OCISPEC_NULL, 0, 0, 0, NULL, NULL, NULL },
};
const ocispec_type cgroup_stats_type = TYPE (cgroup_stats, stats_fields);

/* runc's types.Event: "data" omitempty (an oom event has none) */
typedef struct cgroup_event
{
  const char *type;
  const char *id;
  const cgroup_stats *data;
} cgroup_event;

static const ocispec_field event_fields[] = {
  SF ("type", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_event, type),
  SF ("id", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_event, id),
  { "data", OCISPEC_OBJ, 0, offsetof (cgroup_event, data), 0, &cgroup_stats_type, NULL, NULL },
};
static const ocispec_type event_type = TYPE (cgroup_event, event_fields);

int
cgroup_event_json (const char *type, const char *id, const cgroup_stats *st, char **json, ocisbx_err **err)
{
  cgroup_event e = { type, id, st };
  char *msg = NULL;

  if (ocispec_generate (&event_type, &e, false, json, NULL, &msg) < 0)
    return err_take (err, 0, msg);
  return 0;
}
