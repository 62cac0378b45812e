/* cgroups on fake trees, cgroup2's side: every resource's file and value on v2, its
   errors, the eBPF device filter's decisions (interpreted), hybrid layouts, rootless
   skipping, and removal of a paused container.  v1, paths and conversions:
   test_cgroups.c; stats: test_cgroups_stats.c; real kernels: test_cgroups_real.c. */
#include <config.h>

#include "test_cgroups.h"
#include "core/cgroups/join.h"
#include "core/cgroups/stats.h"

static void
test_v2_resources (void)
{
  cg_fx f;

  fx_make (
      &f, v2_tree (), CGROUP_LAYOUT_V2, "t2", "/ocisbx/t2",
      "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
      "\"memory\":{\"limit\":1048576,\"reservation\":524288,\"swap\":3145728},"
      "\"cpu\":{\"shares\":1024,\"quota\":50000,\"period\":200000,\"burst\":1000,\"cpus\":\"0-1\",\"mems\":\"0\","
      "\"idle\":0},"
      "\"pids\":{\"limit\":42},"
      "\"blockIO\":{\"weight\":500,\"weightDevice\":[{\"major\":8,\"minor\":0,\"weight\":1000}],"
      "\"throttleReadBpsDevice\":[{\"major\":8,\"minor\":0,\"rate\":1000}],"
      "\"throttleWriteIOPSDevice\":[{\"major\":8,\"minor\":16,\"rate\":0}]},"
      "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":4194304}],"
      "\"rdma\":{\"mlx5_1\":{\"hcaHandles\":3}},"
      "\"unified\":{\"memory.high\":\"900000\"}}}}");
  CHECK (fx_setup (&f) == 0);
  /* controllers enabled down the tree, only those not yet on */
  CHECK_FILE (f.root, "cgroup.subtree_control", "+cpuset +cpu +io +memory +hugetlb +pids +rdma +misc\n");
  CHECK_FILE (f.root, "ocisbx/cgroup.subtree_control", "cpu memory\n+cpuset +io +hugetlb +pids +rdma\n");
  CHECK_FILE (f.root, "ocisbx/t2/memory.max", "1048576\n");
  CHECK_FILE (f.root, "ocisbx/t2/memory.swap.max", "2097152\n");
  CHECK_FILE (f.root, "ocisbx/t2/memory.low", "524288\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpu.weight", "39\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpu.max", "max 100000\n50000 200000\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpu.max.burst", "1000\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpu.idle", "0\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpuset.cpus", "0-1\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpuset.mems", "0\n");
  CHECK_FILE (f.root, "ocisbx/t2/pids.max", "42\n");
  CHECK_FILE (f.root, "ocisbx/t2/io.weight", "default 4950\n8:0 10000\n");
  CHECK_FILE (f.root, "ocisbx/t2/io.max", "8:0 rbps=1000\n8:16 wiops=max\n");
  CHECK_FILE (f.root, "ocisbx/t2/hugetlb.2MB.max", "4194304\n");
  CHECK_FILE (f.root, "ocisbx/t2/hugetlb.2MB.rsvd.max", "4194304\n");
  CHECK_FILE (f.root, "ocisbx/t2/rdma.max", "mlx5_1 hca_handle=3 hca_object=max\n");
  CHECK_FILE (f.root, "ocisbx/t2/memory.high", "900000\n");
  CHECK (f.m && f.m->n == 1 && f.m->h[0].created == 0);

  /* update: period only keeps the quota */
  if (f.m)
    {
      oci_config *u = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"cpu\":{\"period\":300000},"
                             "\"memory\":{\"limit\":-1}}}}");
      put (f.root, "ocisbx/t2/cpu.max", "50000 200000\n");
      put (f.root, "ocisbx/t2/memory.swap.max", "");
      CHECK (cgroup_update (f.m, res_of (u), &f.err) == 0);
      err_freep (&f.err);
      CHECK_FILE (f.root, "ocisbx/t2/cpu.max", "50000 200000\n50000 300000\n");
      CHECK_FILE (f.root, "ocisbx/t2/memory.swap.max", "max\n");
      ocispec_free (&oci_config_type, u);
      /* pause on v2 is cgroup.freeze */
      CHECK (cgroup_freeze (f.m, true, &f.err) == 0);
      CHECK_FILE (f.root, "ocisbx/t2/cgroup.freeze", "1\n");
      err_freep (&f.err);
    }
  fx_free (&f);
}

