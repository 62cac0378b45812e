/* The cgroup file system seam: the operations in which a cgroupfs differs from a plain
 * directory tree go through a const table of function pointers that the manager holds
 * (cgroup_manager.fs): making a cgroup (the kernel fills it with its control files),
 * removing one (they vanish with it), opening a control file for writing (checked to
 * be on a cgroupfs), opening what a child joins by itself (join.h), writing one value
 * to a file, and attaching the v2 device filter.
 * Reading a control file, listing a cgroup's children and the like are the same on
 * both and done directly.
 *
 * The manager takes CG_FS, &cg_fs_real in the runtime (the real calls, in fs_ops.c;
 * CG_FS alone in fs_ops_default.c so that a program can define it itself).  A unit
 * test links its own `const cg_fs_ops *const cg_fs` standing in for a cgroupfs on a
 * directory tree of its own (tests/unit/fake_cgroupfs.c), as test_rootfs_calls.c does
 * for the syscall seam (syscalls.h).  Nothing mutable; one indirect call per operation.
 */
#ifndef OCISBX_CGROUPS_FS_OPS_H
#define OCISBX_CGROUPS_FS_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

struct cg_dev_rule;

typedef struct cg_fs_ops
{
  /* mkdir (2) and rmdir (2): 0, or -1 with errno. */
  int (*mkdir) (const char *path, mode_t mode);
  int (*rmdir) (const char *path);
  /* The control file PATH open for writing (O_CLOEXEC, no symlink at the end), or -1
     with *ERR. */
  int (*open_file) (const char *path, ocisbx_err **err);
  /* What a child joins by itself (join.h): the cgroup2 directory PATH (V2, for
     CLONE_INTO_CGROUP, read-only) or the v1 "tasks" file PATH (for writing), O_CLOEXEC,
     no symlink at the end, checked to be on a cgroup2 or a v1 cgroup file system; -1
     with *ERR. */
  int (*open_join) (const char *path, bool v2, ocisbx_err **err);
  /* One value to an open control file (the kernel takes one per write): 0, or -1 with
     errno. */
  int (*write_value) (int fd, const char *value);
  /* Replace the eBPF device programs of the cgroup2 directory DIR by one allowing RULES
     (cg_ebpf_attach, ebpf_devices.c). */
  int (*attach_devices) (const char *dir, const struct cg_dev_rule *rules, size_t n, ocisbx_err **err);
} cg_fs_ops;

/* The real calls. */
extern const cg_fs_ops cg_fs_real;
/* The table a new manager takes: &cg_fs_real unless the program defines it. */
extern const cg_fs_ops *const cg_fs;

#endif
