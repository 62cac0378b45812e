/* cgroups: the systemd driver (--systemd-cgroup), as runc's and crun's.
 *
 * cgroupsPath "slice:prefix:name" names a transient scope unit prefix-name.scope in
 * the slice.  cgroup_setup only plans (and records) the paths; once the init exists,
 * cgroup_enter asks systemd to start the scope with the init as its process
 * (StartTransientUnit, Delegate=yes), the resources as unit properties where systemd
 * has them (MemoryMax, TasksMax, CPUShares/CPUWeight, CPUQuotaPerSecUSec, AllowedCPUs,
 * DevicePolicy/DeviceAllow, ...), then makes what systemd does not manage (v1 cpuset,
 * freezer, ...) and writes every resource to the cgroup files as without systemd.
 * update sets the properties again (SetUnitProperties) before the files; delete stops
 * the unit (StopUnit).  Without systemd running there is no fallback: an error, in
 * runc's words.  The D-Bus calls are made by ocisbx-systemd (src/systemd/), which links
 * libsystemd; it is built when configure finds libsystemd-dev.
 */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"
#include "core/cgroups/stats.h"

#define HELPER "ocisbx-systemd"

void
cg_sd_props_free (cg_sd_props *p)
{
  for (size_t i = 0; i < p->n; i++)
    free (p->v[i]);
  free (p->v);
  p->v = NULL;
  p->n = 0;
}

static void __attribute__ ((format (printf, 2, 3)))
prop (cg_sd_props *p, const char *fmt, ...)
{
  va_list ap;
  char *s;
  va_start (ap, fmt);
  if (vasprintf (&s, fmt, ap) < 0)
    abort ();
  va_end (ap);
  p->v = realloc (p->v, (p->n + 1) * sizeof *p->v);
  if (p->v == NULL)
    abort ();
  p->v[p->n++] = s;
}

/* ---- resources as unit properties (pure: unit-tested) ---- */

/* "0-2,5" as systemd's CPU/NUMA set: bytes of 8 bits each, lowest first, in hex. */
static char *
cpuset_bits (const char *list)
{
  cgroup_u64s l = { 0 };
  uint8_t bits[128] = { 0 };
  size_t n = 0;
  char *hex;

  cg_stats_parse_list (list, &l);
  for (size_t i = 0; i < l.n; i++)
    if (l.v[i] < 8 * sizeof bits)
      {
        bits[l.v[i] / 8] |= 1u << (l.v[i] % 8);
        if (l.v[i] / 8 + 1 > n)
          n = l.v[i] / 8 + 1;
      }
  free (l.v);
  hex = xmalloc0 (2 * n + 1);
  for (size_t i = 0; i < n; i++)
    sprintf (hex + 2 * i, "%02x", bits[i]);
  return hex;
}

/* runc's addCpuQuota: the period when given, the quota per second of CPU rounded up to
   whole percents (systemd keeps CPUQuota as a percentage), "infinity" for no quota. */
static void
cpu_quota (cg_sd_props *p, const oci_cpu *c)
{
  uint64_t period = c->period ? *c->period : 0;
  int64_t quota = c->quota ? *c->quota : 0;
  uint64_t per_sec = UINT64_MAX;

  if (period)
    prop (p, "CPUQuotaPeriodUSec\tt\t%" PRIu64, period);
  if (quota == 0 && period == 0)
    return;
  if (quota > 0)
    {
      per_sec = (uint64_t) quota * 1000000 / (period ? period : 100000);
      if (per_sec % 10000)
        per_sec = (per_sec / 10000 + 1) * 10000;
    }
  prop (p, "CPUQuotaPerSecUSec\tt\t%" PRIu64, per_sec);
}

/* The group name of a MAJOR of TYPE ('c', 'b') in DEVICES (/proc/devices' text). */
static char *
device_group (const char *devices, char type, long major)
{
  bool in = false;
  for (const char *line = devices; line && *line; line = strchr (line, '\n'), line = line ? line + 1 : NULL)
    {
      char name[64];
      long m;
      if (strncmp (line, "Character devices:", 18) == 0 || strncmp (line, "Block devices:", 14) == 0)
        {
          in = (line[0] == 'C') == (type == 'c');
          continue;
        }
      if (in && sscanf (line, " %ld %63s", &m, name) == 2 && m == major)
        return xasprintf ("%s-%s", type == 'c' ? "char" : "block", name);
    }
  return NULL;
}

/* runc's device properties: systemd only allows (DevicePolicy=strict with DeviceAllow
   entries), so the rules are first turned into the kernel's exception list.  A rule
   systemd cannot express (a wildcard major with a fixed minor, a major without a name)
   is left to the devices cgroup files, written after the unit starts. */
