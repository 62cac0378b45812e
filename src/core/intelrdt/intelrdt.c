/* linux.intelRdt: refused, with the spec's error when no resctrl is mounted
   (intelrdt.h). */
#include <config.h>
#include "core/intelrdt/intelrdt.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

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

int
intelrdt_validate (const oci_linux *lx, const char *mountinfo, ocisbx_err **err)
{
  resctrl_find f = { .found = false };
  char buf[4096];

  if (lx == NULL || lx->intel_rdt == NULL)
    return 0;
  if (lines_each (mountinfo, buf, sizeof buf, resctrl_line, &f) < 0)
    return err_set (err, errno, FIELD ": read `%s`", mountinfo);
  if (!f.found)
    return err_setk (err, ERR_UNSUPPORTED, 0,
                     FIELD ": no resctrl file system is mounted in the runtime's mount namespace (%s, "
                     "`mount -t resctrl resctrl " RESCTRL_DEFAULT "`)",
                     RESCTRL_DEFAULT);
  return err_setk (err, ERR_UNSUPPORTED, 0,
                   FIELD ": not implemented by this runtime (resctrl is mounted at `%s`; features: "
                   "intelRdt.enabled false)",
                   f.at);
}
