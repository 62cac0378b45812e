/* The channel between the runtime (parent) and the process it spawns (spawn.h): one
 * SOCK_SEQPACKET socketpair, one message per step, each optionally carrying one fd.
 * Each step is one function per side (sync_steps.c); create and exec call the same
 * function wherever they take the same step.
 *
 * create (container.c, container_init.c):
 *
 *   parent                                         child (the init)
 *   spawn_clone --------------------------------->  spawn_child_enter, joins namespaces
 *   sync_recv_pid           <-- SYNC_PID --------   sync_report_pid (only when it forks
 *                                                   the real init: container_init.c)
 *   maps, oomScoreAdj,
 *   cgroup; sync_send_go    --- SYNC_GO (state) ->  sync_wait_go, at one of three places
 *                                                   of container_init.c, create_go_at's
 *                                                   choice (container_internal.h):
 *                                                   AFTER_JOIN (a user or cgroup
 *                                                   namespace): here, before the mounts
 *                                                   rootfs_setup: mounts ...
 *   only in a user namespace with the runtime's help (mount_help), the create
 *   pipeline's step of its own (serve_mount_sources, container.c):
 *   sync_serve_mount_sources <-- SYNC_MOUNT_SOURCE  sync_ask_mount_source (a bind source
 *     opens, idmaps          --- SYNC_MOUNT_SOURCE> it cannot open, or one to idmap; any
 *                                                   number, during rootfs_setup alone)
 *     until                  <-- SYNC_MOUNTS_DONE   sync_mounts_done (rootfs_setup over)
 *                                                   BEFORE_HOOKS (hooks, netDevices): here
 *   sync_wait_hooks         <-- SYNC_HOOKS -------  sync_run_parent_hooks (only with
 *   netDevices, hooks;                              prestart/createRuntime hooks or
 *   sync_hooks_done         --- SYNC_HOOKS_DONE ->  linux.netDevices)
 *                                                   createContainer hooks, pivot_root, ...
 *                                                   BEFORE_PROCESS (else): here, before
 *                                                   the process's credentials
 *   spawn_hand_off_listener (only with a seccomp listener: filter_early)
 *     sync_recv_listener    <-- SYNC_SECCOMP (n) -  sync_send_listener (load_filter,
 *     to the agent;                                 process_final.c)
 *     sync_ack_listener     --- SYNC_SECCOMP_ACK ->
 *   sync_wait_ready         <-- SYNC_READY [pty] -  sync_ready: process set-up done; waits
 *                                                   on the exec fifo
 *   sync_wait_exec          <-- end-of-file -----   (`run` with poststart hooks) it
 *                                                   executed the process
 *
 * exec (exec_parent.c, exec_child.c):
 *
 *   spawn_clone --------------------------------->  spawn_child_enter (in the container's
 *                                                   pid namespace)
 *   cgroup; sync_send_go    --- SYNC_GO --------->  sync_wait_go (only when the clone could
 *                                                   not place it in the cgroup: the parent
 *                                                   does)
 *   sync_wait_ready         <-- SYNC_READY pty --   sync_ready (only for a relayed terminal)
 *   sync_recv_pid           <-- SYNC_PID --------   sync_report_pid (only with a pid
 *                                                   namespace of the container's: the
 *                                                   process, vforked into it by the
 *                                                   child, reports its own pid first)
 *   spawn_hand_off_listener (only with a seccomp listener)
 *     sync_recv_listener    <-- SYNC_SECCOMP (n) -  sync_send_listener (load_filter)
 *     to the agent;
 *     sync_ack_listener     --- SYNC_SECCOMP_ACK ->
 *   sync_wait_exec          <-- end-of-file -----   it executed the process
 *
 * Both:
 *   sync_send_error (either side) -- SYNC_ERROR msg --> and exits
 *
 * A SYNC_MOUNT_SOURCE anywhere else (exec, or after SYNC_MOUNTS_DONE) is an unexpected
 * message: the step waiting fails with EPROTO.
 *
 * A child that dies shows as end-of-file to the parent.  A child that fails sends
 * SYNC_ERROR and exits: whatever the parent is doing then (sending SYNC_GO, waiting for
 * SYNC_READY), the child's message is what its step reports.
 */
