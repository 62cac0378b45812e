/* exec: the child, from clone3 (with cgroup2, in its cgroup) to execve.  It runs on
   the parent's memory, reports a failure as one message on the sync channel and exits
   126, 127 or 255; success shows as end-of-file (the channel is O_CLOEXEC).

   When the container has a pid namespace of its own, the clone is born in ours and
   is only the first of two: it joins the container's other namespaces and its root,
   closes every fd of ours it does not hand on, and then forks the process into the
   container's pid namespace (fork_process, a vfork; exec_parent.c says why). */
#include <config.h>
#include "core/container/exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/intelrdt/intelrdt.h"
#include "core/ns/nsjoin.h"
#include "core/container/sync.h"
#include "core/process/terminal.h"
#include "core/utils.h"

/* Every namespace of the init that is not ours; the pid namespace for our children
   (fork_process).  Through the init's pidfd, else its /proc/PID/ns files (nsjoin.h). */
static int
join_namespaces (const exec_plan *c, ocisbx_err **err)
{
  return nsjoin_process (c->pidfd, c->procfd, c->init_pid, c->ns_flags | (c->join_pid ? CLONE_NEWPID : 0), err);
}

/* The init's root, whatever the mount namespace's root is (--no-pivot). */
static int
enter_root (const exec_plan *c, ocisbx_err **err)
{
  if (fchdir (c->init_root) < 0)
    return err_set (err, errno, "chdir to the container's root");
  if (chroot (".") < 0)
    return err_set (err, errno, "chroot to the container's root");
  close (c->init_root);
  return 0;
}

/* Nothing of ours stays open in a process of the container's pid namespace but what
   the process is handed: its stdio and --preserve-fds, the sync channel, the console
   socket, the exec stub, the memory cgroup hand-off (only where a user namespace
   keeps the container's processes from reaching ours: cgroup_join_prepare), the
   exec tree's pidfd of ours. */
static int
close_ours (const exec_plan *c, const process_run *run, ocisbx_err **err)
{
  const process_plan *p = &c->proc;
  int keep[] = { c->child.sync,    c->child.console_sock, p->via_dmz ? p->dmz_fd : -1,
                 run->memcg_home, run->memcg,            c->self_pidfd };

  return close_fds_except (c->child.keep_fds, keep, sizeof keep / sizeof keep[0], err);
}

/* The process's stack while it runs on our memory (fork_process): the steps of
   process_finish_and_exec (the stub's argv, the seccomp filter, an error's message).
   Mapped, not touched: only the pages it uses cost anything. */
#define EXEC_PROCESS_STACK (256 * 1024)

typedef struct exec_process_start
{
  const exec_plan *c;
  const process_run *run;
  char *exe;
  pid_t pid; /* the process's, in our pid namespace: the kernel's CLONE_PARENT_SETTID */
} exec_process_start;

/* The process, born in the container's pid namespace on our memory (CLONE_VM): its
   first message is its pid in ours (it may be stopped on the way, by the seccomp agent's
   hand-off, while we wait: the parent reads it first); then what a fork does not pass
   on, and the exec, which gives it memory of its own and lets us go. */
static int
exec_process_main (void *arg)
{
  exec_process_start *s = arg;
  const exec_plan *c = s->c;
  ocisbx_err *err = NULL;

  if (sync_report_pid (c->child.sync, s->pid, &err) == 0)
    {
      /* not inherited: the parent-death signal, the leadership of a session and the pty
         as its controlling terminal (an exec tree's leader takes it: process.h) */
      if (c->proc.pdeathsig)
        prctl (PR_SET_PDEATHSIG, c->proc.pdeathsig);
      if (setsid () < 0)
        err_set (&err, errno, "setsid");
      else if (c->proc.terminal && !c->proc.tree && ioctl (0, TIOCSCTTY, 0) < 0)
        err_set (&err, errno, "make the pty the controlling terminal");
      else
        process_finish_and_exec (&c->proc, s->run, s->exe, c->child.sync, &err);
    }
  sync_send_error (c->child.sync, err);
  _exit (err_exec_exit_code (err, EXEC_EXIT_FAILED));
}

