#include <config.h>
#include "core/rootfs/paths.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/rootfs/mounts.h"
#include "core/rootfs/pathres.h"
#include "core/utils.h"

/* The procfs/sysfs mount of P whose destination holds the cleaned PATH (the deepest),
   or NULL. */
static const rootfs_pseudo_mount *
pseudo_holding (const rootfs_pseudo *p, const char *path)
{
  const rootfs_pseudo_mount *best = NULL;

  for (size_t i = 0; i < p->n; i++)
    if (pathres_under (p->m[i].dest, path) && (best == NULL || strlen (p->m[i].dest) > strlen (best->dest)))
      best = &p->m[i];
  return best;
}

/* Are A and B the same file on the same mount (the mount ids compared where statx
   has them, Linux >= 5.8)? */
static bool
same_file_and_mount (int a, int b)
{
  struct statx x, y;

  if (statx (a, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &x) < 0
      || statx (b, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID, &y) < 0)
    return false;
  if (x.stx_dev_major != y.stx_dev_major || x.stx_dev_minor != y.stx_dev_minor || x.stx_ino != y.stx_ino)
    return false;
  return !(x.stx_mask & y.stx_mask & STATX_MNT_ID) || x.stx_mnt_id == y.stx_mnt_id;
}

int
paths_check_pseudo (const rootfs_pseudo *p, int rootfd, ocisbx_err **err)
{
  for (size_t i = 0; i < p->n; i++)
    {
      const rootfs_pseudo_mount *m = &p->m[i];
      const char *what = m->magic == PROC_SUPER_MAGIC ? "procfs" : "sysfs";
      ocisbx_err *ignored = NULL;
      cleanup_close int fd = pathres_open (rootfd, m->dest, &ignored);

      err_free (ignored);
      if (fd < 0 || !same_file_and_mount (fd, m->fd))
        return err_set (err, EXDEV,
                        "`%s` no longer leads to the %s mounted there (a symlink or another directory in "
                        "its place: is the rootfs shared with a container that changes it?)",
                        m->dest, what);
    }
  return 0;
}

/* PATH, resolved through the procfs or sysfs the runtime mounted when it is below one
   (the rest of the path inside that mount alone), else inside the root. */
static int
open_listed (const rootfs_pseudo *p, int rootfd, const char *path, ocisbx_err **err)
{
  cleanup_free char *clean = pathres_clean (path);
  const rootfs_pseudo_mount *m = pseudo_holding (p, clean);
  const char *rest;

  if (m == NULL)
    return pathres_open (rootfd, clean, err);
  rest = clean + strlen (m->dest);
  while (*rest == '/')
    rest++;
  if (*rest == '\0')
    {
      int fd = fcntl (m->fd, F_DUPFD_CLOEXEC, 0);
      return fd >= 0 ? fd : err_set (err, errno, "dup the fd of `%s`", m->dest);
    }
  return pathres_open (m->fd, rest, err);
}

/* Open PATH; 0 with *fd = -1 when it does not exist (skipped silently: also in a
   verified procfs, a file this kernel does not have). */
static int
open_existing (const rootfs_pseudo *p, int rootfd, const char *path, int *fd, ocisbx_err **err)
{
  /* Most listed paths are missing: no message for them (err_set formats nothing
     without an error to set). */
  *fd = open_listed (p, rootfd, path, NULL);
  if (*fd >= 0 || errno == ENOENT || errno == ENOTDIR)
    return 0;
  *fd = open_listed (p, rootfd, path, err); /* again, for the message */
  return *fd >= 0 ? 0 : -1;
}

/* The container's /dev/null, refusing anything but the real char device 1:3. */
static int
open_dev_null (int rootfd, ocisbx_err **err)
{
  cleanup_close int fd = pathres_open (rootfd, "/dev/null", err);
  struct stat st;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0)
    return err_set (err, errno, "stat /dev/null");
  if (!S_ISCHR (st.st_mode) || st.st_rdev != makedev (1, 3))
    return err_set (err, EPERM, "/dev/null in the container is not the null device (1:3)");
  return steal_fd (&fd);
}

/* Can mount(2) name fds as /proc/self/fd/N?  Asked once, before the first mount of a
   call, instead of once per mount.  Only a mask can change the answer (a read-only
   bind of /proc or of /proc/<pid> onto itself keeps the same procfs): an empty tmpfs
   on /proc, /proc/<pid> or its fd directory.  Such a mount hides those names rather
   than giving them other targets, so a stale "usable" makes the next mount fail, never
   land elsewhere: after a failure procfd_went_away () asks again, and when the answer
   changed the mount is retried through the fds themselves. */
static rootfs_procfd
procfd_now (void)
{
  return mount_procfd_usable () ? ROOTFS_PROCFD_USABLE : ROOTFS_PROCFD_UNUSABLE;
}

