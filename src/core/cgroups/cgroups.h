/* cgroups: one interface over v1, v2 and the hybrid layout.
 *
 * Parent side of create:   cgroup_setup () before the child runs user code, then
 *                          cgroup_enter (pid) while the child waits on the sync channel.
 *                          --systemd-cgroup: cgroup_setup only plans, cgroup_enter starts
 *                          the scope with the init and makes the cgroups (systemd.c).
 * What the manager made is kept as a cgroup_state (below), the "cgroups" object of the
 * container's state.json and the creation record (record.h), so that later commands
 * (kill --all, pause, ps, update, delete) find the same cgroups: cgroup_load.
 */
#ifndef OCISBX_CGROUPS_H
#define OCISBX_CGROUPS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

/* The host's cgroup hierarchies: the one root the runtime works on (and where a
   container's cgroup mount looks).  A unit test points cgroup_config.fs_root at a tree
   of its own. */
#define CGROUP_FS_ROOT "/sys/fs/cgroup"

typedef struct cgroup_manager cgroup_manager;

typedef enum cgroup_layout
{
  CGROUP_LAYOUT_AUTO = 0, /* detect from fs_root (statfs of fs_root and fs_root/unified) */
  CGROUP_LAYOUT_V1,
  CGROUP_LAYOUT_HYBRID, /* v1 controllers + a controller-less cgroup2 at fs_root/unified */
  CGROUP_LAYOUT_V2,
} cgroup_layout;

typedef struct cgroup_config
{
  const char *fs_root;      /* hierarchy root, NULL: CGROUP_FS_ROOT (a unit test's tree, with
                               its own cgroup file system operations: fs_ops.h) */
  const char *id;           /* container id (default path /ocisbx/<id>) */
  const char *cgroups_path; /* linux.cgroupsPath, may be NULL */
  bool systemd;             /* --systemd-cgroup: "slice:prefix:name" */
  const oci_resources *resources; /* may be NULL */
  /* Optional (zero = default): */
  cgroup_layout layout;     /* forced layout (a test tree's, which statfs cannot tell) */
  const char *proc_cgroup;  /* the runtime's own cgroups file, default "/proc/self/cgroup" */
  bool rootless; /* unprivileged: a hierarchy we may not write is skipped (error only if
                    resources need it); no device cgroup */
  /* The creation record (container/cgroup_record.h): called with cgroup_serialize ()'s
     JSON naming the levels of each hierarchy that do not exist yet, BEFORE the first
     mkdir, and again if what was made differs; an error stops the setup.  NULL: none. */
  int (*record) (void *arg, const char *serialized, ocisbx_err **err);
  void *record_arg;
} cgroup_config;

/* Detect the layout, create the cgroups, apply the resources. */
int cgroup_setup (const cgroup_config *cc, cgroup_manager **out, ocisbx_err **err);
/* Move PID into every hierarchy's cgroup. */
int cgroup_enter (cgroup_manager *m, pid_t pid, ocisbx_err **err);
/* The path (relative to each hierarchy root) of the container's cgroup, e.g. "/ocisbx/abc". */
const char *cgroup_path (const cgroup_manager *m);
/* The path in one hierarchy ("memory", "cpu,cpuacct", "systemd", "unified"; NULL or ""
   for the cgroup2 tree): differs from cgroup_path () only for relative cgroupsPaths,
   which are under the runtime's own cgroup of each hierarchy.  NULL if not joined. */
const char *cgroup_path_in (const cgroup_manager *m, const char *hierarchy);
/* The hierarchies the container is in, in order (I < cgroup_hierarchy_count ()). */
typedef struct cgroup_hierarchy
{
  const char *controllers; /* as in /proc/self/cgroup: "memory", "cpu,cpuacct", "name=systemd";
                              "" for a cgroup2 hierarchy */
  const char *path;        /* the container's cgroup in it, relative to its root */
  const char *dir;         /* the absolute directory of that cgroup */
  bool v2;                 /* a cgroup2 hierarchy (v2, or hybrid's unified) */
} cgroup_hierarchy;
size_t cgroup_hierarchy_count (const cgroup_manager *m);
cgroup_hierarchy cgroup_hierarchy_at (const cgroup_manager *m, size_t i);
/* Only cgroup_enter () can put a process into the container's cgroups: rootless (a
   hierarchy may be dropped on the way) or --systemd-cgroup (the scope starts with the
   init); else a process may join them by itself (join.h, which also falls back to
   cgroup_enter when a hierarchy's files are not on a cgroupfs). */
