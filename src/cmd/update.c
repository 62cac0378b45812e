#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/container/container.h"
#include "core/utils.h"

static const char update_help[]
    = "Usage: ocisbx update [OPTIONS] CONTAINER-ID\n"
      "\n"
      "Change the resource limits of a created, running or paused container.\n"
      "\n"
      "  -r, --resources FILE       a linux.resources JSON object from FILE ('-': stdin);\n"
      "                             the other options are then ignored\n"
      "      --memory SIZE          memory limit (bytes, or 512k, 100M, 1G; -1: unlimited)\n"
      "      --memory-swap SIZE     memory+swap limit (-1: unlimited swap)\n"
      "      --memory-reservation SIZE  soft limit\n"
      "      --kernel-memory SIZE   kernel memory limit (deprecated)\n"
      "      --kernel-memory-tcp SIZE  kernel TCP buffer limit\n"
      "      --cpu-share N          CPU shares (--cpu-shares too)\n"
      "      --cpu-quota N          CFS quota in microseconds per period (-1: none)\n"
      "      --cpu-period N         CFS period in microseconds\n"
      "      --cpu-burst N          CFS burst in microseconds\n"
      "      --cpu-rt-runtime N     realtime runtime in microseconds\n"
      "      --cpu-rt-period N      realtime period in microseconds\n"
      "      --cpu-idle N           1: SCHED_IDLE for the cgroup\n"
      "      --cpuset-cpus LIST     CPUs allowed (0-3,5)\n"
      "      --cpuset-mems LIST     memory nodes allowed\n"
      "      --blkio-weight N       block IO weight (10-1000)\n"
      "      --pids-limit N         maximum number of processes (0 or -1: unlimited)\n";

/* 100, 512k, 100M, 1.5g, 2GiB: binary multiples, as runc (docker/go-units RAMInBytes). */
static int
parse_size (const char *s, int64_t *out)
{
  static const char units[] = "bkmgtp";
  char *end;
  double v;
  const char *u;
  int shift = 0;

  if (strcmp (s, "-1") == 0)
    {
      *out = -1;
      return 0;
    }
  errno = 0;
  v = strtod (s, &end);
  if (errno || end == s || v < 0 || !isfinite (v))
    return -1;
  if (*end)
    {
      u = strchr (units, (char) (*end | 0x20));
      if (u == NULL)
        return -1;
      shift = (int) (u - units) * 10;
      end++;
      if (*end == 'i' || *end == 'I')
        end++;
      if ((*end == 'b' || *end == 'B') && u != units)
        end++;
      if (*end)
        return -1;
    }
  v *= (double) (1ULL << shift);
  if (v > (double) INT64_MAX)
    return -1;
  *out = (int64_t) v;
  return 0;
}

static int
parse_i64 (const char *s, int64_t *out)
{
  char *end;
  errno = 0;
  *out = strtoll (s, &end, 10);
  return errno || end == s || *end ? -1 : 0;
}

/* A limit: a number, or -1 for none (other negative numbers mean nothing). */
static int
parse_limit (const char *s, int64_t *out)
{
  return parse_i64 (s, out) < 0 || *out < -1 ? -1 : 0;
}

static int
parse_u64 (const char *s, uint64_t *out)
{
  char *end;
  if (s[0] == '-')
    return -1;
  errno = 0;
  *out = strtoull (s, &end, 10);
  return errno || end == s || *end ? -1 : 0;
}

static int
read_input (const char *path, char **out, size_t *len, ocisbx_err **err)
{
  size_t cap = 0, n = 0;
  char *buf = NULL;

  if (strcmp (path, "-") != 0)
    return read_file_at (AT_FDCWD, path, out, len, err);
  for (;;)
    {
      ssize_t r;
      if (cap - n < 4096)
        {
          cap = cap ? cap * 2 : 8192;
          buf = realloc (buf, cap + 1);
          if (buf == NULL)
            abort ();
        }
      r = read (STDIN_FILENO, buf + n, cap - n);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          free (buf);
          return err_set (err, errno, "read the standard input");
        }
      if (r == 0)
        break;
      n += r;
    }
  if (buf == NULL)
    buf = xmalloc0 (1);
  buf[n] = '\0';
  *out = buf;
  *len = n;
  return 0;
}

