/* Ephemeral runs on btrfs: when the rootfs is a btrfs subvolume, an ephemeral run
 * (io.github.ocisbx.rootfs.overlay "ephemeral") works on a snapshot of it, made by the
 * parent with BTRFS_IOC_SNAP_CREATE_V2 (no btrfs-progs) beside the rootfs as
 * ".NAME.ocisbx-ID", and destroyed (BTRFS_IOC_SNAP_DESTROY) when the container is
 * deleted.  Its path is recorded in the state dir (ROOTFS_SNAPSHOT_RECORD) before the
 * snapshot is made, so that a create or run killed at any point leaves nothing delete
 * cannot find.  Without CAP_SYS_ADMIN, see snapshot_user.c for what the kernel allows
 * (a snapshot of the user's own subvolume; removed with BTRFS_IOC_SNAP_DESTROY under the
 * mount option user_subvol_rm_allowed, else emptied and removed with rmdir).  Elsewhere
 * (not a subvolume, a snapshot delete could not remove) the run falls back to the tmpfs
 * overlay (overlay.c) and --debug says why.
 */
#include <config.h>
#include "core/rootfs/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "core/ns/rootless_user.h"
#include "core/rootfs/pathres.h"
#include "core/utils.h"

/* The inode number of a subvolume's root directory (BTRFS_FIRST_FREE_OBJECTID). */
#define SUBVOL_ROOT_INO 256
#define SNAPSHOT_MARK ".ocisbx-"

static bool
is_subvolume (int fd)
{
  struct statfs sfs;
  struct stat st;

  return fstatfs (fd, &sfs) == 0 && sfs.f_type == BTRFS_SUPER_MAGIC && fstat (fd, &st) == 0
         && st.st_ino == SUBVOL_ROOT_INO && S_ISDIR (st.st_mode);
}

/* Every file the container can make is the user's: a new user namespace whose uids
   are the user alone. */
static bool
files_all_users (const oci_linux *lx, bool new_userns)
{
  return new_userns && lx && lx->uid_mappings_len == 1 && lx->uid_mappings[0].host_id == geteuid ()
         && lx->uid_mappings[0].size == 1;
}

char *
rootfs_snapshot_unusable (const char *rootfs, const oci_linux *lx, bool new_userns)
{
  cleanup_close int fd = open (rootfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int parentfd = -1;
  cleanup_free char *parent = NULL;
  cleanup_free char *base = NULL;
  struct stat st;

  if (fd < 0 || !is_subvolume (fd))
    return xstrdup ("the rootfs is not a btrfs subvolume");
  if (!rootless_in_userns () && rootless_has_cap (CAP_SYS_ADMIN))
    return NULL;
  /* without CAP_SYS_ADMIN (snapshot_user.c) */
  if (fstat (fd, &st) < 0 || st.st_uid != geteuid ())
    return xasprintf ("the btrfs subvolume is uid %u's: without CAP_SYS_ADMIN only its owner may snapshot it",
                      (unsigned) st.st_uid);
  pathres_split (rootfs, &parent, &base);
  parentfd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parentfd < 0 || faccessat (parentfd, ".", W_OK | X_OK, AT_EACCESS) < 0)
    return xasprintf ("the user cannot write `%s`, where the btrfs snapshot would be made", parent);
  if (rootfs_snapshot_user_rm_allowed (parentfd) || files_all_users (lx, new_userns))
    return NULL;
  return xstrdup ("deleting a btrfs snapshot later needs CAP_SYS_ADMIN, the mount option user_subvol_rm_allowed, "
                  "or a container whose files are all the user's (.linux.uidMappings the user alone: the "
                  "snapshot is then emptied and removed with rmdir)");
}

