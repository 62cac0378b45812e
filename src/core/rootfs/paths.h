/* linux.maskedPaths and linux.readonlyPaths, applied after pivot_root inside the
 * new root: a masked file gets /dev/null bound on it (the container's /dev/null,
 * verified to be the char device 1:3), a masked directory an empty read-only tmpfs;
 * a read-only path is bound onto itself and remounted read-only (in one go with
 * open_tree + mount_setattr + move_mount where the kernel has them).  Paths that do
 * not exist are skipped.  Below a procfs or sysfs the runtime mounted, a path is
 * resolved through that mount's fd (rootfs.h: rootfs_pseudo), and a destination that
 * no longer leads to its mount is an error; the masks are mounted through fds.
 */
#ifndef OCISBX_PATHS_H
#define OCISBX_PATHS_H

#include "core/error.h"
#include "core/rootfs/rootfs.h"
#include "ocispec.h"

/* Every procfs/sysfs mount of P is still where it was mounted: its destination,
   resolved inside ROOTFD, leads to the root of that very mount (same file, same mount
   id). */
int paths_check_pseudo (const rootfs_pseudo *p, int rootfd, ocisbx_err **err);
/* A path below a mount of P resolves through that mount's fd (inside it), any other
   one inside ROOTFD. */
int paths_readonly (const oci_config *cfg, const rootfs_pseudo *p, int rootfd, ocisbx_err **err);
int paths_mask (const oci_config *cfg, const rootfs_pseudo *p, int rootfd, ocisbx_err **err);
/* Checks for rootfs_validate_config: every path absolute. */
int paths_validate (const oci_config *cfg, ocisbx_err **err);

#endif
