/* cgroups internals shared by the files of src/core/cgroups/ (not for other areas). */
#ifndef OCISBX_CGROUPS_INTERNAL_H
#define OCISBX_CGROUPS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cgroups/cgroups.h"
#include "core/cgroups/fs_ops.h"

/* One hierarchy the container is in. */
typedef struct cg_hier
{
  char *name;        /* directory under fs_root: "memory", "cpu,cpuacct", "systemd", "unified";
                        "" for the v2 root itself */
  char *controllers; /* as in /proc/self/cgroup: "memory", "name=systemd"; "" for cgroup2 */
  char *path;        /* the container's cgroup relative to the hierarchy root: "/ocisbx/abc" */
  char *dir;         /* absolute directory of that cgroup */
  char *own;         /* v1: the runtime's own cgroup here (/proc/self/cgroup) when cgroup_setup
                        made the manager; NULL otherwise, not serialized */
  unsigned created;  /* trailing components of path created by us (0: pre-existing) */
  bool v2;           /* a cgroup2 hierarchy (v2, or hybrid's unified) */
} cg_hier;

struct cgroup_manager
{
  cgroup_layout layout;
  const cg_fs_ops *fs; /* the cgroup file system operations (fs_ops.h): cg_fs */
  bool rootless;
  char *denied; /* rootless: controllers of the hierarchies dropped (comma list, "unified"
                   for cgroup2), for the warnings about limits; not serialized */
  char *fs_root;
  char *path; /* cgroup_path (): the unified one when there is one, else the first */
  cg_hier *h;
  size_t n;
  uint64_t oom_seen; /* v2 OOM events: the last oom_kill count seen */
  /* --systemd-cgroup (systemd.c): the scope unit and its slice, serialized */
  char *unit, *slice;
  /* create, not serialized: cgroup_enter starts the unit with the init, then makes the
     cgroups, applies PENDING_RES and rewrites the creation record through RECORD */
  bool unit_pending;
  char *sd_id;
  const oci_resources *pending_res;
  int (*record) (void *arg, const char *serialized, ocisbx_err **err);
  void *record_arg;
};
void cg_manager_freep (cgroup_manager **m);
#define cleanup_cg_manager __attribute__ ((cleanup (cg_manager_freep)))

/* ---- layout.c ---- */
/* Own cgroups: parsed lines of /proc/self/cgroup. */
typedef struct cg_own
{
  char *controllers; /* "" for the cgroup2 line */
  char *path;
} cg_own;
int cg_read_own (const char *file, cg_own **out, size_t *n, ocisbx_err **err);
void cg_own_free (cg_own *o, size_t n);
/* The directory name under fs_root of a v1 hierarchy ("name=systemd" -> "systemd"). */
char *cg_v1_dirname (const char *controllers);

/* ---- path.c ---- */
/* Resolve linux.cgroupsPath into a cgroup path (always starting with "/", normalized).
   OWN is the runtime's own cgroup in that hierarchy (for relative paths). */
char *cg_resolve_path (const cgroup_config *cc, const char *own, ocisbx_err **err);
/* "a-b.slice" -> "/a.slice/a-b.slice" ("-.slice" -> ""). */
char *cg_expand_slice (const char *slice, ocisbx_err **err);
/* --systemd-cgroup: the slice ("system.slice" by default) and the unit ("prefix-name.scope",
   or "name" when it is a slice) of cc's cgroupsPath. */
int cg_systemd_names (const cgroup_config *cc, char **slice, char **unit, ocisbx_err **err);

/* ---- fsio.c ---- */
char *cg_file (const cg_hier *h, const char *file);
int cg_write_file (const cgroup_manager *m, const char *path, const char *value, ocisbx_err **err);
/* Open the cgroup file PATH for several writes (one value per write ()), through the
   manager's file system (fs_ops.h: open_proc_file's check on a host); cg_write_fd
   writes one value to it. */
int cg_open_file (const cgroup_manager *m, const char *path, ocisbx_err **err);
int cg_write_fd (const cgroup_manager *m, int fd, const char *path, const char *value, ocisbx_err **err);
int cg_write_h (const cgroup_manager *m, const cg_hier *h, const char *file, const char *value,
                ocisbx_err **err);
