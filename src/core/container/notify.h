/* sd_notify through the container (NOTIFY_SOCKET in the runtime's environment: a
   Type=notify unit, conmon or podman passing theirs on).  The layout is runc's: the
   container gets the state dir's notify/ bound read-only at /run/notify and
   NOTIFY_SOCKET=/run/notify/notify.sock; `start` (and `run`) listen on
   STATE/notify/notify.sock from before the process runs and, as crun does, pass the
   container's READY=1 on to the caller's socket, returning once it came (or the
   container's init is gone). */
#ifndef OCISBX_NOTIFY_H
#define OCISBX_NOTIFY_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

#define NOTIFY_DIR "notify"                   /* in the state dir */
#define NOTIFY_CONTAINER_DIR "/run/notify"    /* where the container sees it */
#define NOTIFY_SOCKET_NAME "notify.sock"

/* The caller's NOTIFY_SOCKET, or NULL when it is unset or empty. */
const char *notify_host_socket (void);

/* create: the mount of STATE_DIR/notify at /run/notify appended to CFG's mounts and
   NOTIFY_SOCKET in its process environment replaced by the container's path.  Only the
   in-memory config changes. */
void notify_config (oci_config *cfg, const char *state_dir);

/* create: STATE_DIRFD/notify made (0755: the container's users, mapped or not, reach
   the socket in it through the bind mount). */
int notify_dir_create (int state_dirfd, ocisbx_err **err);

/* Does the container have the notify dir (was it created with NOTIFY_SOCKET)? */
bool notify_dir_exists (int state_dirfd);

/* The listening socket STATE_DIRFD/notify/notify.sock (a stale one replaced), mode 0777,
   O_CLOEXEC|O_NONBLOCK. */
int notify_listen (int state_dirfd, ocisbx_err **err);

/* Reads what is queued on FD; when a message has a READY=1 line, sends READY=1 to HOST
   and returns 1; 0 otherwise.  A HOST that cannot be reached is a warning. */
int notify_forward (int fd, const char *host);

/* Forwards from FD until READY=1 came (1) or the init PID (PIDFD, or -1 to poll PID)
   ended (0). */
int notify_wait_ready (int fd, const char *host, pid_t pid, int pidfd, ocisbx_err **err);

#endif
