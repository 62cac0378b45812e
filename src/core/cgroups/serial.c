/* cgroup_state: what a manager made, as state.json and the creation record keep it
   (cgroups.h), and the text form of an older ocisbx, read for its containers. */
#include <config.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#define TEXT_MAGIC "ocisbx-cgroups 1"

void
cgroup_state_free (cgroup_state *s)
{
  if (s)
    ocispec_free (&cgroup_state_type, s);
}

void
cgroup_state_freep (cgroup_state **s)
{
  cgroup_state_free (*s);
  *s = NULL;
}

cgroup_state *
cgroup_state_of (const cgroup_manager *m)
{
  cgroup_state *s = xmalloc0 (sizeof *s);

  s->layout = xstrdup (cgroup_layout_name (m->layout));
  s->rootless = m->rootless;
  if (m->unit)
    {
      s->systemd_unit = xstrdup (m->unit);
      s->systemd_slice = xstrdup (m->slice ? m->slice : "");
    }
  s->hierarchies = xmalloc0 ((m->n ? m->n : 1) * sizeof *s->hierarchies);
  s->hierarchies_len = m->n;
  for (size_t i = 0; i < m->n; i++)
    s->hierarchies[i] = (cgroup_state_hierarchy) {
      .name = xstrdup (m->h[i].name), .controllers = xstrdup (m->h[i].controllers), .v2 = m->h[i].v2,
      .path = xstrdup (m->h[i].path), .created = m->h[i].created,
    };
  return s;
}

char *
cgroup_serialize (const cgroup_manager *m)
{
  cgroup_state *s = cgroup_state_of (m);
  char *json = NULL, *perr = NULL;
  size_t len = 0;

  if (ocispec_generate (&cgroup_state_type, s, false, &json, &len, &perr) < 0)
    abort (); /* every field is set: nothing can be missing */
  cgroup_state_free (s);
  return json;
}

/* An older ocisbx's form, one item per line:
     ocisbx-cgroups 1
     layout hybrid
     fake 0                                                   (ignored)
     rootless 0
     systemd UNIT<TAB>SLICE                                   (--systemd-cgroup)
     h CREATED NAME<TAB>CONTROLLERS<TAB>V2<TAB>PATH            (each hierarchy)   */
static int
parse_old_text (const char *text, cgroup_state *s, ocisbx_err **err)
{
  cleanup_free char *copy = xstrdup (text);
  char *save = NULL;
  char *line = strtok_r (copy, "\n", &save);

  if (line == NULL || strcmp (line, TEXT_MAGIC) != 0)
    return err_set (err, EINVAL, "cgroups: unknown serialized state \"%.40s\"", text);
  while ((line = strtok_r (NULL, "\n", &save)))
    {
      if (strncmp (line, "layout ", 7) == 0)
        {
          free (s->layout);
          s->layout = xstrdup (line + 7);
        }
      else if (strncmp (line, "rootless ", 9) == 0)
        s->rootless = line[9] == '1';
      else if (strncmp (line, "systemd ", 8) == 0)
        {
          char *tab = strchr (line + 8, '\t');
          if (tab)
            *tab = '\0';
          free (s->systemd_unit);
          free (s->systemd_slice);
          s->systemd_unit = xstrdup (line + 8);
          s->systemd_slice = xstrdup (tab ? tab + 1 : "");
        }
      else if (strncmp (line, "h ", 2) == 0)
        {
          char *f[4], *p = line + 2, *end;
          unsigned long created = strtoul (p, &end, 10);
          cgroup_state_hierarchy *h;

          if (*end != ' ')
            return err_set (err, EINVAL, "cgroups: bad serialized line \"%s\"", line);
          p = end + 1;
          for (int k = 0; k < 4; k++)
            {
              f[k] = p;
              p = k < 3 ? strchr (p, '\t') : NULL;
              if (k < 3 && p == NULL)
                return err_set (err, EINVAL, "cgroups: bad serialized line \"%s\"", line);
              if (p)
                *p++ = '\0';
            }
          s->hierarchies = realloc (s->hierarchies, (s->hierarchies_len + 1) * sizeof *s->hierarchies);
          if (s->hierarchies == NULL)
            abort ();
          h = &s->hierarchies[s->hierarchies_len++];
          *h = (cgroup_state_hierarchy) { .name = xstrdup (f[0]), .controllers = xstrdup (f[1]),
                                          .v2 = f[2][0] == '1', .path = xstrdup (f[3]),
                                          .created = (uint32_t) created };
        }
    }
  return 0;
}

int
cgroup_state_parse (const char *serialized, cgroup_state **out, ocisbx_err **err)
{
  const char *p = serialized ? serialized : "";
  cgroup_state *s = NULL;
  char *perr = NULL;

  while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
    p++;
  if (*p == '{')
    {
      if (ocispec_parse (&cgroup_state_type, "cgroups", p, strlen (p), (void **) &s, &perr) < 0)
        return err_take (err, EINVAL, perr);
      *out = s;
      return 0;
    }
  s = xmalloc0 (sizeof *s);
  if (parse_old_text (p, s, err) < 0)
    {
      cgroup_state_free (s);
      return -1;
    }
  *out = s;
  return 0;
}
