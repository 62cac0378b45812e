/* cgroups: the forms of linux.cgroupsPath.
 *
 *   absent                 /ocisbx/<id>               (systemd: system.slice:ocisbx:<id>)
 *   "/a/b"                 under each hierarchy's root
 *   "a/b"                  under the runtime's own cgroup in each hierarchy
 *   "slice:prefix:name"    with --systemd-cgroup, mapped onto cgroupfs as systemd would:
 *                          /<expanded slice>/<prefix>-<name>.scope
 */
#include <config.h>

#include <errno.h>
#include <string.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#define FIELD ".linux.cgroupsPath"

/* Append the components of P to BUF (normalized: no empty or "." components).
   Returns -1 on a ".." component. */
static int
append_components (char **buf, const char *p)
{
  cleanup_free char *copy = xstrdup (p);
  char *save = NULL;
  for (char *c = strtok_r (copy, "/", &save); c; c = strtok_r (NULL, "/", &save))
    {
      char *n;
      if (strcmp (c, ".") == 0)
        continue;
      if (strcmp (c, "..") == 0)
        return -1;
      n = xasprintf ("%s/%s", *buf, c);
      free (*buf);
      *buf = n;
    }
  return 0;
}

char *
cg_expand_slice (const char *slice, ocisbx_err **err)
{
  size_t l = strlen (slice);
  cleanup_free char *stem = NULL;
  char *out;

  if (strcmp (slice, "-.slice") == 0)
    return xstrdup ("");
  if (l < 7 || strcmp (slice + l - 6, ".slice") != 0 || strchr (slice, '/') != NULL)
    {
      err_set (err, 0, FIELD ": invalid systemd slice \"%s\"", slice);
      return NULL;
    }
  stem = strndup (slice, l - 6);
  if (stem == NULL)
    abort ();
  if (stem[0] == '-' || stem[strlen (stem) - 1] == '-' || strstr (stem, "--") != NULL)
    {
      err_set (err, 0, FIELD ": invalid systemd slice \"%s\"", slice);
      return NULL;
    }
  /* a-b-c.slice -> /a.slice/a-b.slice/a-b-c.slice */
  out = xstrdup ("");
  for (char *d = stem;; d++)
    {
      if (*d == '-' || *d == '\0')
        {
          char *n = xasprintf ("%s/%.*s.slice", out, (int) (d - stem), stem);
          free (out);
          out = n;
          if (*d == '\0')
            break;
        }
    }
  return out;
}

int
cg_systemd_names (const cgroup_config *cc, char **slice_out, char **unit_out, ocisbx_err **err)
{
  cleanup_free char *copy = NULL;
  const char *slice, *prefix, *name;
  char *c1, *c2;
  size_t nl;

  if (cc->cgroups_path == NULL || cc->cgroups_path[0] == '\0')
    copy = xasprintf ("system.slice:ocisbx:%s", cc->id ? cc->id : "");
  else
    copy = xstrdup (cc->cgroups_path);
  c1 = strchr (copy, ':');
  c2 = c1 ? strchr (c1 + 1, ':') : NULL;
  if (c1 == NULL || c2 == NULL || strchr (c2 + 1, ':') != NULL)
    return err_set (err, 0, FIELD ": \"%s\" is not of the form \"slice:prefix:name\" (--systemd-cgroup)",
                    cc->cgroups_path);
  *c1 = *c2 = '\0';
  slice = copy[0] ? copy : "system.slice";
  prefix = c1 + 1;
  name = c2 + 1;
  if (name[0] == '\0' || strchr (name, '/') || strchr (prefix, '/') || strcmp (name, "..") == 0
      || strcmp (name, ".") == 0)
    return err_set (err, 0, FIELD ": invalid systemd unit name in \"%s\"", cc->cgroups_path);
  nl = strlen (name);
  *slice_out = xstrdup (slice);
  if (nl > 6 && strcmp (name + nl - 6, ".slice") == 0)
    *unit_out = xstrdup (name); /* the name is itself a slice: a child slice of SLICE */
  else if (prefix[0] == '\0')
    *unit_out = xasprintf ("%s.scope", name);
  else
    *unit_out = xasprintf ("%s-%s.scope", prefix, name);
  return 0;
}

static char *
systemd_path (const cgroup_config *cc, ocisbx_err **err)
{
  cleanup_free char *slice = NULL;
  cleanup_free char *unit = NULL;
  cleanup_free char *slice_dir = NULL;

  if (cg_systemd_names (cc, &slice, &unit, err) < 0)
    return NULL;
  slice_dir = cg_expand_slice (slice, err);
  if (slice_dir == NULL)
    return NULL;
  return xasprintf ("%s/%s", slice_dir, unit);
}

char *
cg_resolve_path (const cgroup_config *cc, const char *own, ocisbx_err **err)
{
  cleanup_free char *out = xstrdup ("");
  const char *p = cc->cgroups_path;

  if (p && (strchr (p, '\n') || strchr (p, '\t')))
    {
      err_set (err, 0, FIELD ": control characters in \"%s\"", p);
      return NULL;
    }
  if (cc->systemd)
    {
      cleanup_free char *sp = systemd_path (cc, err);
      if (sp == NULL)
        return NULL;
      if (append_components (&out, sp) < 0)
        {
          err_set (err, 0, FIELD ": \"..\" is not allowed in \"%s\"", p);
          return NULL;
        }
    }
  else if (p == NULL || p[0] == '\0')
    {
      if (cc->id == NULL || cc->id[0] == '\0' || strchr (cc->id, '/') || strcmp (cc->id, "..") == 0
          || strcmp (cc->id, ".") == 0)
        {
          err_set (err, 0, "cgroups: invalid container id \"%s\"", cc->id ? cc->id : "");
          return NULL;
        }
      free (out);
      out = xasprintf ("/ocisbx/%s", cc->id);
    }
  else
    {
      if (p[0] != '/' && append_components (&out, own ? own : "/") < 0)
        {
          err_set (err, 0, "cgroups: own cgroup \"%s\" has \"..\"", own);
          return NULL;
        }
      if (append_components (&out, p) < 0)
        {
          err_set (err, 0, FIELD ": \"..\" is not allowed in \"%s\"", p);
          return NULL;
        }
    }
  if (out[0] == '\0')
    {
      free (out);
      out = xstrdup ("/");
    }
  return steal_ptr (&out);
}
