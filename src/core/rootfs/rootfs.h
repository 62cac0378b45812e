/* The container's filesystem, in three steps called by container_init.c in the init
 * (already in its new mount namespace, and its user namespace when there is one):
 *
 *   rootfs_setup ()    propagation of "/", bind the rootfs onto itself (or mount the
 *                      overlay whose lower layer it is: overlay.c), every config
 *                      mount in order (destinations resolved inside the rootfs), /dev:
 *                      the default devices and links, linux.devices
 *   -- createRuntime/createContainer hooks run here (before pivot_root) --
 *   rootfs_pivot ()    pivot_root into the rootfs (or, with no_pivot, the host's procfs and
 *                      sysfs detached, MS_MOVE + chroot), chdir /
 *   -- container_init.c binds the console (devices_setup_console) and makes the cwd --
 *   rootfs_finalize () linux.sysctl (sysctl.h), read-only paths, masked paths, the
 *                      read-only tmpfs and /dev mounts (writable until now),
 *                      root.readonly, rootfsPropagation
 *
 * Every mount, pivot_root and mknod goes through the syscall seam (core/syscalls.h):
 * tests/unit/test_rootfs_calls.c records the calls of these steps for a few configs.
 */
#ifndef OCISBX_ROOTFS_H
#define OCISBX_ROOTFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

/* Can mount(2) name fds as /proc/self/fd/N (a real procfs at /proc)?  Asked once per
   step by rootfs.c; UNKNOWN (0) makes each mount ask. */
typedef enum rootfs_procfd
{
  ROOTFS_PROCFD_UNKNOWN = 0,
  ROOTFS_PROCFD_USABLE,
  ROOTFS_PROCFD_UNUSABLE,
} rootfs_procfd;

/* The procfs and sysfs mounts rootfs_setup made: each one's destination (cleaned) and an
   O_PATH fd of the root of the mount, checked (fstatfs) to be a procfs/sysfs when it was
   opened.  rootfs_finalize resolves the masked and read-only paths below a destination
   through its fd, never by name through the rootfs, which another container sharing it
   may change (a symlink in place of /proc: CVE-2019-19921, CVE-2023-27561), and fails
   when the destination no longer leads to that mount (paths.c). */
#define ROOTFS_PSEUDO_MAX 8
typedef struct rootfs_pseudo_mount
{
  char *dest;
  int fd;
  long magic; /* PROC_SUPER_MAGIC, SYSFS_MAGIC */
} rootfs_pseudo_mount;

typedef struct rootfs_pseudo
{
  size_t n;
  rootfs_pseudo_mount m[ROOTFS_PSEUDO_MAX];
} rootfs_pseudo;

/* Closes the fds and frees the destinations (rootfs_finalize does it when done). */
void rootfs_pseudo_clear (rootfs_pseudo *p);
/* The rootfs as an overlay's lower layer (overlay.c): config.json's annotation, whose
   value is "ephemeral" (upper on a tmpfs of the container's mount namespace) or an
   absolute directory that keeps it (DIR/upper, DIR/work, DIR/lower). */
#define ROOTFS_OVERLAY_ANNOTATION "io.github.ocisbx.rootfs.overlay"

typedef enum rootfs_overlay_kind
{
  ROOTFS_OVERLAY_NONE = 0,
  ROOTFS_OVERLAY_EPHEMERAL,
  ROOTFS_OVERLAY_KEPT,
} rootfs_overlay_kind;

typedef struct rootfs_ctx
{
  const oci_config *cfg;
  const char *rootfs;      /* absolute host path of root.path */
  const char *bundle;      /* absolute bundle path (relative mount sources are under it) */
  bool userns;             /* new user namespace: bind device nodes instead of mknod */
  bool no_pivot;           /* --no-pivot */
  bool new_cgroupns;       /* the container has its own cgroup namespace */
  const char *cgroup_path; /* the container's cgroup path (relative to hierarchy roots), for cgroup mounts */
  const struct cgroup_manager *cgroup; /* when set, the per-hierarchy paths come from it */
  rootfs_overlay_kind overlay; /* the rootfs as an overlay's lower layer */
  const char *overlay_dir; /* ROOTFS_OVERLAY_KEPT: the checked DIR (rootfs_overlay_prepare) */
  rootfs_procfd procfd;    /* set by rootfs_setup for the mounts it makes; leave it 0 */
  rootfs_pseudo *pseudo;   /* required by rootfs_setup: filled by it, used and cleared by
                              rootfs_finalize (the caller's, zeroed; the init's own) */
  const struct mount_opts *mount_opts; /* required: cfg->mounts' options, parsed by the
                                          parent (mounts.h: mounts_parse_options) */
  /* In a user namespace, when the runtime lends its privileges: asks it for mounts[INDEX]'s
     bind source, or the rootfs (ROOTFS_SOURCE), when the container cannot open it (FD
     -1), or for an idmapped copy of FD's tree (mounts_runtime_source), or for a device
     node (DEVICE_SOURCE), and returns the fd it sent; NULL otherwise. */
  int (*runtime_source) (void *arg, size_t index, int fd, ocisbx_err **err);
  void *runtime_source_arg;
} rootfs_ctx;