static void
device_props (cg_sd_props *p, const cg_dev_rule *rules, size_t n, const char *proc_devices)
{
  cg_dev_exc_list l = { 0 };
  char allow[4096] = "";
  size_t used = 0;

  if (!cg_dev_emulate_v1 (rules, n, &l))
    {
      /* allow-all: no restriction at all */
      prop (p, "DevicePolicy\ts\tauto");
      prop (p, "DeviceAllow\ta(ss)");
      return;
    }
  prop (p, "DevicePolicy\ts\tstrict");
  for (size_t i = 0; i < l.n; i++)
    {
      char type, ma[24], mi[24], perms[4];
      cleanup_free char *path = NULL;
      size_t k = 0;
      if (l.v[i].access == 0 || sscanf (l.v[i].key, "%c %23[^:]:%23s", &type, ma, mi) != 3)
        continue;
      if (l.v[i].access & CG_DEV_READ)
        perms[k++] = 'r';
      if (l.v[i].access & CG_DEV_WRITE)
        perms[k++] = 'w';
      if (l.v[i].access & CG_DEV_MKNOD)
        perms[k++] = 'm';
      perms[k] = '\0';
      if (strcmp (ma, "*") == 0)
        {
          if (strcmp (mi, "*") != 0)
            continue;
          path = xasprintf ("%s-*", type == 'c' ? "char" : "block");
        }
      else if (strcmp (mi, "*") == 0)
        path = device_group (proc_devices, type, atol (ma));
      else
        path = xasprintf ("/dev/%s/%s:%s", type == 'c' ? "char" : "block", ma, mi);
      if (path && used + strlen (path) + strlen (perms) + 3 < sizeof allow)
        used += snprintf (allow + used, sizeof allow - used, "\t%s\t%s", path, perms);
    }
  free (l.v);
  prop (p, "DeviceAllow\ta(ss)%s", allow);
}

int
cg_systemd_resource_props (const oci_resources *r, bool v2, const cg_dev_rule *rules, size_t nrules,
                           const char *proc_devices, cg_sd_props *p, ocisbx_err **err)
{
  const oci_memory *mem = r ? r->memory : NULL;
  const oci_cpu *cpu = r ? r->cpu : NULL;

  if (mem && mem->limit && *mem->limit != 0)
    prop (p, "MemoryMax\tt\t%" PRIu64, *mem->limit < 0 ? UINT64_MAX : (uint64_t) *mem->limit);
  if (v2 && mem && mem->reservation && *mem->reservation > 0)
    prop (p, "MemoryLow\tt\t%" PRIu64, (uint64_t) *mem->reservation);
  if (v2 && mem && mem->swap && *mem->swap != 0)
    {
      int64_t sw;
      if (cg_swap_v2 (mem->limit, mem->swap, &sw, err) < 0)
        return -1;
      prop (p, "MemorySwapMax\tt\t%" PRIu64, sw < 0 ? UINT64_MAX : (uint64_t) sw);
    }
  if (cpu && cpu->shares && *cpu->shares)
    {
      if (v2)
        prop (p, "CPUWeight\tt\t%" PRIu64, cg_shares_to_weight (*cpu->shares));
      else
        prop (p, "CPUShares\tt\t%" PRIu64, *cpu->shares);
    }
  if (cpu)
    cpu_quota (p, cpu);
  if (cpu && cpu->cpus && cpu->cpus[0])
    {
      cleanup_free char *bits = cpuset_bits (cpu->cpus);
      prop (p, "AllowedCPUs\tay\t%s", bits);
    }
  if (cpu && cpu->mems && cpu->mems[0])
    {
      cleanup_free char *bits = cpuset_bits (cpu->mems);
      prop (p, "AllowedMemoryNodes\tay\t%s", bits);
    }
  if (r && r->pids && (r->pids->limit > 0 || r->pids->limit == -1))
    prop (p, "TasksMax\tt\t%" PRIu64, r->pids->limit < 0 ? UINT64_MAX : (uint64_t) r->pids->limit);
  if (r && r->block_io && r->block_io->weight && *r->block_io->weight)
    {
      if (v2)
        prop (p, "IOWeight\tt\t%" PRIu64, cg_blkio_to_io_weight (*r->block_io->weight));
      else
        prop (p, "BlockIOWeight\tt\t%u", (unsigned) *r->block_io->weight);
    }
  if (rules)
    device_props (p, rules, nrules, proc_devices);
  return 0;
}

/* ---- the helper ---- */

bool
cg_systemd_running (void)
{
  return access ("/run/systemd/system", F_OK) == 0;
}

/* ocisbx-systemd beside the running binary (a build tree, a tarball install), else in
   PKGLIBEXECDIR; NULL when this build has none. */
static char *
helper_path (void)
{
#ifdef HAVE_SYSTEMD
  char self[PATH_MAX];
  ssize_t n = readlink ("/proc/self/exe", self, sizeof self - 1);
  if (n > 0)
    {
      char *slash;
      self[n] = '\0';
      slash = strrchr (self, '/');
      if (slash)
        {
          char *p = xasprintf ("%.*s/" HELPER, (int) (slash - self), self);
          if (access (p, X_OK) == 0)
            return p;
          free (p);
        }
    }
  if (access (PKGLIBEXECDIR "/" HELPER, X_OK) == 0)
    return xstrdup (PKGLIBEXECDIR "/" HELPER);
#endif
  return NULL;
}

