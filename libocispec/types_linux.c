/* The field tables of config.json's .linux, per config-linux.json and
   defs-linux.json. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const ocispec_namespace_types[]
    = { "pid", "network", "mount", "ipc", "uts", "user", "cgroup", "time", NULL };
const char *const ocispec_seccomp_actions[]
    = { "SCMP_ACT_KILL",  "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP",
        "SCMP_ACT_ERRNO", "SCMP_ACT_TRACE",        "SCMP_ACT_ALLOW",       "SCMP_ACT_LOG",
        "SCMP_ACT_NOTIFY", NULL };
const char *const ocispec_seccomp_operators[]
    = { "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE",        "SCMP_CMP_EQ",
        "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL };
const char *const ocispec_seccomp_archs[]
    = { "SCMP_ARCH_X86",        "SCMP_ARCH_X86_64",      "SCMP_ARCH_X32",     "SCMP_ARCH_ARM",
        "SCMP_ARCH_AARCH64",    "SCMP_ARCH_LOONGARCH64", "SCMP_ARCH_M68K",    "SCMP_ARCH_MIPS",
        "SCMP_ARCH_MIPS64",     "SCMP_ARCH_MIPS64N32",   "SCMP_ARCH_MIPSEL",  "SCMP_ARCH_MIPSEL64",
        "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",        "SCMP_ARCH_PPC64",   "SCMP_ARCH_PPC64LE",
        "SCMP_ARCH_S390",       "SCMP_ARCH_S390X",       "SCMP_ARCH_SH",      "SCMP_ARCH_SHEB",
        "SCMP_ARCH_PARISC",     "SCMP_ARCH_PARISC64",    "SCMP_ARCH_RISCV64", NULL };
const char *const ocispec_seccomp_flags[]
    = { "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
        "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL };

/* The schema's four, plus the recursive spellings runc and crun accept. */
static const char *const rootfs_propagations[]
    = { "private", "shared", "slave", "unbindable", "rprivate", "rshared", "rslave", "runbindable", NULL };
static const char *const device_types[] = { "c", "b", "u", "p", NULL };
static const char *const device_cgroup_types[] = { "a", "c", "b", NULL };
static const char *const personality_domains[] = { "LINUX", "LINUX32", NULL };
static const char *const mpol_modes[]
    = { "MPOL_DEFAULT",   "MPOL_BIND",           "MPOL_INTERLEAVE", "MPOL_WEIGHTED_INTERLEAVE",
        "MPOL_PREFERRED", "MPOL_PREFERRED_MANY", "MPOL_LOCAL",      NULL };
static const char *const mpol_flags[]
    = { "MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES", NULL };
static const char *const time_clocks[] = { "boottime", "monotonic", NULL };

static const ocispec_field id_mapping_fields[] = {
  F_NUM ("containerID", OCISPEC_UINT32, oci_id_mapping, container_id, OCISPEC_F_REQUIRED),
  F_NUM ("hostID", OCISPEC_UINT32, oci_id_mapping, host_id, OCISPEC_F_REQUIRED),
  F_NUM ("size", OCISPEC_UINT32, oci_id_mapping, size, OCISPEC_F_REQUIRED),
};
const ocispec_type ocispec_id_mapping_type = OCISPEC_TYPE (oci_id_mapping, id_mapping_fields, NULL);

static const ocispec_field namespace_fields[] = {
  F_ENUM ("type", oci_namespace, type, OCISPEC_F_REQUIRED, ocispec_namespace_types, "namespace"),
  F_STR ("path", oci_namespace, path, OCISPEC_F_PATH),
};
static const ocispec_type namespace_type = OCISPEC_TYPE (oci_namespace, namespace_fields, NULL);

/* major and minor: REQUIRED unless the type is "p" (config-linux.md, Devices); pointers,
   so that a missing one is not taken as 0. */
static int
validate_device (void *obj, const char *path, char **err)
{
  const oci_device *d = obj;
  if (d->type == NULL || strcmp (d->type, "p") == 0)
    return 0;
  if (d->major == NULL)
    return ocispec_fail (err, path, ".major: missing required field (the device type is \"%s\")", d->type);
  if (d->minor == NULL)
    return ocispec_fail (err, path, ".minor: missing required field (the device type is \"%s\")", d->type);
  return 0;
}

