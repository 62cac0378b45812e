/* run: create + start + wait, forwarding signals (and relaying a pty), then delete. */
#include <config.h>
#include "container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "terminal.h"
#include "utils.h"

/* What `run` forwards to the container's init (SIGWINCH resizes a relayed pty). */
static const int forwarded[] = {
  SIGHUP, SIGINT,  SIGQUIT,   SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGCONT, SIGTSTP, SIGTTIN,
  SIGTTOU, SIGURG, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGWINCH, SIGIO, SIGPWR, SIGSYS,
};

static void
signal_set (sigset_t *set)
{
  sigemptyset (set);
  for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
    sigaddset (set, forwarded[i]);
  sigaddset (set, SIGCHLD);
  sigaddset (set, SIGPIPE); /* a closed stdout: EPIPE for the relay, never forwarded */
}

static int
exit_code_of (int status)
{
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  if (WIFSIGNALED (status))
    return 128 + WTERMSIG (status);
  return 255;
}

static void
forward (const create_ctx *c, int sig)
{
  if (syscall (SYS_pidfd_send_signal, c->pidfd, sig, NULL, 0) < 0 && errno != ESRCH)
    kill (c->pid, sig);
}

/* Until the init exits; returns its wait status. */
static int
wait_loop (create_ctx *c, terminal_relay *relay, const sigset_t *set, ocisbx_err **err)
{
  cleanup_close int sfd = signalfd (-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
  int status = 0;

  if (sfd < 0)
    return err_set (err, errno, "signalfd");
  for (;;)
    {
      struct pollfd p[4];
      nfds_t n = 0;
      int i_in = -1, i_master = -1;
      pid_t r;

      p[n++] = (struct pollfd){ sfd, POLLIN, 0 };
      p[n++] = (struct pollfd){ c->pidfd, POLLIN, 0 };
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
      if (poll (p, n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          return err_set (err, errno, "poll");
        }
      if (p[0].revents & POLLIN)
        {
          struct signalfd_siginfo si;
          while (read (sfd, &si, sizeof si) == sizeof si)
            {
              if (si.ssi_signo == SIGCHLD || si.ssi_signo == SIGPIPE)
                continue;
              if (si.ssi_signo == SIGWINCH && relay)
                terminal_relay_resize (relay);
              else
                forward (c, si.ssi_signo);
            }
        }
      if (i_in >= 0 && p[i_in].revents)
        terminal_relay_from_stdin (relay);
      if (i_master >= 0 && p[i_master].revents)
        terminal_relay_from_master (relay);
      if (p[1].revents & POLLIN)
        {
          r = waitpid (c->pid, &status, WNOHANG);
          if (r == c->pid)
            {
              c->pid = 0; /* reaped: nothing to kill any more */
              return status;
            }
          if (r < 0 && errno != EINTR)
            return err_set (err, errno, "waitpid");
        }
    }
}

static int
delete_after_run (create_ctx *c, ocisbx_err **err)
{
  cleanup_close int dirfd = state_dir_open (c->rootfd, c->o->id, LOCK_EX, err);
  container_state *st = NULL;
  int r;

  if (dirfd < 0 || state_read (dirfd, c->o->id, &st, err) < 0)
    return -1;
  r = container_delete_at (c->rootfd, dirfd, c->o->id, st, true, err);
  container_state_free (st);
  return r;
}

/* The created container: start it, wait for it (unless detached). */
static int
start_and_wait (create_ctx *c, const sigset_t *set, int *exit_code, ocisbx_err **err)
{
  cleanup_state container_state *st = NULL;
  terminal_relay relay;
  int r;

  if (c->master >= 0)
    {
      terminal_relay_init (&relay, c->master);
      if (terminal_relay_start (&relay, err) < 0)
        return -1;
    }
  r = state_read (c->dirfd, c->o->id, &st, err);
  if (r == 0)
    r = container_start_at (c->dirfd, st, err);
  if (r == 0)
    {
      container_poststart (st);
      if (c->o->detach)
        *exit_code = 0;
      else
        r = wait_loop (c, c->master >= 0 ? &relay : NULL, set, err);
    }
  if (c->master >= 0)
    terminal_relay_finish (&relay);
  if (r < 0 || c->o->detach)
    return r < 0 ? -1 : 0;
  *exit_code = exit_code_of (r);
  return 0;
}

int
container_run (const container_opts *o, int *exit_code, ocisbx_err **err)
{
  create_ctx c;
  sigset_t set, old;
  bool foreground = !o->detach;
  int r;

  *exit_code = 1;
  create_ctx_init (&c);
  signal_set (&set);
  /* Signals for the container queue up from now on, and are forwarded once it runs. */
  if (foreground)
    sigprocmask (SIG_BLOCK, &set, &old);
  r = create_prepare (&c, o, foreground, err);
  if (r == 0)
    {
      if (foreground)
        c.proc.sigmask = old; /* the container process gets the caller's mask */
      r = create_run_pipeline (&c, err);
    }
  if (r == 0)
    {
      /* Other commands may lock the container from now on (a delete --force ...). */
      close (c.lockfd);
      c.lockfd = -1;
      r = start_and_wait (&c, &set, exit_code, err);
      if (r == 0 && foreground && !o->keep)
        r = delete_after_run (&c, err);
      else if (r < 0)
        *exit_code = 1;
    }
  /* A failure takes the whole container down. */
  create_ctx_cleanup (&c, r < 0);
  if (foreground)
    sigprocmask (SIG_SETMASK, &old, NULL);
  return r;
}
