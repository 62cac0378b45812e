/* The typed model of the OCI runtime-spec 1.3 documents (Linux surface).
   Field names follow the JSON keys in snake_case; see ocispec.h for conventions. */
#ifndef OCISPEC_RUNTIME_SPEC_H
#define OCISPEC_RUNTIME_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- shared pieces ---- */

typedef struct oci_id_mapping
{
  uint32_t container_id; /* containerID */
  uint32_t host_id;      /* hostID */
  uint32_t size;
} oci_id_mapping;

/* ---- mounts ---- */

typedef struct oci_mount
{
  char *destination; /* required */
  char *type;
  char *source;
  char **options;
  size_t options_len;
  oci_id_mapping *uid_mappings;
  size_t uid_mappings_len;
  oci_id_mapping *gid_mappings;
  size_t gid_mappings_len;
} oci_mount;

/* ---- hooks ---- */

typedef struct oci_hook
{
  char *path; /* required, absolute */
  char **args;
  size_t args_len;
  char **env;
  size_t env_len;
  int64_t *timeout; /* seconds, > 0 */
} oci_hook;

typedef struct oci_hooks
{
  oci_hook *prestart;
  size_t prestart_len;
  oci_hook *create_runtime; /* createRuntime */
  size_t create_runtime_len;
  oci_hook *create_container; /* createContainer */
  size_t create_container_len;
  oci_hook *start_container; /* startContainer */
  size_t start_container_len;
  oci_hook *poststart;
  size_t poststart_len;
  oci_hook *poststop;
  size_t poststop_len;
} oci_hooks;

/* ---- process ---- */

typedef struct oci_console_size
{
  uint64_t height;
  uint64_t width;
} oci_console_size;

typedef struct oci_user
{
  uint32_t uid;
  uint32_t gid;
  uint32_t *umask;
  uint32_t *additional_gids; /* additionalGids */
  size_t additional_gids_len;
  char *username;
} oci_user;

typedef struct oci_capabilities
{
  char **bounding;
  size_t bounding_len;
  char **effective;
  size_t effective_len;
  char **inheritable;
  size_t inheritable_len;
  char **permitted;
  size_t permitted_len;
  char **ambient;
  size_t ambient_len;
} oci_capabilities;

typedef struct oci_rlimit
{
  char *type; /* "RLIMIT_NOFILE" */
  uint64_t hard;
  uint64_t soft;
} oci_rlimit;

typedef struct oci_io_priority
{
  char *class_; /* "class": IOPRIO_CLASS_RT|BE|IDLE */
  int32_t priority;
} oci_io_priority;

typedef struct oci_scheduler
{
  char *policy; /* SCHED_OTHER ... */
  int32_t *nice;
  int32_t *priority;
  char **flags;
  size_t flags_len;
  uint64_t *runtime;
  uint64_t *deadline;
  uint64_t *period;
} oci_scheduler;

typedef struct oci_exec_cpu_affinity
{
  char *initial;
  char *final;
} oci_exec_cpu_affinity;

typedef struct oci_process
{
  bool terminal;
  oci_console_size *console_size; /* consoleSize */
  oci_user user;
  char **args;
  size_t args_len;
  char *command_line; /* commandLine (Windows; kept for completeness) */
  char **env;
  size_t env_len;
  char *cwd; /* required, absolute */
  oci_capabilities *capabilities;
  oci_rlimit *rlimits;
  size_t rlimits_len;
  bool no_new_privileges; /* noNewPrivileges */
  char *apparmor_profile; /* apparmorProfile */
  int32_t *oom_score_adj; /* oomScoreAdj */
  char *selinux_label;    /* selinuxLabel */
  oci_io_priority *io_priority; /* ioPriority */
  oci_scheduler *scheduler;
  oci_exec_cpu_affinity *exec_cpu_affinity; /* execCPUAffinity */
} oci_process;

/* ---- root ---- */

typedef struct oci_root
{
  char *path; /* required */
  bool readonly;
} oci_root;

/* ---- linux ---- */

typedef struct oci_namespace
{
  char *type; /* pid network mount ipc uts user cgroup time */
  char *path;
} oci_namespace;

