/* cgroups on fake trees, what is read back and handed on: the stats files runc's fs and
   fs2 managers read, printed as runc's events print them, their parsers, and the
   --systemd-cgroup unit names and properties.  The rest on fake trees: test_cgroups.c. */
#include <config.h>

#include "test_cgroups.h"
#include "core/cgroups/stats.h"
#include "ocispec_check.h"

/* stats: the files runc's fs and fs2 managers read, printed as runc's events print them */
static void
check_stats_json (cg_fx *f, const char *want)
{
  cgroup_stats st;
  CHECK (fx_setup (f) == 0);
  if (f->m && cgroup_stats_read (f->m, &st, &f->err) == 0)
    {
      char *got = NULL, *line = xasprintf ("%s\n", want); /* one line, its newline */
      CHECK (cgroup_event_json ("stats", f->cc.id, &st, &got, &f->err) == 0);
      if (got == NULL || strcmp (got, line) != 0)
        fprintf (stderr, "  got:  %s  want: %s", got, line);
      CHECK (got && strcmp (got, line) == 0);
      free (got);
      free (line);
      cgroup_stats_free (&st);
    }
}

static void
test_stats_v1 (void)
{
  cg_fx f;
  long hz = sysconf (_SC_CLK_TCK);
  char *want;

  fx_make (&f, v1_tree ("/s1", true), CGROUP_LAYOUT_V1, "s", "/s1", NULL);
  put (f.root, "cpu,cpuacct/s1/cpuacct.usage", "123456789\n");
  put (f.root, "cpu,cpuacct/s1/cpuacct.usage_percpu", "100 200 \n");
  put (f.root, "cpu,cpuacct/s1/cpuacct.usage_all", "cpu user system\n0 60 40\n1 150 50\n");
  put (f.root, "cpu,cpuacct/s1/cpuacct.stat", "user 10\nsystem 5\n");
  put (f.root, "cpu,cpuacct/s1/cpu.stat", "nr_periods 7\nnr_throttled 3\nthrottled_time 999\n");
  put (f.root, "cpuset/s1/cpuset.cpus", "0-2,5\n");
  put (f.root, "cpuset/s1/cpuset.mems", "0\n");
  put (f.root, "cpuset/s1/cpuset.mem_hardwall", "1\n");
  put (f.root, "cpuset/s1/cpuset.sched_load_balance", "1\n");
  put (f.root, "cpuset/s1/cpuset.sched_relax_domain_level", "-1\n");
  put (f.root, "memory/s1/memory.usage_in_bytes", "4096\n");
  put (f.root, "memory/s1/memory.max_usage_in_bytes", "8192\n");
  put (f.root, "memory/s1/memory.failcnt", "0\n");
  put (f.root, "memory/s1/memory.limit_in_bytes", "9223372036854771712\n");
  put (f.root, "memory/s1/memory.memsw.usage_in_bytes", "4096\n");
  put (f.root, "memory/s1/memory.memsw.max_usage_in_bytes", "8192\n");
  put (f.root, "memory/s1/memory.memsw.failcnt", "1\n");
  put (f.root, "memory/s1/memory.memsw.limit_in_bytes", "9223372036854771712\n");
  put (f.root, "memory/s1/memory.kmem.tcp.usage_in_bytes", "0\n");
  put (f.root, "memory/s1/memory.kmem.tcp.limit_in_bytes", "9223372036854771712\n");
  put (f.root, "memory/s1/memory.stat", "rss 400\ncache 300\nactive_anon 5\n");
  put (f.root, "pids/s1/pids.current", "3\n");
  put (f.root, "pids/s1/pids.max", "max\n");
  /* bfq's files are there but empty, cfq's missing: the throttle files give the lists */
  put (f.root, "blkio/s1/blkio.bfq.io_serviced_recursive", "");
  put (f.root, "blkio/s1/blkio.throttle.io_serviced_recursive", "8:0 Read 1\n8:0 Write 2\nTotal 3\n");
  put (f.root, "blkio/s1/blkio.throttle.io_service_bytes_recursive", "8:0 Read 10\n8:16 Write 0\nTotal 10\n");
  put (f.root, "hugetlb/s1/hugetlb.2MB.usage_in_bytes", "2097152\n");
  put (f.root, "hugetlb/s1/hugetlb.2MB.max_usage_in_bytes", "4194304\n");
  put (f.root, "hugetlb/s1/hugetlb.2MB.failcnt", "0\n");
  put (f.root, "hugetlb/s1/hugetlb.1GB.usage_in_bytes", "0\n");
  put (f.root, "hugetlb/s1/hugetlb.1GB.failcnt", "2\n");
  put (f.root, "hugetlb/s1/hugetlb.2MB.rsvd.usage_in_bytes", "0\n"); /* a reservation counter, no page size */
  want = xasprintf (
      "{\"type\":\"stats\",\"id\":\"s\",\"data\":{"
      "\"cpu\":{\"usage\":{\"total\":123456789,\"percpu\":[100,200],\"percpu_kernel\":[40,50],"
      "\"percpu_user\":[60,150],\"kernel\":%llu,\"user\":%llu},"
      "\"throttling\":{\"periods\":7,\"throttledPeriods\":3,\"throttledTime\":999}},"
      "\"cpuset\":{\"cpus\":[0,1,2,5],\"cpu_exclusive\":0,\"mems\":[0],\"mem_hardwall\":1,\"mem_exclusive\":0,"
      "\"memory_migrate\":0,\"memory_spread_page\":0,\"memory_spread_slab\":0,\"memory_pressure\":0,"
      "\"sched_load_balance\":1,\"sched_relax_domain_level\":-1},"
      "\"memory\":{\"cache\":300,\"usage\":{\"limit\":9223372036854771712,\"usage\":4096,\"max\":8192,\"failcnt\":0},"
      "\"swap\":{\"limit\":9223372036854771712,\"usage\":4096,\"max\":8192,\"failcnt\":1},"
      "\"kernel\":{\"limit\":0,\"failcnt\":0},\"kernelTCP\":{\"limit\":9223372036854771712,\"failcnt\":0},"
      "\"raw\":{\"active_anon\":5,\"cache\":300,\"rss\":400}},"
      "\"pids\":{\"current\":3},"
      "\"blkio\":{\"ioServiceBytesRecursive\":[{\"major\":8,\"op\":\"Read\",\"value\":10},"
      "{\"major\":8,\"minor\":16,\"op\":\"Write\"}],"
      "\"ioServicedRecursive\":[{\"major\":8,\"op\":\"Read\",\"value\":1},{\"major\":8,\"op\":\"Write\",\"value\":2}]},"
      "\"hugetlb\":{\"1GB\":{\"failcnt\":2},\"2MB\":{\"usage\":2097152,\"max\":4194304,\"failcnt\":0}},"
      "\"intel_rdt\":{},\"network_interfaces\":null}}",
      hz > 0 ? 5 * 1000000000ULL / hz : 0, hz > 0 ? 10 * 1000000000ULL / hz : 0);
  check_stats_json (&f, want);
  free (want);
  fx_free (&f);
}