static void
test_v2_errors (void)
{
  cg_fx f;
  static const struct
  {
    const char *res, *needle;
  } cases[] = {
    { "\"memory\":{\"swappiness\":10}", ".linux.resources.memory.swappiness" },
    { "\"memory\":{\"disableOOMKiller\":true}", ".linux.resources.memory.disableOOMKiller" },
    { "\"cpu\":{\"realtimeRuntime\":100}", ".linux.resources.cpu.realtimeRuntime" },
    { "\"network\":{\"classID\":1}", ".linux.resources.network.classID" },
    { "\"blockIO\":{\"leafWeight\":100}", ".linux.resources.blockIO.leafWeight" },
    { "\"unified\":{\"memory.nope\":\"1\"}", ".linux.resources.unified[\"memory.nope\"]" },
    { "\"unified\":{\"../x.y\":\"1\"}", ".linux.resources.unified[\"../x.y\"]" },
    { "\"hugepageLimits\":[{\"pageSize\":\"1GB\",\"limit\":1}]", ".linux.resources.hugepageLimits[0]" },
    { "\"memory\":{\"swap\":100}", ".linux.resources.memory.swap" },
  };

  fx_make (&f, v2_tree (), CGROUP_LAYOUT_V2, "r", "sub", NULL);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char *json = xasprintf ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{%s}}}", cases[i].res);
      expect_error (f.root, CGROUP_LAYOUT_V2, f.own, json, "/ocisbx/t2", cases[i].needle);
      free (json);
    }
  /* relative on v2: under our own cgroup (the fixture's cgroupsPath "sub") */
  CHECK (fx_setup (&f) == 0);
  CHECK (exists (f.root, "user.slice/me/sub"));
  CHECK_STR (f.m ? cgroup_path (f.m) : NULL, "/user.slice/me/sub");
  if (f.m)
    CHECK (cgroup_destroy (f.m, &f.err) == 0);
  err_freep (&f.err);
  CHECK (!exists (f.root, "user.slice"));
  fx_free (&f);
}

/* ---- the eBPF device filter, interpreted ---- */

static int
run_prog (const struct bpf_insn *p, size_t n, int type, unsigned access, unsigned major, unsigned minor)
{
  uint64_t r[11] = { 0 };
  uint32_t ctx[3] = { (access << 16) | (unsigned) type, major, minor };
  for (size_t pc = 0; pc < n; pc++)
    {
      const struct bpf_insn *i = &p[pc];
      uint8_t cls = BPF_CLASS (i->code), op = BPF_OP (i->code);
      if (cls == BPF_LDX)
        r[i->dst_reg] = ctx[i->off / 4];
      else if (cls == BPF_ALU || cls == BPF_ALU64)
        {
          uint64_t src = BPF_SRC (i->code) == BPF_X ? r[i->src_reg] : (uint64_t) (int64_t) i->imm;
          uint64_t v = r[i->dst_reg];
          switch (op)
            {
            case BPF_MOV:
              v = src;
              break;
            case BPF_AND:
              v &= src;
              break;
            case BPF_RSH:
              v = (uint32_t) v >> src;
              break;
            default:
              return -2;
            }
          r[i->dst_reg] = cls == BPF_ALU ? (uint32_t) v : v;
        }
      else if (cls == BPF_JMP)
        {
          if (op == BPF_EXIT)
            return (int) r[0];
          uint64_t imm = (uint64_t) (int64_t) i->imm;
          bool take = op == BPF_JNE ? r[i->dst_reg] != imm : op == BPF_JEQ ? r[i->dst_reg] == imm : false;
          if (take)
            pc += i->off;
        }
      else
        return -2;
    }
  return -3;
}