/* runtime_source's INDEX for the rootfs itself (rootfs_setup binds it onto itself). */
#define ROOTFS_SOURCE ((size_t) -1)
/* runtime_source's INDEX for linux.devices[I]'s node (devices_runtime_node); on the
   sync channel an int32, negative as ROOTFS_SOURCE: mounts' indexes stay apart. */
#define DEVICE_SOURCE(i) ((size_t) -2 - (i))
#define DEVICE_SOURCE_INDEX(src) ((size_t) -2 - (src))
#define IS_DEVICE_SOURCE(src) ((src) != ROOTFS_SOURCE && (src) > (size_t) INT32_MAX)

/* runtime-spec 1.3: a mount's relative destination is relative to "/": made absolute
   in CFG ("tmp" -> "/tmp"), before rootfs_validate_config and everything after it. */
void rootfs_absolute_destinations (oci_config *cfg);

/* In the parent, before anything is created: mount destinations, options and
   mappings, rootfsPropagation, devices, masked/read-only paths, sysctl keys.  Errors
   name the field: `config.json: .mounts[2].destination: "tmp" is not an absolute path`. */
int rootfs_validate_config (const oci_config *cfg, ocisbx_err **err);

/* The annotation's value (in the parent): *KIND, and *DIR (pointing into ANNOTATIONS)
   for a kept upper; an error names the annotation. */
int rootfs_overlay_parse (const struct ocispec_map *annotations, rootfs_overlay_kind *kind, const char **dir,
                          ocisbx_err **err);
/* A kept upper's DIR, in the parent before anything else is made: created if missing,
   outside ROOTFS, empty (upper/, work/ and lower are made) or a previous upper of the
   same ROOTFS; *REAL_DIR its resolved path (malloc'd).  UID and GID: the host ids of
   the container's root in its new user namespace ((uid_t) -1: none), given upper/ and
   work/ (overlayfs writes them as the mounter, the init; where it cannot write work/ it
   comes up read-only); a previous upper must be theirs.  *MADE: what was made
   (ROOTFS_OVERLAY_MADE_*), for rootfs_overlay_unmake; nothing is left on an error. */
#define ROOTFS_OVERLAY_MADE_DIR 1    /* DIR itself */
#define ROOTFS_OVERLAY_MADE_LAYOUT 2 /* upper/, work/, lower */
int rootfs_overlay_prepare (const char *dir, const char *rootfs, uid_t uid, gid_t gid, char **real_dir, int *made,
                            ocisbx_err **err);
/* After a failed create: what rootfs_overlay_prepare made (MADE) removed from REAL_DIR,
   as long as nothing was written to the upper (empty directories only). */
void rootfs_overlay_unmake (const char *real_dir, int made);
/* In the init, in place of the rootfs bound onto itself: the overlay of LOWERFD (the
   rootfs) mounted onto ctx->rootfs; returns its fd. */
int rootfs_overlay_mount (const rootfs_ctx *ctx, int lowerfd, ocisbx_err **err);

/* Ephemeral runs on a btrfs subvolume (snapshot.c), in the parent.  Why ROOTFS cannot
   be snapshotted (malloc'd; NULL: it can): not a subvolume, or, without CAP_SYS_ADMIN,
   not the user's, or a snapshot delete could not remove (LX's uid mappings, NEW_USERNS:
   the container has a new user namespace). */
char *rootfs_snapshot_unusable (const char *rootfs, const oci_linux *lx, bool new_userns);
/* Without CAP_SYS_ADMIN (snapshot_user.c): the mount of DIRFD has the option
   user_subvol_rm_allowed; the snapshot NAME in DIRFD (PATH, for messages) emptied and
   removed with rmdir. */
bool rootfs_snapshot_user_rm_allowed (int dirfd);
int rootfs_snapshot_user_remove (int dirfd, const char *name, const char *path, ocisbx_err **err);
/* A snapshot of ROOTFS beside it (".NAME.ocisbx-ID"), its path recorded first in the
   state dir STATE_DIRFD (ROOTFS_SNAPSHOT_RECORD); *SNAPSHOT its path (malloc'd). */
#define ROOTFS_SNAPSHOT_RECORD "snapshot"
int rootfs_snapshot_create (int state_dirfd, const char *rootfs, const char *id, char **snapshot,
                            ocisbx_err **err);
/* The recorded snapshot destroyed and its record removed (none: 0).  Its processes
   must be gone. */
int rootfs_snapshot_cleanup_at (int state_dirfd, ocisbx_err **err);

/* Without a new mount namespace (the runtime's own, or one joined by path) the root is
   still built in a private one: rootfs_setup_ns_enter keeps the shared namespace in
   *SHARED_NS and unshares; after rootfs_finalize, rootfs_setup_ns_leave takes a
   detached copy of the finished root (open_tree), returns to SHARED_NS and chroots
   into the copy.  Nothing is ever attached in the shared namespace (nothing to leave
   behind), and no ".." leads out of a detached root. */
int rootfs_setup_ns_enter (int *shared_ns, ocisbx_err **err);
int rootfs_setup_ns_leave (int shared_ns, ocisbx_err **err);

/* *ROOTFD: an O_PATH fd of the rootfs bound onto itself, for rootfs_pivot. */
int rootfs_setup (const rootfs_ctx *ctx, int *rootfd, ocisbx_err **err);
int rootfs_pivot (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err);
int rootfs_finalize (const rootfs_ctx *ctx, ocisbx_err **err);

#endif
