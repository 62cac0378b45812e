/* process.terminal: a pty for the container process.
 *
 * The pty comes from the container's own devpts: the init opens /dev/ptmx after
 * pivot_root (after rootfs_setup mounted /dev/pts), binds the slave at /dev/console
 * (devices_setup_console), makes it its controlling terminal and stdio.  So `tty` in
 * the container says /dev/pts/0, and the host's devpts is never used.  The master goes
 *   - with --console-socket: over that socket (connected by the parent before the
 *     clone), as one SCM_RIGHTS message whose payload is the slave's name, the
 *     protocol of runc's recvtty and conmon;
 *   - else (`run` in the foreground, `exec -t`): to the parent over the sync channel,
 *     which relays it to its own stdio: raw mode on the caller's terminal, output
 *     processing included (set before the clone, restored on exit, by run's watcher
 *     too when run is killed), so the bytes the pty's line discipline made (its ONLCR
 *     turned "\n" into "\r\n") reach the caller's terminal unchanged, as through
 *     ssh or script(1); the child gives the pty the caller's window size when
 *     it makes it (the process may start before the parent has the master), the parent
 *     copies it again on SIGWINCH.
 */
#ifndef OCISBX_TERMINAL_H
#define OCISBX_TERMINAL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <termios.h>

#include "core/error.h"

/* Parent: connect to the --console-socket (a unix stream socket). */
int terminal_connect_socket (const char *path, ocisbx_err **err);

/* Child, after pivot_root: a new pty from /dev/ptmx; *NAME is the slave's path. */
int terminal_open_pty (int *master, int *slave, char *name, size_t name_len, ocisbx_err **err);
/* Send FD over the unix socket SOCK with NAME as the message. */
int terminal_send_fd (int sock, int fd, const char *name, ocisbx_err **err);
/* Child: the pty's first size (process_plan's tty_size). */
int terminal_set_size (int fd, const struct winsize *ws, ocisbx_err **err);
/* Parent: the size of the caller's terminal (stdin's, else stdout's); false when neither
   is one. */
bool terminal_caller_size (struct winsize *ws);
/* Child, as root, before the process's user is taken: the slave becomes UID's, as if
   the process had opened it (the group GID unless devpts gives its own, gid=5).  Its
   modes stay the kernel's (ONLCR: a line ends in "\r\n"), relayed or sent over a
   console socket alike, as runc leaves a console socket's: the process sees the
   terminal a login would give it, and an engine's log the bytes it always had. */
int terminal_prepare_slave (int slave, uid_t uid, gid_t gid, ocisbx_err **err);
/* Child, a session leader (spawn_child_enter): SLAVE as fds 0, 1, 2 and, with CTTY, as
   controlling terminal (an exec tree's leader takes it itself: src/dmz/tree.h). */
int terminal_make_stdio (int slave, bool ctty, ocisbx_err **err);

/* Parent (`run`, `exec -t` without a console socket): relay between our stdio and the
   pty master. */
typedef struct terminal_relay
{
  int master;           /* -1 until the pty exists */
  bool in_open;         /* still reading our stdin */
  bool out_open;        /* still reading the master */
  bool in_tty;          /* our stdin is a terminal */
  bool raw;             /* ... put into raw mode: restored by terminal_relay_finish */
  bool sent, sent_nl;   /* bytes went to the pty; the last one was a newline */
  size_t n_pending;     /* typed before raw mode, for the pty */
  char pending[4096];
  struct termios saved;
} terminal_relay;

/* Before the process exists (before the clone; after any re-exec): when stdin is a
   terminal, raw mode.  The line discipline may already hold complete lines and an end of file (which
   raw mode would turn into a NUL byte): they are read first and kept for the pty, an
   end of file as the terminal's EOF character. */
void terminal_relay_prepare (terminal_relay *r);
/* The pty is there: what was kept goes to MASTER, and our size again (a resize since
   the child sized it came as a SIGWINCH, which comes to terminal_relay_resize too). */
int terminal_relay_start (terminal_relay *r, int master, ocisbx_err **err);
/* Copy our terminal's window size to the pty (on SIGWINCH). */
void terminal_relay_resize (terminal_relay *r);
/* Copy what is available: stdin -> master, master -> stdout.  At the end of a stdin
   that is not a terminal the program reads an end of file: the pty's EOF character
   (twice after a line without its newline). */
void terminal_relay_from_stdin (terminal_relay *r);
void terminal_relay_from_master (terminal_relay *r);
/* Everything left on the master (the process exited), then our terminal restored. */
void terminal_relay_finish (terminal_relay *r);
/* Our terminal as it was (idempotent): failure paths, and run's watcher. */
void terminal_relay_restore (terminal_relay *r);

#endif