static void
test_ebpf_logic (void)
{
  enum { C = BPF_DEVCG_DEV_CHAR, B = BPF_DEVCG_DEV_BLOCK, R = BPF_DEVCG_ACC_READ, W = BPF_DEVCG_ACC_WRITE,
         M = BPF_DEVCG_ACC_MKNOD };
  cg_dev_rule rules[] = {
    { true, 'a', -1, -1, CG_DEV_ALL },        /* allow all ... */
    { false, 'a', -1, -1, CG_DEV_ALL },       /* ... reset: deny all */
    { true, 'c', 1, 3, CG_DEV_ALL },          /* /dev/null */
    { true, 'c', 1, 5, CG_DEV_READ },         /* /dev/zero read only */
    { true, 'c', 136, -1, CG_DEV_ALL },       /* pts */
    { true, 'b', -1, -1, CG_DEV_MKNOD },      /* mknod any block */
    { false, 'c', 1, 3, CG_DEV_WRITE },       /* later: deny writing /dev/null */
    { true, 'a', 7, -1, CG_DEV_READ },        /* both types, major 7 */
  };
  struct bpf_insn *p = NULL;
  size_t n = 0;

  cg_ebpf_build (rules, sizeof rules / sizeof rules[0], &p, &n);
  CHECK (run_prog (p, n, C, R, 1, 3) == 1);
  CHECK (run_prog (p, n, C, W, 1, 3) == 0);
  CHECK (run_prog (p, n, C, R | W, 1, 3) == 0);
  CHECK (run_prog (p, n, C, R, 1, 5) == 1);
  CHECK (run_prog (p, n, C, R | W, 1, 5) == 0);
  CHECK (run_prog (p, n, C, R | W, 136, 4) == 1);
  CHECK (run_prog (p, n, B, R, 136, 4) == 0);
  CHECK (run_prog (p, n, B, M, 8, 0) == 1);
  CHECK (run_prog (p, n, B, R, 8, 0) == 0);
  CHECK (run_prog (p, n, C, R, 1, 7) == 0);
  CHECK (run_prog (p, n, B, R, 7, 1) == 1);
  CHECK (run_prog (p, n, C, R, 7, 9) == 1);
  CHECK (run_prog (p, n, C, W, 7, 9) == 0);
  free (p);

  /* no reset rule: default deny; a trailing allow-all: everything */
  cg_dev_rule allow_all[] = { { true, 'c', 1, 3, CG_DEV_ALL }, { true, 'a', -1, -1, CG_DEV_ALL } };
  cg_ebpf_build (allow_all, 2, &p, &n);
  CHECK (n == 8);
  CHECK (run_prog (p, n, B, R | W, 8, 0) == 1);
  free (p);
  cg_ebpf_build (allow_all, 1, &p, &n);
  CHECK (run_prog (p, n, B, R, 8, 0) == 0);
  CHECK (run_prog (p, n, C, W, 1, 3) == 1);
  free (p);

  /* the default list (v2 as v1): the nodes every container has, mknod of any node;
     not the console, not /dev/kmsg */
  {
    cg_dev_rule *d = NULL;
    size_t nd = 0;
    ocisbx_err *err = NULL;
    CHECK (cg_dev_rules (NULL, true, &d, &nd, &err) == 0);
    cg_ebpf_build (d, nd, &p, &n);
    CHECK (run_prog (p, n, C, R | W, 1, 3) == 1 && run_prog (p, n, C, R | W, 5, 2) == 1);
    CHECK (run_prog (p, n, C, R | W, 136, 7) == 1 && run_prog (p, n, C, R, 1, 9) == 1);
    CHECK (run_prog (p, n, C, R | W, 5, 1) == 0 && run_prog (p, n, C, R, 1, 11) == 0);
    CHECK (run_prog (p, n, C, M, 1, 11) == 1 && run_prog (p, n, B, M, 8, 0) == 1);
    free (p);
    free (d);
  }
}

