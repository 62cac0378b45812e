#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
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

/* How a flag's value is read. */
typedef enum flag_kind
{
  F_SIZE,   /* int64_t: 512k, 1G, -1 */
  F_LIMIT,  /* int64_t: a number, or -1 for none */
  F_I64,    /* int64_t */
  F_U64,    /* uint64_t */
  F_WEIGHT, /* uint64_t, at most 1000, stored as the uint16_t blkio weight */
  F_STR,    /* the argument itself */
  F_RDT,    /* Intel RDT's schemata: refused (written by create: core/intelrdt/) */
} flag_kind;

#define FR(m) offsetof (flag_resources, m)
#define NONE ((size_t) -1)

/* One flag: its value goes to VALUE (NONE: straight into FIELD), FIELD of the section
   (a pointer to the value, or the value itself) and the section is linked into res. */
typedef struct update_flag
{
  const char *name;
  flag_kind kind;
  size_t value, field, section, link;
} update_flag;

static const update_flag update_flags[] = {
  { "memory", F_SIZE, FR (limit), FR (mem.limit), FR (mem), FR (res.memory) },
  { "memory-swap", F_SIZE, FR (swap), FR (mem.swap), FR (mem), FR (res.memory) },
  { "memory-reservation", F_SIZE, FR (reservation), FR (mem.reservation), FR (mem), FR (res.memory) },
  { "kernel-memory", F_SIZE, FR (kernel), FR (mem.kernel), FR (mem), FR (res.memory) },
  { "kernel-memory-tcp", F_SIZE, FR (kernel_tcp), FR (mem.kernel_tcp), FR (mem), FR (res.memory) },
  { "cpu-share", F_U64, FR (shares), FR (cpu.shares), FR (cpu), FR (res.cpu) },
  { "cpu-shares", F_U64, FR (shares), FR (cpu.shares), FR (cpu), FR (res.cpu) },
  { "cpu-quota", F_LIMIT, FR (quota), FR (cpu.quota), FR (cpu), FR (res.cpu) },
  { "cpu-period", F_U64, FR (period), FR (cpu.period), FR (cpu), FR (res.cpu) },
  { "cpu-burst", F_U64, FR (burst), FR (cpu.burst), FR (cpu), FR (res.cpu) },
  { "cpu-rt-runtime", F_LIMIT, FR (rt_runtime), FR (cpu.realtime_runtime), FR (cpu), FR (res.cpu) },
  { "cpu-rt-period", F_U64, FR (rt_period), FR (cpu.realtime_period), FR (cpu), FR (res.cpu) },
  { "cpu-idle", F_I64, FR (idle), FR (cpu.idle), FR (cpu), FR (res.cpu) },
  { "cpuset-cpus", F_STR, NONE, FR (cpu.cpus), FR (cpu), FR (res.cpu) },
  { "cpuset-mems", F_STR, NONE, FR (cpu.mems), FR (cpu), FR (res.cpu) },
  { "blkio-weight", F_WEIGHT, FR (weight), FR (blkio.weight), FR (blkio), FR (res.block_io) },
  { "pids-limit", F_LIMIT, NONE, FR (pids.limit), FR (pids), FR (res.pids) },
  { "l3-cache-schema", F_RDT, NONE, NONE, NONE, NONE },
  { "mem-bw-schema", F_RDT, NONE, NONE, NONE, NONE },
};
#define N_FLAGS (sizeof update_flags / sizeof update_flags[0])

/* Read ARG as KIND says into DST: -1 when it is not a valid value. */
static int
parse_value (flag_kind kind, const char *arg, void *dst)
{
  uint64_t w;

  switch (kind)
    {
    case F_SIZE:
      return parse_size (arg, dst);
    case F_LIMIT:
      return parse_limit (arg, dst);
    case F_I64:
      return parse_i64 (arg, dst);
    case F_U64:
      return parse_u64 (arg, dst);
    case F_WEIGHT:
      if (parse_u64 (arg, &w) < 0 || w > 1000)
        return -1;
      *(uint16_t *) dst = (uint16_t) w;
      return 0;
    case F_STR:
      *(const char **) dst = arg;
      return 0;
    case F_RDT:
      break;
    }
  return -1;
}

/* Flag FL set to ARG in F: the value, the section's field aiming at it, the section
   linked into F->res. */
static int
set_flag (flag_resources *f, const update_flag *fl, const char *arg)
{
  char *base = (char *) f;
  void *dst = base + (fl->value != NONE ? fl->value : fl->field);

  if (parse_value (fl->kind, arg, dst) < 0)
    return -1;
  if (fl->value != NONE)
    *(void **) (base + fl->field) = dst;
  *(void **) (base + fl->link) = base + fl->section;
  return 0;
}

/* getopt's table: -r, --help and update_flags; flags that set the same field (--cpu-share,
   --cpu-shares) share a value, so that a prefix of both is not ambiguous. */
static void
update_options (struct option *opts)
{
  size_t n = 0;

  opts[n++] = (struct option){ "resources", required_argument, NULL, 'r' };
  for (size_t i = 0; i < N_FLAGS; i++)
    {
      size_t first = i;
      while (first > 0 && update_flags[first - 1].field == update_flags[i].field && update_flags[i].field != NONE)
        first--;
      opts[n++] = (struct option){ update_flags[i].name, required_argument, NULL, 256 + (int) first };
    }
  opts[n++] = (struct option){ "help", no_argument, NULL, 'h' };
  opts[n] = (struct option){ NULL, 0, NULL, 0 };
}

int
cmd_update (const ocisbx_globals *g, int argc, char **argv)
{
  struct option opts[N_FLAGS + 3];
  flag_resources f;
  const char *resources_file = NULL;
  const oci_resources *res = &f.res;
  oci_resources *parsed = NULL;
  ocisbx_err *err = NULL;
  int c, li = -1, rc = 0;

  update_options (opts);
  memset (&f, 0, sizeof f);
  opterr = 0;
  /* no "+": flags may follow the container id too, as runc takes them */
  while ((c = getopt_long (argc, argv, ":r:h", opts, &li)) != -1)
    {
      const char *opt = argv[optind - 1];
      cleanup_free char *optname = c >= 256 && li >= 0 ? xasprintf ("--%s", opts[li].name) : NULL;
      const update_flag *fl = c >= 256 ? &update_flags[c - 256] : NULL;

      if (fl && fl->kind == F_RDT)
        {
          fprintf (stderr, "ocisbx update: %s: not supported (a CLOS's schemata are written by create only)\n",
                   optname ? optname : opt);
          return 1;
        }
      if (fl && set_flag (&f, fl, optarg) < 0)
        return cmd_usage_error ("update", "%s: invalid value \"%s\"", optname ? optname : opt, optarg);
      li = -1;
      switch (c)
        {
        case 'r':
          resources_file = optarg;
          break;
        case 'h':
          fputs (update_help, stdout);
          return 0;
        case ':':
          return cmd_usage_error ("update", "option \"%s\" needs an argument", opt);
        case '?':
          return cmd_usage_error ("update", "unknown option \"%s\"", opt);
        }
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
