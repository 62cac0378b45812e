/* exec: the parent's side (see exec.h); the child is exec_child.c. */
#include <config.h>
#include "core/container/exec_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/container/container.h"
#include "core/intelrdt/intelrdt.h"
#include "core/process/dmz_stub.h"
#include "core/process/foreground.h"
#include "core/log.h"
#include "core/process/lsm.h"
#include "core/ns/nsjoin.h"
#include "core/container/sync.h"
#include "core/syscalls.h"
#include "core/utils.h"

static void
ctx_init (exec_ctx *c, const exec_opts *o)
{
  memset (c, 0, sizeof *c);
  c->o = o;
  c->h = (container_handle){ .rootfd = -1, .dirfd = -1 };
  c->plan.procfd = c->plan.pidfd = c->plan.init_root = c->plan.self_pidfd = -1;
  spawn_init (&c->sp);
  cgroup_join_init (&c->plan.cgj);
}

static void
ctx_free (exec_ctx *c, bool failed)
{
  /* failed after the clone, before the process ran: no half-set-up process stays */
  spawn_free (&c->sp, failed);
  close_fd (&c->plan.procfd);
  close_fd (&c->plan.pidfd);
  close_fd (&c->plan.init_root);
  close_fd (&c->plan.self_pidfd);
  cgroup_join_close (&c->plan.cgj);
  free (c->plan.rdt_tasks);
  exec_cgroup_free (c->ecg);
  if (c->seccomp)
    seccomp_prog_free (c->seccomp);
  process_plan_free (&c->plan.proc);
  exec_spec_free (&c->spec);
  container_close (&c->h);
}

/* ---- the container and its init ---- */

static int
open_running (exec_ctx *c, ocisbx_err **err)
{
  const exec_opts *o = c->o;
  container_status status;

  /* Shared: execs run side by side; a delete waits until the process is set up. */
  if (container_open (o->root, o->id, LOCK_SH, &c->h, err) < 0)
    return -1;
  status = container_status_now (&c->h);
  /* A created container takes execs too, as in runc: its namespaces and root are set. */
  switch (status)
    {
    case STATUS_RUNNING:
    case STATUS_CREATED:
      return 0;
    case STATUS_PAUSED:
      c->paused = true;
      if (o->ignore_paused)
        return 0;
      return err_setk (err, ERR_PAUSED, 0,
                       "container \"%s\": cannot exec in a paused container (use --ignore-paused to override)", o->id);
    default:
      return err_setk (err, ERR_NOT_RUNNING, 0, "container \"%s\": cannot exec in a %s container", o->id,
                       container_status_name (status));
    }
}

/* /proc/<init> and a pidfd, both proven to be the init recorded in the state: the
   init is alive (same start time, not a zombie) after both were opened, so its pid
   was never anyone else's meanwhile. */
