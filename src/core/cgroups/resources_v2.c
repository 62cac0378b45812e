/* cgroup v2: linux.resources (v1 units in the spec) onto the v2 files. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#define F ".linux.resources."

static int
unsupported (const char *field, ocisbx_err **err)
{
  return err_set (err, 0, "%s: not supported on cgroup v2", field);
}

static bool
has_file (const cgroup_manager *m, const char *file)
{
  cleanup_free char *p = cg_file (cg_unified (m), file);
  return access (p, F_OK) == 0;
}

static int
memory_v2 (cgroup_manager *m, const oci_memory *mem, bool update, ocisbx_err **err)
{
  char buf[32];
  int64_t swap;
  int r;

  if (mem == NULL)
    return 0;
  r = cg_swap_v2 (mem->limit, mem->swap, &swap, err);
  if (r < 0)
    return -1;
  if (update && mem->check_before_update && *mem->check_before_update && mem->limit && *mem->limit > 0)
    {
      uint64_t usage = 0;
      cleanup_err ocisbx_err *e = NULL;
      if (cg_read_u64 (cg_unified (m), "memory.current", &usage, &e) == 0 && usage > (uint64_t) *mem->limit)
        return err_set (err, EBUSY,
                        F "memory.limit: usage %" PRIu64 " exceeds the new limit %" PRId64 " (checkBeforeUpdate)",
                        usage, *mem->limit);
    }
  if (mem->limit && *mem->limit != 0)
    {
      cg_fmt_max (buf, sizeof buf, *mem->limit);
      if (cg_set (m, "memory", "memory.max", buf, false, F "memory.limit", err) < 0)
        return -1;
    }
  if (r == 0)
    {
      cg_fmt_max (buf, sizeof buf, swap);
      if (cg_set (m, "memory", "memory.swap.max", buf, swap < 0, F "memory.swap", err) < 0)
        return -1;
    }
  if (mem->reservation && *mem->reservation != 0)
    {
      cg_fmt_max (buf, sizeof buf, *mem->reservation);
      if (cg_set (m, "memory", "memory.low", buf, false, F "memory.reservation", err) < 0)
        return -1;
    }
  if (mem->kernel && *mem->kernel != 0)
    log_warning (F "memory.kernel: ignored (kernel memory limits do not exist on cgroup v2)");
  if (mem->kernel_tcp && *mem->kernel_tcp != 0)
    return unsupported (F "memory.kernelTCP", err);
  if (mem->swappiness)
    return unsupported (F "memory.swappiness", err);
  if (mem->disable_oom_killer && *mem->disable_oom_killer)
    return unsupported (F "memory.disableOOMKiller", err);
  if (mem->use_hierarchy && !*mem->use_hierarchy)
    return unsupported (F "memory.useHierarchy (false)", err);
  return 0;
}

/* cpu.max "QUOTA PERIOD": a missing half keeps its current value. */
static int
cpu_max (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err)
{
  bool q = cpu->quota && *cpu->quota != 0, p = cpu->period && *cpu->period != 0;
  char quota[32] = "max", period[32] = "";
  cleanup_free char *v = NULL;

  if (!q && !p)
    return 0;
  if (q && *cpu->quota > 0)
    snprintf (quota, sizeof quota, "%" PRId64, *cpu->quota);
  if (p)
    snprintf (period, sizeof period, " %" PRIu64, *cpu->period);
  if (!q)
    {
      cleanup_free char *cur = NULL;
      cleanup_err ocisbx_err *e = NULL;
      if (cg_read_h (cg_unified (m), "cpu.max", &cur, &e) == 0)
        snprintf (quota, sizeof quota, "%.*s", (int) strcspn (cur, " \n"), cur);
    }
  v = xasprintf ("%s%s", quota, period);
  return cg_set (m, "cpu", "cpu.max", v, false, q ? F "cpu.quota" : F "cpu.period", err);
}

static int
cpu_v2 (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err)
{
  char buf[32];

  if (cpu == NULL)
    return 0;
  if (cpu->shares && *cpu->shares != 0)
    {
      snprintf (buf, sizeof buf, "%" PRIu64, cg_shares_to_weight (*cpu->shares));
      if (cg_set (m, "cpu", "cpu.weight", buf, false, F "cpu.shares", err) < 0)
        return -1;
    }
  if (cpu_max (m, cpu, err) < 0)
    return -1;
  if (cpu->burst)
    {
      snprintf (buf, sizeof buf, "%" PRIu64, *cpu->burst);
      if (cg_set (m, "cpu", "cpu.max.burst", buf, *cpu->burst == 0, F "cpu.burst", err) < 0)
        return -1;
    }
  if (cpu->realtime_runtime && *cpu->realtime_runtime != 0)
    return unsupported (F "cpu.realtimeRuntime", err);
  if (cpu->realtime_period && *cpu->realtime_period != 0)
    return unsupported (F "cpu.realtimePeriod", err);
  return cg_set_cpu_common (m, cpu, err);
}