int cg_read_h (const cg_hier *h, const char *file, char **out, ocisbx_err **err);
/* Read a single unsigned number ("max" -> UINT64_MAX). */
int cg_read_u64 (const cg_hier *h, const char *file, uint64_t *out, ocisbx_err **err);
/* "key value" lines: the value of KEY, or -1 (no err) when absent. */
int cg_read_keyed (const cg_hier *h, const char *file, const char *key, uint64_t *out, ocisbx_err **err);
/* Pids listed in cgroup.procs of DIR and, recursively, of its sub-cgroups. */
int cg_read_pids (const char *dir, bool recursive, pid_t **pids, size_t *n, ocisbx_err **err);
/* Remove the cgroup DIR and its sub-cgroups, killing what is left in them. */
int cg_remove_tree (const cgroup_manager *m, const char *dir, ocisbx_err **err);

/* ---- the manager's hierarchies (cgroups.c) ---- */
/* The hierarchy that carries controller C (v1), or the cgroup2 one on v2; NULL if none. */
cg_hier *cg_find (const cgroup_manager *m, const char *c);
cg_hier *cg_unified (const cgroup_manager *m);
/* The hierarchy used to list processes. */
cg_hier *cg_main (const cgroup_manager *m);
/* Add to M the hierarchies the container joins, with their paths from CC. */
int cg_find_hierarchies (cgroup_manager *m, const cgroup_config *cc, ocisbx_err **err);
/* H's dir from M's fs_root, H's name and H's path. */
void cg_set_dir (const cgroup_manager *m, cg_hier *h);
/* M's path: cg_main ()'s, or "/". */
void cg_pick_path (cgroup_manager *m);
bool cg_is_dir (const char *p);

/* Remove the cgroup of H and the parents we created (ops.c). */
int cg_remove_hier (cgroup_manager *m, cg_hier *h, ocisbx_err **err);

/* ---- unprivileged.c ---- */
/* Forget hierarchy I (removing what we created of it), noting its controllers. */
void cg_rootless_drop (cgroup_manager *m, size_t i, const char *why);
typedef struct cg_rootless_storage
{
  oci_resources res;
  oci_cpu cpu;
} cg_rootless_storage;
/* IN without the limits of dropped hierarchies (each with a warning); IN itself unless
   rootless.  The result may point into S. */
const oci_resources *cg_rootless_resources (const cgroup_manager *m, const oci_resources *in,
                                            cg_rootless_storage *s);
/* cgroup_enter failed with *ERR on hierarchy I: rootless and a permission error: drop
   it with a warning and return 0; else -1 with *ERR kept. */
int cg_rootless_enter (cgroup_manager *m, size_t i, ocisbx_err **err);

/* ---- v1.c / v2.c ---- */
/* A v1 cpuset cgroup DIR with empty cpus or mems gets them from its parent, which
   gets them from above first if it has none (a cgroup cannot take tasks while they
   are empty). */
int cg_v1_cpuset_init (const cgroup_manager *m, const char *dir, ocisbx_err **err);
/* Set cgroup.clone_children of the v1 cpuset cgroup DIR, which the runtime created
   (best effort): its new children then get its cpus and mems from the kernel. */
void cg_v1_clone_children (const cgroup_manager *m, const char *dir);
/* Enable in DIR's cgroup.subtree_control the controllers DIR has (best effort: a
   controller that stays missing shows up as an error naming the resource). */
int cg_v2_enable_level (const cgroup_manager *m, const char *dir, const oci_resources *res,
                        ocisbx_err **err);
/* Hybrid: is controller C available in the cgroup2 hierarchy H (its root's
   cgroup.controllers)? */
bool cg_v2_available (const cgroup_manager *m, const cg_hier *h, const char *c);
/* Enable controller C in cgroup.subtree_control from H's root down to the parent
   of H's cgroup, at the levels where it is not enabled yet. */
int cg_v2_enable_down (const cgroup_manager *m, const cg_hier *h, const char *c, ocisbx_err **err);
int cg_v1_freeze (cgroup_manager *m, cg_hier *h, bool freeze, ocisbx_err **err);

/* ---- rt.c: the real-time budget of the levels the runtime owns above a container ---- */
/* The kernel's to_ratio () (runtime -1: unlimited), and the smallest runtime with a
   share of at least RATIO in PERIOD. */
