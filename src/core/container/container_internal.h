/* Shared by container.c (parent side of create), container_init.c (the child),
   container_ops.c and container_run.c. */
#ifndef OCISBX_CONTAINER_INTERNAL_H
#define OCISBX_CONTAINER_INTERNAL_H

#include <signal.h>
#include <stdint.h>

#include "core/cgroups/join.h"
#include "core/cgroups/cgroups.h"
#include "core/container/container.h"
#include "core/container/spawn.h"
#include "core/container/sync.h"
#include "core/container/handle.h"
#include "core/intelrdt/intelrdt.h"
#include "core/ns/namespaces.h"
#include "core/process/process.h"
#include "core/rootfs/mount_options.h"
#include "core/rootfs/rootfs.h"
#include "core/ns/rootless_user.h"
#include "core/seccomp/seccomp.h"
#include "core/process/terminal.h"

/* Where the init waits for SYNC_GO (the id maps written, the cgroups joined), decided
   by create_prepare: as late as it can, so that its mounts overlap the parent's cgroup
   writes (which wait for an RCU grace period). */
typedef enum init_go
{
  INIT_GO_AFTER_JOIN,    /* a user or cgroup namespace: before anything in it */
  INIT_GO_BEFORE_HOOKS,  /* hooks (their state document comes with it), or the parent's
                            createRuntime step (netDevices) */
  INIT_GO_BEFORE_PROCESS /* else: before the process's credentials */
} init_go;

/* The choice (sync.h draws it): a new or joined user namespace (USERNS) or a new cgroup
   namespace (NEW_CGROUPNS): after the join; else with the parent's createRuntime step
   (PARENT_STEP) or the init's createContainer/startContainer hooks (CHILD_HOOKS): before
   the hooks; else before the process.  So an init that asks for bind sources (in a user
   namespace) does it after SYNC_GO, when the parent serves them. */
init_go create_go_at (bool userns, bool new_cgroupns, bool parent_step, bool child_hooks);

/* What the init is given: prepared by the parent (create_prepare, clone_init), read
   by the init only through a const pointer (container_init), so the compiler keeps it
   to what it was given.  What the init learns on the way is its own (container_init.c:
   init_state, and process_run).  The parent's resources are create_ctx's. */
typedef struct init_plan
{
  child_plan child;   /* what every container child is given (spawn.h): its sync end,
                         the console socket, the parent's fds to close, proc, cgj */
  const oci_config *cfg;
  const char *id;     /* the session keyring's name */
  bool no_new_keyring;
  ns_plan ns;
  process_plan proc;
  cgroup_join cgj;    /* the init joins its cgroups itself (cgroups/join.h) */
  rootfs_ctx rctx;    /* the init copies it (init_state.rctx) and adds what is its own */
  int fifofd;         /* the exec fifo, O_PATH: the init reopens it through
                         /proc/self/fd (as runc), so it holds no fd of the state dir
                         while it waits */
  bool mount_help;    /* we open and idmap bind sources for an init in a user namespace */
  bool userns;        /* new or joined user namespace */
  bool own_mntns;     /* a new mount namespace (else the runtime's own, or one joined) */
  bool parent_step;   /* the init stops for the parent's createRuntime step (SYNC_HOOKS):
                         prestart or createRuntime hooks, linux.netDevices to move */
  bool child_nondumpable; /* the init makes itself non-dumpable once its id maps are written */
  init_go go_at;      /* where the init waits for SYNC_GO */
  bool start_now;     /* `run`: no exec fifo, the init executes the process once it is
                         ready (nobody else starts it); it holds its end of the sync
                         channel until then */
} init_plan;

/* Everything about one create: the parent's resources, and the init's plan (init). */
typedef struct create_ctx
{
  const container_opts *o;
  oci_config *cfg;
  char *bundle;      /* absolute */
  char *config_path; /* absolute */
  char *rootfs;      /* absolute, symlinks resolved */
  rootfs_overlay_kind overlay; /* io.github.ocisbx.rootfs.overlay (rootfs/overlay.c) */
  char *overlay_dir; /* a kept upper's directory, resolved */
  int overlay_made;  /* what of it this create made (ROOTFS_OVERLAY_MADE_*): undone if it fails */
  char *snapshot;    /* an ephemeral run's btrfs snapshot (rootfs is then this path) */

  /* parent resources */
  int rootfd;  /* --root */
  int lockfd;  /* the state dir, flock'ed for the whole create */
  bool dir_created;
  dev_t dir_dev; /* the state dir's identity: `run` tells one made again apart */
  ino_t dir_ino;
  cgroup_manager *cgroup;
  seccomp_prog *seccomp;
  intelrdt_plan rdt; /* linux.intelRdt (intelrdt.h) */
  spawn_ctx sp; /* the init: sync channel, console socket, pid, pidfd, relayed pty (spawn.h) */

  /* the parent's plans */
  idmap_plan idmap; /* how the parent writes the uid/gid maps (rootless_user.h) */
  mount_opts *mount_opts; /* init.rctx.mount_opts: each mount's options, parsed once */
  sync_mount_server mount_server; /* with init.mount_help: how (sync.h); else none */
  int preserve_fds;   /* --preserve-fds + LISTEN_FDS */
  bool child_hooks;   /* createContainer or startContainer hooks exist */
  const caller_signals *caller; /* `run` in the foreground: the caller's signals before ours
                                   (NULL: unchanged; cloned_binary.h) */
  bool notify;        /* NOTIFY_SOCKET: the container gets /run/notify (notify.h) */
  int notify_fd;      /* `run`: the notify socket we listen on, or -1 */

  bool deleted;       /* `run`: deleted as a whole (delete_after_run), poststop hooks
                         included: a failure after it undoes no more */

  init_plan init;     /* the init's (its pid and fds: sp) */

  uint64_t start_time;
  char *created;
} create_ctx;

/* container.c */
void create_ctx_init (create_ctx *c);
/* FOREGROUND: `run` without -d (a terminal may be relayed, the init dies with us). */
int create_prepare (create_ctx *c, const container_opts *o, bool foreground, ocisbx_err **err);
int create_run_pipeline (create_ctx *c, ocisbx_err **err);
/* Undo everything of a failed create; free the context either way. */
void create_ctx_cleanup (create_ctx *c, bool failed);
/* The spec state document for hooks, with STATUS. */
char *create_state_json (const create_ctx *c, container_status status);
/* The state record of this create, as written to state.json: its strings are C's, but
   *CG (its cgroups) is the caller's to free. */
void create_ctx_state (const create_ctx *c, container_state *st, cgroup_state **cg);

/* container_init.c: the child, never returns. */
_Noreturn void container_init (const init_plan *plan);

/* container_ops.c */
int container_delete_at (container_handle *h, bool force, ocisbx_err **err);

#endif
