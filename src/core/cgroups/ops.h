/* Container-level cgroup operations behind `pause`, `resume`, `ps`, `update` and
   `events`: each opens the container's state under --root, checks its status and
   works on the cgroups recorded there. */
#ifndef OCISBX_CGROUPS_OPS_H
#define OCISBX_CGROUPS_OPS_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/cgroups/cgroups.h"
#include "ocispec.h"

/* Freeze (PAUSE) or thaw a container: pause needs it running, resume paused. */
int cgops_pause (const char *root, const char *id, bool pause, ocisbx_err **err);
/* The pids of every process in the container's cgroup (and sub-cgroups). */
int cgops_pids (const char *root, const char *id, pid_t **pids, size_t *n, ocisbx_err **err);
/* Apply RES to a created, running or paused container. */
int cgops_update (const char *root, const char *id, const oci_resources *res, ocisbx_err **err);

/* An open handle for `events`: the cgroup manager, and whether the container lives. */
typedef struct cgops_container cgops_container;
int cgops_open (const char *root, const char *id, cgops_container **out, ocisbx_err **err);
cgroup_manager *cgops_manager (cgops_container *c);
/* False once the container's init has exited. */
bool cgops_alive (cgops_container *c);
void cgops_close (cgops_container *c);

/* Parse a resources JSON document (the `update --resources` format: a
   linux.resources object) into *OUT (free with cgops_resources_free). */
int cgops_resources_parse (const char *json, size_t len, oci_resources **out, void **owner, ocisbx_err **err);
void cgops_resources_free (void *owner);

#endif
