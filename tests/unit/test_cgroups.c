/* cgroups on fake trees (directory trees with the cgroup file system operations of
   fake_cgroupfs.c), v1's side: path forms, conversions, every resource's file and value
   on v1, the serialized state, removal bookkeeping, updates and the device model.
   cgroup2, eBPF, hybrid and rootless: test_cgroups_v2.c; stats and systemd properties:
   test_cgroups_stats.c; real kernels: test_cgroups_real.c. */
#include <config.h>

#include "test_cgroups.h"
#include "core/cgroups/join.h"
#include "core/cgroups/stats.h"

/* ---- path forms ---- */

static char *
resolve (const char *path, bool systemd, const char *own, char **errmsg)
{
  cgroup_config cc = { .id = "abc", .cgroups_path = path, .systemd = systemd };
  ocisbx_err *err = NULL;
  char *r = cg_resolve_path (&cc, own, &err);
  *errmsg = NULL;
  if (r == NULL)
    {
      *errmsg = xstrdup (err->msg);
      err_free (err);
    }
  return r;
}

static void
test_paths (void)
{
  char *e, *r;
  struct
  {
    const char *in;
    bool systemd;
    const char *own, *want;
  } ok[] = {
    { NULL, false, "/", "/ocisbx/abc" },
    { "", false, "/", "/ocisbx/abc" },
    { "/a/b", false, "/own", "/a/b" },
    { "//a/./b/", false, "/", "/a/b" },
    { "c/d", false, "/user.slice/own", "/user.slice/own/c/d" },
    { "c", false, "/", "/c" },
    { "/", false, "/", "/" },
    { "system.slice:docker:123", true, "/", "/system.slice/docker-123.scope" },
    { "a-b.slice:pre:x", true, "/", "/a.slice/a-b.slice/pre-x.scope" },
    { "a-b-c.slice:pre:x", true, "/", "/a.slice/a-b.slice/a-b-c.slice/pre-x.scope" },
    { ":pre:x", true, "/", "/system.slice/pre-x.scope" },
    { "machine.slice::x", true, "/", "/machine.slice/x.scope" },
    { "-.slice:p:x", true, "/", "/p-x.scope" },
    { "a.slice::b.slice", true, "/", "/a.slice/b.slice" },
    { NULL, true, "/", "/system.slice/ocisbx-abc.scope" },
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    {
      r = resolve (ok[i].in, ok[i].systemd, ok[i].own, &e);
      CHECK_STR (r, ok[i].want);
      if (e)
        fprintf (stderr, "  %s: %s\n", ok[i].in, e);
      free (r);
      free (e);
    }
  const char *bad[] = { "/a/../b", "..", "x/..", "a/../../etc" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      r = resolve (bad[i], false, "/", &e);
      CHECK (r == NULL);
      CHECK (e && strstr (e, ".linux.cgroupsPath") != NULL);
      free (r);
      free (e);
    }
  const char *bad_sd[] = { "nocolons", "a:b", "bad:p:x", "a--b.slice:p:x", "x.slice:p:../y", "x.slice:p:" };
  for (size_t i = 0; i < sizeof bad_sd / sizeof bad_sd[0]; i++)
    {
      r = resolve (bad_sd[i], true, "/", &e);
      CHECK (r == NULL);
      CHECK (e && strstr (e, ".linux.cgroupsPath") != NULL);
      free (r);
      free (e);
    }
}

/* ---- conversions ---- */

static void
test_conversions (void)
{
  int64_t out;
  int64_t lim, sw;
  ocisbx_err *err = NULL;

  CHECK (cg_shares_to_weight (0) == 0);
  CHECK (cg_shares_to_weight (2) == 1);
  CHECK (cg_shares_to_weight (1024) == 39);
  CHECK (cg_shares_to_weight (262144) == 10000);
  CHECK (cg_shares_to_weight (1) == 1);
  CHECK (cg_blkio_to_io_weight (0) == 0);
  CHECK (cg_blkio_to_io_weight (10) == 1);
  CHECK (cg_blkio_to_io_weight (500) == 4950);
  CHECK (cg_blkio_to_io_weight (1000) == 10000);

  lim = 100, sw = 300;
  CHECK (cg_swap_v2 (&lim, &sw, &out, &err) == 0 && out == 200);
  lim = 100, sw = -1;
  CHECK (cg_swap_v2 (&lim, &sw, &out, &err) == 0 && out == -1);
  lim = -1;
  CHECK (cg_swap_v2 (&lim, NULL, &out, &err) == 0 && out == -1);
  lim = 100;
  CHECK (cg_swap_v2 (&lim, NULL, &out, &err) == 1);
  lim = 100, sw = 50;
  CHECK (cg_swap_v2 (&lim, &sw, &out, &err) < 0 && err && strstr (err->msg, ".linux.resources.memory.swap"));
  err_freep (&err);
  sw = 50;
  CHECK (cg_swap_v2 (NULL, &sw, &out, &err) < 0);
  err_freep (&err);
}

/* ---- fake v1 tree ---- */

static const char *full_resources
    = "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
      "\"memory\":{\"limit\":1048576,\"reservation\":524288,\"swap\":2097152,\"swappiness\":10,"
      "\"disableOOMKiller\":true,\"useHierarchy\":true,\"kernelTCP\":65536},"
      "\"cpu\":{\"shares\":1024,\"quota\":50000,\"period\":100000,\"burst\":1000,\"realtimeRuntime\":950,"
      "\"realtimePeriod\":1000,\"cpus\":\"0\",\"mems\":\"0\",\"idle\":1},"
      "\"pids\":{\"limit\":0},"
      "\"blockIO\":{\"weight\":500,\"leafWeight\":300,\"weightDevice\":[{\"major\":8,\"minor\":0,\"weight\":600,"
      "\"leafWeight\":200}],\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0,\"rate\":1000}],"
      "\"throttleWriteBpsDevice\":[{\"major\":8,\"minor\":0,\"rate\":2000}],"
      "\"throttleReadIOPSDevice\":[{\"major\":8,\"minor\":0,\"rate\":30}],"
      "\"throttleWriteIOPSDevice\":[{\"major\":8,\"minor\":0,\"rate\":0}]},"
      "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":4194304}],"
      "\"network\":{\"classID\":1048577,\"priorities\":[{\"name\":\"eth0\",\"priority\":5},"
      "{\"name\":\"lo\",\"priority\":2}]},"
      "\"rdma\":{\"mlx5_1\":{\"hcaHandles\":3,\"hcaObjects\":10000}},"
      "\"devices\":[{\"allow\":false,\"access\":\"rwm\"},{\"allow\":true,\"type\":\"c\",\"major\":10,"
      "\"minor\":229,\"access\":\"rw\"},{\"allow\":false,\"type\":\"b\",\"major\":8,\"access\":\"w\"}]"
      "}}}";