int
cg_systemd_check (ocisbx_err **err)
{
  cleanup_free char *helper = NULL;
#ifndef HAVE_SYSTEMD
  return err_setk (err, ERR_UNSUPPORTED, ENOTSUP,
                   "--systemd-cgroup: this ocisbx was built without the systemd cgroup driver "
                   "(configure found no libsystemd; Debian: libsystemd-dev)");
#endif
  if (!cg_systemd_running ())
    return err_setk (err, ERR_UNSUPPORTED, 0,
                     "systemd not running on this host, cannot use systemd cgroups manager");
  helper = helper_path ();
  if (helper == NULL)
    return err_set (err, ENOENT, "--systemd-cgroup: `" HELPER "` is neither beside ocisbx nor in `%s`",
                    PKGLIBEXECDIR);
  return 0;
}

/* P as a file for the helper's stdin (a memfd: no pipe to fill or to break). */
static int
props_file (const cg_sd_props *p, ocisbx_err **err)
{
  cleanup_close int fd = memfd_create ("ocisbx-systemd-props", MFD_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "systemd: memfd_create");
  for (size_t i = 0; i < p->n; i++)
    if (write_all (fd, p->v[i], strlen (p->v[i])) < 0 || write_all (fd, "\n", 1) < 0)
      return err_set (err, errno, "systemd: write the properties");
  if (lseek (fd, 0, SEEK_SET) < 0)
    return err_set (err, errno, "systemd: lseek");
  return steal_fd (&fd);
}

/* ocisbx-systemd CMD UNIT with the properties P on its stdin; its output is the
   error's message. */
static int
run_systemd_helper (const char *cmd, const char *unit, const cg_sd_props *p, ocisbx_err **err)
{
  cleanup_free char *helper = helper_path ();
  cleanup_close int in = -1;
  char out[1024];
  int status;

  if (helper == NULL)
    return cg_systemd_check (err) < 0 ? -1 : err_set (err, ENOENT, "systemd: no `" HELPER "`");
  in = props_file (p, err);
  if (in < 0)
    return -1;
  status = run_program (helper, (char *const[]){ (char *) HELPER, (char *) cmd, (char *) unit, NULL }, in, out,
                        sizeof out, err);
  if (status < 0)
    return err_wrap (err, "systemd");
  if (WIFEXITED (status) && WEXITSTATUS (status) == 0)
    return 0;
  return err_set (err, 0, "systemd: %s", *out ? out : HELPER " failed");
}

/* The rules of the devices cgroup and /proc/devices, for device_props. */
static int
resource_props (const cgroup_manager *m, const oci_resources *r, bool update, cg_sd_props *p, ocisbx_err **err)
{
  cleanup_free cg_dev_rule *rules = NULL;
  cleanup_free char *devices = NULL;
  cleanup_err ocisbx_err *e = NULL;
  size_t n = 0;
  bool with_devices = !(update && (r == NULL || r->devices_len == 0));

  if (with_devices)
    {
      static const oci_resources empty;
      if (cg_dev_rules (r ? r : &empty, true, &rules, &n, err) < 0)
        return -1;
      read_file_at (AT_FDCWD, "/proc/devices", &devices, NULL, &e);
    }
  return cg_systemd_resource_props (r, m->layout == CGROUP_LAYOUT_V2, rules, n, devices, p, err);
}

int
cg_systemd_start (cgroup_manager *m, pid_t pid, ocisbx_err **err)
{
  cg_sd_props p = { 0 };
  int r;

  prop (&p, "Description\ts\tocisbx container %s", m->sd_id ? m->sd_id : m->unit);
  prop (&p, "Slice\ts\t%s", m->slice);
  prop (&p, "Delegate\tb\tyes");
  prop (&p, "PIDs\tau\t%d", (int) pid);
  prop (&p, "DefaultDependencies\tb\tno");
  prop (&p, "MemoryAccounting\tb\tyes");
  prop (&p, "CPUAccounting\tb\tyes");
  prop (&p, "TasksAccounting\tb\tyes");
  prop (&p, m->layout == CGROUP_LAYOUT_V2 ? "IOAccounting\tb\tyes" : "BlockIOAccounting\tb\tyes");
  r = resource_props (m, m->pending_res, false, &p, err);
  if (r == 0)
    r = run_systemd_helper ("start", m->unit, &p, err);
  cg_sd_props_free (&p);
  return r;
}

int
cg_systemd_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err)
{
  cg_sd_props p = { 0 };
  int r = resource_props (m, res, true, &p, err);
  if (r == 0 && p.n > 0)
    r = run_systemd_helper ("set", m->unit, &p, err);
  cg_sd_props_free (&p);
  return r;
}

int
cg_systemd_stop (const cgroup_manager *m, ocisbx_err **err)
{
  cg_sd_props none = { 0 };
  return run_systemd_helper ("stop", m->unit, &none, err);
}