int
rootfs_snapshot_create (int state_dirfd, const char *rootfs, const char *id, char **snapshot, ocisbx_err **err)
{
  cleanup_free char *parent = NULL;
  cleanup_free char *base = NULL;
  cleanup_free char *name = NULL;
  cleanup_free char *path = NULL;
  cleanup_free char *line = NULL;
  cleanup_close int src = open (rootfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int dir = -1;
  struct btrfs_ioctl_vol_args_v2 args = { 0 };

  *snapshot = NULL;
  pathres_split (rootfs, &parent, &base);
  name = xasprintf (".%s%s%s", base, SNAPSHOT_MARK, id);
  if (strlen (name) > BTRFS_SUBVOL_NAME_MAX)
    return err_set (err, ENAMETOOLONG, "btrfs snapshot `%s/%s`", parent, name);
  path = xasprintf ("%s/%s", strcmp (parent, "/") == 0 ? "" : parent, name);
  dir = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (src < 0 || dir < 0)
    return err_set (err, errno, "btrfs snapshot of `%s`: open it and `%s`", rootfs, parent);
  /* recorded first: from now on delete finds it */
  line = xasprintf ("%s\n", path);
  if (write_file_atomic_at (state_dirfd, ROOTFS_SNAPSHOT_RECORD, line, strlen (line), 0600, err) < 0)
    return err_wrap (err, "btrfs snapshot record");
  args.fd = src;
  memcpy (args.name, name, strlen (name) + 1);
  if (ioctl (dir, BTRFS_IOC_SNAP_CREATE_V2, &args) < 0)
    {
      int e = errno;
      unlinkat (state_dirfd, ROOTFS_SNAPSHOT_RECORD, 0);
      return err_set (err, e, "btrfs snapshot of `%s` as `%s` (BTRFS_IOC_SNAP_CREATE_V2)", rootfs, path);
    }
  *snapshot = path;
  path = NULL;
  return 0;
}

/* Destroy the snapshot PATH (its name ours): EBUSY while the last mount of it in the
   container's mount namespace is being released, so retried for a while. */
static int
destroy (const char *path, ocisbx_err **err)
{
  cleanup_free char *parent = NULL;
  cleanup_free char *base = NULL;
  cleanup_close int dir = -1;
  cleanup_close int snap = -1;
  struct btrfs_ioctl_vol_args args = { 0 };
  long deadline = monotonic_ms () + 5000;

  pathres_split (path, &parent, &base);
  if (strstr (base, SNAPSHOT_MARK) == NULL || base[0] != '.' || strlen (base) > BTRFS_PATH_NAME_MAX)
    return err_set (err, EINVAL, "btrfs snapshot record: `%s` is not a snapshot of ours", path);
  dir = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return errno == ENOENT ? 0 : err_set (err, errno, "btrfs snapshot `%s`: open `%s`", path, parent);
  snap = openat (dir, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (snap < 0)
    return errno == ENOENT ? 0 : err_set (err, errno, "btrfs snapshot `%s`", path);
  if (!is_subvolume (snap))
    return err_set (err, EINVAL, "btrfs snapshot record: `%s` is not a btrfs subvolume", path);
  close_fd (&snap);
  memcpy (args.name, base, strlen (base) + 1);
  while (ioctl (dir, BTRFS_IOC_SNAP_DESTROY, &args) < 0)
    {
      struct timespec ts = { 0, 20 * 1000 * 1000 };
      /* no CAP_SYS_ADMIN, no user_subvol_rm_allowed (or no write access to its root) */
      if (errno == EPERM || errno == EACCES)
        return rootfs_snapshot_user_remove (dir, base, path, err);
      if (errno != EBUSY || monotonic_ms () > deadline)
        return err_set (err, errno, "destroy the btrfs snapshot `%s` (BTRFS_IOC_SNAP_DESTROY)", path);
      nanosleep (&ts, NULL);
    }
  return 0;
}

int
rootfs_snapshot_cleanup_at (int state_dirfd, ocisbx_err **err)
{
  cleanup_free char *line = NULL;
  cleanup_err ocisbx_err *e = NULL;
  size_t len = 0;

  if (read_file_at (state_dirfd, ROOTFS_SNAPSHOT_RECORD, &line, &len, &e) < 0)
    return e->errnum == ENOENT ? 0 : err_set (err, e->errnum, "%s", e->msg);
  if (len == 0 || line[len - 1] != '\n' || line[0] != '/')
    return err_set (err, EINVAL, "the btrfs snapshot record is cut");
  line[len - 1] = '\0';
  if (destroy (line, err) < 0)
    return -1;
  if (unlinkat (state_dirfd, ROOTFS_SNAPSHOT_RECORD, 0) < 0 && errno != ENOENT)
    return err_set (err, errno, "remove the btrfs snapshot record");
  return 0;
}