typedef struct oci_device
{
  char *type; /* c b u p */
  char *path; /* required, absolute */
  int64_t *major; /* required unless type is "p" */
  int64_t *minor;
  uint32_t *file_mode; /* fileMode */
  uint32_t *uid;
  uint32_t *gid;
} oci_device;

typedef struct oci_device_cgroup
{
  bool allow; /* required */
  char *type; /* a c b */
  int64_t *major;
  int64_t *minor;
  char *access; /* rwm */
} oci_device_cgroup;

typedef struct oci_memory
{
  int64_t *limit;
  int64_t *reservation;
  int64_t *swap;
  int64_t *kernel;
  int64_t *kernel_tcp; /* kernelTCP */
  uint64_t *swappiness;
  bool *disable_oom_killer; /* disableOOMKiller */
  bool *use_hierarchy;      /* useHierarchy */
  bool *check_before_update; /* checkBeforeUpdate */
} oci_memory;

typedef struct oci_cpu
{
  uint64_t *shares;
  int64_t *quota;
  uint64_t *burst;
  uint64_t *period;
  int64_t *realtime_runtime;  /* realtimeRuntime */
  uint64_t *realtime_period;  /* realtimePeriod */
  char *cpus;
  char *mems;
  int64_t *idle;
} oci_cpu;

typedef struct oci_pids
{
  int64_t limit; /* required */
} oci_pids;

typedef struct oci_weight_device
{
  int64_t major;
  int64_t minor;
  uint16_t *weight;
  uint16_t *leaf_weight; /* leafWeight */
} oci_weight_device;

typedef struct oci_throttle_device
{
  int64_t major;
  int64_t minor;
  uint64_t rate;
} oci_throttle_device;

typedef struct oci_block_io
{
  uint16_t *weight;
  uint16_t *leaf_weight;
  oci_weight_device *weight_device; /* weightDevice */
  size_t weight_device_len;
  oci_throttle_device *throttle_read_bps_device; /* throttleReadBpsDevice */
  size_t throttle_read_bps_device_len;
  oci_throttle_device *throttle_write_bps_device;
  size_t throttle_write_bps_device_len;
  oci_throttle_device *throttle_read_iops_device;
  size_t throttle_read_iops_device_len;
  oci_throttle_device *throttle_write_iops_device;
  size_t throttle_write_iops_device_len;
} oci_block_io;

typedef struct oci_hugepage_limit
{
  char *page_size; /* pageSize, required */
  uint64_t limit;  /* required */
} oci_hugepage_limit;

typedef struct oci_interface_priority
{
  char *name;
  uint32_t priority;
} oci_interface_priority;

typedef struct oci_network
{
  uint32_t *class_id; /* classID */
  oci_interface_priority *priorities;
  size_t priorities_len;
} oci_network;

typedef struct oci_rdma
{
  char *key; /* the device name (JSON object key) */
  uint32_t *hca_handles; /* hcaHandles */
  uint32_t *hca_objects; /* hcaObjects */
} oci_rdma;


typedef struct oci_resources
{
  oci_device_cgroup *devices;
  size_t devices_len;
  oci_memory *memory;
  oci_cpu *cpu;
  oci_pids *pids;
  oci_block_io *block_io; /* blockIO */
  oci_hugepage_limit *hugepage_limits; /* hugepageLimits */
  size_t hugepage_limits_len;
  oci_network *network;
  oci_rdma *rdma;
  size_t rdma_len;
  struct ocispec_map unified;
} oci_resources;

typedef struct oci_seccomp_arg
{
  uint32_t index;
  uint64_t value;
  uint64_t value_two; /* valueTwo, 0 when absent */
  char *op;           /* SCMP_CMP_* */
} oci_seccomp_arg;

typedef struct oci_syscall
{
  char **names;
  size_t names_len;
  char *action;        /* SCMP_ACT_* */
  uint32_t *errno_ret; /* errnoRet */
  oci_seccomp_arg *args;
  size_t args_len;
} oci_syscall;

