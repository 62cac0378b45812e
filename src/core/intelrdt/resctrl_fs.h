/* The resctrl file system seam: the operations in which a resctrl mount differs from a
 * plain directory tree go through a const table of function pointers, as the cgroups'
 * (cgroups/fs_ops.h): making a group (the kernel fills it with its files: tasks,
 * schemata, mon_groups/ ...), removing one (they vanish with it, its tasks go back to
 * the parent group), and opening one of its files for writing (checked to be on a
 * resctrl mount).  Reading `schemata` and looking for a directory are the same on
 * both and done directly.
 *
 * The runtime takes RDT_FS, &rdt_fs_real (resctrl_fs.c; RDT_FS alone in
 * resctrl_fs_default.c so that a program can define it itself).  A unit test links its
 * own `const rdt_fs_ops *const rdt_fs` standing in for resctrl on a directory tree of
 * its own (tests/unit/fake_resctrl.c).  Nothing mutable. */
#ifndef OCISBX_INTELRDT_RESCTRL_FS_H
#define OCISBX_INTELRDT_RESCTRL_FS_H

#include <sys/types.h>

#include "core/error.h"

typedef struct rdt_fs_ops
{
  /* mkdir (2) and rmdir (2): 0, or -1 with errno. */
  int (*mkdir) (const char *path, mode_t mode);
  int (*rmdir) (const char *path);
  /* The file PATH of a group open for writing (O_CLOEXEC, no symlink at the end), or -1
     with *ERR.  The kernel takes one line per write. */
  int (*open_file) (const char *path, ocisbx_err **err);
} rdt_fs_ops;

/* The real calls. */
extern const rdt_fs_ops rdt_fs_real;
/* The table the runtime uses: &rdt_fs_real unless the program defines it. */
extern const rdt_fs_ops *const rdt_fs;

#endif
