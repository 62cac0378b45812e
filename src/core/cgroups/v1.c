/* cgroups v1 specifics: cpuset initialisation of new cgroups, the freezer. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

/* FILE ("cpuset.cpus", "cpuset.mems") of the v1 cpuset cgroup DIR, filled from the
   level above when empty: a cgroup cannot take tasks while either is empty (ENOSPC).
   As runc, an empty level above is filled first, up to one that has a value: a pod
   parent someone made with mkdir alone gets its cpus and mems too.  *VAL: the value,
   "" when DIR is no cpuset cgroup (the hierarchy's mount point has been passed). */
static int
fill_from_above (const cgroup_manager *m, const char *dir, const char *file, char **val, ocisbx_err **err)
{
  cleanup_free char *mine = xasprintf ("%s/%s", dir, file);
  cleanup_free char *parent = xstrdup (dir);
  cleanup_free char *above = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *slash;

  if (read_file_at (AT_FDCWD, mine, val, NULL, &e) < 0)
    {
      *val = xstrdup ("");
      return 0;
    }
  (*val)[strcspn (*val, "\n")] = '\0';
  if ((*val)[0] != '\0')
    return 0;
  slash = strrchr (parent, '/');
  if (slash == NULL || slash == parent)
    return 0;
  *slash = '\0';
  if (fill_from_above (m, parent, file, &above, err) < 0)
    return -1;
  if (above[0] == '\0')
    return 0;
  if (cg_write_file (m, mine, above, err) < 0)
    return err_wrap (err, "cgroups: cpuset");
  free (*val);
  *val = steal_ptr (&above);
  return 0;
}

int
cg_v1_cpuset_init (const cgroup_manager *m, const char *dir, ocisbx_err **err)
{
  cleanup_free char *cpus = NULL;
  cleanup_free char *mems = NULL;

  if (fill_from_above (m, dir, "cpuset.cpus", &cpus, err) < 0)
    return -1;
  return fill_from_above (m, dir, "cpuset.mems", &mems, err);
}

void
cg_v1_clone_children (const cgroup_manager *m, const char *dir)
{
  cleanup_free char *f = xasprintf ("%s/cgroup.clone_children", dir);
  ocisbx_err *ignored = NULL;

  if (cg_write_file (m, f, "1", &ignored) < 0)
    err_free (ignored);
}

/* Write the target state and wait until the kernel reports it (FREEZING is the
   transient state while tasks are being stopped). */
int
cg_v1_freeze (cgroup_manager *m, cg_hier *h, bool freeze, ocisbx_err **err)
{
  const char *want = freeze ? "FROZEN" : "THAWED";
  long delay_us = 100;

  for (int i = 0; i < 2000; i++)
    {
      cleanup_free char *s = NULL;
      if (cg_write_h (m, h, "freezer.state", want, err) < 0)
        return err_wrap (err, freeze ? "pause" : "resume");
      if (cg_read_h (h, "freezer.state", &s, err) < 0)
        return err_wrap (err, freeze ? "pause" : "resume");
      if (strncmp (s, want, strlen (want)) == 0)
        return 0;
      usleep (delay_us);
      if (delay_us < 10000)
        delay_us *= 2;
    }
  return err_set (err, ETIMEDOUT, "%s: freezer.state of `%s` did not become %s", freeze ? "pause" : "resume",
                  h->dir, want);
}