/* fileMode: the schema caps it at 0777, but runtimes (and Docker) accept the
   file-type bits too; the device code keeps only the permission bits. */
static const ocispec_field device_fields[] = {
  F_ENUM ("type", oci_device, type, OCISPEC_F_REQUIRED, device_types, "device type"),
  F_STR ("path", oci_device, path, OCISPEC_F_REQUIRED | OCISPEC_F_PATH),
  F_NUM ("major", OCISPEC_INT64, oci_device, major, OCISPEC_F_PTR),
  F_NUM ("minor", OCISPEC_INT64, oci_device, minor, OCISPEC_F_PTR),
  F_NUM ("fileMode", OCISPEC_UINT32, oci_device, file_mode, OCISPEC_F_PTR),
  F_NUM ("uid", OCISPEC_UINT32, oci_device, uid, OCISPEC_F_PTR),
  F_NUM ("gid", OCISPEC_UINT32, oci_device, gid, OCISPEC_F_PTR),
};
static const ocispec_type device_type = OCISPEC_TYPE (oci_device, device_fields, validate_device);

static int
validate_device_cgroup (void *obj, const char *path, char **err)
{
  const oci_device_cgroup *d = obj;
  char q[OCISPEC_QUOTE_MAX];
  if (d->access && !ocispec_only_chars (d->access, "rwm"))
    return ocispec_fail (err, path, ".access: invalid access %s (want a combination of r, w, m)",
                         ocispec_quote (q, d->access));
  return 0;
}

static const ocispec_field device_cgroup_fields[] = {
  F_BOOL ("allow", oci_device_cgroup, allow, OCISPEC_F_REQUIRED),
  F_ENUM ("type", oci_device_cgroup, type, 0, device_cgroup_types, "device cgroup type"),
  F_NUM ("major", OCISPEC_INT64, oci_device_cgroup, major, OCISPEC_F_PTR),
  F_NUM ("minor", OCISPEC_INT64, oci_device_cgroup, minor, OCISPEC_F_PTR),
  F_STR ("access", oci_device_cgroup, access, 0),
};
static const ocispec_type device_cgroup_type
    = OCISPEC_TYPE (oci_device_cgroup, device_cgroup_fields, validate_device_cgroup);

static const ocispec_field memory_fields[] = {
  F_NUM ("limit", OCISPEC_INT64, oci_memory, limit, OCISPEC_F_PTR),
  F_NUM ("reservation", OCISPEC_INT64, oci_memory, reservation, OCISPEC_F_PTR),
  F_NUM ("swap", OCISPEC_INT64, oci_memory, swap, OCISPEC_F_PTR),
  F_NUM ("kernel", OCISPEC_INT64, oci_memory, kernel, OCISPEC_F_PTR),
  F_NUM ("kernelTCP", OCISPEC_INT64, oci_memory, kernel_tcp, OCISPEC_F_PTR),
  F_NUM ("swappiness", OCISPEC_UINT64, oci_memory, swappiness, OCISPEC_F_PTR),
  F_BOOL ("disableOOMKiller", oci_memory, disable_oom_killer, OCISPEC_F_PTR),
  F_BOOL ("useHierarchy", oci_memory, use_hierarchy, OCISPEC_F_PTR),
  F_BOOL ("checkBeforeUpdate", oci_memory, check_before_update, OCISPEC_F_PTR),
};
/* A limit of the resources: a number, or -1 for none (the spec's words for the memory
   limits and pids.limit; the kernel's for cpu.quota and realtimeRuntime).  Other
   negative numbers mean nothing: refused, not taken as -1. */
static int
check_limit (char **err, const char *path, const char *field, const int64_t *v)
{
  if (v && *v < -1)
    return ocispec_fail (err, path, ".%s: %lld is not a limit (a number, or -1 for unlimited)", field,
                         (long long) *v);
  return 0;
}