/* Into the container's pid namespace (joined for our children): the process, our
   parent's child (CLONE_PARENT), which reports its pid to the parent (exec_parent.c:
   adopt_process); we are done then.  Last of the set-up: the process is born with its
   credentials, capabilities and everything process_apply did (a process of the
   container that may ptrace it gains nothing it could not have from the process
   itself).  A vfork (CLONE_VM | CLONE_VFORK): no copy of our page tables, nor their
   teardown; we sleep until it has executed or died, and touch nothing meanwhile.  It
   gets its own copy of the signal actions (no CLONE_SIGHAND) and inherits our mask and
   seccomp filter (none here: exec loads it in the process, filter_early is create's). */
static int
fork_process (const exec_plan *c, const process_run *run, char *exe, ocisbx_err **err)
{
  exec_process_start s = { .c = c, .run = run, .exe = exe, .pid = 0 };
  char *stack;

  stack = mmap (NULL, EXEC_PROCESS_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED)
    return err_set (err, errno, "mmap the process's stack");
  /* glibc's clone(2): the child runs exec_process_main on STACK (which grows down) */
  if (clone (exec_process_main, stack + EXEC_PROCESS_STACK, CLONE_PARENT | CLONE_VM | CLONE_VFORK | CLONE_PARENT_SETTID,
             &s, &s.pid)
      < 0)
    return err_set (err, errno, "clone the process into the container's pid namespace");
  _exit (0);
}

/* process.terminal: the pty; relayed, its master goes to the parent at once
   (sync_ready), which starts relaying while we set the process up. */
static int
setup_pty_and_ready (const exec_plan *c, int *slave, ocisbx_err **err)
{
  cleanup_close int master = -1;

  if (spawn_child_pty (&c->child, &master, slave, err) < 0)
    return -1;
  if (c->child.relay)
    return sync_ready (c->child.sync, master, err);
  return 0;
}

/* After spawn_child_enter, until the process is set up. */
static int
setup (const exec_plan *c, process_run *run, char **exe, ocisbx_err **err)
{
  const process_plan *p = &c->proc;
  int slave = -1;

  if (exec_parent_enters_cgroup (c) && sync_wait_go (c->child.sync, NULL, err) < 0)
    return -1;
  /* in the container's CLOS (and MON group) before anything of the container's runs,
     while our pid is still the one resctrl reads */
  if (c->rdt_tasks && intelrdt_join (c->rdt_tasks, getpid (), err) < 0)
    return -1;
  /* Still outside the container's user namespace, where raising a hard rlimit or
     lowering oomScoreAdj needs the host's CAP_SYS_RESOURCE (spawn.h). */
  if (process_apply_early (p, err) < 0 || process_set_oom_score_adj (p, 0, err) < 0)
    return -1;
  if (join_namespaces (c, err) < 0)
    return -1;
  if (c->pidfd >= 0)
    close (c->pidfd);
  close (c->procfd);
  if (enter_root (c, err) < 0 || close_ours (c, run, err) < 0)
    return -1;

  if (p->terminal && setup_pty_and_ready (c, &slave, err) < 0)
    return -1;
  if (process_apply (p, run, slave, c->child.keep_fds, c->child.sync, exe, err) < 0)
    return -1;
  if (c->join_pid)
    return fork_process (c, run, *exe, err);
  return 0;
}

_Noreturn void
exec_child (const exec_plan *c)
{
  ocisbx_err *err = NULL;
  process_run run;
  char *exe = NULL;

  process_run_init (&run, &c->proc);
  /* The parent's fds: the lock would otherwise be held until execve.  A foreground exec
     tree's pdeathsig is the reaper's (process_setup arms it again after a uid change,
     the reaper once more). */
  if (spawn_child_enter (&c->child, &run, &err) == 0 && setup (c, &run, &exe, &err) == 0)
    process_finish_and_exec (&c->proc, &run, exe, c->child.sync, &err);
  sync_send_error (c->child.sync, err);
  /* a program not found or not runnable: 127 or 126, as a shell says it; else 255 */
  _exit (err_exec_exit_code (err, EXEC_EXIT_FAILED));
}