static void
test_stats_v2 (void)
{
  cg_fx f;
  cgroup_stats st;

  fx_make (&f, v2_tree (), CGROUP_LAYOUT_V2, "t2", "/ocisbx/t2", NULL);
  put (f.root, "ocisbx/t2/cpu.stat",
       "usage_usec 1000\nuser_usec 600\nsystem_usec 400\nnr_periods 0\nnr_throttled 0\nthrottled_usec 0\n");
  put (f.root, "ocisbx/t2/memory.current", "65536\n");
  put (f.root, "ocisbx/t2/memory.max", "1048576\n");
  put (f.root, "ocisbx/t2/memory.peak", "131072\n");
  put (f.root, "ocisbx/t2/memory.swap.current", "4096\n");
  put (f.root, "ocisbx/t2/memory.swap.max", "max\n");
  put (f.root, "ocisbx/t2/memory.stat", "file 200\nanon 100\n");
  put (f.root, "ocisbx/t2/cgroup.procs", "12\n34\n"); /* no pids.current: the processes counted */
  put (f.root, "ocisbx/t2/io.stat",
       "8:0 rbytes=5 wbytes=6 rios=1 wios=2 dbytes=0 dios=0\n8:16 rbytes=0 wbytes=7 rios=0 wios=3\n");
  put (f.root, "ocisbx/t2/hugetlb.2MB.current", "0\n");
  put (f.root, "ocisbx/t2/hugetlb.2MB.events", "max 1\n");
  put (f.root, "ocisbx/t2/hugetlb.2MB.rsvd.current", "0\n");
  check_stats_json (
      &f, "{\"type\":\"stats\",\"id\":\"t2\",\"data\":{"
          "\"cpu\":{\"usage\":{\"total\":1000000,\"kernel\":400000,\"user\":600000},\"throttling\":{}},"
          "\"cpuset\":{\"cpu_exclusive\":0,\"mem_hardwall\":0,\"mem_exclusive\":0,\"memory_migrate\":0,"
          "\"memory_spread_page\":0,\"memory_spread_slab\":0,\"memory_pressure\":0,\"sched_load_balance\":0,"
          "\"sched_relax_domain_level\":0},"
          "\"memory\":{\"cache\":200,\"usage\":{\"limit\":1048576,\"usage\":65536,\"max\":131072,\"failcnt\":0},"
          "\"swap\":{\"limit\":18446744073709551615,\"usage\":69632,\"failcnt\":0},"
          "\"kernel\":{\"limit\":0,\"failcnt\":0},\"kernelTCP\":{\"limit\":0,\"failcnt\":0},"
          "\"raw\":{\"anon\":100,\"file\":200}},"
          "\"pids\":{\"current\":2},"
          "\"blkio\":{\"ioServiceBytesRecursive\":[{\"major\":8,\"op\":\"Read\",\"value\":5},"
          "{\"major\":8,\"op\":\"Write\",\"value\":6},{\"major\":8,\"minor\":16,\"op\":\"Read\"},"
          "{\"major\":8,\"minor\":16,\"op\":\"Write\",\"value\":7}],"
          "\"ioServicedRecursive\":[{\"major\":8,\"op\":\"Read\",\"value\":1},{\"major\":8,\"op\":\"Write\",\"value\":2},"
          "{\"major\":8,\"minor\":16,\"op\":\"Read\"},{\"major\":8,\"minor\":16,\"op\":\"Write\",\"value\":3}]},"
          "\"hugetlb\":{\"2MB\":{\"failcnt\":1}},\"intel_rdt\":{},\"network_interfaces\":null}}");
  /* a swap limit: v1's mem+swap figure, the memory limit added (runc's fs2) */
  put (f.root, "ocisbx/t2/memory.swap.max", "1000\n");
  put (f.root, "ocisbx/t2/pids.current", "5\n");
  put (f.root, "ocisbx/t2/pids.max", "64\n");
  if (f.m && cgroup_stats_read (f.m, &st, &f.err) == 0)
    {
      CHECK (st.memory.swap.limit == 1000 + 1048576 && st.memory.swap.usage == 4096 + 65536);
      CHECK (st.pids.current == 5 && st.pids.limit == 64);
      cgroup_stats_free (&st);
    }
  fx_free (&f);
}

