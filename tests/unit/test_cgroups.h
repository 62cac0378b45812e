/* Shared by the cgroups unit tests: fake cgroup trees. */
#ifndef OCISBX_TEST_CGROUPS_H
#define OCISBX_TEST_CGROUPS_H


#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <signal.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "unit_files.h"
#include "ocispec.h"
#include "core/cgroups/cgroups.h"
#include "core/cgroups/cgroups_internal.h"
#include "core/utils.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

/* ---- helpers (the file helpers: unit_files.h) ---- */

static __attribute__ ((unused)) const oci_resources *
res_of (oci_config *c)
{
  return c && c->linux_ ? c->linux_->resources : NULL;
}

static const char *v1_ctrls[] = { "cpu,cpuacct", "cpuset", "memory", "devices", "freezer", "blkio",
                                  "pids", "systemd", "net_cls,net_prio", "hugetlb", "rdma" };

static __attribute__ ((unused)) char *
v1_tree (const char *leaf, bool with_files)
{
  char *root = mktree ();
  put (root, "self_cgroup",
       "12:rdma:/\n11:hugetlb:/\n10:net_cls,net_prio:/\n9:name=systemd:/user.slice/s1\n8:pids:/\n"
       "7:blkio:/\n6:freezer:/\n5:devices:/\n4:memory:/mine\n3:cpuset:/\n2:cpu,cpuacct:/\n"
       "1:perf_event:/\n0::/\n");
  for (size_t i = 0; i < sizeof v1_ctrls / sizeof v1_ctrls[0]; i++)
    mkdirs (root, v1_ctrls[i]);
  for (size_t i = 0; i < sizeof v1_ctrls / sizeof v1_ctrls[0]; i++)
    {
      char *p = xasprintf ("%s/cgroup.procs", v1_ctrls[i]);
      put (root, p, "");
      free (p);
      if (with_files)
        {
          p = xasprintf ("%s%s/cgroup.procs", v1_ctrls[i], leaf);
          put (root, p, "");
          free (p);
        }
    }
  put (root, "devices/devices.allow", "");
  put (root, "devices/devices.deny", "");
  put (root, "cpuset/cpuset.cpus", "0-1\n");
  put (root, "cpuset/cpuset.mems", "0\n");
  if (with_files)
    {
      static const char *files[] = {
        "memory/memory.limit_in_bytes", "memory/memory.memsw.limit_in_bytes", "memory/memory.soft_limit_in_bytes",
        "memory/memory.swappiness", "memory/memory.oom_control", "memory/memory.use_hierarchy",
        "memory/memory.kmem.tcp.limit_in_bytes", "memory/memory.usage_in_bytes",
        "cpu,cpuacct/cpu.shares", "cpu,cpuacct/cpu.cfs_quota_us", "cpu,cpuacct/cpu.cfs_period_us",
        "cpu,cpuacct/cpu.cfs_burst_us", "cpu,cpuacct/cpu.rt_runtime_us", "cpu,cpuacct/cpu.rt_period_us",
        "cpu,cpuacct/cpu.idle", "cpuset/cpuset.cpus", "cpuset/cpuset.mems", "pids/pids.max",
        "blkio/blkio.bfq.weight", "blkio/blkio.leaf_weight", "blkio/blkio.bfq.weight_device",
        "blkio/blkio.leaf_weight_device", "blkio/blkio.throttle.read_bps_device",
        "blkio/blkio.throttle.write_bps_device", "blkio/blkio.throttle.read_iops_device",
        "blkio/blkio.throttle.write_iops_device", "hugetlb/hugetlb.2MB.limit_in_bytes",
        "net_cls,net_prio/net_cls.classid", "net_cls,net_prio/net_prio.ifpriomap", "rdma/rdma.max",
        "devices/devices.allow", "devices/devices.deny", "freezer/freezer.state",
      };
      for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        {
          const char *slash = strchr (files[i], '/');
          char *p = xasprintf ("%.*s%s%s", (int) (slash - files[i]), files[i], leaf, slash);
          put (root, p, strcmp (files[i], "memory/memory.usage_in_bytes") == 0 ? "4096\n" : "");
          free (p);
        }
    }
  return root;
}

