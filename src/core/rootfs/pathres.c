#include <config.h>
#include "core/rootfs/pathres.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/utils.h"

char *
pathres_fd_path (int fd, char *buf)
{
  snprintf (buf, PATHRES_FD_PATH_MAX, "/proc/self/fd/%d", fd);
  return buf;
}

void
pathres_split (const char *path, char **dir, char **base)
{
  size_t len = strlen (path);
  const char *slash;

  while (len > 1 && path[len - 1] == '/')
    len--;
  slash = memrchr (path, '/', len);
  if (slash == NULL)
    {
      *dir = xstrdup (".");
      *base = len ? strndup (path, len) : xstrdup (".");
      return;
    }
  if (slash == path + len - 1) /* "/" */
    {
      *dir = xstrdup ("/");
      *base = xstrdup (".");
      return;
    }
  *dir = slash == path ? xstrdup ("/") : strndup (path, slash - path);
  *base = strndup (slash + 1, path + len - slash - 1);
}

static int
err_errno (ocisbx_err **err, int errnum, const char *what, const char *path)
{
  err_set (err, errnum, "%s `%s`", what, path);
  errno = errnum;
  return -1;
}

/* openat2 fast path: -1 with errno (ENOSYS/EINVAL/E2BIG mean "not usable here"). */
static int
open_in_root (int rootfd, const char *path)
{
  struct open_how how = {
    .flags = O_PATH | O_CLOEXEC,
    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
  };
  int fd, tries = 0;

  if (*path == '\0')
    path = "/";
  do
    fd = (int) syscall (SYS_openat2, rootfd, path, &how, sizeof how);
  while (fd < 0 && (errno == EAGAIN || errno == EINTR) && ++tries < 16);
  return fd;
}

static bool
openat2_unusable (int e)
{
  return e == ENOSYS || e == EINVAL || e == E2BIG || e == EPERM || e == EAGAIN;
}