static void
test_v1_resources (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/t1", true), CGROUP_LAYOUT_V1, "x", "/t1", full_resources);
  CHECK (fx_setup (&f) == 0);
  CHECK_FILE (f.root, "memory/t1/memory.limit_in_bytes", "1048576\n");
  CHECK_FILE (f.root, "memory/t1/memory.memsw.limit_in_bytes", "2097152\n");
  CHECK_FILE (f.root, "memory/t1/memory.soft_limit_in_bytes", "524288\n");
  CHECK_FILE (f.root, "memory/t1/memory.swappiness", "10\n");
  CHECK_FILE (f.root, "memory/t1/memory.oom_control", "1\n");
  CHECK_FILE (f.root, "memory/t1/memory.use_hierarchy", "1\n");
  CHECK_FILE (f.root, "memory/t1/memory.kmem.tcp.limit_in_bytes", "65536\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.shares", "1024\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.cfs_period_us", "100000\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.cfs_quota_us", "50000\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.cfs_burst_us", "1000\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.rt_period_us", "1000\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.rt_runtime_us", "950\n");
  CHECK_FILE (f.root, "cpu,cpuacct/t1/cpu.idle", "1\n");
  /* the pre-existing, empty cpuset cgroup filled from above (joinable), then the
     config's values */
  CHECK_FILE (f.root, "cpuset/t1/cpuset.cpus", "0-1\n0\n");
  CHECK_FILE (f.root, "cpuset/t1/cpuset.mems", "0\n0\n");
  CHECK_FILE (f.root, "pids/t1/pids.max", "max\n");
  /* blkio.weight is absent in this tree: the BFQ file takes it. */
  CHECK_FILE (f.root, "blkio/t1/blkio.bfq.weight", "500\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.leaf_weight", "300\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.bfq.weight_device", "8:0 600\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.leaf_weight_device", "8:0 200\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.throttle.read_bps_device", "8:0 1000\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.throttle.write_bps_device", "8:0 2000\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.throttle.read_iops_device", "8:0 30\n");
  CHECK_FILE (f.root, "blkio/t1/blkio.throttle.write_iops_device", "8:0 0\n");
  CHECK_FILE (f.root, "hugetlb/t1/hugetlb.2MB.limit_in_bytes", "4194304\n");
  CHECK_FILE (f.root, "net_cls,net_prio/t1/net_cls.classid", "1048577\n");
  CHECK_FILE (f.root, "net_cls,net_prio/t1/net_prio.ifpriomap", "eth0 5\nlo 2\n");
  CHECK_FILE (f.root, "rdma/t1/rdma.max", "mlx5_1 hca_handle=3 hca_object=10000\n");
  /* the default once (deny all), then the rules after the last reset, then the defaults */
  CHECK_FILE (f.root, "devices/t1/devices.deny", "a\nb 8:* w\n");
  {
    char *allow = slurp (f.root, "devices/t1/devices.allow");
    CHECK (allow && strncmp (allow, "c 10:229 rw\nc *:* m\nb *:* m\nc 1:3 rwm\n", 38) == 0);
    CHECK (allow && strstr (allow, "c 136:* rwm\n"));
    free (allow);
  }
  /* every hierarchy is joined, named ones included; perf_event is not mounted */
  CHECK (f.m && f.m->n == 11);
  CHECK_STR (f.m ? cgroup_path (f.m) : NULL, "/t1");
  if (f.m)
    {
      CHECK (cgroup_enter (f.m, 4242, &f.err) == 0);
      CHECK_FILE (f.root, "systemd/t1/cgroup.procs", "4242\n");
      CHECK_FILE (f.root, "memory/t1/cgroup.procs", "4242\n");
      CHECK_FILE (f.root, "cpu,cpuacct/t1/cgroup.procs", "4242\n");
      err_freep (&f.err);
      /* The leaf existed before: destroy leaves it. */
      CHECK (cgroup_destroy (f.m, &f.err) == 0);
      CHECK (exists (f.root, "memory/t1"));
    }
  fx_free (&f);
}