enum
{
  OPT_MEMORY = 256,
  OPT_MEMORY_SWAP,
  OPT_MEMORY_RESERVATION,
  OPT_KERNEL_MEMORY,
  OPT_KERNEL_MEMORY_TCP,
  OPT_CPU_SHARE,
  OPT_CPU_QUOTA,
  OPT_CPU_PERIOD,
  OPT_CPU_BURST,
  OPT_CPU_RT_RUNTIME,
  OPT_CPU_RT_PERIOD,
  OPT_CPU_IDLE,
  OPT_CPUSET_CPUS,
  OPT_CPUSET_MEMS,
  OPT_BLKIO_WEIGHT,
  OPT_PIDS_LIMIT,
  OPT_L3_CACHE,
  OPT_MEM_BW,
};

/* The resources built from flags: every pointer aims into this storage. */
typedef struct flag_resources
{
  oci_resources res;
  oci_memory mem;
  oci_cpu cpu;
  oci_pids pids;
  oci_block_io blkio;
  int64_t limit, swap, reservation, kernel, kernel_tcp, quota, rt_runtime, idle;
  uint64_t shares, period, burst, rt_period;
  uint16_t weight;
} flag_resources;

int
cmd_update (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "resources", required_argument, NULL, 'r' },
    { "memory", required_argument, NULL, OPT_MEMORY },
    { "memory-swap", required_argument, NULL, OPT_MEMORY_SWAP },
    { "memory-reservation", required_argument, NULL, OPT_MEMORY_RESERVATION },
    { "kernel-memory", required_argument, NULL, OPT_KERNEL_MEMORY },
    { "kernel-memory-tcp", required_argument, NULL, OPT_KERNEL_MEMORY_TCP },
    { "cpu-share", required_argument, NULL, OPT_CPU_SHARE },
    { "cpu-shares", required_argument, NULL, OPT_CPU_SHARE },
    { "cpu-quota", required_argument, NULL, OPT_CPU_QUOTA },
    { "cpu-period", required_argument, NULL, OPT_CPU_PERIOD },
    { "cpu-burst", required_argument, NULL, OPT_CPU_BURST },
    { "cpu-rt-runtime", required_argument, NULL, OPT_CPU_RT_RUNTIME },
    { "cpu-rt-period", required_argument, NULL, OPT_CPU_RT_PERIOD },
    { "cpu-idle", required_argument, NULL, OPT_CPU_IDLE },
    { "cpuset-cpus", required_argument, NULL, OPT_CPUSET_CPUS },
    { "cpuset-mems", required_argument, NULL, OPT_CPUSET_MEMS },
    { "blkio-weight", required_argument, NULL, OPT_BLKIO_WEIGHT },
    { "pids-limit", required_argument, NULL, OPT_PIDS_LIMIT },
    { "l3-cache-schema", required_argument, NULL, OPT_L3_CACHE },
    { "mem-bw-schema", required_argument, NULL, OPT_MEM_BW },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  flag_resources f;
  const char *resources_file = NULL;
  const oci_resources *res = &f.res;
  oci_resources *parsed = NULL;
  ocisbx_err *err = NULL;
  int c, li = -1, rc = 0;
  bool bad = false;

  memset (&f, 0, sizeof f);
  opterr = 0;
  /* no "+": flags may follow the container id too, as runc takes them */
  while ((c = getopt_long (argc, argv, ":r:h", opts, &li)) != -1)
    {
      const char *opt = argv[optind - 1];
      cleanup_free char *optname = c >= 256 && li >= 0 ? xasprintf ("--%s", opts[li].name) : NULL;
      switch (c)
        {
        case 'r':
          resources_file = optarg;
          break;
        case OPT_MEMORY:
          bad = parse_size (optarg, &f.limit) < 0, f.mem.limit = &f.limit, f.res.memory = &f.mem;
          break;
        case OPT_MEMORY_SWAP:
          bad = parse_size (optarg, &f.swap) < 0, f.mem.swap = &f.swap, f.res.memory = &f.mem;
          break;
        case OPT_MEMORY_RESERVATION:
          bad = parse_size (optarg, &f.reservation) < 0, f.mem.reservation = &f.reservation, f.res.memory = &f.mem;
          break;
        case OPT_KERNEL_MEMORY:
          bad = parse_size (optarg, &f.kernel) < 0, f.mem.kernel = &f.kernel, f.res.memory = &f.mem;
          break;
        case OPT_KERNEL_MEMORY_TCP:
          bad = parse_size (optarg, &f.kernel_tcp) < 0, f.mem.kernel_tcp = &f.kernel_tcp, f.res.memory = &f.mem;
          break;
        case OPT_CPU_SHARE:
          bad = parse_u64 (optarg, &f.shares) < 0, f.cpu.shares = &f.shares, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_QUOTA:
          bad = parse_limit (optarg, &f.quota) < 0, f.cpu.quota = &f.quota, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_PERIOD:
          bad = parse_u64 (optarg, &f.period) < 0, f.cpu.period = &f.period, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_BURST:
          bad = parse_u64 (optarg, &f.burst) < 0, f.cpu.burst = &f.burst, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_RT_RUNTIME:
          bad = parse_limit (optarg, &f.rt_runtime) < 0, f.cpu.realtime_runtime = &f.rt_runtime, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_RT_PERIOD:
          bad = parse_u64 (optarg, &f.rt_period) < 0, f.cpu.realtime_period = &f.rt_period, f.res.cpu = &f.cpu;
          break;
        case OPT_CPU_IDLE:
          bad = parse_i64 (optarg, &f.idle) < 0, f.cpu.idle = &f.idle, f.res.cpu = &f.cpu;
          break;
        case OPT_CPUSET_CPUS:
          f.cpu.cpus = optarg, f.res.cpu = &f.cpu;
          break;
        case OPT_CPUSET_MEMS:
          f.cpu.mems = optarg, f.res.cpu = &f.cpu;
          break;
        case OPT_BLKIO_WEIGHT:
          {
            uint64_t w;
            bad = parse_u64 (optarg, &w) < 0 || w > 1000;
            f.weight = (uint16_t) w, f.blkio.weight = &f.weight, f.res.block_io = &f.blkio;
            break;
          }
        case OPT_PIDS_LIMIT:
          bad = parse_limit (optarg, &f.pids.limit) < 0, f.res.pids = &f.pids;
          break;
        case OPT_L3_CACHE:
        case OPT_MEM_BW:
          fprintf (stderr, "ocisbx update: %s: Intel RDT is not supported\n", optname ? optname : opt);
          return 1;
        case 'h':
          fputs (update_help, stdout);
          return 0;
        case ':':
          return cmd_usage_error ("update", "option \"%s\" needs an argument", opt);
        default:
          return cmd_usage_error ("update", "unknown option \"%s\"", opt);
        }
      if (bad)
        return cmd_usage_error ("update", "%s: invalid value \"%s\"", optname ? optname : opt, optarg);
      li = -1;
    }
  if (optind >= argc)
    return cmd_usage_error ("update", "a container id is required");
  if (optind + 1 < argc)
    return cmd_usage_error ("update", "unexpected argument \"%s\"", argv[optind + 1]);

  if (resources_file)
    {
      cleanup_free char *data = NULL;
      size_t len = 0;
      if (read_input (resources_file, &data, &len, &err) < 0
          || container_resources_parse (data, len, &parsed, &err) < 0)
        return cmd_fail (err);
      res = parsed;
    }
  if (container_update (g->root, argv[optind], res, &err) < 0)
    rc = cmd_fail (err);
  oci_resources_free (parsed);
  return rc;
}
