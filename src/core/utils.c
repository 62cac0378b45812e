#include <config.h>
#include "core/utils.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/magic.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ocispec.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

void
cleanup_freep (void *p)
{
  free (*(void **) p);
}

void
close_fd (int *fd)
{
  if (*fd >= 0)
    {
      int saved = errno;
      close (*fd);
      errno = saved;
    }
  *fd = -1;
}

void
cleanup_closep (int *fd)
{
  close_fd (fd);
}

void
cleanup_fclosep (FILE **f)
{
  if (*f != NULL)
    fclose (*f);
}

void
cleanup_closedirp (DIR **d)
{
  if (*d != NULL)
    closedir (*d);
}

DIR *
opendir_at (int dirfd, const char *path)
{
  int fd = openat (dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d;

  if (fd < 0)
    return NULL;
  d = fdopendir (fd);
  if (d == NULL)
    {
      int saved = errno;
      close (fd);
      errno = saved;
    }
  return d;
}

void
cleanup_strvp (char ***v)
{
  if (*v == NULL)
    return;
  for (char **i = *v; *i; i++)
    free (*i);
  free (*v);
}

void *
xmalloc (size_t n)
{
  void *p = malloc (n ? n : 1);
  if (p == NULL)
    abort ();
  return p;
}

void *
xmalloc0 (size_t n)
{
  void *p = calloc (1, n ? n : 1);
  if (p == NULL)
    abort ();
  return p;
}

char *
xstrdup (const char *s)
{
  char *r;
  if (s == NULL)
    return NULL;
  r = strdup (s);
  if (r == NULL)
    abort ();
  return r;
}

char *
xasprintf (const char *fmt, ...)
{
  char *r;
  va_list ap;
  va_start (ap, fmt);
  if (vasprintf (&r, fmt, ap) < 0)
    abort ();
  va_end (ap);
  return r;
}

ssize_t
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  size_t done = 0;
  while (done < len)
    {
      ssize_t r = write (fd, p + done, len - done);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      done += r;
    }
  return done;
}

ssize_t
read_all (int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t done = 0;
  while (done < len)
    {
      ssize_t r = read (fd, p + done, len - done);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return -1;
      if (r == 0)
        break;
      done += r;
    }
  return done;
}

int
read_file_at (int dirfd, const char *path, char **out, size_t *len, ocisbx_err **err)
{
  cleanup_close int fd = openat (dirfd, path, O_RDONLY | O_CLOEXEC);
  cleanup_free char *buf = NULL;
  size_t size = 0, alloc = 0;

  if (fd < 0)
    return err_set (err, errno, "open `%s`", path);
  for (;;)
    {
      ssize_t r;
      if (alloc - size < 4096)
        {
          alloc = alloc ? alloc * 2 : 8192;
          buf = realloc (buf, alloc + 1);
          if (buf == NULL)
            abort ();
        }
      r = read (fd, buf + size, alloc - size);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return err_set (err, errno, "read `%s`", path);
      if (r == 0)
        break;
      size += r;
    }
  if (buf == NULL)
    buf = xmalloc0 (1);
  buf[size] = '\0';
  *out = steal_ptr (&buf);
  if (len)
    *len = size;
  return 0;
}

int
write_file_atomic_at (int dirfd, const char *path, const char *data, size_t len, mode_t mode,
                      ocisbx_err **err)
{
  cleanup_free char *tmp = xasprintf ("%s.tmp.%d", path, (int) getpid ());
  cleanup_close int fd = openat (dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode);

  if (fd < 0)
    return err_set (err, errno, "create `%s`", tmp);
  if (write_all (fd, data, len) < 0)
    {
      int saved = errno;
      unlinkat (dirfd, tmp, 0);
      return err_set (err, saved, "write `%s`", tmp);
    }
  if (renameat (dirfd, tmp, dirfd, path) < 0)
    {
      int saved = errno;
      unlinkat (dirfd, tmp, 0);
      return err_set (err, saved, "rename `%s` to `%s`", tmp, path);
    }
  return 0;
}