static bool
procfd_went_away (rootfs_procfd *procfd)
{
  if (*procfd != ROOTFS_PROCFD_USABLE || mount_procfd_usable ())
    return false;
  *procfd = ROOTFS_PROCFD_UNUSABLE;
  return true;
}

/* The masks go through the fds themselves with the new mount API, never through a
   /proc/self/fd/N looked up by name in a rootfs another container may change; only a
   kernel without it (ENOSYS: Linux < 5.2) takes /proc/self/fd, when it is a procfs. */
static bool
new_api_missing (rootfs_procfd *procfd, const ocisbx_err *e)
{
  if (*procfd != ROOTFS_PROCFD_UNUSABLE || e->errnum != ENOSYS)
    return false;
  *procfd = procfd_now ();
  return *procfd == ROOTFS_PROCFD_USABLE;
}

static int
mask_one (rootfs_procfd *procfd, int fd, bool dir, int null, const char *path, ocisbx_err **err)
{
  ocisbx_err *e = NULL;

  for (int attempt = 0;; attempt++)
    {
      int r = dir ? mount_tmpfs_fd (*procfd, fd, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "0755",
                                    path, &e)
                  : mount_bind_fd_known (*procfd, null, fd, 0, path, &e);
      if (r == 0)
        return 0;
      if (attempt > 0 || !(new_api_missing (procfd, e) || procfd_went_away (procfd)))
        {
          *err = e;
          return -1;
        }
      err_free (e);
      e = NULL;
    }
}

int
paths_mask (const oci_config *cfg, const rootfs_pseudo *p, int rootfd, ocisbx_err **err)
{
  cleanup_close int null = -1;
  rootfs_procfd procfd = ROOTFS_PROCFD_UNUSABLE; /* the fds: new_api_missing */

  if (cfg->linux_ == NULL)
    return 0;
  for (size_t i = 0; i < cfg->linux_->masked_paths_len; i++)
    {
      const char *path = cfg->linux_->masked_paths[i];
      cleanup_close int fd = -1;
      struct stat st;

      if (open_existing (p, rootfd, path, &fd, err) < 0)
        return err_wrap (err, "masked path");
      if (fd < 0)
        continue;
      if (fstat (fd, &st) < 0)
        return err_set (err, errno, "masked path: stat `%s`", path);
      if (!S_ISDIR (st.st_mode) && null < 0 && (null = open_dev_null (rootfd, err)) < 0)
        return err_wrap (err, "masked path `%s`", path);
      if (mask_one (&procfd, fd, S_ISDIR (st.st_mode), null, path, err) < 0)
        return err_wrap (err, "masked path");
    }
  return 0;
}

/* The read-only bind in one go: a detached copy of FD's tree (open_tree), its top
   mount made read-only (mount_setattr: the other flags stay, as with the remount),
   attached on FD itself.  Not with a shared root (rootfsPropagation shared): there
   the copies the bind propagates to the peers stay read-write, as the remount of our
   mount leaves them.  -1 when not possible here (old kernel, ...): nothing is
   attached then, and the caller binds and remounts, which reports the errors. */
static int
bind_readonly (const oci_config *cfg, int fd)
{
  return mount_tree_with_attrs (cfg, fd, fd, true, MOUNT_ATTR_RDONLY, 0);
}

int
paths_readonly (const oci_config *cfg, const rootfs_pseudo *p, int rootfd, ocisbx_err **err)
{
  if (cfg->linux_ == NULL)
    return 0;
  for (size_t i = 0; i < cfg->linux_->readonly_paths_len; i++)
    {
      const char *path = cfg->linux_->readonly_paths[i];
      cleanup_close int fd = -1;
      cleanup_close int top = -1;

      if (open_existing (p, rootfd, path, &fd, err) < 0)
        return err_wrap (err, "readonly path");
      if (fd < 0)
        continue;
      if (bind_readonly (cfg, fd) == 0)
        continue;
      if (mount_bind_fd (fd, fd, MS_REC, path, err) < 0)
        return err_wrap (err, "readonly path");
      top = open_listed (p, rootfd, path, err);
      if (top < 0 || mount_remount_bind (top, MS_RDONLY, 0, false, path, err) < 0)
        return err_wrap (err, "readonly path");
    }
  return 0;
}

static int
check_list (char *const *paths, size_t n, const char *field, ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL || paths[i][0] != '/')
      return err_set (err, 0, "config.json: .linux.%s[%zu]: \"%s\" is not an absolute path", field, i,
                      paths[i] ? paths[i] : "");
  return 0;
}

int
paths_validate (const oci_config *cfg, ocisbx_err **err)
{
  if (cfg->linux_ == NULL)
    return 0;
  if (check_list (cfg->linux_->masked_paths, cfg->linux_->masked_paths_len, "maskedPaths", err) < 0)
    return -1;
  return check_list (cfg->linux_->readonly_paths, cfg->linux_->readonly_paths_len, "readonlyPaths",
                     err);
}
