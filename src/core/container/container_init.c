/* The container init, from the clone to the execve.  It runs on the parent's memory
   (prepared plans), reads no bundle file, and reports a failure before SYNC_READY to
   the parent over the sync channel; after it (a startContainer hook, the execve) to
   whoever started it: `start` through the exec fifo, `run` through the sync channel,
   and on its stderr. */
#include <config.h>
#include "core/container/container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rootfs/device_nodes.h"
#include "core/container/hooks.h"
#include "core/log.h"
#include "core/rootfs/pathres.h"
#include "core/container/sync.h"
#include "core/utils.h"

#define KEYCTL_JOIN_SESSION_KEYRING 1

/* What the init learns and opens on the way: its own.  The plan (c) is only read. */
typedef struct init_state
{
  const init_plan *c;
  process_run run;     /* the process's (process.h) */
  int sock;
  bool ready;          /* SYNC_READY sent: errors go to the starter (and stderr) from now on */
  int fifo;            /* the exec fifo, open for writing once `start` came, or -1 */
  int fifo_path;       /* the plan's O_PATH fd of it (c->fifofd), closed once open, or -1 */
  int shared_ns;       /* the mount namespace the container shares, or -1 (rootfs.h) */
  const char *state_creating, *state_created; /* for the container's hooks */
  int master, slave;
  /* The plan's rootfs_ctx (c->rctx, not written here) with what is the init's own:
     the procfs/sysfs mounts it makes, the way to ask the parent for bind sources. */
  rootfs_ctx rctx;
  rootfs_pseudo pseudo;
} init_state;

static int
become_root_in_userns (ocisbx_err **err)
{
  if (setresgid (0, 0, 0) < 0)
    return err_set (err, errno, "setresgid 0 in the user namespace (is 0 mapped?)");
  if (setresuid (0, 0, 0) < 0)
    return err_set (err, errno, "setresuid 0 in the user namespace (is 0 mapped?)");
  return 0;
}

static int
set_names (const oci_config *cfg, ocisbx_err **err)
{
  /* create_prepare checked that the container has a uts namespace for non-empty names */
  if (cfg->hostname && cfg->hostname[0] && sethostname (cfg->hostname, strlen (cfg->hostname)) < 0)
    return err_set (err, errno, "sethostname \"%s\"", cfg->hostname);
  if (cfg->domainname && cfg->domainname[0] && setdomainname (cfg->domainname, strlen (cfg->domainname)) < 0)
    return err_set (err, errno, "setdomainname \"%s\"", cfg->domainname);
  return 0;
}

static int
new_keyring (const init_plan *c, ocisbx_err **err)
{
  if (c->no_new_keyring)
    return 0;
  if (syscall (SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, c->id) < 0 && errno != ENOSYS)
    return err_set (err, errno, "join a new session keyring (--no-new-keyring avoids it)");
  return 0;
}

/* rootfs_ctx.runtime_source: the runtime's answer (container.c: open_mount_source). */
static int
ask_runtime_source (void *arg, size_t index, int fd, ocisbx_err **err)
{
  init_state *s = arg;

  return sync_ask_mount_source (s->sock, index, fd, err);
}

/* process.terminal: the pty, which is also the container's /dev/console. */
static int
setup_console (init_state *s, int rootfd, ocisbx_err **err)
{
  if (!s->c->proc.terminal)
    return 0;
  /* the master goes to the parent with SYNC_READY (sync_ready) when it relays */
  if (spawn_child_pty (&s->c->child, &s->master, &s->slave, err) < 0)
    return -1;
  if (devices_setup_console (rootfd, s->slave, err) < 0)
    return err_wrap (err, "/dev/console");
  return 0;
}

static void
make_cwd (const char *cwd)
{
  ocisbx_err *e = NULL;
  int fd = pathres_create (AT_FDCWD, cwd, PATHRES_DIR, 0755, &e);
  /* a cwd that is a file: chdir says so later */
  if (fd >= 0)
    close (fd);
  err_free (e);
}

/* A new pid namespace owned by a joined user namespace can only be made after the
   setns (ns_join): unshare it and fork the real init, a sibling of ours
   (CLONE_PARENT), whose pid goes to the parent; we are done then. */