typedef struct oci_seccomp
{
  char *default_action; /* defaultAction, required */
  uint32_t *default_errno_ret; /* defaultErrnoRet */
  char **architectures;
  size_t architectures_len;
  char **flags;
  size_t flags_len;
  char *listener_path;     /* listenerPath */
  char *listener_metadata; /* listenerMetadata */
  oci_syscall *syscalls;
  size_t syscalls_len;
} oci_seccomp;

typedef struct oci_intel_rdt
{
  char *clos_id; /* closID */
  char **schemata;
  size_t schemata_len;
  char *l3_cache_schema; /* l3CacheSchema */
  char *mem_bw_schema;   /* memBwSchema */
  bool enable_monitoring; /* enableMonitoring */
} oci_intel_rdt;

typedef struct oci_personality
{
  char *domain; /* LINUX LINUX32 */
  char **flags;
  size_t flags_len;
} oci_personality;

typedef struct oci_time_offset
{
  char *key; /* "boottime" | "monotonic" */
  int64_t secs;
  uint32_t nanosecs;
} oci_time_offset;

typedef struct oci_net_device
{
  char *key; /* host interface name */
  char *name;
} oci_net_device;

typedef struct oci_memory_policy
{
  char *mode;
  char *nodes;
  char **flags;
  size_t flags_len;
} oci_memory_policy;

typedef struct oci_linux
{
  oci_id_mapping *uid_mappings; /* uidMappings */
  size_t uid_mappings_len;
  oci_id_mapping *gid_mappings;
  size_t gid_mappings_len;
  struct ocispec_map sysctl;
  oci_resources *resources;
  char *cgroups_path; /* cgroupsPath */
  oci_namespace *namespaces;
  size_t namespaces_len;
  oci_device *devices;
  size_t devices_len;
  oci_net_device *net_devices; /* netDevices */
  size_t net_devices_len;
  oci_seccomp *seccomp;
  char *rootfs_propagation; /* rootfsPropagation */
  char **masked_paths;
  size_t masked_paths_len;
  char **readonly_paths;
  size_t readonly_paths_len;
  char *mount_label;
  oci_intel_rdt *intel_rdt;
  oci_memory_policy *memory_policy;
  oci_personality *personality;
  oci_time_offset *time_offsets; /* timeOffsets */
  size_t time_offsets_len;
} oci_linux;

/* ---- config.json ---- */

typedef struct oci_config
{
  char *oci_version; /* required; 1.0.0 .. 1.3.x accepted */
  oci_process *process;
  oci_root *root;
  char *hostname;
  char *domainname;
  oci_mount *mounts;
  size_t mounts_len;
  oci_hooks *hooks;
  struct ocispec_map annotations;
  oci_linux *linux_; /* "linux" (a macro name under GNU C) */
} oci_config;

/* ---- state (the spec's state JSON) ---- */

typedef struct oci_state
{
  char *oci_version;
  char *id;
  char *status; /* creating created running stopped (+ paused, as runc) */
  int32_t *pid;
  char *bundle;
  struct ocispec_map annotations;
  /* beyond the spec, what runc's `state` prints too (go-runc reads them) */
  char *rootfs;
  char *created; /* RFC 3339 */
  char *owner;   /* user name, or "#UID" */
} oci_state;

/* The container process state (runtime-spec "The Container Process State"): what the
   runtime sends to the seccomp agent at linux.seccomp.listenerPath with the fds. */
typedef struct oci_process_state
{
  char *oci_version;
  char **fds; /* the names of the fds sent with it: "seccompFd" */
  size_t fds_len;
  int32_t pid;
  char *metadata; /* linux.seccomp.listenerMetadata */
  oci_state *state;
} oci_process_state;

/* ---- features ---- */

typedef struct oci_features_cgroup
{
  bool *v1;
  bool *v2;
  bool *systemd;
  bool *systemd_user; /* systemdUser */
  bool *rdma;
} oci_features_cgroup;

typedef struct oci_features_seccomp
{
  bool *enabled;
  char **actions;
  size_t actions_len;
  char **operators;
  size_t operators_len;
  char **archs;
  size_t archs_len;
  char **known_flags; /* knownFlags */
  size_t known_flags_len;
  char **supported_flags; /* supportedFlags */
  size_t supported_flags_len;
} oci_features_seccomp;

typedef struct oci_features_enabled
{
  bool *enabled;
} oci_features_enabled;