static int
open_init (exec_ctx *c, ocisbx_err **err)
{
  char path[64];
  pid_t pid = c->h.st->pid;

  snprintf (path, sizeof path, "/proc/%d", (int) pid);
  c->plan.procfd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (c->plan.procfd < 0 && errno != ENOENT)
    return err_set (err, errno, "open `%s`", path);
  if (c->plan.procfd >= 0)
    {
      /* without pidfds (Linux < 5.3) the namespace files of procfd serve */
      c->plan.pidfd = syscall (SYS_pidfd_open, pid, 0);
      if (c->plan.pidfd < 0 && errno != ESRCH && errno != ENOSYS)
        return err_set (err, errno, "pidfd_open %d", (int) pid);
    }
  if (c->plan.procfd < 0 || (c->plan.pidfd < 0 && errno == ESRCH) || !state_init_alive (c->h.st))
    return err_set (err, 0, "cannot exec in container \"%s\": its init (pid %d) exited", c->o->id, (int) pid);
  for (size_t i = 0; nsjoin_kind (i) != 0; i++)
    {
      int kind = nsjoin_kind (i);
      struct stat theirs, ours;
      char self[64];
      snprintf (path, sizeof path, "ns/%s", ns_proc_name (kind));
      snprintf (self, sizeof self, "/proc/self/ns/%s", ns_proc_name (kind));
      if (fstatat (c->plan.procfd, path, &theirs, 0) < 0)
        {
          if (errno == ENOENT && kind != CLONE_NEWNS && kind != CLONE_NEWPID)
            continue; /* a kind of namespace this kernel lacks */
          return err_set (err, errno, "stat /proc/%d/%s", (int) pid, path);
        }
      if (stat (self, &ours) == 0 && ours.st_ino == theirs.st_ino && ours.st_dev == theirs.st_dev)
        continue;
      if (kind == CLONE_NEWPID)
        c->plan.join_pid = true;
      else
        c->plan.ns_flags |= kind;
    }
  c->plan.init_root = openat (c->plan.procfd, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (c->plan.init_root < 0)
    return err_set (err, errno, "open the root of the container's init (/proc/%d/root)", (int) pid);
  return 0;
}

/* ---- what the child needs ---- */

/* --kill-tree, or the container's annotation: the process's own pid namespace, whose
   PID 1 is the stub as reaper.  A foreground exec hands the reaper its pidfd (above
   the fds the process keeps) to tie the tree to our life. */
static int
prepare_tree (exec_ctx *c, ocisbx_err **err)
{
  process_plan *p = &c->plan.proc;
  int on = c->o->kill_tree;
  cleanup_close int self = -1;

  if (on < 0 && exec_kill_tree_annotation (&c->h.st->annotations, &on, err) < 0)
    return -1;
  if (on == 0)
    return 0;
  if (!p->via_dmz)
    return err_set (err, 0, "exec --kill-tree: the exec tree's reaper is the exec stub (ocisbx-dmz), which "
                            "this process cannot use (an AppArmor or SELinux exec label, a seccomp filter "
                            "that refuses execveat, or a build without it)");
  if (dmz_tree_check (c->seccomp, p->terminal, !c->o->detach, err) < 0)
    return -1;
  if (!c->o->detach)
    {
      self = syscall (SYS_pidfd_open, getpid (), 0);
      if (self < 0)
        return err_set (err, errno, "exec --kill-tree: pidfd_open");
      c->plan.self_pidfd = fcntl (self, F_DUPFD_CLOEXEC, 3 + c->o->preserve_fds);
      if (c->plan.self_pidfd < 0)
        return err_set (err, errno, "exec --kill-tree: fcntl F_DUPFD_CLOEXEC");
    }
  c->tree = true;
  p->tree = true;
  p->tree_nfds = 3 + c->o->preserve_fds;
  p->tree_pidfd = c->plan.self_pidfd;
  p->pdeathsig = c->plan.self_pidfd >= 0 ? DMZ_TREE_RUNTIME_GONE : 0;
  return 0;
}

/* Whether a process of the container may reach into ours while it runs our code
   (/proc/PID/exe, fd, mem): no user namespace between us, and CAP_SYS_PTRACE in the
   bounding set of the container's process or of this one (process.h).  Then it runs
   from a read-only view of our binary (dmz_stub.h) and keeps no fd of the runtime's memory
   cgroup.  (A later exec given CAP_SYS_PTRACE by --cap, into a container whose own
   processes lack it, is the caller's choice to let that process reach every other.) */
static bool
container_reaches_process (const exec_ctx *c)
{
  return !(c->plan.ns_flags & CLONE_NEWUSER)
         && (process_may_ptrace (&c->plan.proc) || process_config_may_ptrace (c->spec.cfg->process));
}

static int
prepare (exec_ctx *c, ocisbx_err **err)
{
  const exec_opts *o = c->o;
  const oci_linux *lx;

  if (exec_spec_build (o, c->h.st, &c->spec, err) < 0)
    return -1;
  if (process_prepare (&c->spec.eff, c->spec.doc, ".process", NULL, &c->plan.proc, err) < 0)
    return -1;
  c->plan.proc.sigmask = c->caller.mask;
  lx = c->spec.cfg->linux_;
  if (lx && process_prepare_personality (lx->personality, &c->plan.proc, err) < 0)
    return -1;
  if (lsm_validate (c->plan.proc.apparmor_profile, c->plan.proc.selinux_label, NULL, err) < 0)
    return -1;
  if (spawn_check_terminal (&c->sp, SPAWN_EXEC, &c->plan.proc, o->console_socket, o->detach, err) < 0)
    return -1;
  /* Last, the seccomp filter, and how the process is executed (spawn.h): MAY RE-EXECUTE
     the command.  We hold the container's lock, which the exec releases (O_CLOEXEC), and
     nothing else exists yet.  The new image starts with the caller's signals. */
  return spawn_protect_exec (SPAWN_EXEC, lx ? lx->seccomp : NULL, o->root, container_reaches_process (c),
                             &c->seccomp, &c->plan.proc, &c->caller, err);
}

static int
prepare_cgroups (exec_ctx *c, ocisbx_err **err)
{
  cgroup_manager *m;

  if (intelrdt_tasks_read (c->h.dirfd, &c->plan.rdt_tasks, err) < 0)
    return -1;
  if (c->h.st->cgroups == NULL)
    return exec_cgroup_none (&c->o->cg, &c->h.st->annotations, err);
  if (container_cgroups (&c->h, &m, err) < 0)
    return err_wrap (err, "the container's cgroups");
  if (exec_cgroup_open (m, &c->o->cg, &c->h.st->annotations, &c->ecg, err) < 0)
    return -1;
  cgroup_join_prepare (exec_cgroup_target (c->ecg), !container_reaches_process (c), &c->plan.cgj);
  return 0;
}

/* ---- the clone ---- */

/* The process appears in the container's pid namespace only once it is in the
   container's user and mount namespaces and root, holding nothing of ours: a process of
   the container with CAP_SYS_PTRACE reaches whatever a process of its pid namespace has
   (/proc/PID/root, /proc/PID/fd, /proc/PID/exe), whatever dumpable says.  So the child
   we clone here stays in our pid namespace: it joins the others, enters the root,
   closes what is ours, and only then vforks the process into the container's pid
   namespace as our child (CLONE_PARENT, exec_child.c: fork_process), which reports its
   pid.  We take that grandchild over here; the child, asleep until the process has
   executed, is reaped once it has (reap_middle: the process may stop on the way for the
   seccomp agent's hand-off).  Without a pid namespace of the container's own (the host's
   shared) there is nothing to hide from: one clone. */
static int
adopt_process (exec_ctx *c, ocisbx_err **err)
{
  pid_t pid;
  int fd;

  if (!c->plan.join_pid)
    return 0;
  if (sync_recv_pid (c->sp.sync_parent, &pid, err) < 0)
    return -1;
  c->middle = c->sp.pid;
  c->sp.pid = pid;
  /* our child (CLONE_PARENT): its pid is its own until we reap it */
  fd = syscall (SYS_pidfd_open, pid, 0);
  if (c->sp.pidfd >= 0)
    close (c->sp.pidfd);
  c->sp.pidfd = fd;
  return 0;
}

/* The child that vforked the process: it exits once the process has executed or died. */
static void
reap_middle (exec_ctx *c)
{
  if (c->middle <= 0)
    return;
  while (waitpid (c->middle, NULL, 0) < 0 && errno == EINTR)
    ;
  c->middle = 0;
}

static int
clone_process (exec_ctx *c, ocisbx_err **err)
{
  pid_t pid;

  if (spawn_open (&c->sp, c->o->console_socket, err) < 0)
    return -1;
  /* Our memory and fds reach into the host: no process of the container may look
     into the child (ptrace, /proc/PID/fd) until execve makes it dumpable again. */
  if (spawn_nondumpable (err) < 0)
    return -1;
  c->plan.has_cgroup = c->h.cg != NULL;
  c->plan.init_pid = c->h.st->pid;
  /* the process is forked into the pid namespace after process_apply (exec_child.c) */
  c->plan.proc.forked_after_apply = c->plan.join_pid;
  spawn_child_plan (&c->sp, &c->plan.proc, &c->plan.cgj, c->h.rootfd, c->h.dirfd, 3 + c->o->preserve_fds,
                    &c->plan.child);
  pid = spawn_clone (&c->sp, 0, &c->plan.cgj, &c->plan.proc, err);
  if (pid == 0)
    exec_child (&c->plan);
  /* the child's: nothing of the container's stays open here while we wait */
  close_fd (&c->sp.sync_child);
  close_fd (&c->sp.console_sock);
  close_fd (&c->plan.init_root);
  close_fd (&c->plan.procfd);
  close_fd (&c->plan.pidfd);
  cgroup_join_close (&c->plan.cgj);
  if (pid < 0)
    {
      if ((*err)->errnum == ENOMEM && !state_init_alive (c->h.st))
        {
          err_freep (err);
          return err_set (err, 0, "cannot exec in container \"%s\": its init exited", c->o->id);
        }
      return err_wrap (err, "exec");
    }
  if (exec_parent_enters_cgroup (&c->plan))
    {
      if (cgroup_enter (exec_cgroup_target (c->ecg), c->sp.pid, err) < 0)
        return err_wrap (err, "cgroups");
      if (sync_send_go (c->sp.sync_parent, NULL, 0, err) < 0)
        return -1;
    }
  return 0;
}

/* Until the child has called execve or failed (its message in *err). */
static int
wait_exec (exec_ctx *c, ocisbx_err **err)
{
  if (c->sp.relay && sync_wait_ready (c->sp.sync_parent, &c->sp.master, err) < 0)
    return -1;
  if (adopt_process (c, err) < 0)
    return -1;
  if (c->seccomp && seccomp_prog_has_listener (c->seccomp))
    {
      cleanup_free char *state = container_state_doc (c->h.st, STATUS_RUNNING, false);
      if (spawn_hand_off_listener (&c->sp, c->spec.cfg->linux_->seccomp, state, err) < 0)
        return -1;
    }
  if (sync_wait_exec (c->sp.sync_parent, err) < 0)
    return -1;
  reap_middle (c);
  return 0;
}

/* The child failed before execve: its exit code says how. */
static int
reap_failed (exec_ctx *c)
{
  int status = 0, code = EXEC_EXIT_FAILED;

  if (c->sp.pid <= 0)
    return code;
  while (waitpid (c->sp.pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (WIFEXITED (status) && WEXITSTATUS (status))
    code = WEXITSTATUS (status);
  c->sp.pid = 0;
  reap_middle (c);
  return code;
}

/* ---- foreground ---- */

static int
run (exec_ctx *c, int *exit_code, ocisbx_err **err)
{
  sigset_t set;
  int status;

  if (open_running (c, err) < 0 || open_init (c, err) < 0 || prepare (c, err) < 0)
    return -1;
  if (prepare_tree (c, err) < 0 || prepare_cgroups (c, err) < 0)
    return -1;
  if (clone_process (c, err) < 0)
    return -1;
  if (c->plan.proc.via_dmz)
    close_fd (&c->plan.proc.dmz_fd); /* the child's now */
  /* A paused container freezes the child until `resume`: no lock meanwhile. */
  if (c->paused)
    close_fd (&c->h.dirfd);
  if (wait_exec (c, err) < 0)
    {
      *exit_code = reap_failed (c);
      return -1;
    }
  /* The process runs: a delete may go ahead; nothing more comes from the child. */
  close_fd (&c->h.dirfd);
  close_fd (&c->h.rootfd);
  close_fd (&c->sp.sync_parent);
  if (foreground_write_pid_file (c->o->pid_file, c->sp.pid, err) < 0)
    return -1;
  if (c->o->detach)
    {
      *exit_code = 0;
      c->sp.pid = 0; /* left to our subreaper (conmon) or init */
      return 0;
    }
  if (spawn_relay_start (&c->sp, err) < 0)
    return -1;
  foreground_signal_set (&set);
  status = spawn_wait (&c->sp, -1, &set, err);
  spawn_relay_finish (&c->sp);
  if (status < 0)
    return -1;
  *exit_code = foreground_exit_code (status, EXEC_EXIT_FAILED);
  /* the process (a --kill-tree tree's reaper: the whole tree) is gone */
  return c->ecg ? exec_cgroup_end (c->ecg, *exit_code, c->tree, err) : 0;
}

int
container_exec (const exec_opts *o, int *exit_code, ocisbx_err **err)
{
  exec_ctx c;
  sigset_t set, old, unignored;
  int r;

  *exit_code = EXEC_EXIT_FAILED;
  ctx_init (&c, o);
  sigemptyset (&old);
  if (!o->detach)
    {
      /* blocked from before the clone, so none is lost; the process gets the caller's mask */
      foreground_signal_set (&set);
      foreground_block (&set, &old, &unignored);
    }
  c.caller.mask = old;
  c.caller.ignored = unignored;
  r = run (&c, exit_code, err);
  ctx_free (&c, r < 0);
  if (!o->detach)
    {
      /* a SIGPIPE of the relay's last writes must not kill us now */
      sigset_t pipe;
      struct timespec zero = { 0, 0 };
      sigemptyset (&pipe);
      sigaddset (&pipe, SIGPIPE);
      while (sigtimedwait (&pipe, NULL, &zero) > 0)
        ;
      foreground_unblock (&old, &unignored);
    }
  return r;
}
