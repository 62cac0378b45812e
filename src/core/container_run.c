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

#include "foreground.h"
#include "log.h"
#include "terminal.h"
#include "utils.h"

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
        {
          r = foreground_wait (c->pid, c->pidfd, c->master >= 0 ? &relay : NULL, set, err);
          if (r >= 0)
            c->pid = 0; /* reaped: nothing to kill any more */
        }
    }
  if (c->master >= 0)
    terminal_relay_finish (&relay);
  if (r < 0 || c->o->detach)
    return r < 0 ? -1 : 0;
  *exit_code = foreground_exit_code (r, 255);
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
  foreground_signal_set (&set);
  /* Signals for the container queue up from now on, and are forwarded once it runs. */
  if (foreground)
    sigprocmask (SIG_BLOCK, &set, &old);
  r = create_prepare (&c, o, foreground, err);
  if (r == 0)
    {
      if (foreground)
        {
          c.proc.sigmask = old; /* the container process gets the caller's mask */
          c.caller_mask = &old;
        }
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
