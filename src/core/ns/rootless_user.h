/* Rootless: containers for a caller without privileges on the host.
 *
 * A new user namespace gives the container's set-up the capabilities it needs inside
 * it (mounts, pivot_root); what the caller cannot do is either adapted elsewhere
 * (devices bound from the host: rootfs/device_nodes.c; sysfs/mqueue bound and devpts without gid=:
 * mounts.c; cgroups skipped with a warning: cgroups/unprivileged.c) or done here:
 *
 *   - the default --root: $XDG_RUNTIME_DIR/ocisbx, else /tmp/ocisbx-UID (0700, owned
 *     by the caller, never a symlink);
 *   - the id maps: a single mapping of the caller's own uid (gid) is written directly
 *     (with "deny" to setgroups before gid_map, as the kernel requires of an
 *     unprivileged writer); anything else goes through newuidmap/newgidmap, after
 *     checking each range against /etc/subuid and /etc/subgid so that a refused range
 *     is reported in terms of the config; a user namespace with no maps in the config
 *     gets the caller's own ids, mapped to 0 (idmap_default, root or not).
 */
#ifndef OCISBX_ROOTLESS_H
#define OCISBX_ROOTLESS_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

/* The caller's user namespace is not the initial one (its uid_map is not the identity
   over every id). */
bool rootless_in_userns (void);
/* --rootless auto: not root, or root of a user namespace (never fully privileged). */
bool rootless_auto (void);
/* The effective capability CAP (CAP_*) in the caller's user namespace. */
bool rootless_has_cap (int cap);

/* The default --root of a non-root caller (malloc'd in *OUT): XDG/ocisbx when XDG
   ($XDG_RUNTIME_DIR, may be NULL) is a directory of the caller's, else TMP/ocisbx-UID
   (TMP is "/tmp"); created 0700 when missing and checked to be a directory owned by
   the caller and not a symlink.  Root of a user namespace with $XDG_RUNTIME_DIR set
   (and $USER not "root") gets XDG/ocisbx too, as with runc.  *OUT is NULL otherwise:
   STATE_ROOT_DEFAULT applies. */
int rootless_default_root (const char *xdg, const char *tmp, char **out, ocisbx_err **err);

/* How the parent writes the maps of a new user namespace (idmap_prepare, before
   anything is created; idmap_write once the init exists). */
typedef struct idmap_plan
{
  bool uid_helper, gid_helper; /* through newuidmap / newgidmap */
  bool deny_setgroups;         /* "deny" to /proc/PID/setgroups before gid_map */
  char *newuidmap, *newgidmap; /* the helpers' paths, when used */
} idmap_plan;

/* A new user namespace whose config gives no uidMappings (gidMappings): both are
   OPTIONAL in the spec.  As crun does (without subordinate ids), the caller's own uid
   (gid) is mapped to 0, a single id; the missing array is filled in LX so that everything
   after (the plan, the writes, idmapped mounts) sees one config.  The process's user
   (PROC, may be NULL) must then be 0 in what was filled in: an error names the field. */
int idmap_default (oci_linux *lx, const oci_process *proc, ocisbx_err **err);
int idmap_prepare (const oci_linux *lx, idmap_plan *plan, ocisbx_err **err);
int idmap_write (pid_t pid, const oci_linux *lx, const idmap_plan *plan, ocisbx_err **err);
void idmap_plan_free (idmap_plan *plan);

/* Is every host id of MAPS (the config field FIELD, e.g. ".linux.uidMappings") either
   the caller's own ID (a mapping of size 1) or in a range of USER (name, or its number
   as text) in SUBID_FILE (/etc/subuid format)?  Errors name the first range that is not:
   `config.json: .linux.uidMappings[1]: range 100000-165535 is not in /etc/subuid for
   user "x"`. */
int idmap_check_subids (const char *subid_file, const char *user, unsigned own_id, const oci_id_mapping *maps,
                        size_t n, const char *field, ocisbx_err **err);

#endif
