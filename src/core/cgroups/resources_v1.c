/* cgroups v1: linux.resources onto the v1 controllers' files. */
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

/* Two files whose values constrain each other (limit <= memsw, runtime <= period):
   write in the given order, and on EINVAL from the first try the other order. */
static int
set_pair (const cgroup_manager *m, const char *ctrl, const char *f1, const char *v1, const char *field1,
          const char *f2, const char *v2, const char *field2, bool noop2, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;

  if (v1 == NULL)
    return v2 ? cg_set (m, ctrl, f2, v2, noop2, field2, err) : 0;
  if (v2 == NULL)
    return cg_set (m, ctrl, f1, v1, false, field1, err);
  if (cg_set (m, ctrl, f1, v1, false, field1, &e) == 0)
    return cg_set (m, ctrl, f2, v2, noop2, field2, err);
  if (e->errnum != EINVAL)
    {
      *err = steal_ptr (&e);
      return -1;
    }
  if (cg_set (m, ctrl, f2, v2, noop2, field2, err) < 0)
    return -1;
  return cg_set (m, ctrl, f1, v1, false, field1, err);
}

static int
memory_v1 (cgroup_manager *m, const oci_memory *mem, bool update, ocisbx_err **err)
{
  char lim[32], sw[32], buf[32];
  const char *vlim = NULL, *vsw = NULL;
  bool sw_noop = false;

  if (mem == NULL)
    return 0;
  if (mem->limit && *mem->limit != 0)
    {
      snprintf (lim, sizeof lim, "%" PRId64, *mem->limit < 0 ? (int64_t) -1 : *mem->limit);
      vlim = lim;
    }
  if (mem->swap && *mem->swap != 0)
    {
      snprintf (sw, sizeof sw, "%" PRId64, *mem->swap < 0 ? (int64_t) -1 : *mem->swap);
      vsw = sw;
      sw_noop = *mem->swap < 0;
    }
  else if (mem->limit && *mem->limit == -1)
    {
      /* Unlimited memory without a swap value: memory+swap unlimited too. */
      vsw = "-1";
      sw_noop = true;
    }
  if (vlim && vsw && !sw_noop && mem->swap && mem->limit && *mem->limit > 0 && *mem->swap < *mem->limit)
    return err_set (err, 0, F "memory.swap: memory+swap (%" PRId64 ") is lower than the memory limit (%" PRId64 ")",
                    *mem->swap, *mem->limit);
  if (update && mem->check_before_update && *mem->check_before_update && mem->limit && *mem->limit > 0)
    {
      cg_hier *h = cg_find (m, "memory");
      uint64_t usage = 0;
      cleanup_err ocisbx_err *e = NULL;
      if (h && cg_read_u64 (h, "memory.usage_in_bytes", &usage, &e) == 0 && usage > (uint64_t) *mem->limit)
        return err_set (err, EBUSY,
                        F "memory.limit: usage %" PRIu64 " exceeds the new limit %" PRId64 " (checkBeforeUpdate)",
                        usage, *mem->limit);
    }
  if (set_pair (m, "memory", "memory.limit_in_bytes", vlim, F "memory.limit", "memory.memsw.limit_in_bytes", vsw,
                F "memory.swap", sw_noop, err) < 0)
    {
      cg_hier *h = cg_find (m, "memory");
      uint64_t memsw = 0;
      cleanup_err ocisbx_err *e = NULL;
      if ((*err)->errnum == EINVAL && vsw == NULL && h && mem->limit && *mem->limit > 0
          && cg_read_u64 (h, "memory.memsw.limit_in_bytes", &memsw, &e) == 0 && (uint64_t) *mem->limit > memsw)
        {
          err_freep (err);
          return err_set (err, EINVAL,
                          F "memory.limit: %" PRId64 " is above the memory+swap limit %" PRIu64
                            "; raise memory.swap (--memory-swap) with it",
                          *mem->limit, memsw);
        }
      return -1;
    }
  if (mem->reservation && *mem->reservation != 0)
    {
      snprintf (buf, sizeof buf, "%" PRId64, *mem->reservation < 0 ? (int64_t) -1 : *mem->reservation);
      if (cg_set (m, "memory", "memory.soft_limit_in_bytes", buf, false, F "memory.reservation", err) < 0)
        return -1;
    }
  if (mem->kernel && *mem->kernel != 0)
    {
      /* Deprecated by the spec and by the kernel: best effort, as other runtimes. */
      cleanup_err ocisbx_err *e = NULL;
      snprintf (buf, sizeof buf, "%" PRId64, *mem->kernel);
      if (cg_set (m, "memory", "memory.kmem.limit_in_bytes", buf, false, F "memory.kernel", &e) < 0)
        log_warning ("%s (ignored: kernel memory limits are deprecated)", e->msg);
    }
  if (mem->kernel_tcp && *mem->kernel_tcp != 0)
    {
      snprintf (buf, sizeof buf, "%" PRId64, *mem->kernel_tcp);
      if (cg_set (m, "memory", "memory.kmem.tcp.limit_in_bytes", buf, false, F "memory.kernelTCP", err) < 0)
        return -1;
    }
  if (mem->swappiness)
    {
      if (*mem->swappiness > 100)
        return err_set (err, 0, F "memory.swappiness: %" PRIu64 " is out of range [0, 100]", *mem->swappiness);
      snprintf (buf, sizeof buf, "%" PRIu64, *mem->swappiness);
      if (cg_set (m, "memory", "memory.swappiness", buf, false, F "memory.swappiness", err) < 0)
        return -1;
    }
  if (mem->disable_oom_killer && (*mem->disable_oom_killer || update))
    if (cg_set (m, "memory", "memory.oom_control", *mem->disable_oom_killer ? "1" : "0", !*mem->disable_oom_killer,
                F "memory.disableOOMKiller", err) < 0)
      return -1;
  if (mem->use_hierarchy)
    if (cg_set (m, "memory", "memory.use_hierarchy", *mem->use_hierarchy ? "1" : "0", *mem->use_hierarchy,
                F "memory.useHierarchy", err) < 0)
      return -1;
  return 0;
}

