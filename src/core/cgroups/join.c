#include <config.h>
#include "core/cgroups/join.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/utils.h"

static int
open_checked (const char *path, int flags, long magic)
{
  struct statfs sfs;
  int fd = open (path, flags | O_CLOEXEC | O_NOFOLLOW);

  if (fd < 0)
    return -1;
  if (fstatfs (fd, &sfs) < 0 || sfs.f_type != magic)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* One "h CREATED NAME\tCONTROLLERS\tV2\tPATH" line of cgroup_serialize (). */
static bool
add_line (cgroup_join *j, const char *fs_root, char *line)
{
  char *f[4], *p = strchr (line + 2, ' ');
  cleanup_free char *dir = NULL;

  if (p == NULL)
    return false;
  p++;
  for (int k = 0; k < 4; k++)
    {
      f[k] = p;
      p = k < 3 ? strchr (p, '\t') : NULL;
      if (k < 3 && p == NULL)
        return false;
      if (p)
        *p++ = '\0';
    }
  if (strcmp (f[3], "/") == 0)
    return false; /* the root cgroup: not a container's */
  dir = f[0][0] ? xasprintf ("%s/%s%s", fs_root, f[0], f[3]) : xasprintf ("%s%s", fs_root, f[3]);
  if (f[2][0] == '1')
    {
      if (j->v2_dir >= 0)
        return false;
      j->v2_dir = open_checked (dir, O_RDONLY | O_DIRECTORY, CGROUP2_SUPER_MAGIC);
      return j->v2_dir >= 0;
    }
  else
    {
      cleanup_free char *tasks = xasprintf ("%s/tasks", dir);
      int fd;
      if (j->n_tasks == CGROUP_JOIN_MAX)
        return false;
      fd = open_checked (tasks, O_WRONLY, CGROUP_SUPER_MAGIC);
      if (fd < 0)
        return false;
      if (cgroup_has_controller (f[1], "memory"))
        j->memory_at = j->n_tasks;
      j->tasks[j->n_tasks++] = fd;
      return true;
    }
}

void
cgroup_join_init (cgroup_join *j)
{
  memset (j, 0, sizeof *j);
  j->v2_dir = j->memory_home = j->memory = -1;
  j->memory_at = SIZE_MAX;
}

void
cgroup_join_prepare (const cgroup_manager *m, const char *fs_root, cgroup_join *j)
{
  cleanup_free char *s = cgroup_serialize (m);
  char *save = NULL, *line;
  bool ok = true, any = false;

  cgroup_join_init (j);
  if (s == NULL)
    return;
  for (line = strtok_r (s, "\n", &save); line && ok; line = strtok_r (NULL, "\n", &save))
    {
      /* systemd's scope is started with the init: cgroup_enter by the parent */
      if (strcmp (line, "fake 1") == 0 || strcmp (line, "rootless 1") == 0 || strncmp (line, "systemd ", 8) == 0)
        ok = false;
      else if (strncmp (line, "h ", 2) == 0)
        {
          ok = add_line (j, fs_root, line);
          any = true;
        }
    }
  j->usable = ok && any;
  if (!j->usable)
    {
      cgroup_join_close (j);
      return;
    }
  if (j->memory_at != SIZE_MAX)
    {
      cleanup_free char *home = cgroup_own_tasks_v1 (m, "memory");
      if (home)
        j->memory_home = open_checked (home, O_WRONLY, CGROUP_SUPER_MAGIC);
    }
}

int
cgroup_join_self (cgroup_join *j, ocisbx_err **err)
{
  for (size_t i = 0; i < j->n_tasks; i++)
    {
      if (write (j->tasks[i], "0", 1) != 1)
        return err_set (err, errno, "cgroups: join a v1 hierarchy");
      if (i == j->memory_at && j->memory_home >= 0)
        j->memory = j->tasks[i];
      else
        close (j->tasks[i]);
      j->tasks[i] = -1;
    }
  j->n_tasks = 0;
  return 0;
}

void
cgroup_join_close (cgroup_join *j)
{
  for (size_t i = 0; i < j->n_tasks; i++)
    if (j->tasks[i] >= 0)
      close (j->tasks[i]);
  j->n_tasks = 0;
  if (j->v2_dir >= 0)
    close (j->v2_dir);
  if (j->memory_home >= 0)
    close (j->memory_home);
  if (j->memory >= 0)
    close (j->memory);
  j->v2_dir = j->memory_home = j->memory = -1;
}
