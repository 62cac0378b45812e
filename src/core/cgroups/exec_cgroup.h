/* The cgroup of one exec: per-command containment in a long-lived container.
 *
 * An exec joins, in this order of choice:
 *   - --cgroup SUB (as runc's): an existing sub-cgroup of the container's ("path", or on
 *     v1 "controller[,controller]:path", repeatable), never made nor removed by us;
 *   - a cgroup of its own, made below the container's when a limit is asked (--memory,
 *     --pids-limit, --cpus, or the container's annotations below) or its usage
 *     (--usage-file): "ocisbx-exec-<runtime pid>-<n>" in the hierarchies of the memory,
 *     pids, cpu and cpuacct controllers (v1), or in the cgroup2 tree (v2); in the other
 *     hierarchies the exec is in the container's cgroup as usual;
 *   - the container's cgroup (on v2: its leaf, once one exists, see below).
 * v2 (no process in a cgroup whose children have controllers): the first exec with a
 * cgroup of its own moves the container's processes into a leaf, "ocisbx-leaf", and
 * enables the controllers in the container's cgroup.subtree_control; later execs
 * without one join the leaf.  The container's cgroup stays the one state.json names:
 * ps, pause, update, events, kill --all and delete act on it and so on everything below
 * it (cgroup.freeze, the limits, memory.events and cgroup.kill are hierarchical; pids
 * are listed recursively; delete removes the sub-cgroups).
 * Removal: a foreground exec removes its own cgroup when its process is reaped (a
 * --kill-tree tree is gone by then; else the cgroup stays while any of its processes
 * live); what is left (a detached exec, a runtime killed, a process left behind) is
 * removed by the next exec with a cgroup of its own once empty and its runtime gone,
 * and by delete with the container's.
 */
#ifndef OCISBX_EXEC_CGROUP_H
#define OCISBX_EXEC_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cgroups/cgroups.h"
#include "core/error.h"

/* The container's annotations that give every exec these limits (the flags win). */
#define EXEC_MEMORY_ANNOTATION "io.github.ocisbx.exec.memory"
#define EXEC_PIDS_ANNOTATION "io.github.ocisbx.exec.pids-limit"
#define EXEC_CPUS_ANNOTATION "io.github.ocisbx.exec.cpus"
/* The names below the container's cgroup. */
#define EXEC_CGROUP_PREFIX "ocisbx-exec-"
#define EXEC_CGROUP_LEAF "ocisbx-leaf"

typedef struct exec_cgroup_opts
{
  const char *memory;     /* --memory: bytes, k/m/g suffixes; "-1": none */
  const char *pids_limit; /* --pids-limit: a count; "-1" or "0": none */
  const char *cpus;       /* --cpus: a decimal; "0": none */
  const char **join;      /* --cgroup, repeatable */
  size_t n_join;
  const char *usage_file; /* --usage-file: JSON written when the process ends */
} exec_cgroup_opts;

typedef struct exec_cgroup_limits
{
  bool own;              /* a cgroup of its own (a limit or the usage asked) */
  int64_t memory;        /* bytes, -1: none */
  int64_t pids;          /* -1: none */
  uint64_t cpu_quota_us; /* per EXEC_CPU_PERIOD_US, 0: none */
} exec_cgroup_limits;
#define EXEC_CPU_PERIOD_US 100000

struct ocispec_map;
/* O's values, or ANNOTATIONS' for those not given; errors name the flag or the
   annotation. */
int exec_cgroup_limits_get (const exec_cgroup_opts *o, const struct ocispec_map *annotations,
                            exec_cgroup_limits *l, ocisbx_err **err);
/* "8m" -> 8388608 (b k m g t, any case, an optional "b"/"ib" after: podman's
   --memory); "-1" -> -1.  0, or -1 for a malformed value. */
int exec_cgroup_parse_memory (const char *s, int64_t *out);
/* "1.5" -> 150000 us per 100 ms; "0" -> 0.  0, or -1 (malformed, below 0.01). */
int exec_cgroup_parse_cpus (const char *s, uint64_t *quota_us);

typedef struct exec_cgroup exec_cgroup;
/* The cgroups an exec into the container whose cgroups CTR names joins (above), made
   and limited when they are its own. */
int exec_cgroup_open (cgroup_manager *ctr, const exec_cgroup_opts *o, const struct ocispec_map *annotations,
                      exec_cgroup **out, ocisbx_err **err);
/* The manager of those cgroups, to join (cgroup_join_prepare, cgroup_enter). */
cgroup_manager *exec_cgroup_target (exec_cgroup *e);
/* True when the exec has a cgroup of its own. */
bool exec_cgroup_own (const exec_cgroup *e);

/* What a process's cgroup of its own used. */
typedef struct exec_cgroup_usage
{
  char *cgroup;              /* its path in the main hierarchy */
  int32_t exit_code;         /* the exec's */
  uint64_t cpu_ns;           /* CPU time, user + system */
  uint64_t memory_peak;      /* bytes; 0 when the kernel keeps none (v2 before 5.19) */
  int64_t memory_limit;      /* -1: none */
  int64_t pids_limit;        /* -1: none */
  uint64_t cpu_quota_us;     /* 0: none */
  uint64_t oom_kills;        /* processes the OOM killer took in it */
  uint64_t pids_limit_hits;  /* forks refused by pids.max */
  bool limit_hit;            /* one of them */
} exec_cgroup_usage;
/* The usage of E's own cgroup (fields 0 when it has none). */
int exec_cgroup_usage_read (exec_cgroup *e, exec_cgroup_usage *u, ocisbx_err **err);
void exec_cgroup_usage_clear (exec_cgroup_usage *u);
/* As JSON (malloc'd): {"cgroup":...,"exitCode":0,"cpuNs":...,"memoryPeakBytes":...,...}. */
char *exec_cgroup_usage_json (const exec_cgroup_usage *u, ocisbx_err **err);

/* The process (or the tree's reaper) was reaped with EXIT_CODE: its usage written to
   --usage-file and logged (info; JSON log lines carry it for engines), then its own
   cgroup removed (KILL_LEFT: what is left in it killed first; else kept while it has
   processes, for a later exec or delete to remove). */
int exec_cgroup_end (exec_cgroup *e, int exit_code, bool kill_left, ocisbx_err **err);
/* A container without cgroups: an error when a cgroup is asked for the exec. */
int exec_cgroup_none (const exec_cgroup_opts *o, const struct ocispec_map *annotations, ocisbx_err **err);
/* Frees E, removing its own cgroup when empty (a failed exec, a detached one done). */
void exec_cgroup_free (exec_cgroup *e);

#endif
