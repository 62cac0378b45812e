/* cgroups: the statistics of `events`, in the shape of runc's events (runc's
   types/events.go), so tools written for runc's `events --stats` read ours. */
#ifndef OCISBX_CGROUPS_STATS_H
#define OCISBX_CGROUPS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "core/cgroups/cgroups.h"

typedef struct cgroup_u64s
{
  uint64_t *v;
  size_t n;
} cgroup_u64s;

/* memory.{usage,max_usage,failcnt,limit} of one kind (v1: memory., memory.memsw.,
   memory.kmem., memory.kmem.tcp.). */
typedef struct cgroup_mem_entry
{
  uint64_t limit, usage, max, failcnt;
} cgroup_mem_entry;

/* One line of a blkio file: "MAJ:MIN Op N" (op "" for "MAJ:MIN N"). */
typedef struct cgroup_blkio_entry
{
  uint64_t major, minor, value;
  char op[16];
} cgroup_blkio_entry;

typedef struct cgroup_blkio_list
{
  cgroup_blkio_entry *v;
  size_t n;
} cgroup_blkio_list;

/* runc's blkio lists, in its order. */
enum cgroup_blkio_kind
{
  CG_IO_SERVICE_BYTES, /* ioServiceBytesRecursive */
  CG_IO_SERVICED,      /* ioServicedRecursive */
  CG_IO_QUEUED,        /* ioQueueRecursive */
  CG_IO_SERVICE_TIME,  /* ioServiceTimeRecursive */
  CG_IO_WAIT_TIME,     /* ioWaitTimeRecursive */
  CG_IO_MERGED,        /* ioMergedRecursive */
  CG_IO_TIME,          /* ioTimeRecursive */
  CG_IO_SECTORS,       /* sectorsRecursive */
  CG_IO_KINDS
};

typedef struct cgroup_hugetlb_stat
{
  char *page_size; /* "2MB", "1GB", "64KB" */
  uint64_t usage, max, failcnt;
} cgroup_hugetlb_stat;

/* Fields are 0 (lists empty) where the kernel or the layout has no file for them. */
typedef struct cgroup_stats
{
  struct
  {
    uint64_t total, kernel, user; /* nanoseconds */
    cgroup_u64s percpu, percpu_kernel, percpu_user;
    uint64_t periods, throttled_periods, throttled_time;
  } cpu;
  struct
  {
    cgroup_u64s cpus, mems;
    uint64_t cpu_exclusive, mem_hardwall, mem_exclusive, memory_migrate, memory_spread_page,
        memory_spread_slab, memory_pressure, sched_load_balance;
    int64_t sched_relax_domain_level;
  } cpuset;
  struct
  {
    uint64_t cache;
    cgroup_mem_entry usage, swap, kernel, kernel_tcp;
    char **raw_keys; /* memory.stat, sorted by key */
    uint64_t *raw_values;
    size_t raw_len;
  } memory;
  struct
  {
    uint64_t current, limit; /* limit 0: unlimited */
  } pids;
  cgroup_blkio_list blkio[CG_IO_KINDS];
  cgroup_hugetlb_stat *hugetlb; /* sorted by page size name */
  size_t hugetlb_len;
} cgroup_stats;

/* Reads the container's statistics as runc 1.1/1.2 reads them (fs and fs2 managers);
   fails only when its cgroup is gone. */
int cgroup_stats_read (cgroup_manager *m, cgroup_stats *st, ocisbx_err **err);
void cgroup_stats_free (cgroup_stats *st);

/* The stats event as runc's `events` prints it, one line without the newline:
   {"type":"stats","id":ID,"data":{"cpu":...,"cpuset":...,"memory":...,"pids":...,
   "blkio":...,"hugetlb":...,"intel_rdt":{},"network_interfaces":null}}, with Go's
   omitempty rules and map key order.  malloc'd. */
char *cgroup_stats_event_json (const char *id, const cgroup_stats *st);

#endif