static bool
same_inode (const struct stat *a, const struct stat *b)
{
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Create NAME in DIRFD (a directory or an empty file); EEXIST is fine. */
static int
create_at (int dirfd, const char *name, bool file, mode_t mode)
{
  if (file)
    {
      int fd = openat (dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, mode);
      if (fd >= 0)
        {
          close (fd);
          return 0;
        }
    }
  else if (mkdirat (dirfd, name, mode) == 0)
    return 0;
  return errno == EEXIST ? 0 : -1;
}

int
pathres_walk (int rootfd, const char *path, pathres_create_kind kind, mode_t mode, ocisbx_err **err)
{
  cleanup_free char *rest = xstrdup (path);
  cleanup_close int cur = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat rootst, st;
  char *p = rest;
  int links = 0;

  if (cur < 0 || fstat (rootfd, &rootst) < 0)
    return err_errno (err, errno, "open root for", path);

  for (;;)
    {
      cleanup_close int next = -1;
      char *comp;
      bool last;

      while (*p == '/')
        p++;
      if (*p == '\0')
        break;
      comp = p;
      while (*p && *p != '/')
        p++;
      if (*p == '/')
        *p++ = '\0';
      while (*p == '/')
        p++;
      last = *p == '\0';

      if (strcmp (comp, ".") == 0)
        continue;
      if (strcmp (comp, "..") == 0)
        {
          /* `..` of the root is the root, as for "/" on a real system. */
          if (fstat (cur, &st) < 0)
            return err_errno (err, errno, "stat", path);
          if (same_inode (&st, &rootst))
            continue;
          next = openat (cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
          if (next < 0)
            return err_errno (err, errno, "open", path);
          close (cur);
          cur = steal_fd (&next);
          continue;
        }

      next = openat (cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      if (next < 0 && errno == ENOENT && kind != PATHRES_NONE)
        {
          bool file = last && kind == PATHRES_FILE;
          if (create_at (cur, comp, file, last ? mode : 0755) < 0)
            return err_errno (err, errno, file ? "create" : "mkdir", path);
          next = openat (cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        }
      if (next < 0)
        return err_errno (err, errno, "open", path);
      if (fstat (next, &st) < 0)
        return err_errno (err, errno, "stat", path);

      if (S_ISLNK (st.st_mode))
        {
          char target[PATH_MAX];
          ssize_t n;
          char *spliced;

          if (++links > PATHRES_MAX_SYMLINKS)
            return err_errno (err, ELOOP, "resolve", path);
          n = readlinkat (next, "", target, sizeof target - 1);
          if (n < 0)
            return err_errno (err, errno, "readlink", path);
          target[n] = '\0';
          /* The target replaces the component; the rest of the path follows it. */
          spliced = xasprintf ("%s/%s", target, p);
          free (rest);
          rest = spliced;
          p = rest;
          if (target[0] == '/')
            {
              close (cur);
              cur = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
              if (cur < 0)
                return err_errno (err, errno, "open root for", path);
            }
          continue;
        }
      if (!last && !S_ISDIR (st.st_mode))
        return err_errno (err, ENOTDIR, "open", path);
      close (cur);
      cur = steal_fd (&next);
    }
  return steal_fd (&cur);
}

int
pathres_open (int rootfd, const char *path, ocisbx_err **err)
{
  int fd = open_in_root (rootfd, path);

  if (fd >= 0)
    return fd;
  if (openat2_unusable (errno))
    return pathres_walk (rootfd, path, PATHRES_NONE, 0, err);
  return err_errno (err, errno, "open", path);
}

/* Only the last component of PATH is missing (the usual case: /dev/pts in a fresh
   /dev): create it in its parent, resolved inside the root, and resolve PATH again.
   -1 when that is not the case or anything fails: the walk then decides. */
static int
create_last (int rootfd, const char *path, pathres_create_kind kind, mode_t mode)
{
  cleanup_free char *dir = NULL, *base = NULL;
  cleanup_close int parent = -1;

  pathres_split (path, &dir, &base);
  if (strcmp (base, ".") == 0 || strcmp (base, "..") == 0)
    return -1;
  parent = open_in_root (rootfd, dir);
  if (parent < 0 || create_at (parent, base, kind == PATHRES_FILE, mode) < 0)
    return -1;
  return open_in_root (rootfd, path);
}

int
pathres_create (int rootfd, const char *path, pathres_create_kind kind, mode_t mode, ocisbx_err **err)
{
  int fd = open_in_root (rootfd, path);
  int e = errno;

  if (fd >= 0)
    return fd;
  if (e == ENOENT && kind != PATHRES_NONE && (fd = create_last (rootfd, path, kind, mode)) >= 0)
    return fd;
  errno = e;
  if (errno == ENOENT || openat2_unusable (errno))
    {
      /* Create what is missing by walking (each creation happens on the fd of a
         directory already resolved inside the root), then re-resolve. */
      cleanup_close int walked = pathres_walk (rootfd, path, kind, mode, err);
      if (walked < 0)
        return -1;
      fd = open_in_root (rootfd, path);
      if (fd >= 0)
        return fd;
      if (openat2_unusable (errno))
        return steal_fd (&walked);
    }
  return err_errno (err, errno, "open", path);
}

bool
pathres_under (const char *dir, const char *path)
{
  size_t n = strlen (dir);
  return strncmp (path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || (n == 1 && dir[0] == '/'));
}

int
pathres_open_plain (int rootfd, const char *path, ocisbx_err **err)
{
  cleanup_free char *clean = pathres_clean (path);
  cleanup_close int cur = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *save = NULL;

  if (cur < 0)
    return err_errno (err, errno, "open", path);
  for (char *comp = strtok_r (clean, "/", &save); comp; comp = strtok_r (NULL, "/", &save))
    {
      int next = openat (cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      struct stat st;

      if (next < 0)
        return err_errno (err, errno, "open", path);
      close (cur);
      cur = next;
      if (fstat (cur, &st) < 0)
        return err_errno (err, errno, "stat", path);
      if (S_ISLNK (st.st_mode))
        return err_errno (err, ELOOP, "open (a symlink in the way)", path);
    }
  return steal_fd (&cur);
}

bool
pathres_has_symlink (int rootfd, const char *path)
{
  cleanup_free char *clean = pathres_clean (path);
  cleanup_close int cur = openat (rootfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  char *save = NULL;

  for (char *comp = strtok_r (clean, "/", &save); comp && cur >= 0; comp = strtok_r (NULL, "/", &save))
    {
      int next = openat (cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
      struct stat st;

      if (next >= 0 && fstat (next, &st) == 0 && S_ISLNK (st.st_mode))
        {
          close (next);
          return true;
        }
      close (cur);
      cur = next; /* -1 (missing): nothing further can be a symlink yet */
    }
  return false;
}

char *
pathres_clean (const char *path)
{
  size_t len = strlen (path);
  char *out = xmalloc0 (len + 2);
  size_t o = 0;
  const char *p = path;
  bool abs = *path == '/';

  if (abs)
    out[o++] = '/';
  while (*p)
    {
      const char *c;
      size_t n;

      while (*p == '/')
        p++;
      c = p;
      while (*p && *p != '/')
        p++;
      n = p - c;
      if (n == 0 || (n == 1 && c[0] == '.'))
        continue;
      if (n == 2 && c[0] == '.' && c[1] == '.')
        {
          size_t floor = abs ? 1 : 0;
          bool last_is_dotdot = o >= floor + 2 && out[o - 1] == '.' && out[o - 2] == '.'
                                && (o == floor + 2 || out[o - 3] == '/');
          if (o > floor && !last_is_dotdot)
            {
              while (o > floor && out[o - 1] != '/')
                o--;
              if (o > floor)
                o--; /* the slash before the removed component */
              continue;
            }
          if (abs)
            continue;
        }
      if (o > 0 && out[o - 1] != '/')
        out[o++] = '/';
      memcpy (out + o, c, n);
      o += n;
    }
  if (o == 0)
    out[o++] = '.';
  out[o] = '\0';
  return out;
}

bool
pathres_has_dotdot (const char *path)
{
  for (const char *p = path; (p = strstr (p, "..")); p += 2)
    if ((p == path || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
      return true;
  return false;
}
