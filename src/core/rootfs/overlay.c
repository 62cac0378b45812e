/* Overlay runs (io.github.ocisbx.rootfs.overlay, `run --ephemeral`, `--overlay-upper`):
 * the rootfs is the read-only lower layer of an overlayfs, mounted with the new mount
 * API in place of the rootfs bound onto itself (rootfs.c), so nothing a run writes
 * reaches it.  The upper and work directories are either on a tmpfs made in the
 * container's mount namespace (ephemeral: mounted on the rootfs under the overlay,
 * then detached with the old root by pivot_root: it goes with the overlay, that is
 * with the namespace), or in a directory the user names
 * and keeps: DIR/upper and DIR/work, with DIR/lower naming the rootfs they belong to
 * (a kept upper is only reused on the same lower).
 *
 * The layers are handed to overlayfs as /proc/self/fd/N of O_PATH fds: no path in
 * the mount data, so no `:` or `,` of a path to escape, and nothing resolved twice.
 * In a user namespace (Linux >= 5.11) the overlay is mounted with userxattr: its
 * xattrs are user.overlay.* (trusted.* needs the host's CAP_SYS_ADMIN).  The init
 * mounts it, and overlayfs writes the upper and work directories with its credentials
 * (the container's root): a kept DIR/upper and DIR/work are made theirs (DIR and
 * DIR/lower stay the caller's), and an overlay that came up read-only (overlayfs does
 * that when it cannot write its work directory) is an error, not a silent read-only
 * root.
 */
#include <config.h>
#include "core/rootfs/rootfs.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/rootfs/mounts.h"
#include "core/rootfs/pathres.h"
#include "core/syscalls.h"
#include "core/utils.h"

#define OVERLAY_LOWER_FILE "lower"

int
rootfs_overlay_parse (const struct ocispec_map *annotations, rootfs_overlay_kind *kind, const char **dir,
                      ocisbx_err **err)
{
  *kind = ROOTFS_OVERLAY_NONE;
  *dir = NULL;
  for (size_t i = 0; annotations && i < annotations->len; i++)
    {
      const char *v = annotations->values[i];
      if (strcmp (annotations->keys[i], ROOTFS_OVERLAY_ANNOTATION) != 0)
        continue;
      if (strcmp (v, "ephemeral") == 0)
        *kind = ROOTFS_OVERLAY_EPHEMERAL;
      else if (v[0] == '/' && !pathres_has_dotdot (v))
        {
          *kind = ROOTFS_OVERLAY_KEPT;
          *dir = v;
        }
      else
        return err_set (err, 0, "config.json: .annotations[\"%s\"]: \"%.256s\" is neither \"ephemeral\" nor an "
                                "absolute directory (without `..`) to keep the overlay's upper layer in",
                        ROOTFS_OVERLAY_ANNOTATION, v);
    }
  return 0;
}

typedef struct entries
{
  int upper, work, lower, other;
  char other_name[NAME_MAX + 1];
} entries;

static int
count_entry (const char *name, unsigned char type, void *arg)
{
  entries *e = arg;

  if (strcmp (name, "upper") == 0 && type == DT_DIR)
    e->upper++;
  else if (strcmp (name, "work") == 0 && type == DT_DIR)
    e->work++;
  else if (strcmp (name, OVERLAY_LOWER_FILE) == 0 && type == DT_REG)
    e->lower++;
  else if (e->other++ == 0)
    snprintf (e->other_name, sizeof e->other_name, "%s", name);
  return 0;
}

/* DIR holds a previous upper of ROOTFS: upper/, work/, and lower naming ROOTFS. */
static int
check_previous (int dirfd, const char *dir, const char *rootfs, ocisbx_err **err)
{
  cleanup_free char *lower = NULL;
  cleanup_free char *want = xasprintf ("%s\n", rootfs);
  size_t len = 0;

  if (read_file_at (dirfd, OVERLAY_LOWER_FILE, &lower, &len, err) < 0)
    return -1;
  if (len != strlen (want) || memcmp (lower, want, len) != 0)
    return err_set (err, 0, "%s: `%s` is the upper layer of another rootfs (`%s/%s` names it)",
                    ROOTFS_OVERLAY_ANNOTATION, dir, dir, OVERLAY_LOWER_FILE);
  return 0;
}

