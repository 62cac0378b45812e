/* linux.intelRdt planned and checked before anything is made (intelrdt.h): the resctrl
   mount, the CLOS and MON group paths, the schema lines. */
#include <config.h>
#include "core/intelrdt/intelrdt.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "core/intelrdt/schema.h"
#include "core/utils.h"

#define FIELD "config.json: .linux.intelRdt"
#define RESCTRL_DEFAULT "/sys/fs/resctrl"

/* The mount point of the first resctrl mount of mountinfo. */
typedef struct resctrl_find
{
  char at[PATH_MAX];
  bool found;
} resctrl_find;

/* "36 35 0:30 / /sys/fs/resctrl rw,relatime shared:17 - resctrl resctrl rw" */
static int
resctrl_line (char *line, void *arg)
{
  resctrl_find *f = arg;
  char *sep, *mp, *end;

  if (line == NULL || (sep = strstr (line, " - ")) == NULL || strncmp (sep + 3, "resctrl ", 8) != 0)
    return 0;
  mp = line;
  for (int i = 0; i < 4 && mp; i++) /* the fifth field */
    {
      mp = strchr (mp, ' ');
      if (mp)
        mp++;
    }
  end = mp ? strchr (mp, ' ') : NULL;
  if (end == NULL || (size_t) (end - mp) >= sizeof f->at)
    return 0;
  memcpy (f->at, mp, (size_t) (end - mp));
  f->at[end - mp] = '\0';
  f->found = true;
  return 1;
}

/* closID: "/" (the default CLOS), or a group name of the resctrl root. */
static int
check_clos_id (const char *clos, ocisbx_err **err)
{
  static const char *const reserved[] = { ".", "..", "info", "mon_groups", "mon_data" };

  if (strcmp (clos, "/") == 0)
    return 0;
  if (clos[0] == '\0' || strchr (clos, '/') || strlen (clos) > NAME_MAX)
    return err_setk (err, ERR_INVALID_CONFIG, 0,
                     FIELD ".closID: `%s` is not a CLOS name (one path component, or \"/\" for the default CLOS)",
                     clos);
  for (size_t i = 0; i < sizeof reserved / sizeof *reserved; i++)
    if (strcmp (clos, reserved[i]) == 0)
      return err_setk (err, ERR_INVALID_CONFIG, 0, FIELD ".closID: `%s` is a name resctrl keeps for itself", clos);
  return 0;
}

/* A schema line: well formed, its resource one of the resctrl mount's (ROOT/info/NAME). */
static int
check_line (const char *field, const char *line, void *arg, ocisbx_err **err)
{
  const char *root = arg;
  char name[64];
  const char *why = rdt_schema_check (line, name, sizeof name);
  cleanup_free char *info = NULL;
  struct stat st;

  if (why)
    return err_setk (err, ERR_INVALID_CONFIG, 0, FIELD "%s: `%s`: %s", field, line, why);
  info = xasprintf ("%s/info/%s", root, name);
  if (stat (info, &st) < 0 || !S_ISDIR (st.st_mode))
    return err_setk (err, ERR_UNSUPPORTED, 0,
                     FIELD "%s: `%s`: the resctrl file system at `%s` has no resource `%s` (no `%s`)", field,
                     line, root, name, info);
  return 0;
}

int
intelrdt_prepare (const oci_linux *lx, const char *id, const char *mountinfo, intelrdt_plan *plan,
                  ocisbx_err **err)
{
  resctrl_find f = { .found = false };
  const oci_intel_rdt *r = lx ? lx->intel_rdt : NULL;
  char buf[4096];

  *plan = (intelrdt_plan){ .rdt = NULL };
  if (r == NULL)
    return 0;
  if (lines_each (mountinfo, buf, sizeof buf, resctrl_line, &f) < 0)
    return err_set (err, errno, FIELD ": read `%s`", mountinfo);
  if (!f.found)
    return err_setk (err, ERR_UNSUPPORTED, 0,
                     FIELD ": no resctrl file system is mounted in the runtime's mount namespace (%s, "
                     "`mount -t resctrl resctrl " RESCTRL_DEFAULT "`)",
                     RESCTRL_DEFAULT);
  if (r->clos_id && check_clos_id (r->clos_id, err) < 0)
    return -1;
  if (rdt_schema_each (r, check_line, f.at, err) < 0)
    return -1;
  plan->rdt = r;
  plan->root = xstrdup (f.at);
  if (r->clos_id && strcmp (r->clos_id, "/") == 0)
    plan->clos = xstrdup (f.at);
  else
    plan->clos = xasprintf ("%s/%s", strcmp (f.at, "/") == 0 ? "" : f.at, r->clos_id ? r->clos_id : id);
  if (r->enable_monitoring)
    plan->mon = xasprintf ("%s/mon_groups/%s", plan->clos, id);
  return 0;
}

void
intelrdt_plan_free (intelrdt_plan *plan)
{
  free (plan->root);
  free (plan->clos);
  free (plan->mon);
  *plan = (intelrdt_plan){ .rdt = NULL };
}
