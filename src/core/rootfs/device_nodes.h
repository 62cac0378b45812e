/* /dev in the container: the default devices (null zero full random urandom tty)
 * and links unless /dev is a bind mount (a tmpfs /dev, or the rootfs's own /dev
 * directory, as runc), linux.devices, and the console.  With a user
 * namespace, device nodes cannot be created there: the runtime makes linux.devices'
 * (devices_runtime_node, when it lends its privileges) and the container binds them;
 * otherwise the host's are bind-mounted.
 */
#ifndef OCISBX_DEVICES_H
#define OCISBX_DEVICES_H

#include "core/error.h"
#include "core/rootfs/rootfs.h"

/* Everything above, into ROOTFD (the rootfs, after the config mounts). */
int devices_setup (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err);

/* Bind the pty slave CONSOLE_FD (verified to be a pts) over the rootfs's /dev/console:
   a regular file or character device there, or an empty file made, never a symlink's
   target, nothing on procfs or sysfs. */
int devices_setup_console (int rootfd, int console_fd, ocisbx_err **err);

/* Parent, for an init in a user namespace (PID) that cannot mknod: linux.devices[INDEX]
   made on a tmpfs of the runtime's, with its fileMode and its uid/gid (mapped to the
   host's by PID's maps), and returned as a detached bind of that node alone, nosuid and
   noexec.  On an older kernel (no clone of a detached mount): the host's node instead. */
int devices_runtime_node (const oci_config *cfg, size_t index, pid_t pid, ocisbx_err **err);

/* Checks for rootfs_validate_config: .linux.devices[i] (path absolute, type c b u p). */
int devices_validate (const oci_config *cfg, ocisbx_err **err);

#endif
