/* The config's mounts, in order, into the rootfs; every target is an O_PATH fd
 * resolved inside the rootfs (pathres.h), mounted onto as /proc/self/fd/N, or through
 * the fd itself with the new mount API when no procfs is at /proc.  Also the mount
 * primitives the other files of rootfs/ share (mount_prim.c), and the cgroup
 * (mounts_cgroup.c), idmapped (mounts_idmap.c) and tmpcopyup (mounts_copyup.c) mounts.
 */
#ifndef OCISBX_MOUNTS_H
#define OCISBX_MOUNTS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/mount.h>

#include "core/error.h"
#include "core/rootfs/mount_options.h"
#include "core/rootfs/rootfs.h"

/* New mount API constants for older headers. */
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#define MOUNT_ATTR_NOSUID 0x00000002
#define MOUNT_ATTR_NODEV 0x00000004
#define MOUNT_ATTR_NOEXEC 0x00000008
#define MOUNT_ATTR__ATIME 0x00000070
#define MOUNT_ATTR_RELATIME 0x00000000
#define MOUNT_ATTR_NOATIME 0x00000010
#define MOUNT_ATTR_STRICTATIME 0x00000020
#define MOUNT_ATTR_NODIRATIME 0x00000080
#endif
#ifndef MOUNT_ATTR_IDMAP
#define MOUNT_ATTR_IDMAP 0x00100000
#endif
#ifndef MOUNT_ATTR_NOSYMFOLLOW
#define MOUNT_ATTR_NOSYMFOLLOW 0x00200000
#endif
#ifndef MS_NOSYMFOLLOW
#define MS_NOSYMFOLLOW 256
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif

/* The per-mount flags a bind remount can change; the atime modes among them. */
#define MS_PER_MOUNT                                                                               \
  (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME        \
   | MS_STRICTATIME | MS_NOSYMFOLLOW)
#define MS_ATIME_MODES (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

/* Mount every cfg->mounts[i] into ROOTFD (the rootfs, already bound onto itself). */
int mounts_setup (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err);
/* After pivot_root (ROOTFD is "/"): the read-only tmpfs mounts and a read-only /dev,
   mounted writable by mounts_setup, become read-only. */
int mounts_finalize (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err);
/* Parent: the options of each of CFG's mounts parsed, once (rootfs_ctx.mount_opts);
   cfg->mounts_len of them, freed by mounts_free_options. */
mount_opts *mounts_parse_options (const oci_config *cfg);
void mounts_free_options (mount_opts *all, size_t n);

/* Is /proc/self/fd there to name fds in mount(2)?  (Not after pivot_root into a
   rootfs without /proc: the primitives below then use the new mount API.) */
bool mount_procfd_usable (void);
/* Bind SRCFD (any O_PATH fd) onto DSTFD; MS_REC in FLAGS for a recursive bind. */
int mount_bind_fd (int srcfd, int dstfd, unsigned long flags, const char *what, ocisbx_err **err);
/* The same when the caller already knows the answer of mount_procfd_usable ()
   (ROOTFS_PROCFD_UNKNOWN: ask it, as mount_bind_fd does). */
int mount_bind_fd_known (rootfs_procfd procfd, int srcfd, int dstfd, unsigned long flags,
                         const char *what, ocisbx_err **err);
/* Remount the mount whose root is FD as a bind with the per-mount flags SET, keeping
   the flags it already has (nosuid nodev noexec, the atime mode unless ATIME_SET) except
   those in CLEARED: a read-only bind stays possible in a user namespace, where the
   kernel locks those flags. */
int mount_remount_bind (int fd, unsigned long set, unsigned long cleared, bool atime_set,
                        const char *what, ocisbx_err **err);
/* A tmpfs (FLAGS: MS_RDONLY ...; MODE "0755") on DSTFD; PROCFD as for mount_bind_fd_known. */
int mount_tmpfs_fd (rootfs_procfd procfd, int dstfd, unsigned long flags, const char *mode,
                    const char *what, ocisbx_err **err);
