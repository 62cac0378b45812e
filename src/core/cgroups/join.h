/* Joining the container's cgroups without the kernel's slow path.
 *
 * Writing a pid to cgroup.procs takes cgroup_threadgroup_rwsem for writing, which
 * waits for an RCU grace period: 5-15 ms per create on a busy machine, the largest
 * single cost of `run`.  Two ways around it, used when possible:
 *   - a v2 hierarchy (v2, or hybrid's unified): clone3 with CLONE_INTO_CGROUP;
 *   - each v1 hierarchy: the child writes "0" to the cgroup's "tasks" file, moving
 *     only itself (it is single-threaded), for which the kernel skips that lock.
 *     The files are opened by the parent before the clone: the kernel checks the
 *     opener's credentials, so this works from a new user namespace too.
 * The files are opened and written through the manager's seam (fs_ops.h: open_join,
 * write_value), as every cgroup file.
 * Anything unusual (rootless, a file that cannot be opened, a kernel without
 * CLONE_INTO_CGROUP) falls back to cgroup_enter () by the parent.
 *
 * The exec stub (dmz_stub.h) is the runtime's, not the container's: on a v1 memory
 * hierarchy the init steps back into the runtime's own memory cgroup for the stub's
 * exec, and the stub rejoins the container's before it executes the process (the
 * memory_home and memory fds), so the stub's page tables and stack are not charged to
 * a container that may have a tight memory limit.
 */
#ifndef OCISBX_CGROUP_JOIN_H
#define OCISBX_CGROUP_JOIN_H

#include <stdbool.h>
#include <stddef.h>

#include "core/cgroups/cgroups.h"
#include "core/error.h"

#define CGROUP_JOIN_MAX 24

struct cg_fs_ops;

typedef struct cgroup_join
{
  bool usable;
  const struct cg_fs_ops *fs;   /* the manager's (fs_ops.h): the files opened and written
                                   through it */
  int v2_dir;                   /* for CLONE_INTO_CGROUP, or -1 */
  int tasks[CGROUP_JOIN_MAX];   /* v1 "tasks" files, open for writing */
  size_t n_tasks;
  size_t memory_at;             /* index in tasks of the v1 memory hierarchy, or SIZE_MAX */
  int memory_home;              /* the runtime's own v1 memory "tasks", or -1 */
} cgroup_join;

/* Nothing open (what cgroup_join_close leaves). */
void cgroup_join_init (cgroup_join *j);
/* Parent: open what the child needs; j->usable false means "use cgroup_enter".
   MEMORY_HAND_OFF: the runtime's own memory "tasks" too (memory_home), for the exec
   stub.  Only where the container's processes cannot reach the child's fds (a user
   namespace between us, or no CAP_SYS_PTRACE in their bounding set): one could
   otherwise move itself into the runtime's memory cgroup through it. */
void cgroup_join_prepare (const cgroup_manager *m, bool memory_hand_off, cgroup_join *j);
/* Child, first thing after the clone: join every v1 hierarchy, closing every file of J
   (the child's copy; J itself is only read) but two kept for the exec stub's hand-off:
   *MEMORY_HOME (j->memory_home) and *MEMORY (the container's memory "tasks"), else both
   -1. */
int cgroup_join_self (const cgroup_join *j, int *memory_home, int *memory, ocisbx_err **err);
void cgroup_join_close (cgroup_join *j);

#endif
