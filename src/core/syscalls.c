/* The real calls behind the syscall seam (syscalls.h). */
#include <config.h>
#include "core/syscalls.h"

#include <errno.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int
real_open_tree (int dfd, const char *path, unsigned flags)
{
#ifdef SYS_open_tree
  return (int) syscall (SYS_open_tree, dfd, path, flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_move_mount (int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags)
{
#ifdef SYS_move_mount
  return (int) syscall (SYS_move_mount, from_dfd, from, to_dfd, to, flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_mount_setattr (int dfd, const char *path, unsigned flags, sys_mount_attr *attr)
{
#ifdef SYS_mount_setattr
  return (int) syscall (SYS_mount_setattr, dfd, path, flags, attr, sizeof *attr);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_fsopen (const char *fsname, unsigned flags)
{
#ifdef SYS_fsopen
  return (int) syscall (SYS_fsopen, fsname, flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_fsconfig (int fd, unsigned cmd, const char *key, const void *value, int aux)
{
#ifdef SYS_fsconfig
  return (int) syscall (SYS_fsconfig, fd, cmd, key, value, aux);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_fsmount (int fd, unsigned flags, unsigned attr_flags)
{
#ifdef SYS_fsmount
  return (int) syscall (SYS_fsmount, fd, flags, attr_flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

static int
real_pivot_root (const char *new_root, const char *put_old)
{
  return (int) syscall (SYS_pivot_root, new_root, put_old);
}

const sys_ops sys_real = {
  .mount = mount,
  .umount2 = umount2,
  .open_tree = real_open_tree,
  .move_mount = real_move_mount,
  .mount_setattr = real_mount_setattr,
  .fsopen = real_fsopen,
  .fsconfig = real_fsconfig,
  .fsmount = real_fsmount,
  .pivot_root = real_pivot_root,
  .mknodat = mknodat,
  .setns = setns,
  .fstatfs = fstatfs,
};
