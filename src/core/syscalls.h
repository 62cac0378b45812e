/* The syscall seam of the container's filesystem and namespaces: every mount(2),
 * umount2, new-mount-API call (open_tree, move_mount, mount_setattr, fsopen, fsconfig,
 * fsmount), pivot_root, mknodat and setns made by rootfs/, ns/ and exec goes through SYS, a
 * const table of function pointers.  In the runtime SYS is &sys_real, the real calls
 * (syscalls_default.c, alone in its object so that a program can define SYS itself).
 * A unit test links its own `const sys_ops *const sys`, whose functions record the
 * calls a config produces, and checks their order without root
 * (tests/unit/test_rootfs_calls.c), as youki's TestHelperSyscall does.  The cost is
 * one indirect call per syscall: no allocation, nothing mutable.
 */
#ifndef OCISBX_SYSCALLS_H
#define OCISBX_SYSCALLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/statfs.h>
#include <sys/types.h>

/* struct mount_attr of mount_setattr(2), for older headers. */
typedef struct sys_mount_attr
{
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
} sys_mount_attr;

/* Each returns what the call returns (-1 and errno on failure; ENOSYS where the
   headers do not know the call). */
typedef struct sys_ops
{
  int (*mount) (const char *source, const char *target, const char *type, unsigned long flags,
                const void *data);
  int (*umount2) (const char *target, int flags);
  int (*open_tree) (int dfd, const char *path, unsigned flags);
  int (*move_mount) (int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags);
  int (*mount_setattr) (int dfd, const char *path, unsigned flags, sys_mount_attr *attr);
  int (*fsopen) (const char *fsname, unsigned flags);
  int (*fsconfig) (int fd, unsigned cmd, const char *key, const void *value, int aux);
  int (*fsmount) (int fd, unsigned flags, unsigned attr_flags);
  int (*pivot_root) (const char *new_root, const char *put_old);
  int (*mknodat) (int dirfd, const char *path, mode_t mode, dev_t dev);
  int (*setns) (int fd, int nstype);
  /* The file system type of what FD names: rootfs/ asks it of the procfs and sysfs it
     mounted (a recorder says what its recorded mounts would be). */
  int (*fstatfs) (int fd, struct statfs *buf);
} sys_ops;

/* The real calls. */
extern const sys_ops sys_real;
/* The table in use: &sys_real unless the program defines it. */
extern const sys_ops *const sys;

#endif
