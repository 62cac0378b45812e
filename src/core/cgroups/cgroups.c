/* STUB until the cgroups work lands: no cgroups at all. */
#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "cgroups.h"

struct cgroup_manager
{
  char *path;
};

int
cgroup_setup (const cgroup_config *cc, cgroup_manager **out, ocisbx_err **err)
{
  *out = calloc (1, sizeof **out);
  (*out)->path = strdup ("/");
  return 0;
}
int cgroup_enter (cgroup_manager *m, pid_t pid, ocisbx_err **err) { return 0; }
const char *cgroup_path (const cgroup_manager *m) { return m->path; }
char *cgroup_serialize (const cgroup_manager *m) { return strdup (""); }
int
cgroup_load (const char *fs_root, const char *serialized, cgroup_manager **out, ocisbx_err **err)
{
  *out = calloc (1, sizeof **out);
  (*out)->path = strdup ("/");
  return 0;
}
int cgroup_destroy (cgroup_manager *m, ocisbx_err **err) { return 0; }
void
cgroup_manager_free (cgroup_manager *m)
{
  if (m)
    free (m->path);
  free (m);
}
int cgroup_pids (cgroup_manager *m, pid_t **pids, size_t *n, ocisbx_err **err) { return err_set (err, 0, "cgroups: not implemented"); }
int cgroup_kill_all (cgroup_manager *m, int sig, ocisbx_err **err) { return err_set (err, 0, "cgroups: not implemented"); }
int cgroup_freeze (cgroup_manager *m, bool freeze, ocisbx_err **err) { return err_set (err, 0, "cgroups: not implemented"); }
int cgroup_is_frozen (cgroup_manager *m, bool *frozen, ocisbx_err **err) { *frozen = false; return 0; }
int cgroup_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err) { return err_set (err, 0, "cgroups: not implemented"); }
