/* cgroups: writing one resource, with errors named after the config field;
   linux.resources.unified (raw cgroup2 files); all of linux.resources at create and
   update (cg_apply_resources: v1 or v2, unified, devices). */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

int
cg_set (const cgroup_manager *m, const char *ctrl, const char *file, const char *value, bool noop,
        const char *field, ocisbx_err **err)
{
  return cg_set_h (m, cg_find (m, ctrl), ctrl, file, value, noop, field, err);
}

int
cg_set_h (const cgroup_manager *m, const cg_hier *h, const char *ctrl, const char *file, const char *value,
          bool noop, const char *field, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;

  if (h == NULL)
    {
      if (noop)
        return 0;
      return err_set (err, 0, "%s: the %s cgroup controller is not available", field, ctrl);
    }
  if (cg_write_h (m, h, file, value, &e) == 0)
    return 0;
  return cg_set_error (steal_ptr (&e), ctrl, file, value, noop, field, err);
}

int
cg_set_error (ocisbx_err *e, const char *ctrl, const char *file, const char *value, bool noop,
              const char *field, ocisbx_err **err)
{
  if (e->errnum == ENOENT)
    {
      err_free (e);
      if (noop)
        return 0;
      return err_set (err, 0, "%s: not supported by this kernel or not enabled (no `%s` in the %s controller)",
                      field, file, ctrl);
    }
  *err = e;
  return err_wrap (err, "%s: set %s to \"%s\"", field, file, value);
}

/* cpu.idle and the cpuset: the same files on v1 and v2. */
int
cg_set_cpu_common (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err)
{
  char buf[32];

  if (cpu->idle)
    {
      snprintf (buf, sizeof buf, "%" PRId64, *cpu->idle);
      if (cg_set (m, "cpu", "cpu.idle", buf, *cpu->idle == 0, ".linux.resources.cpu.idle", err) < 0)
        return -1;
    }
  if (cpu->cpus && cpu->cpus[0]
      && cg_set (m, "cpuset", "cpuset.cpus", cpu->cpus, false, ".linux.resources.cpu.cpus", err) < 0)
    return -1;
  if (cpu->mems && cpu->mems[0]
      && cg_set (m, "cpuset", "cpuset.mems", cpu->mems, false, ".linux.resources.cpu.mems", err) < 0)
    return -1;
  return 0;
}

int
cg_apply_unified (cgroup_manager *m, const oci_resources *r, ocisbx_err **err)
{
  cg_hier *u = cg_unified (m);

  if (u == NULL)
    return err_set (err, 0, ".linux.resources.unified: requires cgroup v2 (this host has cgroup v1)");
  for (size_t i = 0; i < r->unified.len; i++)
    {
      const char *k = r->unified.keys[i];
      const char *v = r->unified.values[i];
      cleanup_err ocisbx_err *e = NULL;

      if (k[0] == '\0' || k[0] == '.' || strchr (k, '/') || strchr (k, '.') == NULL)
        return err_set (err, 0, ".linux.resources.unified[\"%s\"]: not a cgroup file name", k);
      if (strncmp (k, "cgroup.", 7) == 0 && strcmp (k, "cgroup.freeze") != 0 && strcmp (k, "cgroup.type") != 0
          && strcmp (k, "cgroup.max.depth") != 0 && strcmp (k, "cgroup.max.descendants") != 0)
        return err_set (err, 0, ".linux.resources.unified[\"%s\"]: not settable", k);
      if (cg_write_h (m, u, k, v, &e) == 0)
        continue;
      if (e->errnum == ENOENT)
        return err_set (err, 0, ".linux.resources.unified[\"%s\"]: no such file (controller %.*s not available)", k,
                        (int) strcspn (k, "."), k);
      *err = steal_ptr (&e);
      return err_wrap (err, ".linux.resources.unified[\"%s\"]", k);
    }
  return 0;
}

/* linux.resources.unified names cgroup2 files: on v1 and on hybrid (v1 controllers,
   whatever the unified hierarchy carries) an error, in runc's words. */
int
cg_check_unified (const cgroup_manager *m, const oci_resources *res, ocisbx_err **err)
{
  if (m->layout == CGROUP_LAYOUT_V2 || res == NULL || res->unified.len == 0)
    return 0;
  return err_set (err, 0, "invalid configuration: .linux.resources.unified: cannot use unified on cgroup v1 (this "
                          "host has the %s layout)",
                  cgroup_layout_name (m->layout));
}

int
cg_apply_resources (cgroup_manager *m, const oci_resources *res, bool update, ocisbx_err **err)
{
  cleanup_free cg_dev_rule *rules = NULL;
  size_t nrules = 0;
  static const oci_resources empty;

  if (res == NULL)
    res = &empty;
  if (m->layout == CGROUP_LAYOUT_V2)
    {
      if (cg_apply_v2 (m, res, update, err) < 0)
        return -1;
    }
  else if (cg_apply_v1 (m, res, update, err) < 0)
    return -1;
  if (res->unified.len > 0 && cg_apply_unified (m, res, err) < 0)
    return -1;

  /* Devices: at create always (deny all, the rules, the default allow list); on
     update only when the update carries rules. */
  if ((update && res->devices_len == 0) || m->rootless)
    return 0;
  if (cg_dev_rules (res, true, &rules, &nrules, err) < 0)
    return -1;
  if (m->layout == CGROUP_LAYOUT_V2)
    {
      cg_hier *u = cg_unified (m);
      if (m->fs->attach_devices (u->dir, rules, nrules, err) < 0)
        return err_wrap (err, ".linux.resources.devices");
      return 0;
    }
  if (cg_find (m, "devices") == NULL)
    {
      if (res->devices_len == 0)
        return 0;
      return err_set (err, 0, ".linux.resources.devices: the devices cgroup controller is not mounted");
    }
  return update ? cg_devices_v1_update (m, rules, nrules, err) : cg_devices_v1 (m, rules, nrules, err);
}
