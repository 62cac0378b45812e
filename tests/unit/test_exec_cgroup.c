/* An exec's cgroup (core/cgroups/exec_cgroup.h) on fake trees: the values of the flags
   and annotations; cgroup v2, which this machine's kernels cannot run with resource
   controllers: the container's processes moved into a leaf, the controllers enabled
   for the children, the exec's cgroup with its limits, later plain execs in the leaf,
   the usage read, the leftovers swept, the whole removed with the container's;
   --cgroup's forms.  The real v1 and hybrid runs: tests/exec_cgroup.bats. */
#include <config.h>

#include "test_cgroups.h"
#include "core/cgroups/exec_cgroup.h"

static void
test_values (void)
{
  int64_t m = 0;
  uint64_t q = 0;

  CHECK (exec_cgroup_parse_memory ("8m", &m) == 0 && m == 8 << 20);
  CHECK (exec_cgroup_parse_memory ("8MiB", &m) == 0 && m == 8 << 20);
  CHECK (exec_cgroup_parse_memory ("512k", &m) == 0 && m == 512 << 10);
  CHECK (exec_cgroup_parse_memory ("2G", &m) == 0 && m == (int64_t) 2 << 30);
  CHECK (exec_cgroup_parse_memory ("4096", &m) == 0 && m == 4096);
  CHECK (exec_cgroup_parse_memory ("100b", &m) == 0 && m == 100);
  CHECK (exec_cgroup_parse_memory ("-1", &m) == 0 && m == -1);
  CHECK (exec_cgroup_parse_memory ("0", &m) < 0);
  CHECK (exec_cgroup_parse_memory ("8x", &m) < 0);
  CHECK (exec_cgroup_parse_memory ("8mm", &m) < 0);
  CHECK (exec_cgroup_parse_memory ("", &m) < 0);
  CHECK (exec_cgroup_parse_memory ("-8m", &m) < 0);
  CHECK (exec_cgroup_parse_memory ("99999999999999999999t", &m) < 0);
  CHECK (exec_cgroup_parse_cpus ("0.5", &q) == 0 && q == 50000);
  CHECK (exec_cgroup_parse_cpus ("2", &q) == 0 && q == 200000);
  CHECK (exec_cgroup_parse_cpus ("1.25", &q) == 0 && q == 125000);
  CHECK (exec_cgroup_parse_cpus ("0", &q) == 0 && q == 0);
  CHECK (exec_cgroup_parse_cpus ("0.001", &q) < 0);
  CHECK (exec_cgroup_parse_cpus (".5", &q) < 0);
  CHECK (exec_cgroup_parse_cpus ("1.", &q) < 0);
  CHECK (exec_cgroup_parse_cpus ("1e3", &q) < 0);

  /* the annotations, and the flags over them */
  {
    char *keys[] = { EXEC_MEMORY_ANNOTATION, EXEC_PIDS_ANNOTATION, EXEC_CPUS_ANNOTATION };
    char *vals[] = { "16m", "9", "1.5" };
    ocispec_map a = { .keys = keys, .values = vals, .len = 3 };
    exec_cgroup_opts o = { 0 };
    exec_cgroup_limits l;
    ocisbx_err *err = NULL;

    CHECK (exec_cgroup_limits_get (&o, &a, &l, &err) == 0);
    CHECK (l.own && l.memory == 16 << 20 && l.pids == 9 && l.cpu_quota_us == 150000);
    o.pids_limit = "-1";
    o.memory = "1g";
    CHECK (exec_cgroup_limits_get (&o, &a, &l, &err) == 0);
    CHECK (l.memory == 1 << 30 && l.pids == -1);
    vals[2] = "lots";
    CHECK (exec_cgroup_limits_get (&o, &a, &l, &err) < 0);
    CHECK (err && strstr (err->msg, ".annotations[\"io.github.ocisbx.exec.cpus\"]: \"lots\""));
    err_freep (&err);
    o.cpus = "x";
    CHECK (exec_cgroup_limits_get (&o, &a, &l, &err) < 0);
    CHECK (err && strstr (err->msg, "exec --cpus: \"x\""));
    err_freep (&err);
    /* nothing asked: no cgroup of its own */
    memset (&o, 0, sizeof o);
    CHECK (exec_cgroup_limits_get (&o, NULL, &l, &err) == 0 && !l.own);
    o.usage_file = "/u.json";
    CHECK (exec_cgroup_limits_get (&o, NULL, &l, &err) == 0 && l.own && l.memory == -1);
  }
}