/* the parsers on their edge cases */
static void
test_stats_parsers (void)
{
  cgroup_u64s l = { 0 };
  cgroup_blkio_list b = { 0 };

  cg_stats_parse_list ("0-3,7,9-10\n", &l);
  CHECK (l.n == 7 && l.v[3] == 3 && l.v[4] == 7 && l.v[6] == 10);
  free (l.v);
  l = (cgroup_u64s) { 0 };
  cg_stats_parse_list ("\n", &l);
  CHECK (l.n == 0);
  cg_stats_parse_list ("3-1", &l); /* backwards: nothing */
  CHECK (l.n == 0);
  CHECK (!cg_stats_parse_blkio_v1 (NULL, &b) && !cg_stats_parse_blkio_v1 ("", &b));
  CHECK (!cg_stats_parse_blkio_v1 ("Total 0\n", &b) && b.n == 0);
  CHECK (cg_stats_parse_blkio_v1 ("8:0 Read 1\n253:3 77\n", &b) && b.n == 2);
  CHECK (b.v[1].major == 253 && b.v[1].minor == 3 && b.v[1].op == NULL && b.v[1].value == 77);
  CHECK (strcmp (b.v[0].op, "Read") == 0);
  free (b.v[0].op);
  free (b.v);
}

/* --systemd-cgroup: the unit's name, and resources as the unit's properties (runc's
   mapping); the lines are what ocisbx-systemd reads: NAME<TAB>TYPE<TAB>VALUE... */
static void
check_props (const cg_sd_props *p, const char *const *want, size_t n)
{
  bool ok = p->n == n;
  for (size_t i = 0; ok && i < n; i++)
    ok = strcmp (p->v[i], want[i]) == 0;
  if (!ok)
    for (size_t i = 0; i < p->n; i++)
      fprintf (stderr, "  got: %s\n", p->v[i]);
  CHECK (ok);
}

