/* A process the runtime waits for in the foreground (`run`, `exec`): the signals it
   forwards, the wait loop that forwards them and relays a pty, the exit code it reports,
   and the --pid-file it writes.  One implementation for both commands. */
#ifndef OCISBX_FOREGROUND_H
#define OCISBX_FOREGROUND_H

#include <signal.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/process/terminal.h"

/* The signals forwarded to the process (SIGWINCH resizes a relayed pty instead), plus
   SIGCHLD and SIGPIPE: block them before the process exists so none is lost. */
void foreground_signal_set (sigset_t *set);

/* Block SET (from foreground_signal_set) and catch the forwarded signals the caller
   ignored (nohup, a shell's background job): blocked, they queue for the signalfd, so
   they reach the process as with runc.  *OLD gets the mask, *UNIGNORED those signals. */
void foreground_block (const sigset_t *set, sigset_t *old, sigset_t *unignored);

/* Undo foreground_block: UNIGNORED ignored again (any of them pending is dropped), then
   the mask OLD. */
void foreground_unblock (const sigset_t *old, const sigset_t *unignored);

/* Wait for PID (PIDFD, or -1 to poll on SIGCHLD), forwarding signals, relaying RELAY
   (may be NULL) and passing READY=1 from the notify socket NOTIFY_FD (-1: none) on to
   NOTIFY_SOCKET (notify.h).  Returns the wait status (>= 0), or -1 with *err. */
int foreground_wait (pid_t pid, int pidfd, terminal_relay *relay, int notify_fd, const sigset_t *set,
                     ocisbx_err **err);

/* The shell's convention: the exit code, 128+N for signal N, else FALLBACK. */
int foreground_exit_code (int status, int fallback);

/* Write PID to PATH atomically (tmp + rename); nothing when PATH is NULL. */
int foreground_write_pid_file (const char *path, pid_t pid, ocisbx_err **err);

#endif
