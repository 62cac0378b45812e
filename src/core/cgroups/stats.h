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

/* One line of a blkio file: "MAJ:MIN Op N" (op NULL for "MAJ:MIN N"). */
typedef struct cgroup_blkio_entry
{
  uint64_t major, minor;
  char *op;
  uint64_t value;
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

typedef struct cgroup_cpu_usage
{
  uint64_t total; /* nanoseconds, as kernel and user */
  cgroup_u64s percpu, percpu_kernel, percpu_user;
  uint64_t kernel, user;
} cgroup_cpu_usage;

typedef struct cgroup_throttling
{
  uint64_t periods, throttled_periods, throttled_time;
} cgroup_throttling;

typedef struct cgroup_cpu_stats
{
  cgroup_cpu_usage usage;
  cgroup_throttling throttling;
} cgroup_cpu_stats;

typedef struct cgroup_cpuset_stats
{
  cgroup_u64s cpus, mems;
  uint64_t cpu_exclusive, mem_hardwall, mem_exclusive, memory_migrate, memory_spread_page, memory_spread_slab,
      memory_pressure, sched_load_balance;
  int64_t sched_relax_domain_level;
} cgroup_cpuset_stats;

typedef struct cgroup_memory_stats
{
  uint64_t cache;
  cgroup_mem_entry usage, swap, kernel, kernel_tcp;
  ocispec_u64map raw; /* memory.stat, sorted by key */
} cgroup_memory_stats;

typedef struct cgroup_pids_stats
{
  uint64_t current, limit; /* limit 0: unlimited */
} cgroup_pids_stats;

/* The "data" of runc's stats event, in its nesting; cgroup_stats_type (stats_json.c)
   describes it for libocispec, which prints and frees it.  Fields are 0 (lists empty)
   where the kernel or the layout has no file for them. */
typedef struct cgroup_stats
{
  cgroup_cpu_stats cpu;
  cgroup_cpuset_stats cpuset;
  cgroup_memory_stats memory;
  cgroup_pids_stats pids;
  cgroup_blkio_list blkio[CG_IO_KINDS];
  cgroup_hugetlb_stat *hugetlb; /* sorted by page size name */
  size_t hugetlb_len;
} cgroup_stats;

extern const ocispec_type cgroup_stats_type;

/* Reads the container's statistics as runc 1.1/1.2 reads them (fs and fs2 managers);
   fails only when its cgroup is gone. */
int cgroup_stats_read (cgroup_manager *m, cgroup_stats *st, ocisbx_err **err);
void cgroup_stats_free (cgroup_stats *st);

/* An event as runc's `events` prints it (runc's types/events.go), one line with its
   newline: {"type":TYPE,"id":ID} or, with ST, {"type":TYPE,"id":ID,"data":{"cpu":...,
   "cpuset":...,"memory":...,"pids":...,"blkio":...,"hugetlb":...,"intel_rdt":{},
   "network_interfaces":null}}, with Go's omitempty rules and map key order.  malloc'd
   in *JSON; fails only on what yajl refuses (invalid UTF-8 in a key). */
int cgroup_event_json (const char *type, const char *id, const cgroup_stats *st, char **json, ocisbx_err **err);

#endif