/* The v2 fixture: the container t2 with two processes, the controllers the kernel
   would list. */
static void
v2_fixture (cg_fx *f)
{
  fx_make (f, v2_tree (), CGROUP_LAYOUT_V2, "t2", "/ocisbx/t2", NULL);
  CHECK (fx_setup (f) == 0);
  put (f->root, "ocisbx/t2/cgroup.controllers", "cpu io memory pids\n");
  put (f->root, "ocisbx/t2/cgroup.subtree_control", "");
  put (f->root, "ocisbx/t2/cgroup.procs", "100\n200\n");
  put (f->root, "ocisbx/t2/memory.peak", "");
  put (f->root, "ocisbx/t2/memory.events", "");
  put (f->root, "ocisbx/t2/pids.events", "");
  put (f->root, "ocisbx/t2/cpu.stat", "");
}

static void
v2_split_usage (cg_fx *f, exec_cgroup *e, const char *name)
{
  exec_cgroup_usage u;
  char *json, *file;
  static const char *const files[][2] = {
    { "cpu.stat", "usage_usec 1500\nuser_usec 1000\nsystem_usec 500\n" },
    { "memory.peak", "4096\n" },
    { "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n" },
    { "pids.events", "max 2\n" },
  };

  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    {
      file = xasprintf ("%s/%s", name, files[i][0]);
      put (f->root, file, files[i][1]);
      free (file);
    }
  CHECK (exec_cgroup_usage_read (e, &u, &f->err) == 0);
  err_freep (&f->err);
  CHECK (u.cpu_ns == 1500000 && u.memory_peak == 4096 && u.oom_kills == 1 && u.pids_limit_hits == 2);
  CHECK (u.limit_hit && u.memory_limit == 8 << 20 && u.pids_limit == 5 && u.cpu_quota_us == 50000);
  u.exit_code = 137;
  json = exec_cgroup_usage_json (&u, &f->err);
  CHECK (json && strstr (json, "\"oomKills\":1") && strstr (json, "\"exitCode\":137")
         && strstr (json, "\"limitHit\":true") && strstr (json, "\"cgroup\":\"/ocisbx/t2/" EXEC_CGROUP_PREFIX));
  free (json);
  exec_cgroup_usage_clear (&u);
}

static void
check_limit (const cg_fx *f, const char *name, const char *file, const char *want)
{
  char *p = xasprintf ("%s/%s", name, file);
  CHECK_FILE (f->root, p, want);
  free (p);
}