/* realtimePeriod and realtimeRuntime, after making room for them in the levels above
   (rt.c).  A write refused for want of room is tried again: another container may have
   taken or given back budget meanwhile. */
static int
rt_v1 (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err)
{
  const char *vp = NULL, *vr = NULL;
  const cg_hier *h = cg_find (m, "cpu");
  char b1[32], b2[32];

  if (cpu->realtime_period && *cpu->realtime_period != 0)
    snprintf (b1, sizeof b1, "%" PRIu64, *cpu->realtime_period), vp = b1;
  if (cpu->realtime_runtime && *cpu->realtime_runtime != 0)
    snprintf (b2, sizeof b2, "%" PRId64, *cpu->realtime_runtime), vr = b2;
  if (vp == NULL && vr == NULL)
    return 0;
  for (int attempt = 0;; attempt++)
    {
      int64_t runtime = vr ? *cpu->realtime_runtime : 0;
      uint64_t period = vp ? *cpu->realtime_period : 0;
      uint64_t cur;
      cleanup_err ocisbx_err *e = NULL;

      if (h && vr == NULL && cg_read_u64 (h, "cpu.rt_runtime_us", &cur, &e) == 0)
        runtime = (int64_t) cur;
      if (h && vp == NULL && cg_read_u64 (h, "cpu.rt_period_us", &cur, &e) == 0)
        period = cur;
      err_freep (&e);
      if (h && runtime != 0 && period != 0 && cg_v1_rt_make_room (m, h, runtime, period, err) < 0)
        return err_wrap (err, F "cpu.realtimeRuntime");
      if (set_pair (m, "cpu", "cpu.rt_period_us", vp, F "cpu.realtimePeriod", "cpu.rt_runtime_us", vr,
                    F "cpu.realtimeRuntime", false, err)
          == 0)
        return 0;
      if ((*err)->errnum != EINVAL || attempt == 2)
        return -1;
      err_freep (err);
    }
}

static int
cpu_v1 (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err)
{
  char buf[32], b1[32], b2[32];

  if (cpu == NULL)
    return 0;
  if (cpu->shares && *cpu->shares != 0)
    {
      snprintf (buf, sizeof buf, "%" PRIu64, *cpu->shares);
      if (cg_set (m, "cpu", "cpu.shares", buf, false, F "cpu.shares", err) < 0)
        return -1;
    }
  {
    const char *vp = NULL, *vq = NULL;
    if (cpu->period && *cpu->period != 0)
      snprintf (b1, sizeof b1, "%" PRIu64, *cpu->period), vp = b1;
    if (cpu->quota && *cpu->quota != 0)
      snprintf (b2, sizeof b2, "%" PRId64, *cpu->quota < 0 ? (int64_t) -1 : *cpu->quota), vq = b2;
    if (set_pair (m, "cpu", "cpu.cfs_period_us", vp, F "cpu.period", "cpu.cfs_quota_us", vq, F "cpu.quota",
                  vq && *cpu->quota < 0, err) < 0)
      return -1;
  }
  if (cpu->burst)
    {
      snprintf (buf, sizeof buf, "%" PRIu64, *cpu->burst);
      if (cg_set (m, "cpu", "cpu.cfs_burst_us", buf, *cpu->burst == 0, F "cpu.burst", err) < 0)
        return -1;
    }
  if (rt_v1 (m, cpu, err) < 0)
    return -1;
  return cg_set_cpu_common (m, cpu, err);
}

