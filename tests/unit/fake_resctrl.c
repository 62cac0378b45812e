/* A resctrl file system stood in for by a plain directory tree, for the intelRdt unit
   tests: this program's resctrl operations (core/intelrdt/resctrl_fs.h), in place of the
   runtime's real ones.  As the kernel would, a new group gets its files: a CTRL_MON
   group `tasks`, `schemata` and, where its parent has one, `mon_groups/`; a MON group
   (in a mon_groups/) `tasks` only; rmdir removes a group with everything in it.  Every
   write to a group's file is appended, so that a test reads the sequence of writes.
   What the kernel refuses is asked for by a file of the test's: mkdir in a directory
   holding `.enospc` fails with ENOSPC (no CLOS or RMID left), and the writes to the
   files of a group holding `.reject`, or of a group in one, fail (they go to
   /dev/full). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/intelrdt/resctrl_fs.h"

static bool
has (const char *dir, const char *name)
{
  cleanup_free char *p = xasprintf ("%s/%s", dir, name);
  return access (p, F_OK) == 0;
}

static void
touch (const char *dir, const char *name)
{
  cleanup_free char *p = xasprintf ("%s/%s", dir, name);
  int fd = open (p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
}

static int
fake_rdt_mkdir (const char *path, mode_t mode)
{
  cleanup_free char *parent = xstrdup (path);
  char *slash = strrchr (parent, '/');
  bool mon;

  if (slash == NULL)
    return mkdir (path, mode);
  *slash = '\0';
  mon = strcmp (strrchr (parent, '/') ? strrchr (parent, '/') + 1 : parent, "mon_groups") == 0;
  if (has (parent, ".enospc"))
    {
      errno = ENOSPC;
      return -1;
    }
  if (mkdir (path, mode) < 0)
    return -1;
  touch (path, "tasks");
  if (mon)
    return 0;
  touch (path, "schemata");
  if (has (parent, "mon_groups"))
    {
      cleanup_free char *m = xasprintf ("%s/mon_groups", path);
      mkdir (m, 0755);
    }
  return 0;
}

static int
remove_tree (int parent, const char *name)
{
  cleanup_close int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_dir DIR *d = NULL;
  struct dirent *de;

  if (fd < 0)
    return -1;
  d = fdopendir (fd);
  if (d == NULL)
    return -1;
  fd = -1;
  while ((de = readdir (d)))
    {
      if (strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      if (de->d_type == DT_DIR ? remove_tree (dirfd (d), de->d_name) < 0 : unlinkat (dirfd (d), de->d_name, 0) < 0)
        return -1;
    }
  return unlinkat (parent, name, AT_REMOVEDIR);
}

static int
fake_rdt_rmdir (const char *path)
{
  struct stat st;

  if (lstat (path, &st) < 0)
    return -1;
  if (!S_ISDIR (st.st_mode))
    {
      errno = ENOTDIR;
      return -1;
    }
  return remove_tree (AT_FDCWD, path);
}

static int
fake_rdt_open_file (const char *path, ocisbx_err **err)
{
  cleanup_free char *dir = xstrdup (path);
  char *slash = strrchr (dir, '/');
  int fd;

  if (slash)
    *slash = '\0';
  if (slash && has (dir, ".reject"))
    fd = open ("/dev/full", O_WRONLY | O_CLOEXEC);
  else if (slash && has (dir, "../.reject"))
    fd = open ("/dev/full", O_WRONLY | O_CLOEXEC);
  else
    fd = open (path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return err_set (err, errno, "open `%s`", path);
  return fd;
}

static const rdt_fs_ops fake_resctrl = {
  .mkdir = fake_rdt_mkdir,
  .rmdir = fake_rdt_rmdir,
  .open_file = fake_rdt_open_file,
};

const rdt_fs_ops *const rdt_fs = &fake_resctrl;
