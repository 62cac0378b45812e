/* Spawning a container process, the parent's half, for create (the init) and exec
 * (one more process) alike.  In order:
 *
 *   spawn_check_terminal    prepare: process.terminal against --console-socket; a
 *                           terminal without a socket is relayed by us (its size ours)
 *   spawn_protect_exec      the seccomp filter prepared (its cache in --root), and how
 *                           the process is executed without exposing our binary
 *                           (dmz_stub.h): MAY RE-EXECUTE the whole command, so it comes before
 *                           anything exists that the new image would not know about
 *   spawn_open              console socket connected, relay prepared, sync pair (sync.h)
 *   spawn_nondumpable       nobody of the container looks into the child (ptrace,
 *                           /proc/PID/fd) until its execve
 *   spawn_clone             the clone, straight into the cgroup when it can
 *                           (CLONE_INTO_CGROUP), else without it (the parent then joins
 *                           the child to its cgroups)
 *   spawn_hand_off_listener the seccomp listener's fd, taken from the child, to the agent
 *   spawn_relay_start, spawn_wait, spawn_relay_finish
 *                           the foreground: signals forwarded, the pty relayed
 *   spawn_free              fds closed, our terminal restored; on failure the child
 *                           killed (pidfd, else its pid) and reaped
 *
 * The child's half, create's init (container_init.c) and exec's process (exec_child.c)
 * alike, is given a child_plan (below; inside their init_plan and exec_plan), which it
 * only reads, and begins and ends with the same steps:
 *
 *   spawn_child_enter       first: the parent-death signal, the parent's fds closed,
 *                           the cgroups joined (cgroups/join.h: on v1 the memory cgroup
 *                           kept for the exec stub), setsid; execCPUAffinity.initial it
 *                           was born with (spawn_clone)
 *   spawn_child_pty         the pty, sent to the console socket or kept for the relay
 *   process.h               process_apply, process_finish_and_exec: the process's
 *                           credentials, the executable, the seccomp filter, execve
 *
 * Between them the two differ where their jobs do (container_init.c, exec_child.c): the
 * init is born in its new namespaces and builds the container; exec's child joins the
 * init's namespaces and root.  Hence too the two places of what needs the host's
 * privileges over the process (process_apply_early's rlimits and scheduler, oomScoreAdj
 * when lowered).  Exec's child sets them itself, before it joins the container's user
 * namespace (its parent could not write its oomScoreAdj: a non-dumpable child's /proc
 * files are root's).  The init is born in its new user namespace (or joins one first),
 * so its parent writes its oomScoreAdj (process_set_oom_score_adj, before SYNC_GO), and
 * the init applies process_apply_early last, after its mounts and hooks, which the
 * process's limits must not constrain (so, in a user namespace, with that namespace's
 * privileges only). */
#ifndef OCISBX_SPAWN_H
#define OCISBX_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "core/cgroups/join.h"
#include "core/container/sync.h"
#include "core/error.h"
#include "core/process/cloned_binary.h"
#include "core/process/process.h"
#include "core/process/terminal.h"
#include "core/seccomp/seccomp.h"

typedef struct spawn_ctx
{
  int sync_parent, sync_child; /* the sync channel (sync.h): ours, the child's */
  int console_sock;            /* connected --console-socket, or -1 */
  bool relay;                  /* a terminal without --console-socket: we relay the pty */
  terminal_relay tty;          /* relay: our terminal (its size for the pty, raw mode) */
  pid_t pid;                   /* the child; 0 before the clone and once reaped */
  int pidfd;                   /* of the child, or -1 */
  int master;                  /* relay: the pty master, from the child; or -1 */
} spawn_ctx;

/* What a container child is given, create's init and exec's process alike: the parent
   fills it just before the clone (spawn_child_plan) and the child only reads it (the
   child's steps take it const; what they learn is the child's own: process_run and its
   job's state).  The process plan and the cgroup join are the job's, not copied. */