bool cgroup_enter_only (const cgroup_manager *m);
/* Does the comma list CONTROLLERS ("cpu,cpuacct", "name=systemd") contain C? */
bool cgroup_has_controller (const char *controllers, const char *c);
/* The "tasks" file of the runtime's own cgroup in the v1 hierarchy of CONTROLLER
   ("memory"), malloc'd; NULL on v2, for a manager cgroup_load made, or when it is the
   container's cgroup itself. */
char *cgroup_own_tasks_v1 (const cgroup_manager *m, const char *controller);
/* The container's cgroups as the runtime keeps them, to find them again. */
typedef struct cgroup_state_hierarchy
{
  char *name;        /* its directory under the root: "memory", "cpu,cpuacct", "systemd",
                        "unified"; "" for the cgroup2 root itself */
  char *controllers; /* as in /proc/self/cgroup; "" for cgroup2 */
  bool v2;
  char *path;        /* the container's cgroup in it: "/ocisbx/abc" */
  uint32_t created;  /* trailing levels of PATH the runtime made (0: it was there) */
} cgroup_state_hierarchy;
typedef struct cgroup_state
{
  char *layout;        /* "v1", "hybrid", "v2" */
  bool rootless;
  char *systemd_unit;  /* --systemd-cgroup: the scope, and its slice */
  char *systemd_slice;
  cgroup_state_hierarchy *hierarchies;
  size_t hierarchies_len;
} cgroup_state;
/* Its JSON (state_doc.c): {"layout":"v1","rootless":false,"hierarchies":[{"name":"memory",
   "controllers":"memory","v2":false,"path":"/ocisbx/abc","created":1},...]}. */
extern const ocispec_type cgroup_state_type;
cgroup_state *cgroup_state_of (const cgroup_manager *m);
void cgroup_state_free (cgroup_state *s);
void cgroup_state_freep (cgroup_state **s);
#define cleanup_cgroup_state __attribute__ ((cleanup (cgroup_state_freep)))
/* SERIALIZED is cgroup_serialize ()'s JSON, or the text an older ocisbx wrote
   ("ocisbx-cgroups 1" lines; state.json's "cgroup" string), for the containers it
   created: an upgrade does not lose them. */
int cgroup_state_parse (const char *serialized, cgroup_state **out, ocisbx_err **err);
/* cgroup_state_of (M) as JSON, for the creation record. */
char *cgroup_serialize (const cgroup_manager *m);
/* The manager of the cgroups S names (FS_ROOT NULL: CGROUP_FS_ROOT). */
int cgroup_load (const char *fs_root, const cgroup_state *s, cgroup_manager **out, ocisbx_err **err);
/* Remove the cgroups it created (killing leftovers, retrying on EBUSY). */
int cgroup_destroy (cgroup_manager *m, ocisbx_err **err);
void cgroup_manager_free (cgroup_manager *m);
/* True for a rootless manager that got no cgroup at all (none was writable). */
bool cgroup_manager_empty (const cgroup_manager *m);

/* Running containers. */
int cgroup_pids (cgroup_manager *m, pid_t **pids, size_t *n, ocisbx_err **err);
int cgroup_kill_all (cgroup_manager *m, int sig, ocisbx_err **err);
int cgroup_freeze (cgroup_manager *m, bool freeze, ocisbx_err **err);
int cgroup_is_frozen (cgroup_manager *m, bool *frozen, ocisbx_err **err);
/* The directory of a freezer cgroup, not the container's, that holds PID frozen (v1
   freezer.state not THAWED; cgroup2 cgroup.events "frozen 1"), malloc'd; NULL when
   none does.  A SIGKILL to such a process stays pending until someone thaws it.  M may
   be NULL (a container without a cgroups record). */
char *cgroup_frozen_elsewhere (const cgroup_manager *m, pid_t pid);
int cgroup_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err);

/* The detected layout (cheap: two statfs). */
cgroup_layout cgroup_detect_layout (const char *fs_root);
cgroup_layout cgroup_manager_layout (const cgroup_manager *m);
const char *cgroup_layout_name (cgroup_layout l); /* "v1" "hybrid" "v2" */

/* Statistics: stats.h. */
/* An fd (O_CLOEXEC, owned by the caller) that becomes readable when the container's
   memory cgroup hits OOM; call cgroup_oom_ack () after each readiness to consume it.
   Returns 1 when an OOM kill happened since the last ack, 0 for a spurious wakeup. */
int cgroup_oom_fd (cgroup_manager *m, ocisbx_err **err);
int cgroup_oom_ack (cgroup_manager *m, int fd, ocisbx_err **err);

#endif
