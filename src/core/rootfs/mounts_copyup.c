/* "tmpcopyup": a new tmpfs starts with a copy of the directory it covers (files,
 * directories, symlinks, device nodes and fifos, with their modes and owners).  Both
 * trees are walked through fds with O_NOFOLLOW, never by path.
 */
#include <config.h>
#include "core/rootfs/mounts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/syscalls.h"

#define COPYUP_MAX_DEPTH 64

static int copy_dir (int from, int to, int depth, ocisbx_err **err);

static int
copy_file (int from, int to, const char *name, const struct stat *st, ocisbx_err **err)
{
  cleanup_close int in = openat (from, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_close int out = -1;
  char buf[65536];
  ssize_t n;

  if (in < 0)
    return err_set (err, errno, "tmpcopyup: open `%s`", name);
  out = openat (to, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, st->st_mode & 07777);
  if (out < 0)
    return err_set (err, errno, "tmpcopyup: create `%s`", name);
  while ((n = read (in, buf, sizeof buf)) > 0)
    if (write_all (out, buf, n) < 0)
      return err_set (err, errno, "tmpcopyup: write `%s`", name);
  if (n < 0)
    return err_set (err, errno, "tmpcopyup: read `%s`", name);
  return 0;
}

/* The owner and mode of the entry NAME just made in TO, through an O_PATH, O_NOFOLLOW
   fd of it checked to be of ST's type: never a second lookup that would follow a
   symlink put in its place. */
static int
copy_owner_mode (int to, const char *name, const struct stat *st, ocisbx_err **err)
{
  cleanup_close int fd = openat (to, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat now;

  if (fd < 0 || fstat (fd, &now) < 0)
    return err_set (err, errno, "tmpcopyup: open `%s`", name);
  if ((now.st_mode & S_IFMT) != (st->st_mode & S_IFMT))
    return err_set (err, EPERM, "tmpcopyup: `%s` was replaced while it was copied", name);
  if (fchownat (fd, "", st->st_uid, st->st_gid, AT_EMPTY_PATH) < 0 && errno != EINVAL)
    return err_set (err, errno, "tmpcopyup: chown `%s`", name);
  if (!S_ISLNK (st->st_mode) && fd_chmod (fd, st->st_mode & 07777) < 0)
    return err_set (err, errno, "tmpcopyup: chmod `%s`", name);
  return 0;
}

static int
copy_entry (int from, int to, const char *name, int depth, ocisbx_err **err)
{
  struct stat st;

  if (fstatat (from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return err_set (err, errno, "tmpcopyup: stat `%s`", name);
  switch (st.st_mode & S_IFMT)
    {
    case S_IFDIR:
      {
        cleanup_close int sub_from = -1;
        cleanup_close int sub_to = -1;
        if (mkdirat (to, name, st.st_mode & 07777) < 0)
          return err_set (err, errno, "tmpcopyup: mkdir `%s`", name);
        sub_from = openat (from, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        sub_to = openat (to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub_from < 0 || sub_to < 0)
          return err_set (err, errno, "tmpcopyup: open `%s`", name);
        if (copy_dir (sub_from, sub_to, depth + 1, err) < 0)
          return err_wrap (err, "%s", name);
        break;
      }
    case S_IFREG:
      if (copy_file (from, to, name, &st, err) < 0)
        return -1;
      break;
    case S_IFLNK:
      {
        char target[PATH_MAX];
        ssize_t n = readlinkat (from, name, target, sizeof target - 1);
        if (n < 0)
          return err_set (err, errno, "tmpcopyup: readlink `%s`", name);
        target[n] = '\0';
        if (symlinkat (target, to, name) < 0)
          return err_set (err, errno, "tmpcopyup: symlink `%s`", name);
        break;
      }
    case S_IFCHR:
    case S_IFBLK:
    case S_IFIFO:
      if (sys->mknodat (to, name, st.st_mode, st.st_rdev) < 0)
        return err_set (err, errno, "tmpcopyup: mknod `%s`", name);
      break;
    default:
      return 0; /* sockets: nothing to copy */
    }
  return copy_owner_mode (to, name, &st, err);
}

typedef struct copy_walk
{
  int from, to, depth;
  ocisbx_err **err;
} copy_walk;

static int
copy_walk_entry (const char *name, unsigned char type, void *arg)
{
  const copy_walk *w = arg;
  (void) type; /* copy_entry asks fstatat: it needs the mode anyway */
  return copy_entry (w->from, w->to, name, w->depth, w->err);
}

/* FROM (open for reading) into TO, read with dir_each: the container's init runs this. */
static int
copy_dir (int from, int to, int depth, ocisbx_err **err)
{
  copy_walk w = { from, to, depth, err };

  if (depth > COPYUP_MAX_DEPTH)
    return err_set (err, ELOOP, "tmpcopyup: too deep");
  if (dir_each (from, copy_walk_entry, &w) < 0)
    return *err ? -1 : err_set (err, errno, "tmpcopyup: read directory");
  return 0;
}

/* Is OPT ("mode") given in the comma-separated DATA ("size=1m,mode=1770")? */
static bool
has_data_opt (const char *data, const char *opt)
{
  size_t n = strlen (opt);
  for (const char *p = data; p && *p; p = strchr (p, ','), p = p ? p + 1 : NULL)
    if (strncmp (p, opt, n) == 0 && p[n] == '=')
      return true;
  return false;
}

int
mount_copyup (int lower, int upper, const char *data, ocisbx_err **err)
{
  cleanup_close int from = openat (lower, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cleanup_close int to = openat (upper, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  struct stat st;

  if (from < 0 || to < 0)
    return err_set (err, errno, "tmpcopyup: open");
  /* The tmpfs root takes the covered directory's mode and owner, unless the
     mount's own mode=/uid=/gid= say otherwise. */
  if (fstat (from, &st) < 0)
    return err_set (err, errno, "tmpcopyup: stat");
  if (!has_data_opt (data, "mode") && fchmod (to, st.st_mode & 07777) < 0)
    return err_set (err, errno, "tmpcopyup: chmod the tmpfs root");
  if (fchown (to, has_data_opt (data, "uid") ? (uid_t) -1 : st.st_uid,
              has_data_opt (data, "gid") ? (gid_t) -1 : st.st_gid)
          < 0
      && errno != EINVAL)
    return err_set (err, errno, "tmpcopyup: chown the tmpfs root");
  return copy_dir (from, to, 0, err);
}
