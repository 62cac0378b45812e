/* Namespaces of the container init: which are new, which are joined, and how.
 *
 * One clone creates the init.  New namespaces come from the clone flags, except
 *   - cgroup: unshared by the child once the parent has put it in its cgroup, so the
 *     namespace is rooted at the container's cgroup;
 *   - time: the parent unshares it (a new time namespace is entered by the children
 *     of the unsharer), writes timeOffsets to /proc/self/timens_offsets, clones,
 *     and returns to its own.
 * Joined namespaces (linux.namespaces[].path) are opened and checked (NS_GET_NSTYPE)
 * by the parent before anything is created.  Without a joined user namespace the
 * parent enters them around the clone and returns to its own right after, so the
 * init starts in them (a new user namespace from the clone flags would otherwise
 * forbid joining namespaces owned by the host's).  With a joined user namespace the
 * child joins: user first, then the rest (ns_join), then unshares the new ones.
 * `exec` joins the namespaces of a running init through its pidfd (exec_child.c).
 * The order of joining and the setns calls themselves: nsjoin.h.
 */
#ifndef OCISBX_NAMESPACES_H
#define OCISBX_NAMESPACES_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/ns/nsjoin.h"
#include "ocispec.h"

typedef struct ns_plan
{
  int new_flags; /* every namespace the container gets anew (CLONE_NEW*) */
  ns_join_entry joins[NS_MAX]; /* user first */
  size_t n_joins;
  bool join_user; /* a user namespace is joined: the child joins and unshares */
  const oci_time_offset *time_offsets;
  size_t time_offsets_len;
} ns_plan;

/* Parent, before anything is created: validate linux.namespaces (types, duplicates,
   paths of the right type) and open the joined ones.  Errors name the field. */
int ns_prepare (const oci_linux *lx, ns_plan *plan, ocisbx_err **err);
void ns_plan_close (ns_plan *plan);
/* True when PLAN joins a namespace of FLAG that is the runtime's own (the same nsfs
   inode as /proc/self/ns/<name>): the host's, to the container.  True as well when that
   cannot be told (the runtime's own cannot be looked at). */
bool ns_plan_joins_own (const ns_plan *plan, int flag);

/* Parent, around the clone: enter the joined namespaces (when the child does not)
   and a new time namespace; ns_leave returns to the runtime's own. */
typedef struct ns_saved
{
  int flags[NS_MAX];
  int fds[NS_MAX];
  size_t n;
  int cwd;
} ns_saved;
int ns_enter_for_clone (const ns_plan *plan, ns_saved *saved, ocisbx_err **err);
/* Parent: enter the mount namespace of the process PIDFD (or PID); ns_leave returns. */
int ns_enter_mount_of (int pidfd, pid_t pid, ns_saved *saved, ocisbx_err **err);
int ns_leave (ns_saved *saved, ocisbx_err **err);

/* The clone flags for the init. */
int ns_clone_flags (const ns_plan *plan);
/* clone3 (fork-like: the child returns 0) with FLAGS; *PIDFD gets a pidfd when not NULL;
   CGROUP_FD >= 0: CLONE_INTO_CGROUP that cgroup2 directory. */
pid_t ns_clone (int flags, int cgroup_fd, int *pidfd, ocisbx_err **err);

/* Child: with a joined user namespace, join everything (user first), then unshare the
   new namespaces the clone could not give (not pid: see container.c). */
int ns_join (const ns_plan *plan, ocisbx_err **err);

/* Child, in its new network namespace: the loopback interface up (as runc and crun). */
int ns_loopback_up (ocisbx_err **err);

/* Parent: write /proc/PID/{uid,gid}_map; DENY_SETGROUPS writes "deny" to setgroups first. */
int ns_write_id_maps (pid_t pid, const oci_id_mapping *uids, size_t n_uids, const oci_id_mapping *gids,
                      size_t n_gids, bool deny_setgroups, ocisbx_err **err);

/* Parent: ID of PID's user namespace as the host sees it, by /proc/PID/FILE ("uid_map" or
   "gid_map"): 1 and *HOST set, 0 when ID is not mapped there, -1 on error. */
int ns_id_to_host (pid_t pid, const char *file, uint32_t id, uint32_t *host, ocisbx_err **err);

#endif
