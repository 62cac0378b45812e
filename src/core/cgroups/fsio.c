/* cgroups: reading and writing cgroup files, listing and removing cgroups. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

char *
cg_file (const cg_hier *h, const char *file)
{
  return xasprintf ("%s/%s", h->dir, file);
}

int
cg_write_file (const cgroup_manager *m, const char *path, const char *value, ocisbx_err **err)
{
  cleanup_close int fd = cg_open_file (m, path, err);

  if (fd < 0)
    return -1;
  return cg_write_fd (m, fd, path, value, err);
}

int
cg_open_file (const cgroup_manager *m, const char *path, ocisbx_err **err)
{
  return m->fs->open_file (path, err);
}

int
cg_write_fd (const cgroup_manager *m, int fd, const char *path, const char *value, ocisbx_err **err)
{
  if (m->fs->write_value (fd, value) < 0)
    return err_set (err, errno, "write `%s`", path);
  return 0;
}

int
cg_write_h (const cgroup_manager *m, const cg_hier *h, const char *file, const char *value,
            ocisbx_err **err)
{
  cleanup_free char *p = cg_file (h, file);
  return cg_write_file (m, p, value, err);
}

int
cg_read_h (const cg_hier *h, const char *file, char **out, ocisbx_err **err)
{
  cleanup_free char *p = cg_file (h, file);
  return read_file_at (AT_FDCWD, p, out, NULL, err);
}

int
cg_read_u64 (const cg_hier *h, const char *file, uint64_t *out, ocisbx_err **err)
{
  cleanup_free char *s = NULL;
  char *end;
  if (cg_read_h (h, file, &s, err) < 0)
    return -1;
  if (strncmp (s, "max", 3) == 0)
    {
      *out = UINT64_MAX;
      return 0;
    }
  errno = 0;
  *out = strtoull (s, &end, 10);
  if (errno != 0 || end == s)
    return err_set (err, EINVAL, "`%s/%s`: not a number", h->dir, file);
  return 0;
}

int
cg_read_keyed (const cg_hier *h, const char *file, const char *key, uint64_t *out, ocisbx_err **err)
{
  cleanup_free char *s = NULL;
  size_t kl = strlen (key);
  if (cg_read_h (h, file, &s, err) < 0)
    return -1;
  for (char *line = s; line && *line;)
    {
      char *nl = strchr (line, '\n');
      if (strncmp (line, key, kl) == 0 && line[kl] == ' ')
        {
          *out = strtoull (line + kl + 1, NULL, 10);
          return 0;
        }
      line = nl ? nl + 1 : NULL;
    }
  return 1;
}

/* Append the pids of a cgroup.procs text; the array grows by doubling (a power of two
   once non-empty), so N is all that is needed to know its capacity. */
static void
add_pids (const char *data, pid_t **pids, size_t *n)
{
  for (const char *p = data; *p;)
    {
      char *end;
      long v = strtol (p, &end, 10);
      if (end == p)
        break;
      if (v > 0)
        {
          if ((*n & (*n - 1)) == 0)
            {
              *pids = realloc (*pids, (*n ? 2 * *n : 1) * sizeof **pids);
              if (*pids == NULL)
                abort ();
            }
          (*pids)[(*n)++] = (pid_t) v;
        }
      p = end;
      while (*p == '\n' || *p == ' ')
        p++;
    }
}

static int
read_pids_rec (const char *dir, bool recursive, pid_t **pids, size_t *n, ocisbx_err **err)
{
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *data = NULL;
  cleanup_dir DIR *d = NULL;
  struct dirent *de;

  if (read_file_at (AT_FDCWD, procs, &data, NULL, err) < 0)
    return -1;
  add_pids (data, pids, n);
  if (!recursive)
    return 0;
  d = opendir (dir);
  if (d == NULL)
    return err_set (err, errno, "opendir `%s`", dir);
  while ((de = readdir (d)))
    {
      cleanup_free char *sub = NULL;
      if (de->d_type != DT_DIR || de->d_name[0] == '.')
        continue;
      sub = xasprintf ("%s/%s", dir, de->d_name);
      if (read_pids_rec (sub, true, pids, n, err) < 0)
        {
          if ((*err)->errnum != ENOENT)
            return -1;
          err_freep (err); /* removed meanwhile */
        }
    }
  return 0;
}

int
cg_read_pids (const char *dir, bool recursive, pid_t **pids, size_t *n, ocisbx_err **err)
{
  *pids = NULL;
  *n = 0;
  if (read_pids_rec (dir, recursive, pids, n, err) < 0)
    {
      free (*pids);
      *pids = NULL;
      *n = 0;
      return -1;
    }
  return 0;
}

/* Kill what is left in DIR: cgroup.kill where the kernel has it, else SIGKILL each
   member (thawing a v1 freezer so the signal is delivered). */
static void
kill_leftovers (const cgroup_manager *m, const char *dir)
{
  cleanup_free char *kill_file = xasprintf ("%s/cgroup.kill", dir);
  cleanup_free char *freezer = xasprintf ("%s/freezer.state", dir);
  cleanup_free char *procs = xasprintf ("%s/cgroup.procs", dir);
  cleanup_free char *data = NULL;
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  cleanup_err ocisbx_err *err = NULL;

  if (access (kill_file, F_OK) == 0 && cg_write_file (m, kill_file, "1", &err) == 0)
    return;
  err_freep (&err);
  if (read_file_at (AT_FDCWD, procs, &data, NULL, &err) < 0)
    return;
  add_pids (data, &pids, &n);
  for (size_t i = 0; i < n; i++)
    kill (pids[i], SIGKILL);
  if (access (freezer, F_OK) == 0)
    cg_write_file (m, freezer, "THAWED", &err);
}

int
cg_remove_tree (const cgroup_manager *m, const char *dir, ocisbx_err **err)
{
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  long delay_us = 1000;
  struct timespec start, now;

  /* The common case, a leaf with no process left: one rmdir, no walk. */
  if (m->fs->rmdir (dir) == 0 || errno == ENOENT)
    return 0;
  d = opendir (dir);
  if (d == NULL)
    {
      if (errno == ENOENT)
        return 0;
      return err_set (err, errno, "opendir `%s`", dir);
    }
  while ((de = readdir (d)))
    {
      cleanup_free char *sub = NULL;
      if (de->d_type != DT_DIR || strcmp (de->d_name, ".") == 0 || strcmp (de->d_name, "..") == 0)
        continue;
      sub = xasprintf ("%s/%s", dir, de->d_name);
      if (cg_remove_tree (m, sub, err) < 0)
        return -1;
    }
  clock_gettime (CLOCK_MONOTONIC, &start);
  for (;;)
    {
      if (m->fs->rmdir (dir) == 0 || errno == ENOENT)
        return 0;
      if (errno != EBUSY)
        return err_set (err, errno, "rmdir `%s`", dir);
      clock_gettime (CLOCK_MONOTONIC, &now);
      if (now.tv_sec - start.tv_sec >= 10)
        return err_set (err, EBUSY, "rmdir `%s`", dir);
      kill_leftovers (m, dir);
      usleep (delay_us);
      if (delay_us < 100000)
        delay_us *= 2;
    }
}