static void
test_v1_create_remove (void)
{
  cg_fx f;
  cgroup_manager *m2 = NULL;
  char *ser = NULL;

  fx_make (&f, v1_tree ("/none", false), CGROUP_LAYOUT_V1, "c1", NULL, NULL);
  mkdirs (f.root, "memory/ocisbx"); /* a parent that exists already in one hierarchy */
  put (f.root, "cpuset/cgroup.clone_children", "0\n");
  CHECK (fx_setup (&f) == 0);
  CHECK (exists (f.root, "memory/ocisbx/c1") && exists (f.root, "systemd/ocisbx/c1")
         && exists (f.root, "pids/ocisbx/c1"));
  /* new cpuset cgroups get the parent's cpus and mems */
  CHECK_FILE (f.root, "cpuset/ocisbx/cpuset.cpus", "0-1\n");
  CHECK_FILE (f.root, "cpuset/ocisbx/c1/cpuset.mems", "0\n");
  /* a cpuset level made above the leaf has the kernel copy cpus and mems for its
     children; never the leaf, nor a level that existed already */
  CHECK_FILE (f.root, "cpuset/ocisbx/cgroup.clone_children", "1\n");
  CHECK_FILE (f.root, "cpuset/ocisbx/c1/cgroup.clone_children", "");
  CHECK (!exists (f.root, "memory/ocisbx/cgroup.clone_children"));
  if (f.m)
    {
      ser = cgroup_serialize (f.m);
      CHECK (load_serialized (f.root, ser, &m2, &f.err) == 0);
      err_freep (&f.err);
    }
  /* nothing of the test's file system is recorded: a loaded manager takes it as one
     made by setup does */
  CHECK (ser && strstr (ser, "fake") == NULL);
  CHECK (m2 && m2->n == f.m->n && m2->layout == CGROUP_LAYOUT_V1 && m2->fs == cg_fs && f.m->fs == cg_fs);
  if (m2)
    {
      cgroup_hierarchy h = cgroup_hierarchy_at (m2, 0);
      cleanup_free char *dir0 = xasprintf ("%s/%s%s", f.root, m2->h[0].name, m2->h[0].path);
      cgroup_join j;
      char *ser2;
      /* the hierarchies as the accessors give them: each dir is root/name/path */
      CHECK (cgroup_hierarchy_count (m2) == m2->n && !cgroup_enter_only (m2));
      /* a process could join them by itself, but their tasks files are on no cgroupfs:
         cgroup_enter it is */
      cgroup_join_prepare (m2, true, &j);
      CHECK (!j.usable && j.n_tasks == 0 && j.v2_dir < 0);
      cgroup_join_close (&j);
      CHECK_STR (h.dir, dir0);
      CHECK (h.path == m2->h[0].path && !h.v2 && strcmp (h.controllers, m2->h[0].controllers) == 0);
      ser2 = cgroup_serialize (m2);
      CHECK_STR (ser2, ser);
      free (ser2);
      /* the text an older ocisbx kept (its "fake" line ignored) gives the same manager */
      {
        char *old = xstrdup ("ocisbx-cgroups 1\nlayout v1\nfake 1\nrootless 0\n");
        cgroup_manager *m3 = NULL;
        for (size_t i = 0; i < m2->n; i++)
          {
            char *n = xasprintf ("%sh %u %s\t%s\t%d\t%s\n", old, m2->h[i].created, m2->h[i].name,
                                 m2->h[i].controllers, m2->h[i].v2, m2->h[i].path);
            free (old);
            old = n;
          }
        CHECK (load_serialized (f.root, old, &m3, &f.err) == 0);
        err_freep (&f.err);
        if (m3)
          {
            ser2 = cgroup_serialize (m3);
            CHECK_STR (ser2, ser);
            free (ser2);
            CHECK (!m3->rootless && strcmp (m3->h[0].dir, m2->h[0].dir) == 0);
          }
        cgroup_manager_free (m3);
        free (old);
      }
      CHECK_STR (cgroup_path (m2), "/ocisbx/c1");
      CHECK (cg_find (m2, "memory")->created == 1);
      CHECK (cg_find (m2, "pids")->created == 2);
      CHECK (cg_find (m2, "cpuacct") == cg_find (m2, "cpu"));
      CHECK (cgroup_destroy (m2, &f.err) == 0);
      err_freep (&f.err);
    }
  /* removed what it created (both levels in pids), kept what was there */
  CHECK (!exists (f.root, "pids/ocisbx") && !exists (f.root, "systemd/ocisbx"));
  CHECK (!exists (f.root, "memory/ocisbx/c1") && exists (f.root, "memory/ocisbx"));
  /* a relative path lands under our own cgroup of each hierarchy */
  f.cc.cgroups_path = "rel/x";
  mkdirs (f.root, "memory/mine");
  cgroup_manager_free (f.m);
  f.m = NULL;
  CHECK (fx_setup (&f) == 0);
  CHECK (exists (f.root, "memory/mine/rel/x") && exists (f.root, "systemd/user.slice/s1/rel/x")
         && exists (f.root, "pids/rel/x"));
  if (f.m)
    cgroup_destroy (f.m, &f.err);
  err_freep (&f.err);
  CHECK (!exists (f.root, "memory/mine/rel") && exists (f.root, "memory/mine"));
  free (ser);
  cgroup_manager_free (m2);
  fx_free (&f);
}