static int
fork_init (init_state *s, ocisbx_err **err)
{
  pid_t pid;

  if (unshare (CLONE_NEWPID) < 0)
    return err_set (err, errno, "unshare the pid namespace");
  pid = ns_clone (CLONE_PARENT, -1, NULL, err);
  if (pid < 0)
    return -1;
  if (pid > 0)
    {
      if (sync_report_pid (s->sock, pid, err) < 0)
        {
          kill (pid, SIGKILL);
          return -1;
        }
      _exit (0);
    }
  /* not inherited: the parent-death signal, and the leadership of the session
     (spawn_child_enter), which the pty needs (process_setup) */
  if (s->c->proc.pdeathsig)
    prctl (PR_SET_PDEATHSIG, s->c->proc.pdeathsig);
  if (setsid () < 0)
    return err_set (err, errno, "setsid");
  return 0;
}

/* SYNC_GO: the parent has written the id maps and put us in our cgroups.  Waited for
   once, where c->go_at says (container_internal.h). */
static int
wait_go (init_state *s, ocisbx_err **err)
{
  char *states;

  if (sync_wait_go (s->sock, &states, err) < 0)
    return -1;
  if (states)
    {
      s->state_creating = states; /* kept until execve */
      s->state_created = states + strlen (states) + 1;
    }
  return 0;
}

/* While the init waits for `start` it holds nothing but stdio, --preserve-fds (and
   LISTEN_FDS, all for the process) and what it needs until its execve (the exec fifo,
   the sync channel, the pty master for the parent, the exec stub, the memory cgroup
   hand-off, the log): every other fd, inherited or ours, is closed, so nothing of the
   host can be reached through /proc/1/fd of a created container.  (process_setup made
   them all close-on-exec.) */
static int
close_fds_for_exec (init_state *s, ocisbx_err **err)
{
  const process_plan *p = &s->c->proc;
  int keep[] = {
    s->fifo_path, s->sock, s->master, p->via_dmz ? p->dmz_fd : -1, s->run.memcg_home, s->run.memcg, log_fd (),
  };

  return close_fds_except (s->c->child.keep_fds, keep, sizeof keep / sizeof keep[0], err);
}

/* Until SYNC_READY: everything but the exec fifo, the startContainer hooks and the
   final steps (process_final.c).  *EXE: the executable, resolved. */