/* PATH opened for writing (no symlink at its end), refused unless it is on a file system
   of one of the N MAGICS: a symlink or a mount of another kind cannot redirect the
   write.  WHAT names those file systems in the error. */
int
open_write_on_fs (const char *path, const long *magics, size_t n, const char *what, ocisbx_err **err)
{
  cleanup_close int fd = open (path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
  struct statfs sfs;

  if (fd < 0)
    return err_set (err, errno, "open `%s`", path);
  if (fstatfs (fd, &sfs) < 0)
    return err_set (err, errno, "statfs `%s`", path);
  for (size_t i = 0; i < n; i++)
    if ((long) sfs.f_type == magics[i])
      return steal_fd (&fd);
  return err_set (err, EXDEV, "refusing to write `%s`: not on %s", path, what);
}

int
open_proc_file (const char *path, ocisbx_err **err)
{
  static const long magics[] = { PROC_SUPER_MAGIC, SYSFS_MAGIC, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC };
  return open_write_on_fs (path, magics, sizeof magics / sizeof magics[0], "procfs/sysfs", err);
}

int
write_proc_file (const char *path, const char *data, size_t len, ocisbx_err **err)
{
  cleanup_close int fd = open_proc_file (path, err);

  if (fd < 0)
    return -1;
  if (write_all (fd, data, len) < 0)
    return err_set (err, errno, "write `%s`", path);
  return 0;
}

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452 /* the same number on every architecture */
#endif

int
fd_chmod (int fd, mode_t mode)
{
  cleanup_close int self = -1;
  struct statfs sfs;
  char name[16];

  if (syscall (SYS_fchmodat2, fd, "", mode, AT_EMPTY_PATH) == 0)
    return 0;
  if (errno != ENOSYS && errno != EINVAL)
    return -1;
  self = open ("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (self < 0)
    return -1;
  if (fstatfs (self, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
    {
      errno = EXDEV;
      return -1;
    }
  snprintf (name, sizeof name, "%d", fd);
  return fchmodat (self, name, mode, 0);
}

/* One entry of /proc/self/fd for fds_range's fallback. */
struct fds_walk
{
  int self; /* the directory's own fd */
  int from;
  unsigned to;
  unsigned flags;
};

static int
fds_range_one (const char *name, unsigned char type, void *arg)
{
  const struct fds_walk *w = arg;
  char *end;
  long fd = strtol (name, &end, 10);

  (void) type;
  if (*end != '\0' || fd < w->from || (unsigned long) fd > w->to || fd == w->self)
    return 0;
  if (w->flags & CLOSE_RANGE_CLOEXEC)
    fcntl ((int) fd, F_SETFD, FD_CLOEXEC);
  else
    close ((int) fd);
  return 0;
}

/* close_range (FROM, TO, FLAGS), on a kernel without it (< 5.9, or CLOSE_RANGE_CLOEXEC
   < 5.11) by a walk of /proc/self/fd with dir_each: no heap, as the container's init
   calls it (the procfs checked with fstatfs, as it may be the container's). */
static int
fds_range (int from, unsigned to, unsigned flags, ocisbx_err **err)
{
  cleanup_close int self = -1;
  struct fds_walk w = { -1, from, to, flags };
  struct statfs sfs;

  if (syscall (SYS_close_range, (unsigned) from, to, flags) == 0)
    return 0;
  self = open ("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (self < 0)
    return err_set (err, errno, "open /proc/self/fd");
  if (fstatfs (self, &sfs) < 0 || sfs.f_type != PROC_SUPER_MAGIC)
    return err_set (err, EXDEV, "/proc/self/fd: not on a procfs");
  w.self = self;
  if (dir_each (self, fds_range_one, &w) < 0)
    return err_set (err, errno, "read /proc/self/fd");
  return 0;
}

int
close_fds_except (int from, const int *keep, size_t n, ocisbx_err **err)
{
  int sorted[16], lo = from;

  if (n > sizeof sorted / sizeof sorted[0])
    return err_set (err, EINVAL, "close_fds_except: %zu fds to keep", n);
  memcpy (sorted, keep, n * sizeof *keep);
  for (size_t i = 1; i < n; i++) /* insertion sort: a handful */
    for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--)
      {
        int t = sorted[j];
        sorted[j] = sorted[j - 1];
        sorted[j - 1] = t;
      }
  for (size_t i = 0; i < n; i++)
    {
      if (sorted[i] < lo)
        continue;
      if (sorted[i] > lo && fds_range (lo, (unsigned) sorted[i] - 1, 0, err) < 0)
        return -1;
      lo = sorted[i] + 1;
    }
  return fds_range (lo, ~0U, 0, err);
}

int
cloexec_fds_from (int from, ocisbx_err **err)
{
  return fds_range (from, ~0U, CLOSE_RANGE_CLOEXEC, err);
}

int
run_program (const char *path, char *const argv[], int in, char *out, size_t out_len, ocisbx_err **err)
{
  cleanup_close int out_r = -1, out_w = -1;
  int p[2], status;
  size_t len = 0;
  pid_t pid;
  ssize_t r;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return err_set (err, errno, "pipe");
  out_r = p[0];
  out_w = p[1];
  pid = fork ();
  if (pid < 0)
    return err_set (err, errno, "fork `%s`", path);
  if (pid == 0)
    {
      sigset_t none;
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      if (in < 0)
        in = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      if (in < 0 || dup2 (in, STDIN_FILENO) < 0 || dup2 (out_w, STDOUT_FILENO) < 0
          || dup2 (out_w, STDERR_FILENO) < 0)
        _exit (127);
      syscall (SYS_close_range, 3U, ~0U, 0U); /* --preserve-fds are not for a helper */
      execv (path, argv);
      dprintf (STDERR_FILENO, "exec `%s`: %s", path, strerror (errno));
      _exit (127);
    }
  close_fd (&out_w);
  for (;;)
    {
      char drop[256];
      bool room = len + 1 < out_len;
      r = room ? read (out_r, out + len, out_len - 1 - len) : read (out_r, drop, sizeof drop);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        break;
      if (room)
        len += (size_t) r;
    }
  while (len > 0 && (out[len - 1] == '\n' || out[len - 1] == ' '))
    len--;
  if (out_len)
    out[len] = '\0';
  while (waitpid (pid, &status, 0) < 0)
    if (errno != EINTR)
      return err_set (err, errno, "wait for `%s`", path);
  return status;
}

long long
monotonic_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

int
dir_each (int fd, int (*fn) (const char *name, unsigned char type, void *arg), void *arg)
{
  char buf[2048] __attribute__ ((aligned (8)));

  for (;;)
    {
      long n = syscall (SYS_getdents64, fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return n < 0 ? -1 : 0;
      for (long off = 0; off < n;)
        {
          struct linux_dirent64
          {
            uint64_t ino;
            int64_t off;
            unsigned short reclen;
            unsigned char type;
            char name[];
          } *de = (void *) (buf + off);
          int r;
          off += de->reclen;
          if (strcmp (de->name, ".") == 0 || strcmp (de->name, "..") == 0)
            continue;
          r = fn (de->name, de->type, arg);
          if (r < 0)
            return r;
        }
    }
}

/* FIELD of LINE (NUL-terminated, no newline) when its uid is UID: 1 with *OUT set
   (NULL for an empty field), 0 for another line. */
static int
passwd_line (char *line, uid_t uid, int field, char **out)
{
  char *fields[7];
  char *p = line, *end;
  int n = 0;
  unsigned long id;

  while (n < 7 && p)
    {
      fields[n++] = p;
      p = strchr (p, ':');
      if (p)
        *p++ = '\0';
    }
  if (n <= field || n < 3 || fields[2][0] == '\0')
    return 0;
  errno = 0;
  id = strtoul (fields[2], &end, 10);
  if (errno || *end || id != (unsigned long) uid)
    return 0;
  *out = fields[field][0] ? xstrdup (fields[field]) : NULL;
  return 1;
}

int
lines_each (const char *path, char *buf, size_t size, int (*fn) (char *line, void *arg), void *arg)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  return lines_each_fd (fd, SIZE_MAX, buf, size, fn, arg);
}

int
lines_each_fd (int fd, size_t max, char *buf, size_t size, int (*fn) (char *line, void *arg), void *arg)
{
  size_t have = 0, cap = size - 1; /* and a NUL */
  bool skipping = false;

  if (size < 2)
    {
      errno = EINVAL;
      return -1;
    }
  for (;;)
    {
      ssize_t n = max ? read (fd, buf + have, cap - have < max ? cap - have : max) : 0;
      char *line = buf, *nl;
      int r;

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return -1;
      max -= (size_t) n;
      if (n == 0)
        {
          if (have == 0 || skipping)
            return 0;
          buf[have] = '\0'; /* a last line without a newline */
          return fn (buf, arg);
        }
      have += (size_t) n;
      buf[have] = '\0';
      while ((nl = memchr (line, '\n', have - (size_t) (line - buf))) != NULL)
        {
          *nl = '\0';
          if (!skipping && (r = fn (line, arg)) != 0)
            return r;
          skipping = false;
          line = nl + 1;
        }
      have -= (size_t) (line - buf);
      memmove (buf, line, have);
      if (have == cap)
        {
          /* too long: FN hears of it once, the rest is dropped up to its newline */
          if (!skipping && (r = fn (NULL, arg)) != 0)
            return r;
          skipping = true;
          have = 0;
        }
    }
}

typedef struct passwd_want
{
  uid_t uid;
  int field;
  char *out;
} passwd_want;

static int
passwd_each (char *line, void *arg)
{
  passwd_want *w = arg;
  if (line == NULL)
    return 0; /* too long: skipped */
  return passwd_line (line, w->uid, w->field, &w->out);
}

int
open_plain_file (const char *path)
{
  cleanup_close int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct statfs sfs;
  struct stat st;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0 || fstatfs (fd, &sfs) < 0)
    return -1;
  if (!S_ISREG (st.st_mode) || sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC)
    {
      errno = EINVAL;
      return -1;
    }
  return steal_fd (&fd);
}

char *
passwd_field (const char *file, uid_t uid, int field)
{
  /* Not stdio: the container init reads its /etc/passwd (lines_each); a plain file
     only, and at most PASSWD_MAX bytes of it: an image's passwd that is a FIFO, a
     device or never ends must not hold create (or exec) for ever. */
  passwd_want w = { .uid = uid, .field = field };
  cleanup_close int fd = -1;
  char buf[4096];

  if (field < 0 || field > 6 || (fd = open_plain_file (file)) < 0
      || lines_each_fd (fd, PASSWD_MAX, buf, sizeof buf, passwd_each, &w) <= 0)
    return NULL;
  return w.out;
}

void
map_set (ocispec_map *m, const char *key, const char *value)
{
  for (size_t i = 0; i < m->len; i++)
    if (strcmp (m->keys[i], key) == 0)
      {
        free (m->values[i]);
        m->values[i] = xstrdup (value);
        return;
      }
  m->keys = realloc (m->keys, (m->len + 1) * sizeof (char *));
  m->values = realloc (m->values, (m->len + 1) * sizeof (char *));
  if (m->keys == NULL || m->values == NULL)
    abort ();
  m->keys[m->len] = xstrdup (key);
  m->values[m->len] = xstrdup (value);
  m->len++;
}