/* The mount_setattr attributes that make a mount's per-mount flags SET, clear CLEARED
   and keep the others (the atime mode too unless SET has one or ATIME_SET), as
   mount_remount_bind does. */
void mount_attrs_of (unsigned long set, unsigned long cleared, bool atime_set, uint64_t *attr_set,
                     uint64_t *attr_clr);
/* MS_RDONLY... -> MOUNT_ATTR_RDONLY... (per-mount flags only, atime aside). */
uint64_t mount_ms_to_attr (unsigned long ms);
/* statvfs's f_flag (ST_RDONLY...) -> the MS_* per-mount flags, an atime mode included. */
unsigned long mount_flags_of_statvfs (unsigned long f_flag);
/* A bind in one go: a detached copy of SRCFD's tree (open_tree), its top mount given
   ATTR_SET/ATTR_CLR when SET_ATTRS (mount_setattr, as a remount would), attached on
   DST.  Not with a shared rootfsPropagation: there the bind's copies in the peers keep
   their flags, and only a remount of our mount changes them.  -1 when not possible
   here (old kernel, ...): nothing is attached then, and the caller binds and
   remounts, which reports the errors. */
int mount_tree_with_attrs (const oci_config *cfg, int srcfd, int dst, bool set_attrs, uint64_t attr_set,
                           uint64_t attr_clr);
/* mount_setattr on FD (with AT_RECURSIVE when RECURSIVE). */
int mount_setattr_fd (int fd, uint64_t set, uint64_t clr, bool recursive, const char *what,
                      ocisbx_err **err);
/* The MS_* propagation flag(s) of a name ("rprivate" -> MS_PRIVATE|MS_REC), 0 if unknown. */
unsigned long mount_propagation_flags (const char *name);
/* Is M's destination DEST once cleaned ("/dev/" and "//dev" are "/dev")? */
bool mounts_dest_is (const oci_mount *m, const char *dest);
/* A bind mount: type "bind", or a "bind"/"rbind" option. */
bool mount_is_bind (const oci_mount *m);

/* cgroup mounts (mounts_cgroup.c). */
int mount_cgroup (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, const mount_opts *o,
                  int dstfd, ocisbx_err **err);
/* idmapped bind (mounts_idmap.c): clone SRCFD's tree, idmap it, attach it on DSTFD. */
/* Whether M asks for an idmapped bind (idmap/ridmap, or its own mappings). */
bool mount_wants_idmap (const oci_mount *m);
/* Parent, for an init in a user namespace, from inside its mount namespace: the bind
   source of mounts[INDEX] opened with the runtime's privileges when the init could not
   open it (CHILD_FD -1; a host path, never one in ROOTFS, the container's to open), or
   an idmapped copy of the tree of the source (CHILD_FD, or the one opened here), which
   only a process with CAP_SYS_ADMIN in the initial user namespace can make. */
int mounts_runtime_source (const rootfs_ctx *ctx, size_t index, int child_fd, ocisbx_err **err);
int mount_idmapped (const rootfs_ctx *ctx, const oci_mount *m, const mount_opts *o, int srcfd,
                    int dstfd, ocisbx_err **err);

/* May a mount of TYPE (NULL for a bind) go at CLEAN_DEST?  Under /proc only a few
   lxcfs-style files are allowed, and /proc itself only for type proc or a bind (of the
   root of a procfs: the host's /proc with the host's pid namespace, rootless) (rootfs.c). */
bool rootfs_proc_dest_allowed (const char *clean_dest, const char *type);

/* tmpcopyup (mounts_copyup.c): copy the tree under LOWER (the covered directory) into
   UPPER (the new tmpfs's root); DATA is the tmpfs's data (its mode= uid= gid= win). */
int mount_copyup (int lower, int upper, const char *data, ocisbx_err **err);

#endif