/* The creation record: written before the first mkdir with the levels that do not
   exist yet, rewritten only when what was made differs. */
typedef struct
{
  char *text[4];
  size_t n;
  const char *race_root;
} records;

static int
record_cb (void *arg, const char *serialized, ocisbx_err **err)
{
  records *r = arg;
  (void) err;
  CHECK (r->n < 4);
  if (r->n < 4)
    r->text[r->n++] = xstrdup (serialized);
  return 0;
}

static int
record_race (void *arg, const char *serialized, ocisbx_err **err)
{
  records *r = arg;
  if (r->n == 0)
    mkdirs (r->race_root, "pids/c2");
  return record_cb (arg, serialized, err);
}

static int
record_fail (void *arg, const char *serialized, ocisbx_err **err)
{
  (void) arg;
  (void) serialized;
  return err_set (err, ENOSPC, "record");
}

static void
test_creation_record (void)
{
  records r = { 0 };
  cg_fx f;

  fx_make (&f, v1_tree ("/none", false), CGROUP_LAYOUT_V1, "c1", "/pod/c1", NULL);
  mkdirs (f.root, "memory/pod");
  f.cc.record = record_fail;
  CHECK (fx_setup (&f) < 0);
  CHECK (!exists (f.root, "pids/pod")); /* nothing made without a record */
  f.cc.record = record_cb;
  f.cc.record_arg = &r;
  CHECK (fx_setup (&f) == 0);
  CHECK (r.n == 1); /* the plan came true: written once */
  CHECK (r.n >= 1 && strstr (r.text[0], SER_V1 ("pids", "/pod/c1", 2)));
  CHECK (r.n >= 1 && strstr (r.text[0], SER_V1 ("memory", "/pod/c1", 1)));
  if (f.m)
    {
      char *ser = cgroup_serialize (f.m);
      CHECK_STR (r.n >= 1 ? r.text[0] : NULL, ser);
      free (ser);
      /* the plan is enough to remove what was made, and only that */
      cgroup_manager *m2 = NULL;
      CHECK (r.n >= 1 && load_serialized (f.root, r.text[0], &m2, &f.err) == 0);
      if (m2)
        CHECK (cgroup_destroy (m2, &f.err) == 0);
      cgroup_manager_free (m2);
      err_freep (&f.err);
      CHECK (!exists (f.root, "pids/pod") && !exists (f.root, "memory/pod/c1") && exists (f.root, "memory/pod"));
    }
  for (size_t i = 0; i < r.n; i++)
    free (r.text[i]);
  fx_free (&f);

  /* the default path's leaf left empty by an earlier container of that id is adopted
     (removed with this one); one with a process stays someone else's */
  memset (&r, 0, sizeof r);
  fx_make (&f, v1_tree ("/ocisbx/c3", true), CGROUP_LAYOUT_V1, "c3", NULL, NULL);
  put (f.root, "pids/ocisbx/c3/cgroup.procs", "42\n");
  f.cc.record = record_cb;
  f.cc.record_arg = &r;
  CHECK (fx_setup (&f) == 0);
  CHECK (r.n == 2 && strstr (r.text[0], SER_V1 ("memory", "/ocisbx/c3", 0))
         && strstr (r.text[1], SER_V1 ("memory", "/ocisbx/c3", 1))
         && strstr (r.text[1], SER_V1 ("pids", "/ocisbx/c3", 0)));
  for (size_t i = 0; i < r.n; i++)
    free (r.text[i]);
  fx_free (&f);

  /* another create makes a planned level between the plan and our mkdir: the
     record is rewritten without it */
  memset (&r, 0, sizeof r);
  fx_make (&f, v1_tree ("/none", false), CGROUP_LAYOUT_V1, "c2", "/c2", NULL);
  f.cc.record = record_race;
  f.cc.record_arg = &r;
  r.race_root = f.root;
  CHECK (fx_setup (&f) == 0);
  CHECK (r.n == 2);
  CHECK (r.n == 2 && strstr (r.text[0], SER_V1 ("pids", "/c2", 1)) && strstr (r.text[1], SER_V1 ("pids", "/c2", 0)));
  for (size_t i = 0; i < r.n; i++)
    free (r.text[i]);
  fx_free (&f);
}