int
cg_set_pids (cgroup_manager *m, const oci_pids *p, ocisbx_err **err)
{
  char buf[32];
  if (p == NULL)
    return 0;
  if (p->limit > 0)
    snprintf (buf, sizeof buf, "%" PRId64, p->limit);
  else
    snprintf (buf, sizeof buf, "max");
  return cg_set (m, "pids", "pids.max", buf, p->limit <= 0, F "pids.limit", err);
}

/* blkio.weight, or blkio.bfq.weight on kernels where BFQ replaced CFQ. */
static int
set_weight_v1 (cgroup_manager *m, const char *file, const char *bfq_file, const char *val, const char *field,
               ocisbx_err **err)
{
  cg_hier *h = cg_find (m, "blkio");
  if (h)
    {
      cleanup_free char *p = cg_file (h, file);
      cleanup_free char *pb = cg_file (h, bfq_file);
      if (access (p, F_OK) < 0 && access (pb, F_OK) == 0)
        file = bfq_file;
    }
  return cg_set (m, "blkio", file, val, false, field, err);
}

static int
throttle_v1 (cgroup_manager *m, const oci_throttle_device *t, size_t n, const char *file, const char *name,
             ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    {
      char buf[96], field[96];
      snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %" PRIu64, t[i].major, t[i].minor, t[i].rate);
      snprintf (field, sizeof field, F "blockIO.%s[%zu]", name, i);
      if (cg_set (m, "blkio", file, buf, false, field, err) < 0)
        return -1;
    }
  return 0;
}

static int
blkio_v1 (cgroup_manager *m, const oci_block_io *b, ocisbx_err **err)
{
  char buf[96], field[96];

  if (b == NULL)
    return 0;
  if (b->weight && *b->weight != 0)
    {
      snprintf (buf, sizeof buf, "%u", *b->weight);
      if (set_weight_v1 (m, "blkio.weight", "blkio.bfq.weight", buf, F "blockIO.weight", err) < 0)
        return -1;
    }
  if (b->leaf_weight && *b->leaf_weight != 0)
    {
      snprintf (buf, sizeof buf, "%u", *b->leaf_weight);
      if (cg_set (m, "blkio", "blkio.leaf_weight", buf, false, F "blockIO.leafWeight", err) < 0)
        return -1;
    }
  for (size_t i = 0; i < b->weight_device_len; i++)
    {
      const oci_weight_device *w = &b->weight_device[i];
      if (w->weight)
        {
          snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %u", w->major, w->minor, *w->weight);
          snprintf (field, sizeof field, F "blockIO.weightDevice[%zu].weight", i);
          if (set_weight_v1 (m, "blkio.weight_device", "blkio.bfq.weight_device", buf, field, err) < 0)
            return -1;
        }
      if (w->leaf_weight)
        {
          snprintf (buf, sizeof buf, "%" PRId64 ":%" PRId64 " %u", w->major, w->minor, *w->leaf_weight);
          snprintf (field, sizeof field, F "blockIO.weightDevice[%zu].leafWeight", i);
          if (cg_set (m, "blkio", "blkio.leaf_weight_device", buf, false, field, err) < 0)
            return -1;
        }
    }
  if (throttle_v1 (m, b->throttle_read_bps_device, b->throttle_read_bps_device_len, "blkio.throttle.read_bps_device",
                   "throttleReadBpsDevice", err) < 0
      || throttle_v1 (m, b->throttle_write_bps_device, b->throttle_write_bps_device_len,
                      "blkio.throttle.write_bps_device", "throttleWriteBpsDevice", err) < 0
      || throttle_v1 (m, b->throttle_read_iops_device, b->throttle_read_iops_device_len,
                      "blkio.throttle.read_iops_device", "throttleReadIOPSDevice", err) < 0
      || throttle_v1 (m, b->throttle_write_iops_device, b->throttle_write_iops_device_len,
                      "blkio.throttle.write_iops_device", "throttleWriteIOPSDevice", err) < 0)
    return -1;
  return 0;
}