static __attribute__ ((unused)) char *
v2_tree (void)
{
  char *root = mktree ();
  static const char *files[] = {
    "memory.max", "memory.swap.max", "memory.low", "cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle",
    "cpuset.cpus", "cpuset.mems", "pids.max", "io.weight", "io.max", "hugetlb.2MB.max", "hugetlb.2MB.rsvd.max",
    "rdma.max", "memory.high", "cgroup.procs", "cgroup.freeze", "memory.current",
  };
  put (root, "self_cgroup", "0::/user.slice/me\n");
  put (root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma misc\n");
  put (root, "cgroup.subtree_control", "");
  put (root, "ocisbx/cgroup.controllers", "cpuset cpu io memory hugetlb pids rdma\n");
  put (root, "ocisbx/cgroup.subtree_control", "cpu memory\n");
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    {
      char *p = xasprintf ("ocisbx/t2/%s", files[i]);
      put (root, p, strcmp (files[i], "cpu.max") == 0 ? "max 100000\n" : "");
      free (p);
    }
  return root;
}

static __attribute__ ((unused)) bool
is_cgroup2 (const char *p)
{
  struct statfs s;
  return statfs (p, &s) == 0 && s.f_type == CGROUP2_SUPER_MAGIC;
}

/* cgroup_load of a serialized manager (cgroup_serialize's JSON or the older text) */
static __attribute__ ((unused)) int
load_serialized (const char *root, const char *ser, cgroup_manager **m, ocisbx_err **err)
{
  cgroup_state *s = NULL;
  int r;

  if (cgroup_state_parse (ser, &s, err) < 0)
    return -1;
  r = cgroup_load (root, s, m, err);
  cgroup_state_free (s);
  return r;
}

/* One v1 hierarchy as cgroup_serialize writes it. */
#define SER_V1(name, path, created)                                                                \
  "{\"name\":\"" name "\",\"controllers\":\"" name "\",\"v2\":false,\"path\":\"" path "\",\"created\":" #created "}"

static __attribute__ ((unused)) int
try_open (const char *path, int flags)
{
  int fd = open (path, flags | O_CLOEXEC);
  if (fd < 0)
    return -errno;
  close (fd);
  return 0;
}

/* ---- the fixture: a fake tree, the cgroup_config that points into it, the manager ---- */

typedef struct
{
  char *root;      /* the fake tree: v1_tree, v2_tree or hybrid_no_v1_hugetlb */
  char *own;       /* its self_cgroup, read as the runtime's own /proc/self/cgroup */
  oci_config *c;   /* the resources of cc, or NULL */
  cgroup_config cc;
  cgroup_manager *m;
  ocisbx_err *err;
} cg_fx;

/* Take ROOT (a fresh fake tree); JSON (or NULL) gives cc's resources. */
static __attribute__ ((unused)) void
fx_make (cg_fx *f, char *root, cgroup_layout layout, const char *id, const char *path, const char *json)
{
  f->root = root;
  f->own = xasprintf ("%s/self_cgroup", root);
  f->c = json ? parse (json) : NULL;
  f->cc = (cgroup_config) { .fs_root = root, .id = id, .cgroups_path = path, .resources = res_of (f->c),
                            .layout = layout, .proc_cgroup = f->own };
  f->m = NULL;
  f->err = NULL;
}

static __attribute__ ((unused)) void
fx_free (cg_fx *f)
{
  err_freep (&f->err);
  cgroup_manager_free (f->m);
  ocispec_free (&oci_config_type, f->c);
  free (f->own);
  rmtree (f->root);
}

/* cgroup_setup on the fixture; an error is shown and dropped, the result returned. */
static __attribute__ ((unused)) int
fx_setup (cg_fx *f)
{
  int r = cgroup_setup (&f->cc, &f->m, &f->err);
  if (f->err)
    fprintf (stderr, "  %s\n", f->err->msg);
  err_freep (&f->err);
  return r;
}

/* cgroup_setup of JSON's resources under ROOT fails with NEEDLE in its message */
static __attribute__ ((unused)) void
expect_error (const char *root, cgroup_layout layout, const char *own, const char *json, const char *path,
              const char *needle)
{
  oci_config *c = parse (json);
  cgroup_config cc = { .fs_root = root, .id = "e", .cgroups_path = path, .resources = res_of (c), .layout = layout,
                       .proc_cgroup = own };
  cgroup_manager *m = NULL;
  ocisbx_err *err = NULL;
  CHECK (cgroup_setup (&cc, &m, &err) < 0);
  CHECK (err && strstr (err->msg, needle));
  if (err && !strstr (err->msg, needle))
    fprintf (stderr, "  wanted \"%s\" in: %s\n", needle, err->msg);
  err_freep (&err);
  cgroup_manager_free (m);
  ocispec_free (&oci_config_type, c);
}

#endif