static int
validate_memory (void *obj, const char *path, char **err)
{
  const oci_memory *m = obj;
  if (check_limit (err, path, "limit", m->limit) < 0 || check_limit (err, path, "reservation", m->reservation) < 0
      || check_limit (err, path, "swap", m->swap) < 0 || check_limit (err, path, "kernel", m->kernel) < 0
      || check_limit (err, path, "kernelTCP", m->kernel_tcp) < 0)
    return -1;
  return 0;
}
static const ocispec_type memory_type = OCISPEC_TYPE (oci_memory, memory_fields, validate_memory);

static const ocispec_field cpu_fields[] = {
  F_NUM ("shares", OCISPEC_UINT64, oci_cpu, shares, OCISPEC_F_PTR),
  F_NUM ("quota", OCISPEC_INT64, oci_cpu, quota, OCISPEC_F_PTR),
  F_NUM ("burst", OCISPEC_UINT64, oci_cpu, burst, OCISPEC_F_PTR),
  F_NUM ("period", OCISPEC_UINT64, oci_cpu, period, OCISPEC_F_PTR),
  F_NUM ("realtimeRuntime", OCISPEC_INT64, oci_cpu, realtime_runtime, OCISPEC_F_PTR),
  F_NUM ("realtimePeriod", OCISPEC_UINT64, oci_cpu, realtime_period, OCISPEC_F_PTR),
  F_STR ("cpus", oci_cpu, cpus, 0),
  F_STR ("mems", oci_cpu, mems, 0),
  F_NUM ("idle", OCISPEC_INT64, oci_cpu, idle, OCISPEC_F_PTR),
};
static int
validate_cpu (void *obj, const char *path, char **err)
{
  const oci_cpu *c = obj;
  if (check_limit (err, path, "quota", c->quota) < 0 || check_limit (err, path, "realtimeRuntime", c->realtime_runtime) < 0)
    return -1;
  return 0;
}
static const ocispec_type cpu_type = OCISPEC_TYPE (oci_cpu, cpu_fields, validate_cpu);

static const ocispec_field pids_fields[] = {
  F_NUM ("limit", OCISPEC_INT64, oci_pids, limit, OCISPEC_F_REQUIRED),
};
static int
validate_pids (void *obj, const char *path, char **err)
{
  return check_limit (err, path, "limit", &((const oci_pids *) obj)->limit);
}
static const ocispec_type pids_type = OCISPEC_TYPE (oci_pids, pids_fields, validate_pids);

static const ocispec_field weight_device_fields[] = {
  F_NUM ("major", OCISPEC_INT64, oci_weight_device, major, OCISPEC_F_REQUIRED),
  F_NUM ("minor", OCISPEC_INT64, oci_weight_device, minor, OCISPEC_F_REQUIRED),
  F_NUM ("weight", OCISPEC_UINT16, oci_weight_device, weight, OCISPEC_F_PTR),
  F_NUM ("leafWeight", OCISPEC_UINT16, oci_weight_device, leaf_weight, OCISPEC_F_PTR),
};
/* "You MUST specify at least one of weight or leafWeight" (config-linux.md, Block IO):
   an entry of neither would set nothing. */
static int
validate_weight_device (void *obj, const char *path, char **err)
{
  const oci_weight_device *w = obj;
  if (w->weight == NULL && w->leaf_weight == NULL)
    return ocispec_fail (err, path, ": needs weight or leafWeight (runtime-spec: at least one)");
  return 0;
}
static const ocispec_type weight_device_type
    = OCISPEC_TYPE (oci_weight_device, weight_device_fields, validate_weight_device);

static const ocispec_field throttle_device_fields[] = {
  F_NUM ("major", OCISPEC_INT64, oci_throttle_device, major, OCISPEC_F_REQUIRED),
  F_NUM ("minor", OCISPEC_INT64, oci_throttle_device, minor, OCISPEC_F_REQUIRED),
  F_NUM ("rate", OCISPEC_UINT64, oci_throttle_device, rate, OCISPEC_F_REQUIRED),
};
static const ocispec_type throttle_device_type
    = OCISPEC_TYPE (oci_throttle_device, throttle_device_fields, NULL);

