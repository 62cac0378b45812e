/* The creation record of a container's cgroups: <root>/<id>/cgroups (STATE_CGROUPS).
 *
 * create writes it through cgroup_setup's record callback BEFORE it makes any cgroup
 * directory: the manager's cgroup_state as JSON (cgroup_serialize), each hierarchy's
 * CREATED being the number of levels of its path that did not exist yet.  It is rewritten only when
 * what was made differs from that plan (a level another create made meanwhile, a
 * hierarchy a rootless create could not write).  A create killed at any point thus
 * leaves either no cgroup at all or a record of every directory it may have made, kept
 * apart from state.json (which a kill or a disk fault may leave empty or cut), and a
 * later container with the same id never takes those directories for its own
 * pre-existing ones: delete removes them first.
 */
#ifndef OCISBX_CGROUP_RECORD_H
#define OCISBX_CGROUP_RECORD_H

#include "core/error.h"

/* cgroup_config.record: write SERIALIZED atomically into the state dir (*(int *) DIRFD). */
int cgroup_record_write (void *dirfd, const char *serialized, ocisbx_err **err);

/* Kill every process in the cgroups the record of the state dir DIRFD names (when the
   create got as far as writing a state.json: before that no process of the container
   ran) and remove the levels recorded as created; pre-existing ones stay.  No record:
   nothing was created, 0.  The caller holds the container's lock. */
int container_cgroups_cleanup_at (int dirfd, ocisbx_err **err);

/* The same from the --root (NULL: the default) and the container id alone, for a state
   dir whose state.json is unreadable.  Does not lock: the caller holds the lock of
   <root>/<id> (state_dir_open with LOCK_EX), as delete does. */
int container_cgroups_cleanup (const char *root, const char *id, ocisbx_err **err);

#endif
