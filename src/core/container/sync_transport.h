/* The sync channel's messages (sync.h), for the sync files alone: sync_steps.c and its
   unit test.  Everyone else takes a step of the protocol through sync.h. */
#ifndef OCISBX_SYNC_TRANSPORT_H
#define OCISBX_SYNC_TRANSPORT_H

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
  SYNC_MOUNTS_DONE,  /* the init's rootfs set-up is over: no more SYNC_MOUNT_SOURCE */
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

/* Send one message; FD >= 0 goes along with SCM_RIGHTS.  When the send fails and the
   peer left a SYNC_ERROR in our queue (it failed, then went), *err is the peer's
   message, as for sync_recv. */
int sync_send (int sock, sync_type type, int32_t value, const void *payload, size_t len, int fd,
               ocisbx_err **err);
/* Receive one message of type WANT.  A SYNC_ERROR becomes *err (the peer's message),
   also when the receive itself fails first (ECONNRESET: the peer exited with a message
   of ours unread, its error queued behind); end-of-file becomes "waiting for WANT: the
   other side exited" with errnum EPIPE. */
int sync_recv (int sock, sync_type want, sync_msg *msg, ocisbx_err **err);
/* The same for a message of type WANT or ALSO (msg->type says which). */
int sync_recv_either (int sock, sync_type want, sync_type also, sync_msg *msg, ocisbx_err **err);
void sync_msg_clear (sync_msg *msg);

#endif