static const ocispec_field block_io_fields[] = {
  F_NUM ("weight", OCISPEC_UINT16, oci_block_io, weight, OCISPEC_F_PTR),
  F_NUM ("leafWeight", OCISPEC_UINT16, oci_block_io, leaf_weight, OCISPEC_F_PTR),
  F_OBJARR ("weightDevice", oci_block_io, weight_device, 0, &weight_device_type),
  F_OBJARR ("throttleReadBpsDevice", oci_block_io, throttle_read_bps_device, 0, &throttle_device_type),
  F_OBJARR ("throttleWriteBpsDevice", oci_block_io, throttle_write_bps_device, 0, &throttle_device_type),
  F_OBJARR ("throttleReadIOPSDevice", oci_block_io, throttle_read_iops_device, 0, &throttle_device_type),
  F_OBJARR ("throttleWriteIOPSDevice", oci_block_io, throttle_write_iops_device, 0, &throttle_device_type),
};
static const ocispec_type block_io_type = OCISPEC_TYPE (oci_block_io, block_io_fields, NULL);

/* Schema pattern ^[1-9][0-9]*[KMG]B$. */
static int
validate_hugepage (void *obj, const char *path, char **err)
{
  const oci_hugepage_limit *h = obj;
  const char *s = h->page_size;
  size_t n = strlen (s);
  char q[OCISPEC_QUOTE_MAX];
  if (n < 3 || s[0] < '1' || s[0] > '9' || s[n - 1] != 'B' || strchr ("KMG", s[n - 2]) == NULL
      || s[n - 2] == '\0' || strspn (s, "0123456789") != n - 2)
    return ocispec_fail (err, path, ".pageSize: invalid page size %s (want a size like \"2MB\")",
                         ocispec_quote (q, s));
  return 0;
}

static const ocispec_field hugepage_fields[] = {
  F_STR ("pageSize", oci_hugepage_limit, page_size, OCISPEC_F_REQUIRED),
  F_NUM ("limit", OCISPEC_UINT64, oci_hugepage_limit, limit, OCISPEC_F_REQUIRED),
};
static const ocispec_type hugepage_type = OCISPEC_TYPE (oci_hugepage_limit, hugepage_fields, validate_hugepage);

static const ocispec_field interface_priority_fields[] = {
  F_STR ("name", oci_interface_priority, name, OCISPEC_F_REQUIRED),
  F_NUM ("priority", OCISPEC_UINT32, oci_interface_priority, priority, OCISPEC_F_REQUIRED),
};
static const ocispec_type interface_priority_type
    = OCISPEC_TYPE (oci_interface_priority, interface_priority_fields, NULL);

static const ocispec_field network_fields[] = {
  F_NUM ("classID", OCISPEC_UINT32, oci_network, class_id, OCISPEC_F_PTR),
  F_OBJARR ("priorities", oci_network, priorities, 0, &interface_priority_type),
};
static const ocispec_type network_type = OCISPEC_TYPE (oci_network, network_fields, NULL);

/* An OBJMAP element: member 0 (key) is the device name, not a field. */
static const ocispec_field rdma_fields[] = {
  F_NUM ("hcaHandles", OCISPEC_UINT32, oci_rdma, hca_handles, OCISPEC_F_PTR),
  F_NUM ("hcaObjects", OCISPEC_UINT32, oci_rdma, hca_objects, OCISPEC_F_PTR),
};
/* "You MUST specify at least one of the hcaHandles or hcaObjects" (config-linux.md, RDMA) */
static int
validate_rdma (void *obj, const char *path, char **err)
{
  const oci_rdma *r = obj;
  if (r->hca_handles == NULL && r->hca_objects == NULL)
    return ocispec_fail (err, path, ": needs hcaHandles or hcaObjects (runtime-spec: at least one)");
  return 0;
}
static const ocispec_type rdma_type = OCISPEC_TYPE (oci_rdma, rdma_fields, validate_rdma);

