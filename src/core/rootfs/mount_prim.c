/* The mount primitives, through fds: binds, remounts of a bind's flags, tmpfs, the new
   mount API's calls (open_tree, move_mount, mount_setattr) and the flag conversions
   between them (declared in mounts.h). */
#include <config.h>
#include "core/rootfs/mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/rootfs/pathres.h"
#include "core/syscalls.h"
#include "core/utils.h"

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

int
mount_setattr_fd (int fd, uint64_t set, uint64_t clr, bool recursive, const char *what,
                  ocisbx_err **err)
{
  sys_mount_attr a = { .attr_set = set, .attr_clr = clr };

  if (sys->mount_setattr (fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a) == 0)
    return 0;
  if (errno == ENOSYS)
    return err_set (err, errno, "set mount attributes of `%s` (needs Linux >= 5.12)", what);
  return err_set (err, errno, "set mount attributes of `%s`", what);
}

bool
mount_procfd_usable (void)
{
  /* After pivot_root "/proc" is whatever the rootfs has there: use it only when it
     is a real procfs. */
  cleanup_close int fd = open ("/proc/self/fd", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct statfs sfs;
  return fd >= 0 && fstatfs (fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

static bool
procfd_usable (rootfs_procfd procfd)
{
  if (procfd == ROOTFS_PROCFD_UNKNOWN)
    return mount_procfd_usable ();
  return procfd == ROOTFS_PROCFD_USABLE;
}

int
mount_bind_fd (int srcfd, int dstfd, unsigned long flags, const char *what, ocisbx_err **err)
{
  return mount_bind_fd_known (ROOTFS_PROCFD_UNKNOWN, srcfd, dstfd, flags, what, err);
}

int
mount_bind_fd_known (rootfs_procfd procfd, int srcfd, int dstfd, unsigned long flags,
                     const char *what, ocisbx_err **err)
{
  char s[PATHRES_FD_PATH_MAX], d[PATHRES_FD_PATH_MAX];
  cleanup_close int tree = -1;

  if (procfd_usable (procfd))
    {
      if (sys->mount (pathres_fd_path (srcfd, s), pathres_fd_path (dstfd, d), NULL,
                 MS_BIND | (flags & MS_REC), NULL)
          < 0)
        return err_set (err, errno, "bind mount `%s`", what);
      return 0;
    }
  /* No procfs at /proc (after pivot_root into a rootfs without one): the new mount
     API takes the fds themselves. */
  tree = sys->open_tree (srcfd, "",
                        OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | ((flags & MS_REC) ? AT_RECURSIVE : 0));
  if (tree < 0 || sys->move_mount (tree, "", dstfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "bind mount `%s`", what);
  return 0;
}

uint64_t
mount_ms_to_attr (unsigned long ms)
{
  uint64_t a = 0;
  if (ms & MS_RDONLY)
    a |= MOUNT_ATTR_RDONLY;
  if (ms & MS_NOSUID)
    a |= MOUNT_ATTR_NOSUID;
  if (ms & MS_NODEV)
    a |= MOUNT_ATTR_NODEV;
  if (ms & MS_NOEXEC)
    a |= MOUNT_ATTR_NOEXEC;
  if (ms & MS_NODIRATIME)
    a |= MOUNT_ATTR_NODIRATIME;
  if (ms & MS_NOSYMFOLLOW)
    a |= MOUNT_ATTR_NOSYMFOLLOW;
  return a;
}

unsigned long
mount_flags_of_statvfs (unsigned long f)
{
  unsigned long ms = 0;
  if (f & ST_RDONLY)
    ms |= MS_RDONLY;
  if (f & ST_NOSUID)
    ms |= MS_NOSUID;
  if (f & ST_NODEV)
    ms |= MS_NODEV;
  if (f & ST_NOEXEC)
    ms |= MS_NOEXEC;
  if (f & ST_NOATIME)
    ms |= MS_NOATIME;
  if (f & ST_NODIRATIME)
    ms |= MS_NODIRATIME;
  if (f & ST_RELATIME)
    ms |= MS_RELATIME;
  if (!(f & (ST_NOATIME | ST_RELATIME)))
    ms |= MS_STRICTATIME; /* statvfs's way of saying strictatime */
  if (f & ST_NOSYMFOLLOW)
    ms |= MS_NOSYMFOLLOW;
  return ms;
}

void
mount_attrs_of (unsigned long set, unsigned long cleared, bool atime_set, uint64_t *attr_set,
                uint64_t *attr_clr)
{
  uint64_t aset = mount_ms_to_attr (set), aclr = mount_ms_to_attr (cleared & ~set);
  if ((set & MS_ATIME_MODES) || atime_set)
    {
      aclr |= MOUNT_ATTR__ATIME;
      aset |= (set & MS_NOATIME) ? MOUNT_ATTR_NOATIME
              : (set & MS_STRICTATIME) ? MOUNT_ATTR_STRICTATIME : MOUNT_ATTR_RELATIME;
    }
  *attr_set = aset;
  *attr_clr = aclr;
}

int
mount_remount_bind (int fd, unsigned long set, unsigned long cleared, bool atime_set,
                    const char *what, ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  struct statvfs sv;
  unsigned long keep, flags;
  uint64_t aset, aclr;

  /* mount_setattr changes only what is asked, as the remount below does by passing
     back what the mount has: one call, no /proc.  Any failure (old kernel, an
     attribute it does not know, a real error) takes the remount, which decides. */
  set &= MS_PER_MOUNT;
  mount_attrs_of (set, cleared, atime_set, &aset, &aclr);
  {
    ocisbx_err *ignored = NULL;
    if (mount_setattr_fd (fd, aset, aclr, false, what, &ignored) == 0)
      return 0;
    err_free (ignored);
  }
  if (fstatvfs (fd, &sv) < 0)
    return err_set (err, errno, "statvfs `%s`", what);
  keep = mount_flags_of_statvfs (sv.f_flag) & ~cleared;
  if (atime_set || (set & MS_ATIME_MODES))
    keep &= ~MS_ATIME_MODES;
  /* The atime mode must be passed again: without one the kernel picks relatime,
     which is EPERM on a strictatime mount whose atime is locked (user namespace). */
  flags = MS_BIND | MS_REMOUNT | ((set | keep) & MS_PER_MOUNT);
  if (mount_procfd_usable ())
    {
      if (sys->mount (NULL, pathres_fd_path (fd, d), NULL, flags, NULL) < 0)
        return err_set (err, errno, "remount `%s`", what);
      return 0;
    }
  /* Without /proc: change only what was asked, on the fd (again, for the error). */
  return mount_setattr_fd (fd, aset, aclr, false, what, err);
}

int
mount_tmpfs_fd (rootfs_procfd procfd, int dstfd, unsigned long flags, const char *mode,
                      const char *what, ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  cleanup_free char *data = xasprintf ("mode=%s", mode);
  cleanup_close int fs = -1;
  cleanup_close int mnt = -1;

  if (procfd_usable (procfd))
    {
      if (sys->mount ("tmpfs", pathres_fd_path (dstfd, d), "tmpfs", flags, data) < 0)
        return err_set (err, errno, "mount tmpfs on `%s`", what);
      return 0;
    }
  fs = sys->fsopen ("tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0 || sys->fsconfig (fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0
      || sys->fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return err_set (err, errno, "create tmpfs for `%s`", what);
  mnt = sys->fsmount (fs, FSMOUNT_CLOEXEC, (unsigned) mount_ms_to_attr (flags));
  if (mnt < 0 || sys->move_mount (mnt, "", dstfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "mount tmpfs on `%s`", what);
  return 0;
}

unsigned long
mount_propagation_flags (const char *name)
{
  static const struct
  {
    const char *name;
    unsigned long flags;
  } t[] = {
    { "private", MS_PRIVATE },       { "rprivate", MS_PRIVATE | MS_REC },
    { "shared", MS_SHARED },         { "rshared", MS_SHARED | MS_REC },
    { "slave", MS_SLAVE },           { "rslave", MS_SLAVE | MS_REC },
    { "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp (t[i].name, name) == 0)
      return t[i].flags;
  return 0;
}

int
mount_tree_with_attrs (const oci_config *cfg, int srcfd, int dst, bool set_attrs, uint64_t attr_set,
                       uint64_t attr_clr)
{
  const char *prop = cfg->linux_ ? cfg->linux_->rootfs_propagation : NULL;
  cleanup_close int tree = -1;
  ocisbx_err *ignored = NULL;

  if (prop && (mount_propagation_flags (prop) & MS_SHARED))
    return -1;
  tree = sys->open_tree (srcfd, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  if (tree < 0)
    return -1;
  if (set_attrs && mount_setattr_fd (tree, attr_set, attr_clr, false, "", &ignored) < 0)
    {
      err_free (ignored);
      return -1;
    }
  return sys->move_mount (tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}