/* hybrid: the v1 controllers plus the unified hierarchy; unified resources go there */
static void
test_hybrid_fake (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/h1", true), CGROUP_LAYOUT_HYBRID, "h", "/h1",
           "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"pids\":{\"limit\":5}}}}");
  put (f.root, "unified/cgroup.procs", "");
  put (f.root, "unified/cgroup.max.depth", "");
  put (f.root, "unified/cgroup.freeze", "");
  /* unified resources: runc's "invalid configuration" on hybrid as on v1 */
  expect_error (f.root, CGROUP_LAYOUT_HYBRID, f.own,
                "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"unified\":{\"cgroup.max.depth\":\"2\"}}}}",
                "/h1", "invalid configuration: .linux.resources.unified");
  CHECK (fx_setup (&f) == 0);
  CHECK (f.m && f.m->n == 12);
  CHECK_FILE (f.root, "pids/h1/pids.max", "5\n");
  CHECK_FILE (f.root, "unified/h1/cgroup.max.depth", "");
  CHECK_STR (f.m ? cgroup_path_in (f.m, "unified") : NULL, "/h1");
  CHECK_STR (f.m ? cgroup_path_in (f.m, "memory") : NULL, "/h1");
  CHECK (f.m && cgroup_path_in (f.m, "nope") == NULL);
  if (f.m)
    {
      CHECK (cgroup_enter (f.m, 77, &f.err) == 0);
      CHECK_FILE (f.root, "unified/h1/cgroup.procs", "77\n");
      /* the v1 freezer is preferred for pause on hybrid */
      CHECK (cgroup_freeze (f.m, true, &f.err) == 0);
      CHECK_FILE (f.root, "freezer/h1/freezer.state", "FROZEN\n");
      CHECK_FILE (f.root, "unified/h1/cgroup.freeze", "");
      err_freep (&f.err);
      CHECK (cgroup_destroy (f.m, &f.err) == 0);
      err_freep (&f.err);
      CHECK (!exists (f.root, "unified/h1") && exists (f.root, "memory/h1"));
    }
  fx_free (&f);
}

/* hybrid with hugetlb bound to the unified hierarchy (no v1 hugetlb): +hugetlb is
   enabled where missing down to the parent, the cgroup2 files are written in the
   container's unified cgroup, on create and on update */
static char *
hybrid_no_v1_hugetlb (void)
{
  char *root = v1_tree ("/x/h2", true);
  char *cmd = xasprintf ("rm -rf '%s/hugetlb'", root);
  CHECK (system (cmd) == 0);
  free (cmd);
  put (root, "self_cgroup",
       "12:rdma:/\n10:net_cls,net_prio:/\n9:name=systemd:/user.slice/s1\n8:pids:/\n"
       "7:blkio:/\n6:freezer:/\n5:devices:/\n4:memory:/mine\n3:cpuset:/\n2:cpu,cpuacct:/\n"
       "1:perf_event:/\n0::/\n");
  put (root, "unified/cgroup.procs", "");
  put (root, "unified/cgroup.subtree_control", "");
  /* x pre-exists with hugetlb already enabled: left alone */
  put (root, "unified/x/cgroup.procs", "");
  put (root, "unified/x/cgroup.subtree_control", "memory hugetlb\n");
  put (root, "unified/x/hugetlb.2MB.max", "");
  put (root, "unified/x/hugetlb.2MB.rsvd.max", "");
  return root;
}

