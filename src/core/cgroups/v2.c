/* cgroup v2 specifics: enabling controllers down the tree, cgroup.freeze. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

int
cg_v2_enable_level (const cgroup_manager *m, const char *dir, const oci_resources *res,
                    ocisbx_err **err)
{
  cleanup_free char *cf = xasprintf ("%s/cgroup.controllers", dir);
  cleanup_free char *sf = xasprintf ("%s/cgroup.subtree_control", dir);
  cleanup_free char *avail = NULL;
  cleanup_free char *enabled = NULL;
  cleanup_free char *all = xstrdup ("");
  cleanup_err ocisbx_err *e = NULL;
  char *save = NULL;
  bool missing = false;

  if (read_file_at (AT_FDCWD, cf, &avail, NULL, &e) < 0)
    return 0; /* not a cgroup2 directory we can enable anything in */
  if (read_file_at (AT_FDCWD, sf, &enabled, NULL, &e) < 0)
    enabled = xstrdup ("");
  avail[strcspn (avail, "\n")] = '\0';
  enabled[strcspn (enabled, "\n")] = '\0';
  for (char *c = strtok_r (avail, " ", &save); c; c = strtok_r (NULL, " ", &save))
    {
      char *n;
      bool on = false;
      char *p = enabled;
      size_t l = strlen (c);
      while ((p = strstr (p, c)))
        {
          if ((p == enabled || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0'))
            {
              on = true;
              break;
            }
          p += l;
        }
      if (on)
        continue;
      missing = true;
      n = xasprintf ("%s%s+%s", all, all[0] ? " " : "", c);
      free (all);
      all = n;
    }
  if (!missing)
    return 0;
  if (cg_write_file (m, sf, all, &e) == 0)
    return 0;
  /* One by one: some controller may refuse (e.g. cpu with realtime tasks). */
  err_freep (&e);
  save = NULL;
  for (char *c = strtok_r (all, " ", &save); c; c = strtok_r (NULL, " ", &save))
    if (cg_write_file (m, sf, c, &e) < 0)
      {
        log_debug ("cgroups: enable %s in `%s`: %s", c, sf, e->msg);
        err_freep (&e);
      }
  (void) res;
  (void) err;
  return 0;
}

/* Is C a word of the space separated list S? */
static bool
has_word (const char *s, const char *c)
{
  size_t l = strlen (c);
  for (const char *p = s; (p = strstr (p, c)); p += l)
    if ((p == s || p[-1] == ' ' || p[-1] == '\n') && (p[l] == ' ' || p[l] == '\n' || p[l] == '\0'))
      return true;
  return false;
}

static char *
v2_root (const cgroup_manager *m, const cg_hier *h)
{
  return h->name[0] ? xasprintf ("%s/%s", m->fs_root, h->name) : xstrdup (m->fs_root);
}

bool
cg_v2_available (const cgroup_manager *m, const cg_hier *h, const char *c)
{
  cleanup_free char *root = v2_root (m, h);
  cleanup_free char *cf = xasprintf ("%s/cgroup.controllers", root);
  cleanup_free char *avail = NULL;
  cleanup_err ocisbx_err *e = NULL;

  return read_file_at (AT_FDCWD, cf, &avail, NULL, &e) == 0 && has_word (avail, c);
}

int
cg_v2_enable_down (const cgroup_manager *m, const cg_hier *h, const char *c, ocisbx_err **err)
{
  cleanup_free char *cur = v2_root (m, h);
  cleanup_free char *copy = xstrdup (h->path);
  cleanup_free char *plus = xasprintf ("+%s", c);
  char *save = NULL;
  char *comp = strtok_r (copy, "/", &save);

  /* Each level that has a child on the way to the container's cgroup. */
  while (comp)
    {
      cleanup_free char *sf = xasprintf ("%s/cgroup.subtree_control", cur);
      cleanup_free char *enabled = NULL;
      char *next;

      if (read_file_at (AT_FDCWD, sf, &enabled, NULL, err) < 0)
        return err_wrap (err, "cgroups: enable %s", c);
      if (!has_word (enabled, c))
        {
          log_debug ("cgroups: enable %s in `%s`", c, sf);
          if (cg_write_file (m, sf, plus, err) < 0)
            return err_wrap (err, "cgroups: enable %s", c);
        }
      next = xasprintf ("%s/%s", cur, comp);
      free (cur);
      cur = next;
      comp = strtok_r (NULL, "/", &save);
    }
  return 0;
}

static bool
events_frozen (const cg_hier *h, bool want)
{
  uint64_t v = 0;
  cleanup_err ocisbx_err *e = NULL;
  if (cg_read_keyed (h, "cgroup.events", "frozen", &v, &e) != 0)
    return true; /* no cgroup.events (a kernel before 5.2): trust the write */
  return (v == 1) == want;
}

int
cg_v2_freeze (cgroup_manager *m, cg_hier *h, bool freeze, ocisbx_err **err)
{
  long delay_us = 100;

  if (cg_write_h (m, h, "cgroup.freeze", freeze ? "1" : "0", err) < 0)
    return err_wrap (err, freeze ? "pause" : "resume");
  for (int i = 0; i < 2000; i++)
    {
      if (events_frozen (h, freeze))
        return 0;
      usleep (delay_us);
      if (delay_us < 10000)
        delay_us *= 2;
    }
  return err_set (err, ETIMEDOUT, "%s: `%s` did not become %s", freeze ? "pause" : "resume", h->dir,
                  freeze ? "frozen" : "thawed");
}