typedef struct oci_features_mount_ext
{
  oci_features_enabled *idmap;
} oci_features_mount_ext;

/* features-linux.md "Intel RDT" */
typedef struct oci_features_intel_rdt
{
  bool *enabled;
  bool *schemata;   /* the schemata field of linux.intelRdt */
  bool *monitoring; /* its enableMonitoring */
} oci_features_intel_rdt;

typedef struct oci_features_memory_policy
{
  char **modes;
  size_t modes_len;
  char **flags;
  size_t flags_len;
} oci_features_memory_policy;

typedef struct oci_features_linux
{
  char **namespaces;
  size_t namespaces_len;
  char **capabilities;
  size_t capabilities_len;
  oci_features_cgroup *cgroup;
  oci_features_seccomp *seccomp;
  oci_features_enabled *apparmor;
  oci_features_enabled *selinux;
  oci_features_intel_rdt *intel_rdt; /* intelRdt */
  oci_features_mount_ext *mount_extensions; /* mountExtensions */
  oci_features_enabled *net_devices; /* netDevices */
  oci_features_memory_policy *memory_policy; /* memoryPolicy */
} oci_features_linux;

typedef struct oci_features
{
  char *oci_version_min; /* ociVersionMin, required */
  char *oci_version_max; /* ociVersionMax, required */
  char **hooks;
  size_t hooks_len;
  char **mount_options; /* mountOptions */
  size_t mount_options_len;
  oci_features_linux *linux_;
  struct ocispec_map annotations;
  char **potentially_unsafe_config_annotations; /* potentiallyUnsafeConfigAnnotations */
  size_t potentially_unsafe_config_annotations_len;
} oci_features;

/* The document types (tables in libocispec/types_*.c). */
struct ocispec_type;
extern const struct ocispec_type oci_config_type;
extern const struct ocispec_type oci_process_type; /* process.json for exec --process */
extern const struct ocispec_type oci_state_type;
extern const struct ocispec_type oci_process_state_type; /* to a seccomp agent */
extern const struct ocispec_type oci_features_type;
extern const struct ocispec_type oci_resources_type; /* linux.resources, for `update -r` */

/* Typed convenience wrappers.  Errors are one malloc'd line
   "DOC: .json.path: what"; generated JSON is malloc'd and ends with "\n". */
int oci_config_parse_file (const char *path, oci_config **out, char **err);
int oci_config_parse_data (const char *data, size_t len, oci_config **out, char **err);
int oci_config_generate (const oci_config *c, bool pretty, char **json, size_t *len, char **err);
void oci_config_free (oci_config *c);

/* DOC is the file's base name ("process.json"). */
int oci_process_parse_file (const char *path, oci_process **out, char **err);
int oci_process_generate (const oci_process *p, bool pretty, char **json, size_t *len, char **err);
void oci_process_free (oci_process *p);

/* DOC "state". */
int oci_state_parse_data (const char *data, size_t len, oci_state **out, char **err);
int oci_state_generate (const oci_state *s, bool pretty, char **json, size_t *len, char **err);
void oci_state_free (oci_state *s);

/* DOC "features". */
int oci_features_generate (const oci_features *f, bool pretty, char **json, size_t *len, char **err);
void oci_features_free (oci_features *f);

/* DOC "resources": config.json's linux.resources alone (`update -r`), its errors naming
   .linux.resources.FIELD. */
int oci_resources_parse_data (const char *data, size_t len, oci_resources **out, char **err);
void oci_resources_free (oci_resources *r);

/* The runtime-spec versions config.json may declare: 1.0.0 <= v < 2. */
#define OCISPEC_VERSION_MIN "1.0.0"
#define OCISPEC_VERSION_MAX "1.3.0"
#define OCISPEC_VERSIONS_SUPPORTED "1.0.0 to 1.3.x"

/* The values config.json accepts (NULL-terminated), for features and checks. */
extern const char *const ocispec_namespace_types[];
extern const char *const ocispec_seccomp_actions[];
extern const char *const ocispec_seccomp_operators[];
extern const char *const ocispec_seccomp_archs[];
extern const char *const ocispec_seccomp_flags[];

#endif