/* v1 cpuset: a pod parent made with mkdir alone has empty cpus and mems; it is filled
   from above, then the container's level from it */
static void
test_v1_cpuset_pod (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/none", false), CGROUP_LAYOUT_V1, "c1", "/pod/c1", NULL);
  put (f.root, "cpuset/pod/cpuset.cpus", "");
  put (f.root, "cpuset/pod/cpuset.mems", "");
  CHECK (fx_setup (&f) == 0);
  CHECK_FILE (f.root, "cpuset/pod/cpuset.cpus", "0-1\n");
  CHECK_FILE (f.root, "cpuset/pod/cpuset.mems", "0\n");
  CHECK_FILE (f.root, "cpuset/pod/c1/cpuset.cpus", "0-1\n");
  CHECK_FILE (f.root, "cpuset/pod/c1/cpuset.mems", "0\n");
  fx_free (&f);
}

/* a cgroup frozen before the container exists is refused (v1 freezer, cgroup2
   cgroup.events), and left as it was */
static void
test_frozen_refused (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/fz", true), CGROUP_LAYOUT_V1, "f", "/fz", NULL);
  put (f.root, "freezer/fz/freezer.state", "FROZEN\n");
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own, "{\"ociVersion\":\"1.0.2\"}", "/fz", "unexpectedly frozen");
  CHECK_FILE (f.root, "freezer/fz/freezer.state", "FROZEN\n");
  CHECK (exists (f.root, "freezer/fz"));
  fx_free (&f);

  fx_make (&f, v2_tree (), CGROUP_LAYOUT_V2, "t2", "/ocisbx/t2", NULL);
  put (f.root, "ocisbx/t2/cgroup.events", "populated 0\nfrozen 1\n");
  expect_error (f.root, CGROUP_LAYOUT_V2, f.own, "{\"ociVersion\":\"1.0.2\"}", "/ocisbx/t2", "unexpectedly frozen");
  put (f.root, "ocisbx/t2/cgroup.events", "populated 0\nfrozen 0\n");
  CHECK (fx_setup (&f) == 0);
  fx_free (&f);
}