static void
v2_split (cg_fx *f)
{
  exec_cgroup *e = NULL, *plain = NULL, *second = NULL;
  exec_cgroup_opts o = { .memory = "8m", .pids_limit = "5", .cpus = "0.5" };
  char *name = xasprintf ("ocisbx/t2/" EXEC_CGROUP_PREFIX "%d-0", (int) getpid ());
  char *name1 = xasprintf ("ocisbx/t2/" EXEC_CGROUP_PREFIX "%d-1", (int) getpid ());
  char *path = xasprintf ("/%s", name);
  pid_t *pids = NULL;
  size_t n = 0;

  /* a leftover of an exec whose runtime is gone (no such pid), empty */
  put (f->root, "ocisbx/t2/" EXEC_CGROUP_PREFIX "2147483646-0/cgroup.procs", "");
  CHECK (exec_cgroup_open (f->m, &o, NULL, &e, &f->err) == 0);
  if (f->err)
    fprintf (stderr, "  %s\n", f->err->msg);
  err_freep (&f->err);
  /* the container's processes in the leaf, then the controllers for the children */
  CHECK_FILE (f->root, "ocisbx/t2/" EXEC_CGROUP_LEAF "/cgroup.procs", "100\n200\n");
  CHECK_FILE (f->root, "ocisbx/t2/cgroup.subtree_control", "+cpu\n+memory\n+pids\n");
  CHECK (!exists (f->root, "ocisbx/t2/" EXEC_CGROUP_PREFIX "2147483646-0"));
  /* the exec's own, with its limits and no swap */
  CHECK (e && exec_cgroup_own (e));
  CHECK_STR (e ? cgroup_path (exec_cgroup_target (e)) : NULL, path);
  check_limit (f, name, "memory.max", "8388608\n");
  check_limit (f, name, "memory.swap.max", "0\n");
  check_limit (f, name, "pids.max", "5\n");
  check_limit (f, name, "cpu.max", "50000 100000\n");
  /* the container's cgroup is still the one its commands act on */
  CHECK_STR (cgroup_path (f->m), "/ocisbx/t2");

  /* a plain exec now joins the leaf */
  memset (&o, 0, sizeof o);
  CHECK (exec_cgroup_open (f->m, &o, NULL, &plain, &f->err) == 0);
  err_freep (&f->err);
  CHECK (plain && !exec_cgroup_own (plain));
  CHECK_STR (plain ? cgroup_path (exec_cgroup_target (plain)) : NULL, "/ocisbx/t2/" EXEC_CGROUP_LEAF);

  /* a second exec of its own: the controllers are on (as the kernel lists them), the
     name taken gets the next one; its runtime (ours) is alive: the first is kept */
  put (f->root, "ocisbx/t2/cgroup.subtree_control", "cpu memory pids\n");
  o.pids_limit = "3";
  CHECK (exec_cgroup_open (f->m, &o, NULL, &second, &f->err) == 0);
  err_freep (&f->err);
  CHECK_FILE (f->root, "ocisbx/t2/cgroup.subtree_control", "cpu memory pids\n");
  CHECK (exists (f->root, name) && exists (f->root, name1));
  check_limit (f, name1, "pids.max", "3\n");

  if (e)
    {
      v2_split_usage (f, e, name);
      /* its end: removed */
      CHECK (exec_cgroup_end (e, 0, true, &f->err) == 0);
      err_freep (&f->err);
      CHECK (!exists (f->root, name));
    }
  /* ps lists everything below the container's cgroup */
  CHECK (cgroup_pids (f->m, &pids, &n, &f->err) == 0 && n >= 2);
  free (pids);
  err_freep (&f->err);
  /* delete (of a cgroup the runtime made): the container's cgroup with the leaf and
     what the execs left */
  f->m->h[0].created = 1;
  CHECK (cgroup_destroy (f->m, &f->err) == 0);
  err_freep (&f->err);
  CHECK (!exists (f->root, "ocisbx/t2"));
  exec_cgroup_free (e);
  exec_cgroup_free (plain);
  exec_cgroup_free (second);
  free (name);
  free (name1);
  free (path);
}

static void
test_v2_split (void)
{
  cg_fx f;

  v2_fixture (&f);
  if (f.m)
    v2_split (&f);
  fx_free (&f);
}

/* --cgroup: the path form on v2 (existing only); CONTROLLER:PATH is v1's */
static void
test_v2_join (void)
{
  cg_fx f;
  exec_cgroup *e = NULL;
  const char *join[] = { "sub/x" };
  exec_cgroup_opts o = { .join = join, .n_join = 1 };

  v2_fixture (&f);
  if (f.m == NULL)
    {
      fx_free (&f);
      return;
    }
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) < 0);
  CHECK (f.err && strstr (f.err->msg, "exec --cgroup: no cgroup") && strstr (f.err->msg, "ocisbx/t2/sub/x"));
  err_freep (&f.err);
  mkdirs (f.root, "ocisbx/t2/sub/x");
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) == 0);
  err_freep (&f.err);
  CHECK_STR (e ? cgroup_path (exec_cgroup_target (e)) : NULL, "/ocisbx/t2/sub/x");
  CHECK (e && !exec_cgroup_own (e));
  exec_cgroup_free (e);
  e = NULL;
  CHECK (exists (f.root, "ocisbx/t2/sub/x")); /* not ours: kept */
  join[0] = "memory:sub";
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) < 0);
  CHECK (f.err && strstr (f.err->msg, "only the path form on cgroup v2"));
  err_freep (&f.err);
  join[0] = "sub/../..";
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) < 0);
  CHECK (f.err && strstr (f.err->msg, "are not allowed"));
  err_freep (&f.err);
  fx_free (&f);
}

