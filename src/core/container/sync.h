/* The channel between the runtime (parent) and the process it spawns (spawn.h): one
 * SOCK_SEQPACKET socketpair, one message per step, each optionally carrying one fd.
 *
 * create (container.c, container_init.c):
 *
 *   parent                                  child (the init)
 *   clone ------------------------------->  (joins namespaces)
 *                 <-- SYNC_PID ----------   (only when it forks the real init)
 *   maps, cgroup  ---- SYNC_GO (state) -->  mounts ...  (received where create_prepare
 *                                           decided: init_go, container_internal.h)
 *                 <-- SYNC_MOUNT_SOURCE -   (in a user namespace: a bind source it cannot
 *   opens, idmaps ---- SYNC_MOUNT_SOURCE ->  open, or one to idmap; any number of times)
 *                 <-- SYNC_HOOKS --------   (only with prestart/createRuntime hooks)
 *   hooks         ---- SYNC_HOOKS_DONE -->  createContainer hooks, pivot_root, ...
 *                 <-- SYNC_SECCOMP (n) --   (only with a seccomp listener: filter_early)
 *   listener      ---- SYNC_SECCOMP_ACK ->
 *                 <-- SYNC_READY [pty] --   process set-up done; waits on the fifo
 *                 <-- end-of-file -------   `run` only: it executed the process
 *
 * exec (exec.c, exec_child.c):
 *
 *   clone ------------------------------->  (in the container's pid namespace)
 *   cgroup        ---- SYNC_GO ---------->  (only when the clone could not place it in
 *                                           the cgroup: the parent does)
 *                 <-- SYNC_READY pty ----   (only for a relayed terminal)
 *                 <-- SYNC_SECCOMP (n) --   (only with a seccomp listener)
 *   listener      ---- SYNC_SECCOMP_ACK ->
 *                 <-- end-of-file -------   it executed the process
 *
 * Both:
 *   either side   <-- SYNC_ERROR msg -->    and exits
 *
 * A child that dies shows as end-of-file to the parent.  A child that fails sends
 * SYNC_ERROR and exits: whatever the parent is doing then (sending SYNC_GO, waiting for
 * SYNC_READY), the child's message is what it reports.
 */
#ifndef OCISBX_SYNC_H
#define OCISBX_SYNC_H

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

typedef enum sync_type
{
  SYNC_PID = 1, /* the init is a grandchild (joined user ns + new pid ns): its pid */
  SYNC_GO,
  SYNC_HOOKS,
  SYNC_HOOKS_DONE,
  SYNC_SECCOMP,
  SYNC_SECCOMP_ACK,
  SYNC_READY,
  SYNC_ERROR,
  SYNC_MOUNT_SOURCE, /* value: the config mount's index; fd: the source, both ways */
} sync_type;

/* Largest payload (an error message, the state JSON for the child's hooks). */
#define SYNC_MAX_PAYLOAD (64 * 1024)

typedef struct sync_msg
{
  uint32_t type;
  int32_t errnum;  /* SYNC_ERROR */
  int32_t value;   /* SYNC_PID: a pid; SYNC_SECCOMP: the listener's fd number */
  uint32_t len;    /* of the payload */
  int fd;          /* received with the message, or -1 */
  char *payload;   /* malloc'd, NUL-terminated, or NULL */
} sync_msg;

/* fds[0] for the parent, fds[1] for the child; both O_CLOEXEC. */
int sync_pair (int fds[2], ocisbx_err **err);
/* Send one message; FD >= 0 goes along with SCM_RIGHTS.  When the send fails and the
   peer left a SYNC_ERROR in our queue (it failed, then went), *err is the peer's
   message, as for sync_recv. */
int sync_send (int sock, sync_type type, int32_t value, const void *payload, size_t len, int fd,
               ocisbx_err **err);
/* Report ERR to the other side (best effort). */
void sync_send_error (int sock, const ocisbx_err *err);
/* Receive one message of type WANT.  A SYNC_ERROR becomes *err (the peer's message),
   also when the receive itself fails first (ECONNRESET: the peer exited with a message
   of ours unread, its error queued behind); end-of-file becomes "waiting for WANT: the
   other side exited" with errnum EPIPE. */
int sync_recv (int sock, sync_type want, sync_msg *msg, ocisbx_err **err);
/* The same for a message of type WANT or ALSO (msg->type says which). */
int sync_recv_either (int sock, sync_type want, sync_type also, sync_msg *msg, ocisbx_err **err);
void sync_msg_clear (sync_msg *msg);

#endif
