/* cgroups v1 specifics: cpuset initialisation of new cgroups, the freezer. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../utils.h"
#include "internal.h"

static int
copy_from_parent (const cgroup_manager *m, const char *dir, const char *file, ocisbx_err **err)
{
  cleanup_free char *mine = xasprintf ("%s/%s", dir, file);
  cleanup_free char *parent = NULL;
  cleanup_free char *cur = NULL;
  cleanup_free char *val = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *slash;

  if (read_file_at (AT_FDCWD, mine, &cur, NULL, &e) < 0)
    return 0; /* no such file: nothing to initialise */
  if (cur[0] != '\0' && cur[0] != '\n')
    return 0;
  parent = xstrdup (dir);
  slash = strrchr (parent, '/');
  if (slash == NULL)
    return 0;
  *slash = '\0';
  {
    cleanup_free char *pf = xasprintf ("%s/%s", parent, file);
    if (read_file_at (AT_FDCWD, pf, &val, NULL, err) < 0)
      return err_wrap (err, "cgroups: cpuset");
  }
  val[strcspn (val, "\n")] = '\0';
  if (val[0] == '\0')
    return 0;
  if (cg_write_file (m, mine, val, err) < 0)
    return err_wrap (err, "cgroups: cpuset");
  return 0;
}

int
cg_v1_cpuset_init (const cgroup_manager *m, const char *dir, ocisbx_err **err)
{
  if (copy_from_parent (m, dir, "cpuset.cpus", err) < 0)
    return -1;
  return copy_from_parent (m, dir, "cpuset.mems", err);
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