/* v1: CONTROLLER:PATH joins those hierarchies only; limits in the memory, pids and cpu
   hierarchies' own cgroups, the others the container's */
static void
test_v1_forms (void)
{
  cg_fx f;
  exec_cgroup *e = NULL;
  const char *join[] = { "memory,pids:sub" };
  exec_cgroup_opts o = { .join = join, .n_join = 1 };

  fx_make (&f, v1_tree ("/ocisbx/t1", true), CGROUP_LAYOUT_V1, "t1", "/ocisbx/t1", NULL);
  CHECK (fx_setup (&f) == 0);
  if (f.m == NULL)
    {
      fx_free (&f);
      return;
    }
  mkdirs (f.root, "memory/ocisbx/t1/sub");
  mkdirs (f.root, "pids/ocisbx/t1/sub");
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) == 0);
  err_freep (&f.err);
  CHECK_STR (e ? cgroup_path_in (exec_cgroup_target (e), "memory") : NULL, "/ocisbx/t1/sub");
  CHECK_STR (e ? cgroup_path_in (exec_cgroup_target (e), "pids") : NULL, "/ocisbx/t1/sub");
  CHECK_STR (e ? cgroup_path_in (exec_cgroup_target (e), "freezer") : NULL, "/ocisbx/t1");
  exec_cgroup_free (e);
  e = NULL;
  join[0] = "nosuch:sub";
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) < 0);
  CHECK (f.err && strstr (f.err->msg, "the container has no cgroup of nosuch"));
  err_freep (&f.err);

  memset (&o, 0, sizeof o);
  o.memory = "8m";
  o.cpus = "0.5";
  CHECK (exec_cgroup_open (f.m, &o, NULL, &e, &f.err) == 0);
  if (f.err)
    fprintf (stderr, "  %s\n", f.err->msg);
  err_freep (&f.err);
  if (e)
    {
      cgroup_manager *t = exec_cgroup_target (e);
      char *mem = xasprintf ("memory%s/memory.limit_in_bytes", cgroup_path_in (t, "memory"));
      char *memsw = xasprintf ("memory%s/memory.memsw.limit_in_bytes", cgroup_path_in (t, "memory"));
      char *quota = xasprintf ("cpu,cpuacct%s/cpu.cfs_quota_us", cgroup_path_in (t, "cpu,cpuacct"));
      CHECK (strstr (cgroup_path_in (t, "memory"), "/ocisbx/t1/" EXEC_CGROUP_PREFIX) != NULL);
      CHECK_STR (cgroup_path_in (t, "freezer"), "/ocisbx/t1");
      CHECK_STR (cgroup_path_in (t, "devices"), "/ocisbx/t1");
      CHECK_FILE (f.root, mem, "8388608\n");
      CHECK_FILE (f.root, memsw, "8388608\n");
      CHECK_FILE (f.root, quota, "50000\n");
      /* no leaf on v1: the container's processes stay */
      CHECK (!exists (f.root, "memory/ocisbx/t1/" EXEC_CGROUP_LEAF));
      CHECK (exec_cgroup_end (e, 0, false, &f.err) == 0);
      err_freep (&f.err);
      CHECK (!exists (f.root, mem));
      free (mem);
      free (memsw);
      free (quota);
    }
  exec_cgroup_free (e);
  fx_free (&f);
}

UNIT_MAIN (T (test_values), T (test_v2_split), T (test_v2_join), T (test_v1_forms))
