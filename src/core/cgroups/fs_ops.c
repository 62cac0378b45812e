/* The real cgroup file system operations behind the seam (fs_ops.h). */
#include <config.h>

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

static int
real_write_value (int fd, const char *value)
{
  return write_all (fd, value, strlen (value)) < 0 ? -1 : 0;
}

const cg_fs_ops cg_fs_real = {
  .mkdir = mkdir,
  .rmdir = rmdir,
  /* As every write to /proc or /sys: really a cgroupfs (or procfs/sysfs) file. */
  .open_file = open_proc_file,
  .write_value = real_write_value,
  .attach_devices = cg_ebpf_attach,
};