static void
test_v1_errors (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/t1", true), CGROUP_LAYOUT_V1, "e", "/t3",
           "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"pids\":{\"limit\":-1},"
           "\"memory\":{\"limit\":-1}}}}");
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own,
                "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"unified\":{\"memory.high\":\"1\"}}}}",
                "/t1", ".linux.resources.unified");
  /* no such file in the kernel: named */
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own,
                "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"hugepageLimits\":[{\"pageSize\":\"1GB\",\"limit\":1}]}}}",
                "/t1", ".linux.resources.hugepageLimits[0]");
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own,
                "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"memory\":{\"kernelTCP\":1}}}}", "/t2/new",
                ".linux.resources.memory.kernelTCP");
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own,
                "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"memory\":{\"limit\":100,\"swap\":50}}}}", "/t1",
                ".linux.resources.memory.swap");
  expect_error (f.root, CGROUP_LAYOUT_V1, f.own, "{\"ociVersion\":\"1.0.2\"}", "/a/../b",
                ".linux.cgroupsPath");
  /* a failed setup removes what it created */
  CHECK (!exists (f.root, "memory/t2"));
  /* ... unless the value asks for nothing: pids -1 with no file is fine (the fixture's
     resources) */
  CHECK (cgroup_setup (&f.cc, &f.m, &f.err) < 0); /* memory.limit_in_bytes absent in /t3: an error */
  err_freep (&f.err);
  put (f.root, "memory/t3/memory.limit_in_bytes", "");
  CHECK (fx_setup (&f) == 0); /* pids.max and memsw absent: nothing asked */
  CHECK_FILE (f.root, "memory/t3/memory.limit_in_bytes", "-1\n");
  if (f.m)
    cgroup_destroy (f.m, &f.err);
  fx_free (&f);
}

