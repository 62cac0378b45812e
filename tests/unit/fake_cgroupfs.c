/* A cgroupfs stood in for by a plain directory tree, for the cgroups unit tests: this
   program's cgroup file system operations (core/cgroups/fs_ops.h), in place of the
   runtime's real ones.  As the kernel would, a new cgroup gets its (empty) control files,
   named as its parent's, and they vanish with rmdir.  Every write to a control file is
   appended as one line, so that a test reads the sequence of writes (devices.allow,
   subtree_control, ...), but for the freezer's state, which reads as the last value
   written (the kernel's freezer here freezes at once); the files are the test's, on no cgroupfs, and no eBPF program
   can be attached to a directory: the device rules are taken as they are. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/fs_ops.h"

static int
fake_mkdir (const char *path, mode_t mode)
{
  cleanup_free char *parent = xstrdup (path);
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  char *slash = strrchr (parent, '/');

  if (mkdir (path, mode) < 0)
    return -1;
  if (slash == NULL)
    return 0;
  *slash = '\0';
  d = opendir (parent);
  while (d && (de = readdir (d)))
    {
      cleanup_free char *f = NULL;
      int fd;
      if (de->d_type != DT_REG)
        continue;
      f = xasprintf ("%s/%s", path, de->d_name);
      fd = open (f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd >= 0)
        close (fd);
    }
  return 0;
}

/* A cgroup with children stays, its control files with it. */
static int
fake_rmdir (const char *path)
{
  cleanup_dir DIR *d = opendir (path);
  struct dirent *de;

  if (d == NULL)
    return -1;
  while ((de = readdir (d)))
    if (de->d_type == DT_DIR && strcmp (de->d_name, ".") != 0 && strcmp (de->d_name, "..") != 0)
      {
        errno = ENOTEMPTY;
        return -1;
      }
  rewinddir (d);
  while ((de = readdir (d)))
    if (de->d_type == DT_REG)
      unlinkat (dirfd (d), de->d_name, 0);
  return rmdir (path);
}

static bool
is_freezer_state (const char *path)
{
  const char *base = strrchr (path, '/');
  base = base ? base + 1 : path;
  return strcmp (base, "freezer.state") == 0 || strcmp (base, "cgroup.freeze") == 0;
}

static int
fake_open_file (const char *path, ocisbx_err **err)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | (is_freezer_state (path) ? O_TRUNC : O_APPEND));
  if (fd < 0)
    return err_set (err, errno, "open `%s`", path);
  return fd;
}

static int
fake_write_value (int fd, const char *value)
{
  cleanup_free char *line = xasprintf ("%s\n", value);
  return write_all (fd, line, strlen (line)) < 0 ? -1 : 0;
}

static int
fake_attach_devices (const char *dir, const struct cg_dev_rule *rules, size_t n, ocisbx_err **err)
{
  (void) dir;
  (void) rules;
  (void) n;
  (void) err;
  return 0;
}

/* Nothing of a directory tree can be joined: cgroup_enter then (join.h). */
static int
fake_open_join (const char *path, bool v2, ocisbx_err **err)
{
  (void) v2;
  return err_set (err, EXDEV, "`%s`: not a cgroup file system", path);
}

static const cg_fs_ops fake_cgroupfs = {
  .mkdir = fake_mkdir,
  .rmdir = fake_rmdir,
  .open_file = fake_open_file,
  .open_join = fake_open_join,
  .write_value = fake_write_value,
  .attach_devices = fake_attach_devices,
};

const cg_fs_ops *const cg_fs = &fake_cgroupfs;
