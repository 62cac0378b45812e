/* cgroups: one interface over v1, v2 and the hybrid layout.
 *
 * Parent side of create:   cgroup_setup () before the child runs user code, then
 *                          cgroup_enter (pid) while the child waits on the sync channel.
 * The manager serializes to a string kept in the container's state, so that later
 * commands (kill --all, pause, ps, update, delete) find the same cgroups.
 */
#ifndef OCISBX_CGROUPS_H
#define OCISBX_CGROUPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "../error.h"
#include "ocispec.h"

typedef struct cgroup_manager cgroup_manager;

typedef struct cgroup_config
{
  const char *fs_root;      /* hierarchy root, normally "/sys/fs/cgroup" (tests pass a temp dir) */
  const char *id;           /* container id (default path /ocisbx/<id>) */
  const char *cgroups_path; /* linux.cgroupsPath, may be NULL */
  bool systemd;             /* --systemd-cgroup: "slice:prefix:name" */
  const oci_resources *resources; /* may be NULL */
} cgroup_config;

/* Detect the layout, create the cgroups, apply the resources. */
int cgroup_setup (const cgroup_config *cc, cgroup_manager **out, ocisbx_err **err);
/* Move PID into every hierarchy's cgroup. */
int cgroup_enter (cgroup_manager *m, pid_t pid, ocisbx_err **err);
/* The path (relative to each hierarchy root) of the container's cgroup, e.g. "/ocisbx/abc". */
const char *cgroup_path (const cgroup_manager *m);
/* Serialize for the state file / load it back. */
char *cgroup_serialize (const cgroup_manager *m);
int cgroup_load (const char *fs_root, const char *serialized, cgroup_manager **out, ocisbx_err **err);
/* Remove the cgroups it created (killing leftovers, retrying on EBUSY). */
int cgroup_destroy (cgroup_manager *m, ocisbx_err **err);
void cgroup_manager_free (cgroup_manager *m);

/* Running containers. */
int cgroup_pids (cgroup_manager *m, pid_t **pids, size_t *n, ocisbx_err **err);
int cgroup_kill_all (cgroup_manager *m, int sig, ocisbx_err **err);
int cgroup_freeze (cgroup_manager *m, bool freeze, ocisbx_err **err);
int cgroup_is_frozen (cgroup_manager *m, bool *frozen, ocisbx_err **err);
int cgroup_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err);

#endif
