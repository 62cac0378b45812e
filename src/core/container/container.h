/* The container lifecycle: create, start, run, kill, delete, state, list; and on an existing
 * container (handle.h) pause, resume, ps, update, events.
 *
 * create, top to bottom (container.c), every step named:
 *   parent  parse + validate config.json        nothing touched yet; the init's order
 *                                                decided (where it waits for SYNC_GO)
 *           --root; seccomp filter + exec        may RE-EXECUTE the command from a sealed
 *           protection (spawn_protect_exec)      copy (dmz_stub.h): before anything exists
 *           claim the id (state dir), exec fifo, cgroups
 *           clone the init (spawn.h)             one clone (two with a joined user
 *                                                namespace and a new pid namespace)
 *           uid/gid maps, oomScoreAdj, cgroup    -> SYNC_GO
 *           prestart + createRuntime hooks       (when the init asks)
 *           <- SYNC_READY: pid file, state file  status "created"
 *   child   (container_init.c, given a const init_plan: container_internal.h)
 *           spawn_child_enter (spawn.h), namespaces, rootfs_setup,
 *           createContainer hooks, pivot_root, pty, rootfs_finalize, process set-up
 *           (process.h), executable resolved -> SYNC_READY; blocks opening the exec fifo until `start`;
 *           startContainer hooks, seccomp, execve
 * The steps between the two: sync.h.  exec (exec.h) spawns its process the same way
 * (spawn.h), its child begins with the same first step (spawn_child_enter) and runs the
 * same process steps (process.h).
 * Any failure: one message, and nothing is left (init killed, cgroups and state dir removed).
 */
#ifndef OCISBX_CONTAINER_H
#define OCISBX_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/container/state_store.h"

typedef struct container_opts
{
  const char *root;           /* --root; NULL: STATE_ROOT_DEFAULT */
  const char *id;
  const char *bundle;         /* -b; NULL: the working directory */
  const char *pid_file;       /* --pid-file */
  const char *console_socket; /* --console-socket */
  int preserve_fds;           /* --preserve-fds: fds 3 .. 3+N-1 go to the container */
  bool no_pivot;              /* --no-pivot */
  bool no_new_keyring;        /* --no-new-keyring */
  bool systemd_cgroup;        /* --systemd-cgroup */
  bool rootless;              /* --rootless true */
  /* --ephemeral, --overlay-upper DIR: config.json's annotation
     io.github.ocisbx.rootfs.overlay (rootfs.h) set to "ephemeral" or DIR (absolute) */
  bool ephemeral;
  const char *overlay_upper;
  /* run only */
  bool detach; /* -d */
  bool keep;   /* --keep */
} container_opts;

int container_create (const container_opts *o, ocisbx_err **err);
int container_start (const char *root, const char *id, ocisbx_err **err);
/* create + start + wait; *EXIT_CODE is the process's code or 128+signal.  With detach,
   returns after the start. */
int container_run (const container_opts *o, int *exit_code, ocisbx_err **err);
int container_kill (const char *root, const char *id, int sig, bool all, ocisbx_err **err);
int container_delete (const char *root, const char *id, bool force, ocisbx_err **err);
/* The runtime-spec state document (pretty JSON, malloc'd). */
int container_state_json (const char *root, const char *id, char **json, ocisbx_err **err);

typedef struct container_info
{
  char *id;
  pid_t pid; /* 0 when stopped */
  container_status status;
  char *bundle;
  char *rootfs;
  char *created;
  uid_t owner;
  char *owner_name; /* the owner's user name, or "#UID" */
  char *oci_version;
} container_info;

/* Every container under ROOT, sorted by id. */
int container_list (const char *root, container_info **out, size_t *n, ocisbx_err **err);
/* runc's `list --format json` document for INFOS (malloc'd, ending in a newline). */
int container_list_json (const container_info *infos, size_t n, char **json, ocisbx_err **err);
void container_info_free (container_info *infos, size_t n);

/* The commands on a container's cgroups (container_cgroups.c).  Freeze (PAUSE) or thaw
   a container: pause needs it running, resume paused. */
int container_pause (const char *root, const char *id, bool pause, ocisbx_err **err);
/* The pids of every process in the container's cgroups, in their order. */
int container_pids (const char *root, const char *id, pid_t **pids, size_t *n, ocisbx_err **err);
/* Apply RES to a created, running or paused container. */
int container_update (const char *root, const char *id, const oci_resources *res, ocisbx_err **err);
/* Parse the `update --resources` document (config.json's linux.resources alone); free
   *OUT with oci_resources_free. */
int container_resources_parse (const char *json, size_t len, oci_resources **out, ocisbx_err **err);

/* Where ps and events put what they print: TEXT is one or more whole lines. */
typedef void (*container_out_fn) (const char *text, void *arg);

/* ps (container_ps.c): the lines of the host's `ps PS_ARGS` (default -ef) that belong
   to the container, its header first; or the JSON array of its pids (malloc'd). */
int container_ps (const char *root, const char *id, char *const *ps_args, size_t nargs, container_out_fn emit,
                  void *arg, ocisbx_err **err);
int container_ps_json (const char *root, const char *id, char **json, ocisbx_err **err);

/* events (container_events.c): runc's JSON lines, a "stats" event every INTERVAL_MS
   and an "oom" one when the kernel OOM-kills in the container, until it exits; with
   STATS_ONLY one stats event. */
int container_events (const char *root, const char *id, bool stats_only, long interval_ms, container_out_fn emit,
                      void *arg, ocisbx_err **err);

/* The state document (runtime-spec "state") of ST with STATUS, as hooks and listeners
   see it; malloc'd.  (`state` adds rootfs, created and owner, as runc.) */
char *container_state_doc (const container_state *st, container_status status, bool pretty);

#endif