uint64_t cg_rt_ratio (int64_t runtime, uint64_t period);
uint64_t cg_rt_runtime_for (uint64_t ratio, uint64_t period);
/* Raise the owned levels above the cpu cgroup H so that a share of RUNTIME per PERIOD
   fits in it. */
int cg_v1_rt_make_room (const cgroup_manager *m, const cg_hier *h, int64_t runtime, uint64_t period,
                        ocisbx_err **err);
/* Before H's cgroup is removed: give back its share (when we made it) and lower the
   owned levels above it to what their other children need (best effort). */
void cg_v1_rt_release (const cgroup_manager *m, const cg_hier *h);
int cg_v2_freeze (cgroup_manager *m, cg_hier *h, bool freeze, ocisbx_err **err);

/* ---- resources ---- */
/* linux.resources.unified on a layout other than v2: runc's error. */
int cg_check_unified (const cgroup_manager *m, const oci_resources *res, ocisbx_err **err);
/* RES (NULL: none) onto the files of every hierarchy, devices included: all of it at
   create, on UPDATE only what it sets (the devices only when it carries rules). */
int cg_apply_resources (cgroup_manager *m, const oci_resources *res, bool update, ocisbx_err **err);
/* A write with error reporting in terms of the config field.  When the controller
   or the file is missing: error naming FIELD, unless NOOP (the value asks nothing). */
int cg_set (const cgroup_manager *m, const char *ctrl, const char *file, const char *value, bool noop,
            const char *field, ocisbx_err **err);
/* The same, into the given hierarchy H (NULL: the controller is not available). */
/* cg_set_h's error for a failed write E of VALUE to FILE (E is taken over). */
int cg_set_error (ocisbx_err *e, const char *ctrl, const char *file, const char *value, bool noop,
                  const char *field, ocisbx_err **err);
int cg_set_h (const cgroup_manager *m, const cg_hier *h, const char *ctrl, const char *file, const char *value,
              bool noop, const char *field, ocisbx_err **err);
/* hugepageLimits as cgroup2 files (hugetlb.<size>.max, .rsvd.max) in the cgroup2
   hierarchy H: v2, and hybrid when hugetlb is bound to the unified hierarchy. */
int cg_hugetlb_v2 (const cgroup_manager *m, const cg_hier *h, const oci_resources *r, ocisbx_err **err);
int cg_apply_v1 (cgroup_manager *m, const oci_resources *r, bool update, ocisbx_err **err);
int cg_apply_v2 (cgroup_manager *m, const oci_resources *r, bool update, ocisbx_err **err);
int cg_set_cpu_common (cgroup_manager *m, const oci_cpu *cpu, ocisbx_err **err); /* v1 and v2 */
int cg_set_pids (cgroup_manager *m, const oci_pids *p, ocisbx_err **err); /* v1 and v2 */
int cg_set_rdma (cgroup_manager *m, const oci_resources *r, ocisbx_err **err); /* v1 and v2 */
int cg_check_page_size (const char *ps, size_t i, ocisbx_err **err);
int cg_apply_unified (cgroup_manager *m, const oci_resources *r, ocisbx_err **err);

/* ---- convert.c: the kernel's unit conversions ---- */
uint64_t cg_shares_to_weight (uint64_t shares);   /* 0 -> 0 (unset) */
uint64_t cg_blkio_to_io_weight (uint64_t weight); /* 0 -> 0 (unset) */
/* v2 memory.swap.max from the spec's memory+swap value; *out == -1 means "max",
   returns 1 when there is nothing to write. */
int cg_swap_v2 (const int64_t *limit, const int64_t *swap, int64_t *out,
                ocisbx_err **err);
/* "-1" -> "max" for v2 style values. */
void cg_fmt_max (char *buf, size_t len, int64_t v);

/* ---- devices ---- */
enum
{
  CG_DEV_MKNOD = 1, /* the BPF_DEVCG_ACC_* bits */
  CG_DEV_READ = 2,
  CG_DEV_WRITE = 4,
  CG_DEV_ALL = 7,
};
typedef struct cg_dev_rule
{
  bool allow;
  char type;     /* 'a' 'c' 'b' */
  int64_t major; /* -1: any */
  int64_t minor;
  unsigned access;
} cg_dev_rule;
/* The full list: resources.devices, then the default allow list. */
int cg_dev_rules (const oci_resources *r, bool defaults, cg_dev_rule **out, size_t *n, ocisbx_err **err);
/* R resets the cgroup to allow or deny all, whatever came before it: a rule for every
   device of both types ("a", no numbers) with some access (the kernel ignores which). */
