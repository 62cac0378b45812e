/* run: create + start + wait, forwarding signals (and relaying a pty), then delete. */
#include <config.h>
#include "core/container/container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/process/foreground.h"
#include "core/container/hooks.h"
#include "core/log.h"
#include "core/container/notify.h"
#include "core/process/terminal.h"
#include "core/container/sync.h"
#include "core/utils.h"

/* PID: the init's, which we reaped (c->sp.pid is 0 by then). */
static int
delete_after_run (create_ctx *c, pid_t pid, ocisbx_err **err)
{
  cleanup_close int dirfd = state_dir_open (c->rootfd, c->o->id, LOCK_EX, err);
  cleanup_cgroup_state cgroup_state *cg = NULL;
  container_state st;
  struct stat now;

  c->deleted = true;
  /* Deleted meanwhile (delete --force, as an engine's clean-up does), and maybe the id
     taken again: nothing of ours is left to delete (runc is quiet too). */
  if (dirfd < 0 && (*err)->errnum == ENOENT)
    {
      err_freep (err);
      return 0;
    }
  if (dirfd < 0)
    return -1;
  if (fstat (dirfd, &now) < 0 || now.st_ino != c->dir_ino || now.st_dev != c->dir_dev)
    return 0;
  create_ctx_state (c, &st, &cg); /* what state.json holds: nothing rewrites it */
  st.pid = pid;
  {
    /* a handle on what is in memory: the fds and the state stay ours */
    container_handle h = { .id = c->o->id, .rootfd = c->rootfd, .dirfd = dirfd, .st = &st };
    int r = container_delete_at (&h, true, err);
    cgroup_manager_free (h.cg);
    return r;
  }
}

/* The init runs the process as soon as it is ready (start_now): no exec fifo to open.
   Its end of the sync channel closes when it executed the process; its error (a
   startContainer hook, the execve) comes there instead.  Then the poststart hooks: the
   first failing one is run's error, and the container goes (runtime-spec 1.3). */
static int
run_poststart (create_ctx *c, ocisbx_err **err)
{
  const oci_hooks *h = c->cfg->hooks;
  cleanup_free char *doc = NULL;

  if (sync_wait_exec (c->sp.sync_parent, err) < 0)
    return -1;
  if (h == NULL || h->poststart_len == 0)
    return 0;
  doc = create_state_json (c, STATUS_RUNNING);
  return hooks_run (h->poststart, h->poststart_len, doc, "poststart", NULL, err);
}

/* The created container, running: wait for it (unless detached). */
static int
start_and_wait (create_ctx *c, const sigset_t *set, int *exit_code, ocisbx_err **err)
{
  int r = 0;

  if (spawn_relay_start (&c->sp, err) < 0)
    return -1;
  if (run_poststart (c, err) < 0)
    {
      spawn_relay_finish (&c->sp);
      return -1;
    }
  if (c->o->detach)
    {
      *exit_code = 0;
      /* NOTIFY_SOCKET: run -d returns once the container said READY=1 (or ended) */
      if (c->notify_fd >= 0)
        r = notify_wait_ready (c->notify_fd, notify_host_socket (), c->sp.pid, c->sp.pidfd, err);
    }
  else
    r = spawn_wait (&c->sp, c->notify_fd, set, err);
  spawn_relay_finish (&c->sp);
  if (r < 0 || c->o->detach)
    return r < 0 ? -1 : 0;
  *exit_code = foreground_exit_code (r, 255);
  return 0;
}

/* ---- a foreground run killed ---- */

/* `run` in the foreground owns its container: killed, even with SIGKILL, it leaves
   nothing behind.  The init dies with us (its parent-death signal); the rest (cgroups,
   poststop hooks, the state dir, our terminal's mode) is a watcher's, forked once the
   container runs.  It waits on a pipe whose other end only we hold: a byte from us
   means we are done; an end of file without one means we died, and it does what we
   would have done. */
static pid_t
watcher_start (create_ctx *c, pid_t pid, int *done)
{
  int p[2];
  pid_t w;
  char b;
  ssize_t n;
  sigset_t all;

  *done = -1;
  if (pipe2 (p, O_CLOEXEC) < 0)
    return -1;
  w = fork ();
  if (w != 0)
    {
      close (p[0]);
      if (w > 0)
        *done = p[1];
      else
        close (p[1]);
      return w;
    }
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, &all, NULL);
  close (p[1]);
  do
    n = read (p[0], &b, 1);
  while (n < 0 && errno == EINTR);
  if (n == 0)
    {
      cleanup_err ocisbx_err *e = NULL;
      terminal_relay_restore (&c->sp.tty);
      if (delete_after_run (c, pid, &e) < 0)
        log_warning ("run: the container of a killed run: %s", e->msg);
    }
  _exit (0);
}

/* Nothing is left for the watcher to do: it exits while we go on. */
static void
watcher_release (int *done)
{
  if (*done < 0)
    return;
  write_all (*done, "x", 1);
  close (*done);
  *done = -1;
}

static void
watcher_stop (pid_t w, int *done)
{
  if (w <= 0)
    return;
  watcher_release (done);
  while (waitpid (w, NULL, 0) < 0 && errno == EINTR)
    ;
}

int
container_run (const container_opts *o, int *exit_code, ocisbx_err **err)
{
  create_ctx c;
  sigset_t set, old, unignored;
  caller_signals caller;
  bool foreground = !o->detach;
  pid_t pid, watcher = -1;
  int r, done = -1;

  *exit_code = 1;
  create_ctx_init (&c);
  foreground_signal_set (&set);
  /* Signals for the container queue up from now on, and are forwarded once it runs. */
  if (foreground)
    foreground_block (&set, &old, &unignored);
  c.init.start_now = true;
  r = create_prepare (&c, o, foreground, err);
  if (r == 0)
    {
      if (foreground)
        {
          c.init.proc.sigmask = old; /* the container process gets the caller's mask */
          caller = (caller_signals){ .mask = old, .ignored = unignored };
          c.caller = &caller;
        }
      r = create_run_pipeline (&c, err);
    }
  if (r == 0)
    {
      /* Other commands may lock the container from now on (a delete --force ...). */
      close (c.lockfd);
      c.lockfd = -1;
      pid = c.sp.pid;
      if (foreground && !o->keep)
        watcher = watcher_start (&c, pid, &done);
      r = start_and_wait (&c, &set, exit_code, err);
      if (r == 0 && foreground && !o->keep)
        r = delete_after_run (&c, pid, err);
      if (r == 0)
        watcher_release (&done);
      else if (r < 0)
        *exit_code = 1;
    }
  /* A failure takes the whole container down. */
  create_ctx_cleanup (&c, r < 0);
  watcher_stop (watcher, &done);
  if (foreground)
    foreground_unblock (&old, &unignored);
  return r;
}