static int
init_setup (init_state *s, char **exe, ocisbx_err **err)
{
  const init_plan *c = s->c;
  const oci_config *cfg = c->cfg;
  const oci_hooks *h = cfg->hooks;
  const process_plan *p = &c->proc;
  cleanup_close int rootfd = -1;
  int slave;

  if (ns_join (&c->ns, err) < 0)
    return -1;
  if (c->ns.join_user && (c->ns.new_flags & CLONE_NEWPID) && fork_init (s, err) < 0)
    return -1;
  if (c->go_at == INIT_GO_AFTER_JOIN && wait_go (s, err) < 0)
    return -1;
  if (c->userns && become_root_in_userns (err) < 0)
    return -1;
  if (c->child_nondumpable && prctl (PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
    return err_set (err, errno, "prctl PR_SET_DUMPABLE");
  if ((c->ns.new_flags & CLONE_NEWCGROUP) && unshare (CLONE_NEWCGROUP) < 0)
    return err_set (err, errno, "unshare the cgroup namespace");
  if (set_names (cfg, err) < 0 || new_keyring (c, err) < 0)
    return -1;
  if ((c->ns.new_flags & CLONE_NEWNET) && ns_loopback_up (err) < 0)
    return -1;

  s->rctx = c->rctx;
  s->rctx.pseudo = &s->pseudo;
  if (c->mount_help)
    {
      s->rctx.runtime_source = ask_runtime_source; /* SYNC_GO came: the parent listens */
      s->rctx.runtime_source_arg = s;
    }
  if (!c->own_mntns && rootfs_setup_ns_enter (&s->shared_ns, err) < 0)
    return -1;
  if (rootfs_setup (&s->rctx, &rootfd, err) < 0)
    return -1;
  if (c->mount_help)
    {
      /* the parent's serve_mount_sources step ends: nothing more is asked */
      s->rctx.runtime_source = NULL;
      if (sync_mounts_done (s->sock, err) < 0)
        return -1;
    }
  if (c->go_at == INIT_GO_BEFORE_HOOKS && wait_go (s, err) < 0)
    return -1;
  if (c->parent_step && sync_run_parent_hooks (s->sock, err) < 0)
    return -1;
  if (h && hooks_run (h->create_container, h->create_container_len, s->state_creating, "createContainer", NULL,
                      err) < 0)
    return -1;
  if (rootfs_pivot (&s->rctx, rootfd, err) < 0)
    return -1;
  close (rootfd);
  rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (rootfd < 0)
    return err_set (err, errno, "open / of the container");
  if (setup_console (s, rootfd, err) < 0)
    return -1;
  make_cwd (p->cwd);
  if (rootfs_finalize (&s->rctx, err) < 0)
    return -1;
  if (s->shared_ns >= 0 && rootfs_setup_ns_leave (s->shared_ns, err) < 0)
    return -1;

  if (process_apply_early (p, err) < 0)
    return -1;
  if (c->go_at == INIT_GO_BEFORE_PROCESS && wait_go (s, err) < 0)
    return -1;
  /* the filter too when p->filter_early (a listener: process_final.c) */
  slave = steal_fd (&s->slave);
  if (process_apply (p, &s->run, slave, c->child.keep_fds, s->sock, exe, err) < 0)
    return -1;
  return close_fds_for_exec (s, err);
}

/* After `start`. */
static int
init_start (init_state *s, const char *exe, ocisbx_err **err)
{
  const init_plan *c = s->c;
  const oci_hooks *h = c->cfg->hooks;

  /* Blocks until `start` opens the other end; `run` starts us itself (start_now).  The
     fifo, or for `run` the sync channel, stays open (CLOEXEC) until execve: the parent
     reads its end of file to know that the startContainer hooks ran and the process
     was executed, or our error before it (container_init). */
  if (!c->start_now)
    {
      char path[32];
      snprintf (path, sizeof path, "/proc/self/fd/%d", s->fifo_path);
      do
        s->fifo = open (path, O_WRONLY | O_CLOEXEC);
      while (s->fifo < 0 && errno == EINTR);
      if (s->fifo < 0)
        return err_set (err, errno, "open the exec fifo through `%s` (is /proc mounted?)", path);
      if (write_all (s->fifo, "0", 1) < 0)
        return err_set (err, errno, "write the exec fifo");
      close_fd (&s->fifo_path);
    }
  if (h && hooks_run (h->start_container, h->start_container_len, s->state_created, "startContainer",
                      s->run.envp, err) < 0)
    return -1;
  return process_finish_and_exec (&c->proc, &s->run, exe, c->start_now ? s->sock : -1, err);
}

_Noreturn void
container_init (const init_plan *c)
{
  init_state s = { .c = c, .sock = c->child.sync, .fifo = -1, .fifo_path = c->fifofd, .master = -1, .slave = -1,
                   .shared_ns = -1 };
  ocisbx_err *err = NULL;
  char *exe = NULL;

  process_run_init (&s.run, &c->proc);
  /* First the steps exec's child takes too (spawn.h): the parent's fds closed (the
     lock would be held until execve), the cgroups joined, a session of our own. */
  if (spawn_child_enter (&c->child, &s.run, &err) == 0 && init_setup (&s, &exe, &err) == 0
      && sync_ready (s.sock, c->child.relay ? s.master : -1, &err) == 0)
    {
      s.ready = true;
      if (s.master >= 0)
        close (s.master);
      if (!c->start_now)
        close (s.sock);
      init_start (&s, exe, &err);
    }
  /* before SYNC_READY, or `run`'s init (start_now): the parent still listens */
  if (!s.ready || c->start_now)
    sync_send_error (s.sock, err);
  else
    {
      /* `start` reads the fifo to its end: a message there is our failure */
      if (s.fifo >= 0 && err)
        write_all (s.fifo, err->msg, strlen (err->msg));
      log_err (err);
    }
  _exit (127);
}
