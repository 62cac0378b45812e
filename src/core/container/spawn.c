/* Spawning a container process, the parent's half (spawn.h). */
#include <config.h>
#include "core/container/spawn.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/container/state_store.h"
#include "core/container/sync.h"
#include "core/ns/namespaces.h"
#include "core/process/dmz_stub.h"
#include "core/process/foreground.h"
#include "core/utils.h"

void
spawn_init (spawn_ctx *s)
{
  memset (s, 0, sizeof *s);
  s->sync_parent = s->sync_child = s->console_sock = s->pidfd = s->master = -1;
}

void
spawn_free (spawn_ctx *s, bool kill)
{
  if (kill)
    spawn_kill (s);
  close_fd (&s->sync_parent);
  close_fd (&s->sync_child);
  close_fd (&s->console_sock);
  close_fd (&s->pidfd);
  terminal_relay_restore (&s->tty);
  close_fd (&s->master);
}

int
spawn_check_terminal (spawn_ctx *s, spawn_kind kind, process_plan *p, const char *console_socket, bool detached,
                      ocisbx_err **err)
{
  if (!p->terminal)
    {
      if (console_socket == NULL)
        return 0;
      return err_setk (err, ERR_USAGE, 0,
                       kind == SPAWN_EXEC ? "--console-socket given without a terminal (--tty)"
                                          : "--console-socket given but process.terminal is false");
    }
  if (console_socket == NULL && detached)
    return err_set (err, 0, kind == SPAWN_EXEC ? "exec: a terminal for a detached process needs --console-socket"
                                               : "process.terminal is true but there is no --console-socket to "
                                                 "send the terminal to (the container would have no terminal)");
  s->relay = console_socket == NULL;
  /* the process starts at once: its pty has our size from the first */
  if (s->relay)
    p->has_tty_size |= terminal_caller_size (&p->tty_size);
  return 0;
}

int
spawn_protect_exec (spawn_kind kind, const oci_seccomp *sc, const char *root, bool sealed, seccomp_prog **prog,
                    process_plan *p, const caller_signals *caller, ocisbx_err **err)
{
  if (sc)
    {
      cleanup_free char *cache = xasprintf ("%s/seccomp-cache", root ? root : STATE_ROOT_DEFAULT);
      if (seccomp_prepare (sc, cache, prog, err) < 0)
        return err_wrap (err, "config.json: .linux.seccomp");
    }
  p->seccomp = *prog;
  /* A listener's fd goes through the parent, and create's is there only until
     SYNC_READY: the init loads such a filter early (process_final.c).  Exec's parent
     waits until the process runs. */
  p->filter_early = kind == SPAWN_CREATE && *prog && seccomp_prog_has_listener (*prog);
  return dmz_prepare (p, *prog, sealed, caller, err);
}

int
spawn_open (spawn_ctx *s, const char *console_socket, ocisbx_err **err)
{
  int fds[2];

  if (console_socket)
    {
      s->console_sock = terminal_connect_socket (console_socket, err);
      if (s->console_sock < 0)
        return -1;
    }
  /* the caller's terminal: its size for the pty before the process starts, raw mode */
  if (s->relay)
    terminal_relay_prepare (&s->tty);
  if (sync_pair (fds, err) < 0)
    return -1;
  s->sync_parent = fds[0];
  s->sync_child = fds[1];
  return 0;
}

int
spawn_nondumpable (ocisbx_err **err)
{
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return err_set (err, errno, "prctl PR_SET_DUMPABLE");
  return 0;
}

/* execCPUAffinity.initial holds from before the transition into the container's
   cgroups (runtime-spec), and the clone may make the child there (CLONE_INTO_CGROUP):
   so the child is born with it, ours for the clone.  Our own affinity, to restore, or
   NULL when there is nothing to do or it cannot be done (the child then has ours,
   as it would from a sched_setaffinity of its own that failed). */
static cpu_set_t *
borrow_initial_affinity (const process_plan *p)
{
  cpu_set_t *mine;

  if (p->cpu_initial == NULL)
    return NULL;
  mine = CPU_ALLOC (CPU_SETSIZE);
  if (mine == NULL)
    return NULL;
  if (sched_getaffinity (0, CPU_ALLOC_SIZE (CPU_SETSIZE), mine) < 0
      || sched_setaffinity (0, p->cpuset_size, p->cpu_initial) < 0)
    {
      CPU_FREE (mine);
      return NULL;
    }
  return mine;
}

static void
restore_affinity (cpu_set_t *mine)
{
  if (mine == NULL)
    return;
  sched_setaffinity (0, CPU_ALLOC_SIZE (CPU_SETSIZE), mine);
  CPU_FREE (mine);
}