#ifndef OCISBX_SYNC_H
#define OCISBX_SYNC_H

#include <stddef.h>
#include <sys/types.h>

#include "core/error.h"

/* fds[0] for the parent, fds[1] for the child; both O_CLOEXEC. */
int sync_pair (int fds[2], ocisbx_err **err);
/* Report ERR to the other side (best effort). */
void sync_send_error (int sock, const ocisbx_err *err);

/* ---- the child's steps ---- */

/* SYNC_PID: the init is a grandchild (a joined user namespace and a new pid
   namespace): its pid. */
int sync_report_pid (int sock, pid_t pid, ocisbx_err **err);
/* SYNC_GO: the parent has done its part (id maps, oomScoreAdj, cgroups).  *PAYLOAD
   (PAYLOAD may be NULL: dropped): what came with it, malloc'd, or NULL. */
int sync_wait_go (int sock, char **payload, ocisbx_err **err);
/* SYNC_MOUNT_SOURCE both ways: the bind source of the config's mount INDEX (FD: the
   init's copy of it, or -1), opened or idmapped by the runtime.  Returns the fd. */
int sync_ask_mount_source (int sock, size_t index, int fd, ocisbx_err **err);
/* SYNC_MOUNTS_DONE: the rootfs is set up, nothing more to ask (mount_help alone). */
int sync_mounts_done (int sock, ocisbx_err **err);
/* SYNC_HOOKS, then SYNC_HOOKS_DONE: the parent took its createRuntime step (moved the
   linux.netDevices, ran the prestart and createRuntime hooks). */
int sync_run_parent_hooks (int sock, ocisbx_err **err);
/* SYNC_SECCOMP with the listener's fd number (the parent takes it with pidfd_getfd),
   then SYNC_SECCOMP_ACK: handed to the agent. */
int sync_send_listener (int sock, int listener_fd, ocisbx_err **err);
/* SYNC_READY, with the pty master for the parent's relay (or -1). */
int sync_ready (int sock, int master, ocisbx_err **err);

/* ---- the parent's steps ---- */

/* How create's parent serves the requests for bind sources (sync_ask_mount_source) of
   an init in a user namespace: OPEN_SOURCE returns the fd to send back, for the config's
   mount INDEX (CHILD_FD: the child's copy, or -1, closed after the call). */
typedef struct sync_mount_server
{
  int (*open_source) (void *arg, size_t index, int child_fd, ocisbx_err **err);
  void *arg;
} sync_mount_server;

int sync_recv_pid (int sock, pid_t *pid, ocisbx_err **err);
/* PAYLOAD (LEN bytes, may be NULL) goes with it. */
int sync_send_go (int sock, const void *payload, size_t len, ocisbx_err **err);
/* Each SYNC_MOUNT_SOURCE served through MS until SYNC_MOUNTS_DONE. */
int sync_serve_mount_sources (int sock, const sync_mount_server *ms, ocisbx_err **err);
int sync_wait_hooks (int sock, ocisbx_err **err);
int sync_hooks_done (int sock, ocisbx_err **err);
/* *CHILD_FD: the listener's fd number in the child. */
int sync_recv_listener (int sock, int *child_fd, ocisbx_err **err);
int sync_ack_listener (int sock, ocisbx_err **err);
/* *MASTER: the pty master that came with it, or -1. */
int sync_wait_ready (int sock, int *master, ocisbx_err **err);
/* Until the child executed its process (end-of-file: the channel is O_CLOEXEC) or
   failed (its message becomes *err). */
int sync_wait_exec (int sock, ocisbx_err **err);

#endif