/* update: the pair order on EINVAL is not visible on a fake tree, but checkBeforeUpdate is */
static void
test_v1_update (void)
{
  cg_fx f;
  oci_config *c = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"memory\":{\"limit\":1024,"
                         "\"checkBeforeUpdate\":true},\"pids\":{\"limit\":10}}}}");

  fx_make (&f, v1_tree ("/t1", true), CGROUP_LAYOUT_V1, "u", "/t1", NULL);
  CHECK (fx_setup (&f) == 0);
  if (f.m)
    {
      CHECK (cgroup_update (f.m, res_of (c), &f.err) < 0); /* usage 4096 > 1024 */
      CHECK (f.err && strstr (f.err->msg, "checkBeforeUpdate"));
      err_freep (&f.err);
      *res_of (c)->memory->limit = 8192;
      CHECK (cgroup_update (f.m, res_of (c), &f.err) == 0);
      err_freep (&f.err);
      CHECK_FILE (f.root, "memory/t1/memory.limit_in_bytes", "8192\n");
      CHECK_FILE (f.root, "pids/t1/pids.max", "10\n");
      /* the devices are left alone by an update without rules */
      CHECK_FILE (f.root, "devices/t1/devices.deny", "a\n");
    }
  ocispec_free (&oci_config_type, c);
  fx_free (&f);
}

/* cgroup_update of C on a cgroup whose devices.list reads LIST (files emptied first) */
static void
update_devices (cg_fx *f, const char *list, oci_config *c)
{
  put (f->root, "devices/t1/devices.list", list);
  put (f->root, "devices/t1/devices.allow", "");
  put (f->root, "devices/t1/devices.deny", "");
  CHECK (cgroup_update (f->m, res_of (c), &f->err) == 0);
  err_freep (&f->err);
}

