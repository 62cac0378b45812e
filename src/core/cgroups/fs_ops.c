/* The real cgroup file system operations behind the seam (fs_ops.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

static int
real_write_value (int fd, const char *value)
{
  return write_all (fd, value, strlen (value)) < 0 ? -1 : 0;
}

/* A v1 "tasks" file through the one checked open for writing (open_proc_file), then
   on a v1 cgroupfs alone; a cgroup2 directory read-only, on a cgroup2. */
static int
real_open_join (const char *path, bool v2, ocisbx_err **err)
{
  cleanup_close int fd = v2 ? open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW) : open_proc_file (path, err);
  struct statfs sfs;

  if (fd < 0)
    return v2 ? err_set (err, errno, "cgroups: open `%s`", path) : -1;
  if (fstatfs (fd, &sfs) < 0)
    return err_set (err, errno, "cgroups: statfs `%s`", path);
  if (sfs.f_type != (v2 ? CGROUP2_SUPER_MAGIC : CGROUP_SUPER_MAGIC))
    return err_set (err, EXDEV, "cgroups: `%s` is not on a cgroup%s file system", path, v2 ? "2" : "");
  return steal_fd (&fd);
}

const cg_fs_ops cg_fs_real = {
  .mkdir = mkdir,
  .rmdir = rmdir,
  /* As every write to /proc or /sys: really a cgroupfs (or procfs/sysfs) file. */
  .open_file = open_proc_file,
  .open_join = real_open_join,
  .write_value = real_write_value,
  .attach_devices = cg_ebpf_attach,
};