static void
test_hybrid_hugetlb_unified (void)
{
  static const char *const limit_4m = "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
                                      "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":4194304}]}}}";
  oci_config *u = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
                         "\"hugepageLimits\":[{\"pageSize\":\"2MB\",\"limit\":8388608}]}}}");
  cg_fx f;

  fx_make (&f, hybrid_no_v1_hugetlb (), CGROUP_LAYOUT_HYBRID, "h2", "/x/h2", limit_4m);
  put (f.root, "unified/cgroup.controllers", "cpu memory hugetlb pids\n");
  CHECK (fx_setup (&f) == 0);
  CHECK (f.m && cg_find (f.m, "hugetlb") == NULL);
  CHECK_FILE (f.root, "unified/cgroup.subtree_control", "+hugetlb\n");
  CHECK_FILE (f.root, "unified/x/cgroup.subtree_control", "memory hugetlb\n");
  CHECK_FILE (f.root, "unified/x/h2/cgroup.subtree_control", "");
  CHECK_FILE (f.root, "unified/x/h2/hugetlb.2MB.max", "4194304\n");
  CHECK_FILE (f.root, "unified/x/h2/hugetlb.2MB.rsvd.max", "4194304\n");
  if (f.m)
    {
      /* update: the same path (hugetlb already enabled everywhere now) */
      put (f.root, "unified/cgroup.subtree_control", "hugetlb\n");
      CHECK (cgroup_update (f.m, res_of (u), &f.err) == 0);
      if (f.err)
        fprintf (stderr, "  %s\n", f.err->msg);
      err_freep (&f.err);
      CHECK_FILE (f.root, "unified/cgroup.subtree_control", "hugetlb\n");
      CHECK_FILE (f.root, "unified/x/h2/hugetlb.2MB.max", "4194304\n8388608\n");
      CHECK_FILE (f.root, "unified/x/h2/hugetlb.2MB.rsvd.max", "4194304\n8388608\n");
      /* stats: the hugetlb usage from where the limits went */
      {
        cgroup_stats st;
        put (f.root, "unified/x/h2/hugetlb.2MB.current", "2097152\n");
        put (f.root, "unified/x/h2/hugetlb.2MB.events", "max 3\n");
        CHECK (cgroup_stats_read (f.m, &st, &f.err) == 0);
        CHECK (st.hugetlb_len == 1 && strcmp (st.hugetlb[0].page_size, "2MB") == 0);
        CHECK (st.hugetlb_len == 1 && st.hugetlb[0].usage == 2097152 && st.hugetlb[0].failcnt == 3);
        cgroup_stats_free (&st);
        err_freep (&f.err);
      }
      /* delete still removes what we created, and only that */
      CHECK (cgroup_destroy (f.m, &f.err) == 0);
      err_freep (&f.err);
      CHECK (!exists (f.root, "unified/x/h2") && exists (f.root, "unified/x"));
    }
  fx_free (&f);

  /* neither a v1 hierarchy nor the unified one has hugetlb: the error names the field */
  fx_make (&f, hybrid_no_v1_hugetlb (), CGROUP_LAYOUT_HYBRID, "h2", "/x/h2", limit_4m);
  put (f.root, "unified/cgroup.controllers", "cpu memory pids\n");
  CHECK (cgroup_setup (&f.cc, &f.m, &f.err) < 0);
  CHECK (f.err && strstr (f.err->msg, ".linux.resources.hugepageLimits[0]") != NULL);
  if (f.err)
    fprintf (stderr, "  expected: %s\n", f.err->msg);
  err_freep (&f.err);
  CHECK_FILE (f.root, "unified/cgroup.subtree_control", "");
  CHECK (!exists (f.root, "unified/x/h2") && exists (f.root, "unified/x"));
  ocispec_free (&oci_config_type, u);
  fx_free (&f);
}

/* rootless: hierarchies we may not write are skipped, the rest is used (as an
   unprivileged uid on a fake tree where only pids/ is ours) */