static const ocispec_field resources_fields[] = {
  F_OBJARR ("devices", oci_resources, devices, 0, &device_cgroup_type),
  F_OBJ ("memory", oci_resources, memory, 0, &memory_type),
  F_OBJ ("cpu", oci_resources, cpu, 0, &cpu_type),
  F_OBJ ("pids", oci_resources, pids, 0, &pids_type),
  F_OBJ ("blockIO", oci_resources, block_io, 0, &block_io_type),
  F_OBJARR ("hugepageLimits", oci_resources, hugepage_limits, 0, &hugepage_type),
  F_OBJ ("network", oci_resources, network, 0, &network_type),
  F_OBJMAP ("rdma", oci_resources, rdma, 0, &rdma_type, NULL, NULL),
  F_MAP ("unified", oci_resources, unified, 0),
};
const ocispec_type oci_resources_type = OCISPEC_TYPE (oci_resources, resources_fields, NULL);

static const ocispec_field seccomp_arg_fields[] = {
  F_NUM ("index", OCISPEC_UINT32, oci_seccomp_arg, index, OCISPEC_F_REQUIRED),
  F_NUM ("value", OCISPEC_UINT64, oci_seccomp_arg, value, OCISPEC_F_REQUIRED),
  F_NUM ("valueTwo", OCISPEC_UINT64, oci_seccomp_arg, value_two, 0),
  F_ENUM ("op", oci_seccomp_arg, op, OCISPEC_F_REQUIRED, ocispec_seccomp_operators, "seccomp operator"),
};
static const ocispec_type seccomp_arg_type = OCISPEC_TYPE (oci_seccomp_arg, seccomp_arg_fields, NULL);

/* names: minItems 1. */
static int
validate_syscall (void *obj, const char *path, char **err)
{
  const oci_syscall *s = obj;
  if (s->names_len == 0)
    return ocispec_fail (err, path, ".names: must name at least one syscall");
  return 0;
}

static const ocispec_field syscall_fields[] = {
  F_STRARR ("names", oci_syscall, names, OCISPEC_F_REQUIRED),
  F_ENUM ("action", oci_syscall, action, OCISPEC_F_REQUIRED, ocispec_seccomp_actions, "seccomp action"),
  F_NUM ("errnoRet", OCISPEC_UINT32, oci_syscall, errno_ret, OCISPEC_F_PTR),
  F_OBJARR ("args", oci_syscall, args, 0, &seccomp_arg_type),
};
static const ocispec_type syscall_type = OCISPEC_TYPE (oci_syscall, syscall_fields, validate_syscall);

static const ocispec_field seccomp_fields[] = {
  F_ENUM ("defaultAction", oci_seccomp, default_action, OCISPEC_F_REQUIRED, ocispec_seccomp_actions,
          "seccomp action"),
  F_NUM ("defaultErrnoRet", OCISPEC_UINT32, oci_seccomp, default_errno_ret, OCISPEC_F_PTR),
  F_ENUMARR ("architectures", oci_seccomp, architectures, 0, ocispec_seccomp_archs, "seccomp architecture"),
  F_ENUMARR ("flags", oci_seccomp, flags, 0, ocispec_seccomp_flags, "seccomp flag"),
  F_STR ("listenerPath", oci_seccomp, listener_path, OCISPEC_F_SOCKET),
  F_STR ("listenerMetadata", oci_seccomp, listener_metadata, 0),
  F_OBJARR ("syscalls", oci_seccomp, syscalls, 0, &syscall_type),
};
static const ocispec_type seccomp_type = OCISPEC_TYPE (oci_seccomp, seccomp_fields, NULL);

/* memBwSchema: schema pattern ^MB:[^\n]*$. */
static int
validate_intel_rdt (void *obj, const char *path, char **err)
{
  const oci_intel_rdt *r = obj;
  char q[OCISPEC_QUOTE_MAX];
  if (r->mem_bw_schema && (strncmp (r->mem_bw_schema, "MB:", 3) != 0 || strchr (r->mem_bw_schema, '\n')))
    return ocispec_fail (err, path, ".memBwSchema: invalid schema %s (want \"MB:...\" on one line)",
                         ocispec_quote (q, r->mem_bw_schema));
  return 0;
}