typedef struct child_plan
{
  const process_plan *proc;
  const cgroup_join *cgj;  /* the cgroups it joins itself (cgroups/join.h) */
  int sync;                /* its end of the sync channel */
  int console_sock;        /* connected --console-socket, or -1 */
  bool relay;              /* its pty's master goes to the parent */
  int parent_fds[3];       /* the parent's, closed first: --root, the locked state dir,
                              the parent's end of the sync channel (-1: none) */
  int keep_fds;            /* the process's fds: 0 to keep_fds - 1 (stdio, --preserve-fds) */
} child_plan;

void spawn_init (spawn_ctx *s);
/* KILL: the child, if any, is killed and reaped first. */
void spawn_free (spawn_ctx *s, bool kill);

/* Words of the errors for the two commands. */
typedef enum spawn_kind
{
  SPAWN_CREATE,
  SPAWN_EXEC,
} spawn_kind;

/* P's terminal against CONSOLE_SOCKET; DETACHED: nobody stays to relay.  Sets
   s->relay, and the pty's first size (the caller's) when relayed. */
int spawn_check_terminal (spawn_ctx *s, spawn_kind kind, process_plan *p, const char *console_socket, bool detached,
                          ocisbx_err **err);
/* SC (may be NULL: none) prepared into *PROG with its cache under ROOT (--root, NULL:
   the default), and where the child loads it (p->filter_early: create's, with a
   listener); then P's exec protection (dmz_prepare; SEALED: the process will share our
   user namespace, see spawn_shares_userns): may re-execute the command, starting the
   new image with CALLER's signals (NULL: ours). */
int spawn_protect_exec (spawn_kind kind, const oci_seccomp *sc, const char *root, bool sealed, seccomp_prog **prog,
                        process_plan *p, const caller_signals *caller, ocisbx_err **err);
int spawn_open (spawn_ctx *s, const char *console_socket, ocisbx_err **err);
/* Non-dumpable now (our memory and fds reach into the host), and the child with us. */
int spawn_nondumpable (ocisbx_err **err);
/* Clone with FLAGS (ns_clone) into CGJ's cgroup2 dir when usable; if that clone fails,
   once more without it, and CGJ is then closed and not usable (the parent joins the
   child the slow way: cgroup_enter).  The child is born with P's execCPUAffinity.initial
   (ours for the clone), so it holds before any cgroup transition.  Returns 0 in the child, the pid in the parent
   (s->pid, s->pidfd), or -1. */
pid_t spawn_clone (spawn_ctx *s, int flags, cgroup_join *cgj, const process_plan *p, ocisbx_err **err);
/* The child's seccomp listener (sync_recv_listener): taken
   (pidfd_getfd), sent to SC's listenerPath with the state document STATE, acknowledged
   (sync_ack_listener). */
int spawn_hand_off_listener (spawn_ctx *s, const oci_seccomp *sc, const char *state, ocisbx_err **err);
/* Kill the child (through its pidfd, else its pid) and reap it. */
void spawn_kill (spawn_ctx *s);

/* Parent, before spawn_clone: *CP for the child of S, running P, joining CGJ, with
   ROOT_FD (--root) and DIR_FD (the locked state dir) to close, KEEP_FDS its fds. */
void spawn_child_plan (const spawn_ctx *s, const process_plan *p, const cgroup_join *cgj, int root_fd, int dir_fd,
                       int keep_fds, child_plan *cp);
/* In the child, its first step (above): the pdeathsig armed; cp->parent_fds closed; the
   cgroups of cp->cgj joined (RUN's memcg_* for the exec stub's hand-off); a new
   session. */
int spawn_child_enter (const child_plan *cp, process_run *run, ocisbx_err **err);
/* In the child: process.terminal's pty, *SLAVE for the process's stdio (its owner the
   process's user, its size the plan's), *MASTER for the relay, or -1 once sent to the
   console socket (which is closed then). */
int spawn_child_pty (const child_plan *cp, int *master, int *slave, ocisbx_err **err);

/* The foreground: the relay started (when there is a master), the wait (foreground.h:
   signals in SET forwarded, NOTIFY_FD passed on) whose status it returns (s->pid is 0
   then: reaped), the relay finished. */
int spawn_relay_start (spawn_ctx *s, ocisbx_err **err);
int spawn_wait (spawn_ctx *s, int notify_fd, const sigset_t *set, ocisbx_err **err);
void spawn_relay_finish (spawn_ctx *s);

#endif