/* upper/ and work/ of a previous upper belong to the container's root (UID). */
static int
check_owner (int dirfd, const char *dir, uid_t uid, ocisbx_err **err)
{
  static const char *const names[] = { "upper", "work" };
  struct stat st;

  for (size_t i = 0; i < 2; i++)
    {
      if (fstatat (dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
        return err_set (err, errno, "%s: `%s/%s`", ROOTFS_OVERLAY_ANNOTATION, dir, names[i]);
      if (st.st_uid != uid)
        return err_set (err, 0, "%s: `%s/%s` belongs to uid %u, the container's root is uid %u on the host: "
                                "it could not write the upper layer (an upper is reused with the same uid mapping)",
                        ROOTFS_OVERLAY_ANNOTATION, dir, names[i], (unsigned) st.st_uid, (unsigned) uid);
    }
  return 0;
}

/* upper/, work/ (the container's root's: UID, GID) and lower; on an error nothing
   of them is left. */
static int
make_layout (int dirfd, const char *dir, const char *rootfs, uid_t uid, gid_t gid, ocisbx_err **err)
{
  cleanup_free char *line = xasprintf ("%s\n", rootfs);

  if (mkdirat (dirfd, "upper", 0755) < 0 || mkdirat (dirfd, "work", 0700) < 0)
    err_set (err, errno, "%s: create `%s/upper` and `%s/work`", ROOTFS_OVERLAY_ANNOTATION, dir, dir);
  else if (uid != (uid_t) -1
           && (fchownat (dirfd, "upper", uid, gid, AT_SYMLINK_NOFOLLOW) < 0
               || fchownat (dirfd, "work", uid, gid, AT_SYMLINK_NOFOLLOW) < 0))
    err_set (err, errno, "%s: give `%s/upper` and `%s/work` to the container's root (uid %u, gid %u on the host)",
             ROOTFS_OVERLAY_ANNOTATION, dir, dir, (unsigned) uid, (unsigned) gid);
  else if (write_file_atomic_at (dirfd, OVERLAY_LOWER_FILE, line, strlen (line), 0644, err) < 0)
    err_wrap (err, "%s: `%s`", ROOTFS_OVERLAY_ANNOTATION, dir);
  else
    return 0;
  unlinkat (dirfd, "upper", AT_REMOVEDIR);
  unlinkat (dirfd, "work", AT_REMOVEDIR);
  return -1;
}

void
rootfs_overlay_unmake (const char *real_dir, int made)
{
  cleanup_close int dirfd = -1;

  if (real_dir == NULL || !(made & ROOTFS_OVERLAY_MADE_LAYOUT))
    return;
  dirfd = open (real_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0)
    return;
  /* work/work and work/index: overlayfs's, empty once it is unmounted */
  unlinkat (dirfd, "work/work", AT_REMOVEDIR);
  unlinkat (dirfd, "work/index", AT_REMOVEDIR);
  if (unlinkat (dirfd, "upper", AT_REMOVEDIR) < 0)
    return; /* written to: the user's now */
  unlinkat (dirfd, "work", AT_REMOVEDIR);
  unlinkat (dirfd, OVERLAY_LOWER_FILE, 0);
  if (made & ROOTFS_OVERLAY_MADE_DIR)
    rmdir (real_dir);
}

static int
overlaps (const char *real, const char *rootfs, const char *dir, ocisbx_err **err)
{
  if (pathres_under (rootfs, real) || pathres_under (real, rootfs))
    return err_set (err, 0, "%s: `%s` overlaps the rootfs `%s`: the upper layer must be outside it",
                    ROOTFS_OVERLAY_ANNOTATION, dir, rootfs);
  return 0;
}

/* CAND (DIR, made or found): resolved into *REAL, checked, its layout made or checked. */
static int
check_layout (const char *cand, const char *dir, const char *rootfs, uid_t uid, gid_t gid, int *made, char **real,
              ocisbx_err **err)
{
  cleanup_close int dirfd = -1;
  entries e = { 0 };

  *real = realpath (cand, NULL); /* DIR may be a symlink */
  if (*real == NULL)
    return err_set (err, errno, "%s: `%s`", ROOTFS_OVERLAY_ANNOTATION, dir);
  if (overlaps (*real, rootfs, dir, err) < 0)
    return -1;
  dirfd = open (*real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dirfd < 0)
    return err_set (err, errno, "%s: open `%s`", ROOTFS_OVERLAY_ANNOTATION, dir);
  if (dir_each (dirfd, count_entry, &e) < 0)
    return err_set (err, errno, "%s: read `%s`", ROOTFS_OVERLAY_ANNOTATION, dir);
  if (e.upper + e.work + e.lower + e.other == 0)
    {
      if (make_layout (dirfd, *real, rootfs, uid, gid, err) < 0)
        return -1;
      *made |= ROOTFS_OVERLAY_MADE_LAYOUT;
      return 0;
    }
  if (e.other || !e.upper || !e.work || !e.lower)
    return err_set (err, 0, "%s: `%s` is neither empty nor a previous upper layer (upper/, work/, %s)%s%s",
                    ROOTFS_OVERLAY_ANNOTATION, dir, OVERLAY_LOWER_FILE, e.other ? ": it holds " : "",
                    e.other ? e.other_name : "");
  if (check_previous (dirfd, *real, rootfs, err) < 0)
    return -1;
  return check_owner (dirfd, *real, uid == (uid_t) -1 ? geteuid () : uid, err);
}

int
rootfs_overlay_prepare (const char *dir, const char *rootfs, uid_t uid, gid_t gid, char **real_dir, int *made,
                        ocisbx_err **err)
{
  cleanup_free char *clean = NULL;
  cleanup_free char *parent = NULL;
  cleanup_free char *base = NULL;
  cleanup_free char *cand = NULL;
  cleanup_free char *real = NULL;

  *real_dir = NULL;
  *made = 0;
  /* before anything is made: DIR's parent resolved, DIR checked, then made */
  clean = pathres_clean (dir);
  pathres_split (clean, &parent, &base);
  real = realpath (parent, NULL);
  if (real == NULL)
    return err_set (err, errno, "%s: `%s`", ROOTFS_OVERLAY_ANNOTATION, parent);
  cand = xasprintf ("%s/%s", strcmp (real, "/") == 0 ? "" : real, base);
  free (real);
  real = NULL;
  if (overlaps (cand, rootfs, dir, err) < 0)
    return -1;
  if (mkdir (cand, 0755) == 0)
    *made = ROOTFS_OVERLAY_MADE_DIR;
  else if (errno != EEXIST)
    return err_set (err, errno, "%s: create `%s`", ROOTFS_OVERLAY_ANNOTATION, dir);
  if (check_layout (cand, dir, rootfs, uid, gid, made, &real, err) < 0)
    {
      if (*made & ROOTFS_OVERLAY_MADE_DIR)
        rmdir (cand);
      *made = 0;
      return -1;
    }
  *real_dir = real;
  real = NULL;
  return 0;
}

/* The upper and work directories: DIR's, or a new tmpfs's. */
static int
open_upper (const rootfs_ctx *ctx, int *upper, int *work, ocisbx_err **err)
{
  cleanup_close int base = -1;
  cleanup_close int fs = -1;

  if (ctx->overlay == ROOTFS_OVERLAY_KEPT)
    {
      base = open (ctx->overlay_dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (base < 0)
        return err_set (err, errno, "open `%s`", ctx->overlay_dir);
    }
  else
    {
      fs = sys->fsopen ("tmpfs", FSOPEN_CLOEXEC);
      if (fs < 0 || sys->fsconfig (fs, FSCONFIG_SET_STRING, "mode", "0700", 0) < 0
          || sys->fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
        return err_set (err, errno, "create the tmpfs of the upper layer");
      base = sys->fsmount (fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID);
      /* overlayfs takes no layer from a detached mount (clone_private_mount): the
         tmpfs is attached on the rootfs, which the overlay then covers (the lower is
         the fd opened before); pivot_root detaches it with the old root, the overlay
         keeps its own reference. */
      if (base < 0 || sys->move_mount (base, "", AT_FDCWD, ctx->rootfs, MOVE_MOUNT_F_EMPTY_PATH) < 0)
        return err_set (err, errno, "mount the tmpfs of the upper layer");
      if (mkdirat (base, "upper", 0755) < 0 || mkdirat (base, "work", 0700) < 0)
        return err_set (err, errno, "create upper/ and work/ on the tmpfs");
    }
  *upper = openat (base, "upper", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  *work = openat (base, "work", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (*upper < 0 || *work < 0)
    return err_set (err, errno, "open upper/ and work/ of `%s`",
                    ctx->overlay == ROOTFS_OVERLAY_KEPT ? ctx->overlay_dir : "the tmpfs");
  return 0;
}

static int
overlay_refused (const rootfs_ctx *ctx, ocisbx_err **err)
{
  if (errno == ENODEV)
    return err_set (err, errno, "%s: the kernel has no overlayfs (modprobe overlay)", ROOTFS_OVERLAY_ANNOTATION);
  if (ctx->userns && (errno == EPERM || errno == EINVAL))
    return err_set (err, errno, "%s: the kernel refuses an overlayfs with userxattr in a user namespace (needs "
                                "Linux >= 5.11)", ROOTFS_OVERLAY_ANNOTATION);
  return err_set (err, errno, "%s: mount the overlay on `%s`", ROOTFS_OVERLAY_ANNOTATION, ctx->rootfs);
}

int
rootfs_overlay_mount (const rootfs_ctx *ctx, int lowerfd, ocisbx_err **err)
{
  char l[PATHRES_FD_PATH_MAX], u[PATHRES_FD_PATH_MAX], w[PATHRES_FD_PATH_MAX];
  cleanup_close int upper = -1;
  cleanup_close int work = -1;
  cleanup_close int fs = -1;
  cleanup_close int mnt = -1;

  if (!mount_procfd_usable ())
    return err_set (err, ENOENT, "%s: needs the host's procfs at /proc", ROOTFS_OVERLAY_ANNOTATION);
  if (open_upper (ctx, &upper, &work, err) < 0)
    return err_wrap (err, "%s", ROOTFS_OVERLAY_ANNOTATION);
  fs = sys->fsopen ("overlay", FSOPEN_CLOEXEC);
  if (fs < 0)
    return overlay_refused (ctx, err);
  if (sys->fsconfig (fs, FSCONFIG_SET_STRING, "lowerdir", pathres_fd_path (lowerfd, l), 0) < 0
      || sys->fsconfig (fs, FSCONFIG_SET_STRING, "upperdir", pathres_fd_path (upper, u), 0) < 0
      || sys->fsconfig (fs, FSCONFIG_SET_STRING, "workdir", pathres_fd_path (work, w), 0) < 0
      || (ctx->userns && sys->fsconfig (fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0)
      || sys->fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return overlay_refused (ctx, err);
  mnt = sys->fsmount (fs, FSMOUNT_CLOEXEC, 0);
  if (mnt < 0)
    return overlay_refused (ctx, err);
  {
    struct statvfs sv;
    if (fstatvfs (mnt, &sv) == 0 && (sv.f_flag & ST_RDONLY))
      return err_set (err, EROFS, "%s: the overlay came up read-only: the container's root cannot write `%s/work` "
                                  "(overlayfs writes the upper layer as the mounter)",
                      ROOTFS_OVERLAY_ANNOTATION, ctx->overlay == ROOTFS_OVERLAY_KEPT ? ctx->overlay_dir : "the tmpfs");
  }
  /* attached where the rootfs is: pivot_root needs a mount point */
  if (sys->move_mount (mnt, "", AT_FDCWD, ctx->rootfs, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    return err_set (err, errno, "%s: move the overlay onto `%s`", ROOTFS_OVERLAY_ANNOTATION, ctx->rootfs);
  return steal_fd (&mnt);
}