int
cg_check_page_size (const char *ps, size_t i, ocisbx_err **err)
{
  if (ps == NULL || ps[0] == '\0' || strchr (ps, '/') || strchr (ps, '.'))
    return err_set (err, 0, F "hugepageLimits[%zu].pageSize: invalid \"%s\"", i, ps ? ps : "");
  return 0;
}

static int
hugetlb_v1 (cgroup_manager *m, const oci_resources *r, ocisbx_err **err)
{
  cg_hier *u = cg_unified (m);

  if (r->hugepage_limits_len == 0)
    return 0;
  /* Hybrid with hugetlb bound to the unified hierarchy instead of a v1 one: enable
     it down to the container's cgroup and write the cgroup2 files there. */
  if (cg_find (m, "hugetlb") == NULL && u && cg_v2_available (m, u, "hugetlb"))
    {
      for (size_t i = 0; i < r->hugepage_limits_len; i++)
        if (cg_check_page_size (r->hugepage_limits[i].page_size, i, err) < 0)
          return -1;
      if (cg_v2_enable_down (m, u, "hugetlb", err) < 0)
        return err_wrap (err, F "hugepageLimits");
      return cg_hugetlb_v2 (m, u, r, err);
    }
  for (size_t i = 0; i < r->hugepage_limits_len; i++)
    {
      const oci_hugepage_limit *l = &r->hugepage_limits[i];
      cleanup_free char *file = NULL;
      char buf[32], field[64];
      if (cg_check_page_size (l->page_size, i, err) < 0)
        return -1;
      file = xasprintf ("hugetlb.%s.limit_in_bytes", l->page_size);
      snprintf (buf, sizeof buf, "%" PRIu64, l->limit);
      snprintf (field, sizeof field, F "hugepageLimits[%zu]", i);
      if (cg_set (m, "hugetlb", file, buf, false, field, err) < 0)
        return -1;
    }
  return 0;
}

static int
network_v1 (cgroup_manager *m, const oci_network *n, ocisbx_err **err)
{
  char buf[96];
  if (n == NULL)
    return 0;
  if (n->class_id)
    {
      snprintf (buf, sizeof buf, "%u", *n->class_id);
      if (cg_set (m, "net_cls", "net_cls.classid", buf, *n->class_id == 0, F "network.classID", err) < 0)
        return -1;
    }
  for (size_t i = 0; i < n->priorities_len; i++)
    {
      char field[64];
      cleanup_free char *v = xasprintf ("%s %u", n->priorities[i].name ? n->priorities[i].name : "",
                                        n->priorities[i].priority);
      snprintf (field, sizeof field, F "network.priorities[%zu]", i);
      if (cg_set (m, "net_prio", "net_prio.ifpriomap", v, false, field, err) < 0)
        return -1;
    }
  return 0;
}

int
cg_set_rdma (cgroup_manager *m, const oci_resources *r, ocisbx_err **err)
{
  for (size_t i = 0; i < r->rdma_len; i++)
    {
      const oci_rdma *d = &r->rdma[i];
      char h[16] = "max", o[16] = "max", field[128];
      cleanup_free char *v = NULL;
      if (d->key == NULL || d->key[0] == '\0' || strpbrk (d->key, " \n"))
        return err_set (err, 0, F "rdma: invalid device name");
      if (d->hca_handles)
        snprintf (h, sizeof h, "%u", *d->hca_handles);
      if (d->hca_objects)
        snprintf (o, sizeof o, "%u", *d->hca_objects);
      v = xasprintf ("%s hca_handle=%s hca_object=%s", d->key, h, o);
      snprintf (field, sizeof field, F "rdma[\"%.64s\"]", d->key);
      if (cg_set (m, "rdma", "rdma.max", v, d->hca_handles == NULL && d->hca_objects == NULL, field, err) < 0)
        return -1;
    }
  return 0;
}

int
cg_apply_v1 (cgroup_manager *m, const oci_resources *r, bool update, ocisbx_err **err)
{
  if (memory_v1 (m, r->memory, update, err) < 0 || cpu_v1 (m, r->cpu, err) < 0 || cg_set_pids (m, r->pids, err) < 0
      || blkio_v1 (m, r->block_io, err) < 0 || hugetlb_v1 (m, r, err) < 0 || network_v1 (m, r->network, err) < 0
      || cg_set_rdma (m, r, err) < 0)
    return -1;
  return 0;
}