/* io.bfq.weight takes blkio's [1, 1000] scale; io.weight its own [1, 10000]. */
static int
io_weight (cgroup_manager *m, const char *dev, uint16_t w, const char *field, ocisbx_err **err)
{
  cleanup_free char *v = NULL;
  if (has_file (m, "io.bfq.weight"))
    {
      v = dev ? xasprintf ("%s %u", dev, w) : xasprintf ("%u", w);
      return cg_set (m, "io", "io.bfq.weight", v, false, field, err);
    }
  v = xasprintf ("%s %" PRIu64, dev ? dev : "default", cg_blkio_to_io_weight (w));
  return cg_set (m, "io", "io.weight", v, false, field, err);
}

static int
io_max (cgroup_manager *m, const oci_throttle_device *t, size_t n, const char *key, const char *name,
        ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    {
      char buf[96], field[96];
      if (t[i].rate == 0)
        snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %s=max", t[i].major, t[i].minor, key);
      else
        snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %s=%" PRIu64, t[i].major, t[i].minor, key, t[i].rate);
      snprintf (field, sizeof field, F "blockIO.%s[%zu]", name, i);
      if (cg_set (m, "io", "io.max", buf, false, field, err) < 0)
        return -1;
    }
  return 0;
}

static int
io_v2 (cgroup_manager *m, const oci_block_io *b, ocisbx_err **err)
{
  if (b == NULL)
    return 0;
  if (b->weight && *b->weight != 0 && io_weight (m, NULL, *b->weight, F "blockIO.weight", err) < 0)
    return -1;
  if (b->leaf_weight && *b->leaf_weight != 0)
    return unsupported (F "blockIO.leafWeight", err);
  for (size_t i = 0; i < b->weight_device_len; i++)
    {
      const oci_weight_device *w = &b->weight_device[i];
      char dev[64], field[96];
      snprintf (dev, sizeof dev, "%" PRId64 ":%" PRId64, w->major, w->minor);
      snprintf (field, sizeof field, F "blockIO.weightDevice[%zu].weight", i);
      if (w->weight && io_weight (m, dev, *w->weight, field, err) < 0)
        return -1;
      if (w->leaf_weight && *w->leaf_weight != 0)
        {
          snprintf (field, sizeof field, F "blockIO.weightDevice[%zu].leafWeight", i);
          return unsupported (field, err);
        }
    }
  if (io_max (m, b->throttle_read_bps_device, b->throttle_read_bps_device_len, "rbps", "throttleReadBpsDevice", err)
          < 0
      || io_max (m, b->throttle_write_bps_device, b->throttle_write_bps_device_len, "wbps", "throttleWriteBpsDevice",
                 err)
             < 0
      || io_max (m, b->throttle_read_iops_device, b->throttle_read_iops_device_len, "riops",
                 "throttleReadIOPSDevice", err)
             < 0
      || io_max (m, b->throttle_write_iops_device, b->throttle_write_iops_device_len, "wiops",
                 "throttleWriteIOPSDevice", err)
             < 0)
    return -1;
  return 0;
}

int
cg_hugetlb_v2 (const cgroup_manager *m, const cg_hier *h, const oci_resources *r, ocisbx_err **err)
{
  for (size_t i = 0; i < r->hugepage_limits_len; i++)
    {
      const oci_hugepage_limit *l = &r->hugepage_limits[i];
      cleanup_free char *file = NULL;
      cleanup_free char *rsvd = NULL;
      cleanup_free char *rsvd_path = NULL;
      char buf[32], field[64];
      if (cg_check_page_size (l->page_size, i, err) < 0)
        return -1;
      file = xasprintf ("hugetlb.%s.max", l->page_size);
      rsvd = xasprintf ("hugetlb.%s.rsvd.max", l->page_size);
      snprintf (buf, sizeof buf, "%" PRIu64, l->limit);
      snprintf (field, sizeof field, F "hugepageLimits[%zu]", i);
      if (cg_set_h (m, h, "hugetlb", file, buf, false, field, err) < 0)
        return -1;
      /* The reservation limit too, where the kernel has it. */
      rsvd_path = cg_file (h, rsvd);
      if (access (rsvd_path, F_OK) == 0 && cg_set_h (m, h, "hugetlb", rsvd, buf, true, field, err) < 0)
        return -1;
    }
  return 0;
}

int
cg_apply_v2 (cgroup_manager *m, const oci_resources *r, bool update, ocisbx_err **err)
{
  if (memory_v2 (m, r->memory, update, err) < 0 || cpu_v2 (m, r->cpu, err) < 0 || cg_set_pids (m, r->pids, err) < 0
      || io_v2 (m, r->block_io, err) < 0 || cg_hugetlb_v2 (m, cg_unified (m), r, err) < 0
      || cg_set_rdma (m, r, err) < 0)
    return -1;
  if (r->network && r->network->class_id && *r->network->class_id != 0)
    return unsupported (F "network.classID", err);
  if (r->network && r->network->priorities_len > 0)
    return unsupported (F "network.priorities", err);
  return 0;
}