/* update of device rules on v1: only the difference to devices.list, no "a" deny */
static void
test_v1_update_devices (void)
{
  static const char defaults_list[] = "c *:* m\nb *:* m\nc 1:3 rwm\nc 1:5 rwm\nc 1:7 rwm\nc 1:8 rwm\n"
                                      "c 1:9 rwm\nc 5:0 rwm\nc 5:2 rwm\nc 136:* rwm\n";
  cg_fx f;
  oci_config *c = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"devices\":["
                         "{\"allow\":false,\"access\":\"rwm\"},"
                         "{\"allow\":true,\"type\":\"c\",\"major\":10,\"minor\":200,\"access\":\"rwm\"}]}}}");
  oci_config *bl = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"devices\":["
                          "{\"allow\":false,\"access\":\"rwm\"},{\"allow\":true,\"access\":\"rwm\"},"
                          "{\"allow\":false,\"type\":\"c\",\"major\":1,\"minor\":5,\"access\":\"rwm\"}]}}}");

  fx_make (&f, v1_tree ("/t1", true), CGROUP_LAYOUT_V1, "u", "/t1", NULL);
  CHECK (fx_setup (&f) == 0);
  if (f.m)
    {
      /* the cgroup as the kernel shows it after create; a new rule is only added */
      update_devices (&f, defaults_list, c);
      CHECK_FILE (f.root, "devices/t1/devices.allow", "c 10:200 rwm\n");
      CHECK_FILE (f.root, "devices/t1/devices.deny", "");

      /* one access more, one entry gone: allow first, then deny */
      {
        cleanup_free char *list = xasprintf ("%sc 10:200 r\nc 4:1 rw\n", defaults_list);
        update_devices (&f, list, c);
      }
      CHECK_FILE (f.root, "devices/t1/devices.allow", "c 10:200 wm\n");
      CHECK_FILE (f.root, "devices/t1/devices.deny", "c 4:1 rw\n");

      /* allow-by-default now: the create way, deny all once */
      update_devices (&f, "a *:* rwm\n", c);
      CHECK_FILE (f.root, "devices/t1/devices.deny", "a\n");

      /* to allow-by-default with a device denied: allow all in one write (no moment
         of deny-all), then the deny */
      update_devices (&f, defaults_list, bl);
      CHECK_FILE (f.root, "devices/t1/devices.deny", "c 1:5 rwm\n");
      {
        char *allow = slurp (f.root, "devices/t1/devices.allow");
        CHECK (allow && strncmp (allow, "a\nc *:* m\n", 9) == 0);
        free (allow);
      }
    }
  ocispec_free (&oci_config_type, bl);
  ocispec_free (&oci_config_type, c);
  fx_free (&f);
}

/* the v1 exception-list model behind it */
static void
test_v1_device_model (void)
{
  cg_dev_rule rules[] = {
    { false, 'a', -1, -1, CG_DEV_ALL },                /* deny all */
    { true, 'a', 7, 1, CG_DEV_READ },                  /* c 7:1 r and b 7:1 r */
    { true, 'c', 7, 1, CG_DEV_WRITE },                 /* merged: c 7:1 rw */
    { false, 'b', 7, 1, CG_DEV_READ },                 /* b 7:1 gone */
    { true, 'c', 136, -1, CG_DEV_ALL },                /* c 136:* rwm */
    { true, 'c', 1, 3, 0 },                            /* no access: ignored */
  };
  cg_dev_rule allow_all[] = { { false, 'a', -1, -1, CG_DEV_ALL }, { true, 'a', -1, -1, CG_DEV_ALL } };
  cg_dev_exc_list l = { 0 };

  CHECK (cg_dev_emulate_v1 (rules, sizeof rules / sizeof rules[0], &l));
  CHECK (l.n == 3);
  free (l.v);
  CHECK (!cg_dev_emulate_v1 (allow_all, 2, &l));

  CHECK (cg_dev_parse_list_v1 ("c 1:3 rwm\nb 8:* r\n", &l) && l.n == 2);
  free (l.v);
  CHECK (cg_dev_parse_list_v1 ("", &l) && l.n == 0);
  free (l.v);
  CHECK (!cg_dev_parse_list_v1 ("a *:* rwm\n", &l));
  CHECK (!cg_dev_parse_list_v1 ("c 1:3 rwx\n", &l));
  CHECK (!cg_dev_parse_list_v1 ("garbage\n", &l));
}

/* ---- fake v2 tree ---- */

UNIT_MAIN (T (test_paths), T (test_conversions), T (test_v1_resources), T (test_v1_create_remove), T (test_creation_record),
           T (test_v1_errors), T (test_v1_cpuset_pod), T (test_frozen_refused), T (test_v1_update), T (test_v1_update_devices),
           T (test_v1_device_model))