static const ocispec_field intel_rdt_fields[] = {
  F_STR ("closID", oci_intel_rdt, clos_id, 0),
  F_STRARR ("schemata", oci_intel_rdt, schemata, 0),
  F_STR ("l3CacheSchema", oci_intel_rdt, l3_cache_schema, 0),
  F_STR ("memBwSchema", oci_intel_rdt, mem_bw_schema, 0),
  F_BOOL ("enableMonitoring", oci_intel_rdt, enable_monitoring, 0),
};
static const ocispec_type intel_rdt_type = OCISPEC_TYPE (oci_intel_rdt, intel_rdt_fields, validate_intel_rdt);

static const ocispec_field personality_fields[] = {
  F_ENUM ("domain", oci_personality, domain, 0, personality_domains, "personality domain"),
  F_STRARR ("flags", oci_personality, flags, 0),
};
static const ocispec_type personality_type = OCISPEC_TYPE (oci_personality, personality_fields, NULL);

static const ocispec_field time_offset_fields[] = {
  F_NUM ("secs", OCISPEC_INT64, oci_time_offset, secs, 0),
  F_NUM ("nanosecs", OCISPEC_UINT32, oci_time_offset, nanosecs, 0),
};
static const ocispec_type time_offset_type = OCISPEC_TYPE (oci_time_offset, time_offset_fields, NULL);

static const ocispec_field net_device_fields[] = {
  F_STR ("name", oci_net_device, name, 0),
};
static const ocispec_type net_device_type = OCISPEC_TYPE (oci_net_device, net_device_fields, NULL);

static const ocispec_field memory_policy_fields[] = {
  F_ENUM ("mode", oci_memory_policy, mode, 0, mpol_modes, "memory policy mode"),
  F_STR ("nodes", oci_memory_policy, nodes, 0),
  F_ENUMARR ("flags", oci_memory_policy, flags, 0, mpol_flags, "memory policy flag"),
};
static const ocispec_type memory_policy_type = OCISPEC_TYPE (oci_memory_policy, memory_policy_fields, NULL);

/* A namespace type MUST NOT be listed twice. */
static int
validate_linux (void *obj, const char *path, char **err)
{
  const oci_linux *l = obj;
  char q[OCISPEC_QUOTE_MAX];
  for (size_t i = 1; i < l->namespaces_len; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp (l->namespaces[i].type, l->namespaces[j].type) == 0)
        return ocispec_fail (err, path, ".namespaces[%zu]: namespace %s listed twice", i,
                             ocispec_quote (q, l->namespaces[i].type));
  return 0;
}

static const ocispec_field linux_fields[] = {
  F_OBJARR ("uidMappings", oci_linux, uid_mappings, 0, &ocispec_id_mapping_type),
  F_OBJARR ("gidMappings", oci_linux, gid_mappings, 0, &ocispec_id_mapping_type),
  F_MAP ("sysctl", oci_linux, sysctl, 0),
  F_OBJ ("resources", oci_linux, resources, 0, &oci_resources_type),
  F_STR ("cgroupsPath", oci_linux, cgroups_path, OCISPEC_F_PATH),
  F_OBJARR ("namespaces", oci_linux, namespaces, 0, &namespace_type),
  F_OBJARR ("devices", oci_linux, devices, 0, &device_type),
  F_OBJMAP ("netDevices", oci_linux, net_devices, 0, &net_device_type, NULL, NULL),
  F_OBJ ("seccomp", oci_linux, seccomp, 0, &seccomp_type),
  F_ENUM ("rootfsPropagation", oci_linux, rootfs_propagation, 0, rootfs_propagations, "rootfs propagation"),
  F_STRARR ("maskedPaths", oci_linux, masked_paths, OCISPEC_F_PATH),
  F_STRARR ("readonlyPaths", oci_linux, readonly_paths, OCISPEC_F_PATH),
  F_STR ("mountLabel", oci_linux, mount_label, 0),
  F_OBJ ("intelRdt", oci_linux, intel_rdt, 0, &intel_rdt_type),
  F_OBJ ("memoryPolicy", oci_linux, memory_policy, 0, &memory_policy_type),
  F_OBJ ("personality", oci_linux, personality, 0, &personality_type),
  F_OBJMAP ("timeOffsets", oci_linux, time_offsets, 0, &time_offset_type, time_clocks, "time offset clock"),
};
const ocispec_type ocispec_linux_type = OCISPEC_TYPE (oci_linux, linux_fields, validate_linux);