static void
test_rootless_skip (void)
{
  char *root = v1_tree ("/none", false);
  char *own = xasprintf ("%s/self_cgroup", root);
  char *pids_dir = xasprintf ("%s/pids", root);
  pid_t pid;
  int st = 0;

  if (geteuid () != 0)
    {
      UNIT_SKIP ("needs root to switch uid");
      goto out;
    }
  chmod (root, 0755);
  CHECK (chown (pids_dir, 65534, 65534) == 0);
  pid = fork ();
  if (pid == 0)
    {
      cgroup_config cc = { .fs_root = root, .id = "rl", .layout = CGROUP_LAYOUT_V1, .proc_cgroup = own,
                           .rootless = true };
      cgroup_manager *m = NULL, *m2 = NULL;
      ocisbx_err *err = NULL;
      char *ser;
      unit_failed_checks = 0;
      if (setresgid (65534, 65534, 65534) < 0 || setresuid (65534, 65534, 65534) < 0)
        _exit (1);
      CHECK (cgroup_setup (&cc, &m, &err) == 0);
      if (err)
        fprintf (stderr, "  %s\n", err->msg);
      err_freep (&err);
      CHECK (m && m->n == 1 && strcmp (m->h[0].name, "pids") == 0);
      CHECK (exists (root, "pids/ocisbx/rl"));
      if (m)
        {
          ser = cgroup_serialize (m);
          CHECK (strstr (ser, "\"rootless\":true") != NULL);
          CHECK (load_serialized (root, ser, &m2, &err) == 0 && m2->rootless);
          err_freep (&err);
          free (ser);
          CHECK (cgroup_destroy (m2, &err) == 0);
          CHECK (!exists (root, "pids/ocisbx"));
        }
      /* without rootless the same is an error */
      cc.rootless = false;
      cgroup_manager_free (m);
      m = NULL;
      CHECK (cgroup_setup (&cc, &m, &err) < 0 && err->errnum == EACCES);
      _exit (unit_failed_checks ? 1 : 0);
    }
  CHECK (waitpid (pid, &st, 0) == pid && WIFEXITED (st) && WEXITSTATUS (st) == 0);
 out:
  free (pids_dir);
  free (own);
  rmtree (root);
}

/* rootless on v2: a limit whose controller the container's cgroup lacks (its
   cgroup.controllers, a delegated subtree's) is dropped with a warning, the others are
   written */
static void
test_rootless_v2 (void)
{
  cg_fx f;

  fx_make (&f, v2_tree (), CGROUP_LAYOUT_V2, "r", "/ocisbx/t2",
           "{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"pids\":{\"limit\":7},"
           "\"memory\":{\"limit\":1048576},\"cpu\":{\"shares\":1024}}}}");
  f.cc.rootless = true;
  put (f.root, "ocisbx/t2/cgroup.controllers", "memory pids\n");
  CHECK (fx_setup (&f) == 0);
  CHECK (f.m && f.m->rootless && f.m->n == 1);
  CHECK_FILE (f.root, "ocisbx/t2/pids.max", "7\n");
  CHECK_FILE (f.root, "ocisbx/t2/memory.max", "1048576\n");
  CHECK_FILE (f.root, "ocisbx/t2/cpu.weight", "");
  fx_free (&f);
}

/* delete of a paused container: its cgroup frozen by pause is killed and thawed, then
   removed with the levels made for it */
static void
test_destroy_paused (void)
{
  cg_fx f;

  fx_make (&f, v1_tree ("/none", false), CGROUP_LAYOUT_V1, "p1", NULL, NULL);
  put (f.root, "freezer/freezer.state", "THAWED\n");
  CHECK (fx_setup (&f) == 0);
  if (f.m)
    {
      CHECK (cgroup_freeze (f.m, true, &f.err) == 0);
      err_freep (&f.err);
      CHECK_FILE (f.root, "freezer/ocisbx/p1/freezer.state", "FROZEN\n");
      CHECK (cgroup_destroy (f.m, &f.err) == 0);
      err_freep (&f.err);
    }
  CHECK (!exists (f.root, "freezer/ocisbx") && !exists (f.root, "memory/ocisbx/p1"));
  fx_free (&f);
}

UNIT_MAIN (T (test_v2_resources), T (test_v2_errors), T (test_ebpf_logic), T (test_hybrid_fake),
           T (test_hybrid_hugetlb_unified), T (test_rootless_skip), T (test_rootless_v2), T (test_destroy_paused))
