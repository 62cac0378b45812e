/* cgroups: layout detection (v1, hybrid, v2) and the runtime's own cgroups. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/statfs.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

cgroup_layout
cgroup_detect_layout (const char *fs_root)
{
  struct statfs sfs;
  cleanup_free char *unified = NULL;

  if (fs_root == NULL)
    fs_root = CGROUP_FS_ROOT;
  if (statfs (fs_root, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC)
    return CGROUP_LAYOUT_V2;
  unified = xasprintf ("%s/unified", fs_root);
  if (statfs (unified, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC)
    return CGROUP_LAYOUT_HYBRID;
  return CGROUP_LAYOUT_V1;
}

const char *
cgroup_layout_name (cgroup_layout l)
{
  switch (l)
    {
    case CGROUP_LAYOUT_V1:
      return "v1";
    case CGROUP_LAYOUT_HYBRID:
      return "hybrid";
    case CGROUP_LAYOUT_V2:
      return "v2";
    default:
      return "auto";
    }
}

void
cg_own_free (cg_own *o, size_t n)
{
  for (size_t i = 0; o && i < n; i++)
    {
      free (o[i].controllers);
      free (o[i].path);
    }
  free (o);
}

/* Lines are "ID:CONTROLLERS:PATH"; the path may itself contain ':'. */
int
cg_read_own (const char *file, cg_own **out, size_t *n, ocisbx_err **err)
{
  cleanup_free char *data = NULL;
  cg_own *v = NULL;
  size_t len = 0;
  char *save = NULL;

  if (read_file_at (AT_FDCWD, file, &data, NULL, err) < 0)
    return err_wrap (err, "cgroups: own cgroup");
  for (char *line = strtok_r (data, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *c1 = strchr (line, ':'), *c2;
      if (c1 == NULL || (c2 = strchr (c1 + 1, ':')) == NULL)
        continue;
      *c2 = '\0';
      v = realloc (v, (len + 1) * sizeof *v);
      if (v == NULL)
        abort ();
      v[len].controllers = xstrdup (c1 + 1);
      v[len].path = xstrdup (c2 + 1);
      len++;
    }
  *out = v;
  *n = len;
  return 0;
}

char *
cg_v1_dirname (const char *controllers)
{
  if (strncmp (controllers, "name=", 5) == 0)
    return xstrdup (controllers + 5);
  return xstrdup (controllers);
}

bool
cgroup_has_controller (const char *controllers, const char *c)
{
  size_t l = strlen (c);
  const char *p = controllers;
  while (p && *p)
    {
      const char *e = strchr (p, ',');
      size_t tl = e ? (size_t) (e - p) : strlen (p);
      if (tl == l && strncmp (p, c, l) == 0)
        return true;
      p = e ? e + 1 : NULL;
    }
  return false;
}
