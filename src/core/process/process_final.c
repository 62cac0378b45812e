/* The container process's last steps: the seccomp filter and what follows it.

   The filter is loaded as late as it can be.  Everything the runtime does for the
   process happens before it: the cwd and its checks, PATH lookup and the executable
   check (process_setup, process_resolve), fds, the exec fifo and startContainer hooks
   of create, and here the final CPU affinity, the signal mask, the exec stub's
   arguments and the memory cgroup hand-off.  After the filter come only the calls that
   must follow it, so that a profile needs to allow nothing of the runtime's but them:

     without noNewPrivileges   capset(2), when the process is not to keep CAP_SYS_ADMIN
                               (loading the filter needs it: process_setup kept it), then
                               the exec;
     with noNewPrivileges      the exec alone (the privileges were dropped and
                               PR_SET_NO_NEW_PRIVS set before).

   The exec is execve(2) of the program, or execveat(2) of the exec stub (dmz_stub.h), whose
   own calls then pass the filter too: write(2) and close(2) to rejoin the memory cgroup
   (only when dmz_memcg_usable found that the filter lets them through) and execve(2);
   as an exec tree's reaper (exec --kill-tree) the calls of src/dmz/tree.h, which
   dmz_tree_check found allowed: the reaper is inside the filter, like any process of
   the container.
   What the runtime makes on a failed exec (its error message, _exit) runs under the
   filter as well.

   The exception: a filter with a SCMP_ACT_NOTIFY listener.  Its fd reaches the agent
   through the parent (sync_send_listener: SYNC_SECCOMP and its ack, sendmsg(2),
   recvfrom(2), recvmsg(2)), and create's parent is there only until SYNC_READY:
   spawn_protect_exec sets the plan's filter_early for such a filter of create's, and
   its init loads it at the end of process_apply,
   before it reports ready, so SYNC_READY, the exec fifo (openat, write), the
   startContainer hooks and the steps before the filter here run under it.  runc also
   loads the filter before it sends the listener fd.  `exec`'s parent waits until the
   process runs: it loads such a filter here, like any other. */
#include <config.h>
#include "core/process/process.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/process/dmz_stub.h"
#include "core/seccomp/seccomp.h"
#include "core/container/sync.h"
#include "core/utils.h"

/* The one place the filter is loaded (seccomp_prog_load). */
static int
load_filter (const process_plan *plan, int sync_sock, ocisbx_err **err)
{
  int nfd = -1, r;

  if (plan->seccomp == NULL)
    return 0;
  if (seccomp_prog_load (plan->seccomp, &nfd, err) < 0)
    return -1;
  if (nfd < 0)
    return 0;
  /* the parent takes the fd by its number (pidfd_getfd) and hands it to the agent */
  r = sync_send_listener (sync_sock, nfd, err);
  close (nfd);
  return r;
}

int
process_apply (const process_plan *plan, process_run *run, int tty_slave, int keep_fds, int sync_sock, char **path,
               ocisbx_err **err)
{
  if (process_setup (plan, run, tty_slave, keep_fds, err) < 0 || process_resolve (plan, path, err) < 0)
    return -1;
  if (plan->filter_early)
    return load_filter (plan, sync_sock, err);
  return 0;
}

/* The exec stub is the runtime's, not the container's: out of the container's memory
   cgroup for its exec (cgroups/join.h), the stub rejoins it through the fd returned (left
   open across that exec), or -1 when we stay.  An exec tree's reaper (plan->tree) is
   the container's own process: it stays. */
static int
leave_memcg_for_stub (const process_plan *plan, const process_run *run)
{
  if (run->memcg_home < 0 || run->memcg < 0 || !plan->dmz_memcg || plan->tree || fcntl (run->memcg, F_SETFD, 0) < 0)
    return -1;
  if (write (run->memcg_home, "0", 1) != 1)
    {
      fcntl (run->memcg, F_SETFD, FD_CLOEXEC);
      return -1;
    }
  return run->memcg;
}

