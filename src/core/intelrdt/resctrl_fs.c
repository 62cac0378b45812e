/* The real resctrl file system operations behind the seam (resctrl_fs.h). */
#include <config.h>
#include "core/intelrdt/resctrl_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/utils.h"

/* As every write to /proc or /sys (open_proc_file): really a file of a resctrl mount,
   so that a symlink or another mount cannot redirect the write. */
static int
resctrl_open_file (const char *path, ocisbx_err **err)
{
  static const long magic[] = { RDTGROUP_SUPER_MAGIC };
  return open_write_on_fs (path, magic, 1, "a resctrl file system", err);
}

const rdt_fs_ops rdt_fs_real = {
  .mkdir = mkdir,
  .rmdir = rmdir,
  .open_file = resctrl_open_file,
};