bool cg_dev_is_reset (const cg_dev_rule *r);
/* The index of the first rule that matters, the one after the last reset, which gives
   the default (*ALLOW; deny all when there is none). */
size_t cg_dev_last_reset (const cg_dev_rule *rules, size_t n, bool *allow);
int cg_devices_v1 (const cgroup_manager *m, const cg_dev_rule *rules, size_t n, ocisbx_err **err);
/* On update: only the difference to devices.list, never a moment of deny-all (when
   both are deny-by-default; else as cg_devices_v1). */
int cg_devices_v1_update (const cgroup_manager *m, const cg_dev_rule *rules, size_t n, ocisbx_err **err);
/* The v1 exception list (pure logic, unit-tested): entries "c 1:3" + access bits. */
typedef struct dev_exc
{
  char key[48]; /* "c 1:3", "b 8:*", "c *:*" */
  unsigned access;
} dev_exc;
typedef struct cg_dev_exc_list
{
  dev_exc *v;
  size_t n;
} cg_dev_exc_list;
bool cg_dev_emulate_v1 (const cg_dev_rule *rules, size_t n, cg_dev_exc_list *out);
bool cg_dev_parse_list_v1 (const char *text, cg_dev_exc_list *out);

/* ebpf_devices.c */
struct bpf_insn;
/* Compile RULES (evaluated last match wins, "a *:* rwm" resetting the default) into a
   BPF_PROG_TYPE_CGROUP_DEVICE program. */
int cg_ebpf_build (const cg_dev_rule *rules, size_t n, struct bpf_insn **out, size_t *len);
/* Load and attach to the cgroup2 directory DIR with BPF_F_ALLOW_MULTI, replacing
   the programs attached before. */
int cg_ebpf_attach (const char *dir, const cg_dev_rule *rules, size_t n, ocisbx_err **err);

/* ---- stats.c (parsers, for the unit tests) ---- */
struct cgroup_stats;
struct cgroup_u64s;
struct cgroup_blkio_list;
/* "0-3,5" -> 0 1 2 3 5 */
void cg_stats_parse_list (const char *s, struct cgroup_u64s *l);
/* A v1 blkio file; false when missing or without entries. */
bool cg_stats_parse_blkio_v1 (const char *s, struct cgroup_blkio_list *l);
/* v2 io.stat onto the v1 lists, as runc maps it. */
void cg_stats_parse_io_v2 (const char *s, struct cgroup_stats *st);

/* ---- systemd.c: the systemd driver ---- */
/* Properties for ocisbx-systemd: "NAME<TAB>TYPE<TAB>VALUE..." lines. */
typedef struct cg_sd_props
{
  char **v;
  size_t n;
} cg_sd_props;
void cg_sd_props_free (cg_sd_props *p);
/* R as unit properties (v2: the cgroup2 names and units), with DevicePolicy/DeviceAllow
   from RULES when not NULL (PROC_DEVICES: /proc/devices' text, for the names of
   wildcard-minor rules).  Pure. */
int cg_systemd_resource_props (const oci_resources *r, bool v2, const cg_dev_rule *rules, size_t nrules,
                               const char *proc_devices, cg_sd_props *p, ocisbx_err **err);
bool cg_systemd_running (void);
/* systemd runs and this build can talk to it; else runc's error. */
int cg_systemd_check (ocisbx_err **err);
int cg_systemd_start (cgroup_manager *m, pid_t pid, ocisbx_err **err);
int cg_systemd_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err);
int cg_systemd_stop (const cgroup_manager *m, ocisbx_err **err);

/* ---- exec_usage.c: an exec's cgroup of its own (exec_cgroup.h) ---- */
struct exec_cgroup_usage;
/* The usage in T's hierarchies whose path holds NAME (the exec's own). */
int cg_exec_usage (const cgroup_manager *t, const char *name, struct exec_cgroup_usage *u, ocisbx_err **err);

#endif