static int
set_final_affinity (const process_plan *plan, ocisbx_err **err)
{
  if (plan->cpu_final)
    {
      if (sched_setaffinity (0, plan->cpuset_size, plan->cpu_final) < 0)
        return err_set (err, errno, "sched_setaffinity (process.execCPUAffinity.final)");
    }
  else if (plan->cpu_initial)
    {
      /* back to every CPU the cgroup allows */
      cpu_set_t *all = CPU_ALLOC (CPU_SETSIZE);
      size_t sz = CPU_ALLOC_SIZE (CPU_SETSIZE);
      memset (all, 0xff, sz);
      sched_setaffinity (0, sz, all);
      CPU_FREE (all);
    }
  return 0;
}

/* "exec /run.sh: no such file or directory": runc's words (Go's lower-case errno text),
   which podman maps to 127 and 126 (the stub says the same).  ERRNUM stays the error's. */
static int
err_exec (ocisbx_err **err, int errnum, const char *path)
{
  char reason[128];

  snprintf (reason, sizeof reason, "%s", strerror (errnum));
  reason[0] = (char) tolower ((unsigned char) reason[0]);
  err_set (err, 0, "exec %s: %s", path, reason);
  (*err)->errnum = errnum;
  return -1;
}

/* Every signal's default action, whatever the runtime's caller ignored (nohup, SIGPIPE,
   a shell's background job, make's 32 and 33): the process starts as under runc (an
   exec tree's reaper, which passes signals on, gets them too). */
static void
reset_signal_actions (void)
{
  /* all zero: SIG_DFL, no flags, an empty mask, whatever the architecture's layout */
  static const unsigned long zero[16];

  for (int sig = 1; sig < NSIG; sig++)
    if (sig != SIGKILL && sig != SIGSTOP && signal (sig, SIG_DFL) == SIG_ERR)
      syscall (SYS_rt_sigaction, sig, zero, NULL, _NSIG / 8); /* glibc's own 32 and 33 */
}

int
process_finish_and_exec (const process_plan *plan, const process_run *run, const char *path, int sync_sock,
                         ocisbx_err **err)
{
  char fdnum[DMZ_FDNUM_SIZE], tree[DMZ_TREE_OPTS_SIZE];
  cleanup_free char **stub_argv = NULL;
  sigset_t all;
  int memcg = -1, e;

  /* ---- before the filter ---- */
  if (set_final_affinity (plan, err) < 0)
    return -1;
  reset_signal_actions ();
  if (plan->via_dmz)
    {
      memcg = leave_memcg_for_stub (plan, run);
      stub_argv = dmz_argv (memcg,
                            plan->tree ? dmz_tree_opts (&plan->sigmask, plan->tree_nfds, plan->tree_pidfd,
                                                        plan->terminal, tree)
                                       : NULL,
                            path, plan->argv, fdnum);
    }
  /* an exec tree's reaper gets every signal blocked (it passes them on), its leader
     the caller's mask */
  sigfillset (&all);
  sigprocmask (SIG_SETMASK, plan->tree ? &all : &plan->sigmask, NULL);

  /* ---- the filter, then only what must follow it ---- */
  if (!plan->filter_early && load_filter (plan, sync_sock, err) < 0)
    e = -1;
  else if (run->admin_kept
           && process_capset (run->caps_after_filter[0], run->caps_after_filter[1], run->caps_after_filter[2]) < 0)
    e = err_set (err, errno, "drop CAP_SYS_ADMIN (kept to load the seccomp filter)");
  else if (stub_argv)
    {
      dmz_execveat (plan->dmz_fd, stub_argv, run->envp);
      e = err_set (err, errno, "exec %s: run the exec stub (ocisbx-dmz)", path);
    }
  else
    {
      execve (path, plan->argv, run->envp);
      e = err_exec (err, errno, path);
    }
  /* failed: back into the memory cgroup for what follows (if the filter lets us) */
  if (memcg >= 0 && write (memcg, "0", 1) == 1)
    fcntl (memcg, F_SETFD, FD_CLOEXEC);
  return e;
}
