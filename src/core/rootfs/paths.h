/* linux.maskedPaths and linux.readonlyPaths, applied after pivot_root inside the
 * new root: a masked file gets /dev/null bound on it (the container's /dev/null,
 * verified to be the char device 1:3), a masked directory an empty read-only tmpfs;
 * a read-only path is bound onto itself and remounted read-only (in one go with
 * open_tree + mount_setattr + move_mount where the kernel has them).  Paths that do
 * not exist are skipped.  /proc/self/fd is checked once per call, not per mount.
 */
#ifndef OCISBX_PATHS_H
#define OCISBX_PATHS_H

#include "core/error.h"
#include "ocispec.h"

int paths_readonly (const oci_config *cfg, int rootfd, ocisbx_err **err);
int paths_mask (const oci_config *cfg, int rootfd, ocisbx_err **err);
/* Checks for rootfs_validate_config: every path absolute. */
int paths_validate (const oci_config *cfg, ocisbx_err **err);

#endif
