#include <config.h>
#include "core/process/foreground.h"
#include "core/container/notify.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/utils.h"

static const int forwarded[] = {
  SIGHUP,  SIGINT,  SIGQUIT, SIGUSR1, SIGUSR2,   SIGALRM, SIGTERM,  SIGCONT, SIGTSTP, SIGTTIN,
  SIGTTOU, SIGURG,  SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGWINCH, SIGIO,   SIGPWR,  SIGSYS,
};

void
foreground_signal_set (sigset_t *set)
{
  sigemptyset (set);
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
    sigaddset (set, forwarded[i]);
  sigaddset (set, SIGCHLD);
  sigaddset (set, SIGPIPE); /* a closed stdout: EPIPE for the relay, never forwarded */
}

void
foreground_block (const sigset_t *set, sigset_t *old, sigset_t *unignored)
{
  struct sigaction sa;

  sigprocmask (SIG_BLOCK, set, old);
  sigemptyset (unignored);
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
    if (sigaction (forwarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
      {
        sa.sa_handler = SIG_DFL;
        if (sigaction (forwarded[i], &sa, NULL) == 0)
          sigaddset (unignored, forwarded[i]);
      }
}

void
foreground_unblock (const sigset_t *old, const sigset_t *unignored)
{
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember (unignored, sig) == 1)
      signal (sig, SIG_IGN);
  sigprocmask (SIG_SETMASK, old, NULL);
}

static void
forward_pending (pid_t pid, int pidfd, int sfd, terminal_relay *relay)
{
  struct signalfd_siginfo si;

  while (read (sfd, &si, sizeof si) == sizeof si)
    {
      int sig = (int) si.ssi_signo;
      if (sig == SIGCHLD || sig == SIGPIPE)
        continue;
      if (sig == SIGWINCH && relay)
        terminal_relay_resize (relay);
      else if (pidfd < 0 || (syscall (SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0 && errno != ESRCH))
        kill (pid, sig);
    }
}

int
foreground_wait (pid_t pid, int pidfd, terminal_relay *relay, int notify_fd, const sigset_t *set,
                 ocisbx_err **err)
{
  cleanup_close int sfd = signalfd (-1, set, SFD_CLOEXEC | SFD_NONBLOCK);

  if (sfd < 0)
    return err_set (err, errno, "signalfd");
  for (;;)
    {
      struct pollfd p[5];
      nfds_t n = 0;
      int i_pid = -1, i_in = -1, i_master = -1, i_notify = -1, status = 0;
      pid_t r;

      p[n++] = (struct pollfd){ sfd, POLLIN, 0 };
      if (pidfd >= 0)
        {
          i_pid = n;
          p[n++] = (struct pollfd){ pidfd, POLLIN, 0 };
        }
      if (relay && relay->in_open)
        {
          i_in = n;
          p[n++] = (struct pollfd){ STDIN_FILENO, POLLIN, 0 };
        }
      if (relay && relay->out_open)
        {
          i_master = n;
          p[n++] = (struct pollfd){ relay->master, POLLIN, 0 };
        }
      if (notify_fd >= 0)
        {
          i_notify = n;
          p[n++] = (struct pollfd){ notify_fd, POLLIN, 0 };
        }
      if (poll (p, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return err_set (err, errno, "poll");
        }
      if (p[0].revents & POLLIN)
        forward_pending (pid, pidfd, sfd, relay);
      if (i_in >= 0 && p[i_in].revents)
        terminal_relay_from_stdin (relay);
      if (i_master >= 0 && p[i_master].revents)
        terminal_relay_from_master (relay);
      if (i_notify >= 0 && p[i_notify].revents && notify_forward (notify_fd, notify_host_socket ()))
        notify_fd = -1; /* READY=1 passed on: nothing more to forward */
      /* without a pidfd: on every wakeup, SIGCHLD included */
      if (i_pid < 0 || (p[i_pid].revents & POLLIN))
        {
          r = waitpid (pid, &status, WNOHANG);
          if (r == pid)
            return status;
          if (r < 0 && errno != EINTR)
            return err_set (err, errno, "waitpid");
        }
    }
}

int
foreground_exit_code (int status, int fallback)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return fallback;
}

int
foreground_write_pid_file (const char *path, pid_t pid, ocisbx_err **err)
{
  char buf[32];
  int n;

  if (path == NULL)
    return 0;
  n = snprintf (buf, sizeof buf, "%d", (int) pid);
  if (write_file_atomic_at (AT_FDCWD, path, buf, n, 0644, err) < 0)
    return err_wrap (err, "--pid-file");
  return 0;
}