pid_t
spawn_clone (spawn_ctx *s, int flags, cgroup_join *cgj, const process_plan *p, ocisbx_err **err)
{
  cpu_set_t *mine = borrow_initial_affinity (p);
  pid_t pid = ns_clone (flags, cgj->usable ? cgj->v2_dir : -1, &s->pidfd, err);

  if (pid < 0 && cgj->usable && cgj->v2_dir >= 0)
    {
      /* no CLONE_INTO_CGROUP here (or the cgroup refused): the parent joins the child */
      err_freep (err);
      cgroup_join_close (cgj);
      cgj->usable = false;
      pid = ns_clone (flags, -1, &s->pidfd, err);
    }
  restore_affinity (mine);
  if (pid > 0)
    s->pid = pid;
  return pid;
}

int
spawn_hand_off_listener (spawn_ctx *s, const oci_seccomp *sc, const char *state, ocisbx_err **err)
{
  cleanup_close int nfd = -1;
  int child_fd;

  if (sync_recv_listener (s->sync_parent, &child_fd, err) < 0)
    return -1;
  nfd = seccomp_fetch_listener_fd (s->pid, child_fd, err);
  if (nfd < 0)
    return -1;
  if (seccomp_send_listener_pid (sc, nfd, s->pid, state, err) < 0)
    return -1;
  return sync_ack_listener (s->sync_parent, err);
}

void
spawn_kill (spawn_ctx *s)
{
  if (s->pid <= 0)
    return;
  if (s->pidfd < 0 || syscall (SYS_pidfd_send_signal, s->pidfd, SIGKILL, NULL, 0) < 0)
    kill (s->pid, SIGKILL);
  while (waitpid (s->pid, NULL, 0) < 0 && errno == EINTR)
    ;
  s->pid = 0;
}

void
spawn_child_plan (const spawn_ctx *s, const process_plan *p, const cgroup_join *cgj, int root_fd, int dir_fd,
                  int keep_fds, child_plan *cp)
{
  *cp = (child_plan) {
    .proc = p,
    .cgj = cgj,
    .sync = s->sync_child,
    .console_sock = s->console_sock,
    .relay = s->relay,
    .parent_fds = { root_fd, dir_fd, s->sync_parent },
    .keep_fds = keep_fds,
  };
}

int
spawn_child_enter (const child_plan *cp, process_run *run, ocisbx_err **err)
{
  /* a runtime that dies while we are set up takes us along (process_setup arms it
     again after the uid change) */
  if (cp->proc->pdeathsig)
    prctl (PR_SET_PDEATHSIG, cp->proc->pdeathsig);
  /* the lock of the state dir would otherwise be held until execve */
  for (size_t i = 0; i < sizeof cp->parent_fds / sizeof cp->parent_fds[0]; i++)
    if (cp->parent_fds[i] >= 0)
      close (cp->parent_fds[i]);
  /* execCPUAffinity.initial: born with it (spawn_clone) */
  if (cp->cgj->usable && cgroup_join_self (cp->cgj, &run->memcg_home, &run->memcg, err) < 0)
    return -1;
  /* as runc: a session of its own, whose leader makes a pty its controlling terminal
     (process_setup) */
  if (setsid () < 0)
    return err_set (err, errno, "setsid");
  return 0;
}

int
spawn_child_pty (const child_plan *cp, int *master, int *slave, ocisbx_err **err)
{
  const process_plan *p = cp->proc;
  char name[64];

  if (terminal_open_pty (master, slave, name, sizeof name, err) < 0
      || terminal_prepare_slave (*slave, p->uid, p->gid, err) < 0)
    return -1;
  if (p->has_tty_size && terminal_set_size (*slave, &p->tty_size, err) < 0)
    return -1;
  if (cp->console_sock < 0)
    return 0;
  if (terminal_send_fd (cp->console_sock, *master, name, err) < 0)
    return -1;
  close (cp->console_sock);
  close_fd (master);
  return 0;
}

int
spawn_relay_start (spawn_ctx *s, ocisbx_err **err)
{
  if (s->master < 0)
    return 0;
  return terminal_relay_start (&s->tty, s->master, err);
}

int
spawn_wait (spawn_ctx *s, int notify_fd, const sigset_t *set, ocisbx_err **err)
{
  int status = foreground_wait (s->pid, s->pidfd, s->master >= 0 ? &s->tty : NULL, notify_fd, set, err);

  if (status >= 0)
    s->pid = 0; /* reaped: nothing to kill any more */
  return status;
}

void
spawn_relay_finish (spawn_ctx *s)
{
  if (s->master >= 0)
    terminal_relay_finish (&s->tty);
}
