#include <config.h>
#include "core/cgroups/join.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroups/cgroups_internal.h"
#include "core/utils.h"

/* PATH through the manager's seam (fs_ops.h: open_join); -1 when it cannot be joined
   that way (cgroup_enter then: why is not an error). */
static int
open_join_file (const cgroup_manager *m, const char *path, bool v2)
{
  cleanup_err ocisbx_err *err = NULL;

  return m->fs->open_join (path, v2, &err);
}

/* Open what joining hierarchy H takes: its cgroup2 directory, or its v1 "tasks" file. */
static bool
open_join_target (cgroup_join *j, const cgroup_manager *m, const cgroup_hierarchy *h)
{
  cleanup_free char *tasks = NULL;
  int fd;

  if (strcmp (h->path, "/") == 0)
    return false; /* the root cgroup: not a container's */
  if (h->v2)
    {
      if (j->v2_dir >= 0)
        return false;
      j->v2_dir = open_join_file (m, h->dir, true);
      return j->v2_dir >= 0;
    }
  if (j->n_tasks == CGROUP_JOIN_MAX)
    return false;
  tasks = xasprintf ("%s/tasks", h->dir);
  fd = open_join_file (m, tasks, false);
  if (fd < 0)
    return false;
  if (cgroup_has_controller (h->controllers, "memory"))
    j->memory_at = j->n_tasks;
  j->tasks[j->n_tasks++] = fd;
  return true;
}

void
cgroup_join_init (cgroup_join *j)
{
  memset (j, 0, sizeof *j);
  j->v2_dir = j->memory_home = -1;
  j->memory_at = SIZE_MAX;
}

void
cgroup_join_prepare (const cgroup_manager *m, bool memory_hand_off, cgroup_join *j)
{
  size_t n = cgroup_hierarchy_count (m);
  bool ok = n > 0 && !cgroup_enter_only (m);

  cgroup_join_init (j);
  j->fs = m->fs;
  for (size_t i = 0; i < n && ok; i++)
    {
      cgroup_hierarchy h = cgroup_hierarchy_at (m, i);
      ok = open_join_target (j, m, &h);
    }
  j->usable = ok;
  if (!j->usable)
    {
      cgroup_join_close (j);
      return;
    }
  if (memory_hand_off && j->memory_at != SIZE_MAX)
    {
      cleanup_free char *home = cgroup_own_tasks_v1 (m, "memory");
      if (home)
        j->memory_home = open_join_file (m, home, false);
    }
}

int
cgroup_join_self (const cgroup_join *j, int *memory_home, int *memory, ocisbx_err **err)
{
  *memory_home = *memory = -1;
  for (size_t i = 0; i < j->n_tasks; i++)
    {
      if (j->fs->write_value (j->tasks[i], "0") < 0)
        return err_set (err, errno, "cgroups: join a v1 hierarchy");
      if (i == j->memory_at && j->memory_home >= 0)
        *memory = j->tasks[i];
      else
        close (j->tasks[i]);
    }
  /* the clone used it; the runtime's memory cgroup only serves the hand-off */
  if (j->v2_dir >= 0)
    close (j->v2_dir);
  if (*memory >= 0)
    *memory_home = j->memory_home;
  else if (j->memory_home >= 0)
    close (j->memory_home);
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
  j->v2_dir = j->memory_home = -1;
}
