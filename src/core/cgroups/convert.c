/* cgroups: unit conversions between the spec (v1 units) and cgroup v2 files. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>

#include "core/cgroups/cgroups_internal.h"

/* cpu.shares [2, 262144] -> cpu.weight [1, 10000]. */
uint64_t
cg_shares_to_weight (uint64_t shares)
{
  if (shares == 0)
    return 0;
  if (shares < 2)
    shares = 2;
  if (shares > 262144)
    shares = 262144;
  return 1 + ((shares - 2) * 9999) / 262142;
}

/* blkio.weight [10, 1000] -> io.weight [1, 10000]. */
uint64_t
cg_blkio_to_io_weight (uint64_t weight)
{
  if (weight == 0)
    return 0;
  if (weight < 10)
    weight = 10;
  if (weight > 1000)
    weight = 1000;
  return 1 + ((weight - 10) * 9999) / 990;
}

/* The spec's swap is memory+swap (v1 memsw); v2 memory.swap.max is swap alone. */
int
cg_swap_v2 (const int64_t *limit, const int64_t *swap, int64_t *out, ocisbx_err **err)
{
  int64_t mem = limit ? *limit : 0;
  int64_t sw = swap ? *swap : 0;

  /* Memory unlimited and swap not given: both unlimited, as on v1. */
  if (mem == -1 && sw == 0)
    {
      *out = -1;
      return 0;
    }
  if (sw == 0)
    return 1;
  if (sw == -1)
    {
      *out = -1;
      return 0;
    }
  if (sw < 0)
    return err_set (err, 0, ".linux.resources.memory.swap: invalid value %" PRId64, sw);
  if (mem == 0 || mem == -1)
    return err_set (err, 0, ".linux.resources.memory.swap: a swap limit needs a memory limit on cgroup v2");
  if (sw < mem)
    return err_set (err, 0,
                    ".linux.resources.memory.swap: memory+swap (%" PRId64 ") is lower than the memory limit (%" PRId64
                    ")",
                    sw, mem);
  *out = sw - mem;
  return 0;
}

void
cg_fmt_max (char *buf, size_t len, int64_t v)
{
  if (v < 0)
    snprintf (buf, len, "max");
  else
    snprintf (buf, len, "%" PRId64, v);
}