static void
test_systemd_props (void)
{
  static const char proc_devices[] = "Character devices:\n  1 mem\n  5 /dev/tty\n136 pts\n\nBlock devices:\n"
                                     "  8 sd\n";
  static const cg_dev_rule rules[] = {
    { .allow = false, .type = 'a', .major = -1, .minor = -1, .access = CG_DEV_ALL },
    { .allow = true, .type = 'c', .major = 1, .minor = 3, .access = CG_DEV_ALL },
    { .allow = true, .type = 'c', .major = 136, .minor = -1, .access = CG_DEV_READ | CG_DEV_WRITE },
    { .allow = true, .type = 'b', .major = 8, .minor = 0, .access = CG_DEV_READ },
    { .allow = true, .type = 'c', .major = 250, .minor = -1, .access = CG_DEV_READ }, /* no name: files only */
    { .allow = true, .type = 'c', .major = -1, .minor = 7, .access = CG_DEV_READ },  /* systemd cannot say it */
  };
  static const cg_dev_rule allow_all[] = { { .allow = true, .type = 'a', .major = -1, .minor = -1, .access = CG_DEV_ALL } };
  static const char *const want_v1[] = {
    "MemoryMax\tt\t67108864",
    "CPUShares\tt\t512",
    "CPUQuotaPeriodUSec\tt\t100000",
    "CPUQuotaPerSecUSec\tt\t340000", /* 33.3 % rounded up to whole percents */
    "AllowedCPUs\tay\t0702",          /* 0-2,9 */
    "AllowedMemoryNodes\tay\t01",
    "TasksMax\tt\t50",
    "BlockIOWeight\tt\t500",
    "DevicePolicy\ts\tstrict",
    "DeviceAllow\ta(ss)\t/dev/char/1:3\trwm\tchar-pts\trw\t/dev/block/8:0\tr",
  };
  static const char *const want_v2[] = {
    "MemoryMax\tt\t67108864",
    "MemoryLow\tt\t1048576",
    "MemorySwapMax\tt\t67108864", /* swap 128M in all: 64M of swap */
    "CPUWeight\tt\t20",
    "CPUQuotaPeriodUSec\tt\t100000",
    "CPUQuotaPerSecUSec\tt\t18446744073709551615", /* quota -1: no limit */
    "TasksMax\tt\t18446744073709551615",
    "IOWeight\tt\t4950", /* runc: 1 + (500 - 10) * 9999 / 990 */
    "DevicePolicy\ts\tauto",
    "DeviceAllow\ta(ss)",
  };
  oci_config *c1 = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
                          "\"memory\":{\"limit\":67108864},\"pids\":{\"limit\":50},"
                          "\"cpu\":{\"shares\":512,\"quota\":33333,\"period\":100000,\"cpus\":\"0-2,9\",\"mems\":\"0\"},"
                          "\"blockIO\":{\"weight\":500}}}}");
  oci_config *c2 = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
                          "\"memory\":{\"limit\":67108864,\"reservation\":1048576,\"swap\":134217728},"
                          "\"pids\":{\"limit\":-1},\"cpu\":{\"shares\":512,\"quota\":-1,\"period\":100000},"
                          "\"blockIO\":{\"weight\":500}}}}");
  cg_sd_props p = { 0 };
  ocisbx_err *err = NULL;

  CHECK (cg_systemd_resource_props (res_of (c1), false, rules, sizeof rules / sizeof rules[0], proc_devices, &p, &err)
         == 0);
  check_props (&p, want_v1, sizeof want_v1 / sizeof want_v1[0]);
  cg_sd_props_free (&p);
  CHECK (cg_systemd_resource_props (res_of (c2), true, allow_all, 1, NULL, &p, &err) == 0);
  check_props (&p, want_v2, sizeof want_v2 / sizeof want_v2[0]);
  cg_sd_props_free (&p);
  /* an update without devices: no device properties; nothing at all for no resources */
  CHECK (cg_systemd_resource_props (NULL, true, NULL, 0, NULL, &p, &err) == 0 && p.n == 0);
  err_freep (&err);
  ocispec_free (&oci_config_type, c1);
  ocispec_free (&oci_config_type, c2);

  /* cgroupsPath: slice and unit */
  {
    static const struct
    {
      const char *path, *slice, *unit;
    } ok[] = { { "ocit-test.slice:ocit:c1", "ocit-test.slice", "ocit-c1.scope" },
               { ":ocit:c1", "system.slice", "ocit-c1.scope" },
               { "a.slice::c1", "a.slice", "c1.scope" },
               { "a.slice:p:x.slice", "a.slice", "x.slice" },
               { NULL, "system.slice", "ocisbx-abc.scope" } };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
      {
        cgroup_config cc = { .id = "abc", .cgroups_path = ok[i].path, .systemd = true };
        char *slice = NULL, *unit = NULL;
        CHECK (cg_systemd_names (&cc, &slice, &unit, &err) == 0);
        CHECK (slice && unit && strcmp (slice, ok[i].slice) == 0 && strcmp (unit, ok[i].unit) == 0);
        free (slice);
        free (unit);
        err_freep (&err);
      }
    cgroup_config bad = { .id = "abc", .cgroups_path = "nocolons", .systemd = true };
    char *slice = NULL, *unit = NULL;
    CHECK (cg_systemd_names (&bad, &slice, &unit, &err) < 0 && strstr (err->msg, ".linux.cgroupsPath"));
    err_freep (&err);
  }
}

/* cgroup_stats_type describes every member of cgroup_stats: what stats.c reads is printed */
static void
test_stats_table (void)
{
  CHECK (check_struct_covered (&cgroup_stats_type, false) == 0);
}

UNIT_MAIN (T (test_stats_table), T (test_stats_v1), T (test_stats_v2), T (test_stats_parsers), T (test_systemd_props))
