/* create: the parent's side of the pipeline (the child's is container_init.c). */
#include <config.h>
#include "core/container/container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/container/cgroup_record.h"
#include "core/container/exec.h"
#include "core/process/foreground.h"
#include "core/container/hooks.h"
#include "core/log.h"
#include "core/process/lsm.h"
#include "core/rootfs/mounts.h"
#include "core/container/notify.h"
#include "core/rootfs/device_nodes.h"
#include "core/net/netdevices.h"
#include "core/rootfs/pathres.h"
#include "core/container/sync.h"
#include "core/rootfs/sysctl.h"
#include "core/utils.h"

/* ---- preparing: nothing on the system is touched here ---- */

static char *
absolute_path (const char *path)
{
  char cwd[PATH_MAX];
  cleanup_free char *joined = NULL;

  if (path[0] == '/')
    return pathres_clean (path);
  if (getcwd (cwd, sizeof cwd) == NULL)
    return NULL;
  joined = xasprintf ("%s/%s", cwd, path);
  return pathres_clean (joined);
}

static int
parse_config (create_ctx *c, ocisbx_err **err)
{
  char *msg = NULL;

  if (oci_config_parse_file (c->config_path, &c->cfg, &msg) < 0)
    return err_takek (err, ERR_INVALID_CONFIG, 0, msg ? msg : xstrdup ("config.json: cannot parse"));
  return 0;
}

static int
validate_root (create_ctx *c, ocisbx_err **err)
{
  const oci_root *root = c->cfg->root;
  cleanup_free char *joined = NULL;
  struct stat st;

  if (root == NULL || root->path == NULL || root->path[0] == '\0')
    return err_set (err, 0, "config.json: .root.path: required");
  joined = root->path[0] == '/' ? xstrdup (root->path) : xasprintf ("%s/%s", c->bundle, root->path);
  c->rootfs = realpath (joined, NULL);
  if (c->rootfs == NULL)
    return err_set (err, errno, "config.json: .root.path: `%s`", joined);
  if (stat (c->rootfs, &st) < 0 || !S_ISDIR (st.st_mode))
    return err_set (err, ENOTDIR, "config.json: .root.path: `%s`", joined);
  return 0;
}

/* The host id that container id 0 maps to in MAPS ((uint32_t) -1: none). */
static uint32_t
overlay_root_host_id (const oci_id_mapping *maps, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (maps[i].container_id == 0 && maps[i].size > 0)
      return maps[i].host_id;
  return (uint32_t) -1;
}

/* The overlay annotation (--ephemeral and --overlay-upper set it), and a kept upper's
   directory checked and made: the one thing the parent makes before the state dir,
   the user's to keep (undone if the create fails before anything was written to it).
   In a new user namespace its upper/ and work/ are the container's root's. */
static int
prepare_overlay (create_ctx *c, ocisbx_err **err)
{
  const oci_linux *lx = c->cfg->linux_;
  uid_t uid = (uid_t) -1;
  gid_t gid = (gid_t) -1;
  const char *dir;

  if (c->o->ephemeral && c->o->overlay_upper)
    return err_set (err, 0, "--ephemeral and --overlay-upper: one or the other");
  if (c->o->ephemeral)
    map_set (&c->cfg->annotations, ROOTFS_OVERLAY_ANNOTATION, "ephemeral");
  if (c->o->overlay_upper)
    {
      cleanup_free char *abs = absolute_path (c->o->overlay_upper);
      if (abs == NULL)
        return err_set (err, errno, "--overlay-upper `%s`", c->o->overlay_upper);
      map_set (&c->cfg->annotations, ROOTFS_OVERLAY_ANNOTATION, abs);
    }
  if (rootfs_overlay_parse (&c->cfg->annotations, &c->overlay, &dir, err) < 0)
    return -1;
  if (c->overlay != ROOTFS_OVERLAY_KEPT)
    return 0;
  if ((c->init.ns.new_flags & CLONE_NEWUSER) && lx)
    {
      uid = overlay_root_host_id (lx->uid_mappings, lx->uid_mappings_len);
      gid = overlay_root_host_id (lx->gid_mappings, lx->gid_mappings_len);
      if (uid == (uid_t) -1 || gid == (gid_t) -1)
        return err_set (err, 0, "%s: the container's root (id 0) is not mapped in .linux.uidMappings and "
                                ".linux.gidMappings: nobody could write the upper layer",
                        ROOTFS_OVERLAY_ANNOTATION);
    }
  return rootfs_overlay_prepare (dir, c->rootfs, uid, gid, &c->overlay_dir, &c->overlay_made, err);
}

static int
validate_namespaces (create_ctx *c, ocisbx_err **err)
{
  const oci_linux *lx = c->cfg->linux_;
  int flags, any = 0;

  if (ns_prepare (lx, &c->init.ns, err) < 0)
    return -1;
  flags = c->init.ns.new_flags;
  for (size_t i = 0; i < c->init.ns.n_joins; i++)
    any |= c->init.ns.joins[i].flag;
  any |= flags;
  c->init.userns = (any & CLONE_NEWUSER) != 0;
  c->init.own_mntns = (flags & CLONE_NEWNS) != 0;
  /* A shared mount namespace: its process builds the root in a private one and returns
     (rootfs.h), which takes the privileges of the namespace's owner. */
  if (!c->init.own_mntns && c->init.userns && !(c->init.ns.join_user && (any & CLONE_NEWNS)))
    return err_set (err, 0, "config.json: .linux.namespaces: a user namespace of the container needs a mount "
                            "namespace of its own (or one joined with the user namespace): the mount namespace "
                            "it would share belongs to another user namespace, which its process cannot "
                            "re-enter once its root is built");
  if (c->cfg->hostname && c->cfg->hostname[0] && !(any & CLONE_NEWUTS))
    return err_set (err, 0, "config.json: .hostname: setting the hostname needs a uts namespace of the container");
  if (c->cfg->domainname && c->cfg->domainname[0] && !(any & CLONE_NEWUTS))
    return err_set (err, 0, "config.json: .domainname: setting the domainname needs a uts namespace of the container");
  if (flags & CLONE_NEWUSER)
    {
      if (idmap_default (c->cfg->linux_, c->cfg->process, err) < 0)
        return -1;
      /* unprivileged: which maps need newuidmap/newgidmap, and are we entitled to them */
      if (idmap_prepare (lx, &c->idmap, err) < 0)
        return -1;
      if (c->idmap.deny_setgroups && c->cfg->process && c->cfg->process->user.additional_gids_len > 0)
        return err_set (err, 0, "config.json: .process.user.additionalGids: setgroups is denied in a user namespace "
                                "whose gid map an unprivileged user wrote itself (map /etc/subgid ranges in "
                                ".linux.gidMappings to go through newgidmap)");
    }
  else if (lx && (lx->uid_mappings_len || lx->gid_mappings_len))
    return err_set (err, 0, "config.json: .linux.uidMappings: given without a new user namespace");
  else if (!c->init.userns && !rootless_has_cap (CAP_SYS_ADMIN))
    return err_set (err, 0, "config.json: .linux.namespaces: without CAP_SYS_ADMIN (rootless) the container "
                            "needs a user namespace (`ocisbx spec --rootless` writes one)");
  return 0;
}

/* LISTEN_FDS from systemd socket activation go on to the container, as in runc. */
static int
listen_fds (char ***env, ocisbx_err **err)
{
  const char *n = getenv ("LISTEN_FDS"), *pid = getenv ("LISTEN_PID");
  long v;
  char *end;

  *env = NULL;
  if (n == NULL || pid == NULL || atol (pid) != (long) getpid ())
    return 0;
  v = strtol (n, &end, 10);
  if (*end || v <= 0 || v > 1024)
    return 0;
  *env = xmalloc0 (3 * sizeof (char *));
  (*env)[0] = xasprintf ("LISTEN_FDS=%ld", v);
  (*env)[1] = xstrdup ("LISTEN_PID=1");
  return (int) v;
}

int
create_prepare (create_ctx *c, const container_opts *o, bool foreground, ocisbx_err **err)
{
  cleanup_strv char **extra_env = NULL;
  int n_listen, kill_tree;

  c->o = o;
  if (state_validate_id (o->id, err) < 0)
    return -1;
  c->bundle = absolute_path (o->bundle ? o->bundle : ".");
  if (c->bundle == NULL)
    return err_set (err, errno, "bundle path");
  c->config_path = xasprintf ("%s/config.json", c->bundle);
  if (parse_config (c, err) < 0 || validate_root (c, err) < 0)
    return -1;
  if (notify_host_socket ())
    {
      cleanup_free char *root = absolute_path (o->root ? o->root : STATE_ROOT_DEFAULT);
      cleanup_free char *dir = root ? xasprintf ("%s/%s", root, o->id) : NULL;
      if (dir == NULL)
        return err_set (err, errno, "state root path");
      notify_config (c->cfg, dir);
      c->notify = true;
    }
  n_listen = listen_fds (&extra_env, err);
  c->preserve_fds = o->preserve_fds + n_listen;
  /* The spec needs process only at `start`: without it the container is created with
     nothing to run (the init does all but the process's steps), and start refuses. */
  if (c->cfg->process == NULL && !c->init.start_now)
    process_prepare_none (&c->init.proc);
  else if (process_prepare (c->cfg->process, "config.json", ".process", extra_env, &c->init.proc, err) < 0)
    return -1;
  if (c->cfg->linux_
      && (process_prepare_personality (c->cfg->linux_->personality, &c->init.proc, err) < 0
          || mempolicy_prepare (c->cfg->linux_->memory_policy, "/sys/devices/system/node", &c->init.proc.mempolicy, err)
                 < 0))
    return -1;
  if (validate_namespaces (c, err) < 0
      || spawn_check_terminal (&c->sp, SPAWN_CREATE, &c->init.proc, o->console_socket, !foreground, err) < 0)
    return -1;
  rootfs_absolute_destinations (c->cfg);
  if (rootfs_validate_config (c->cfg, err) < 0 || sysctl_validate_joined (c->cfg, &c->init.ns, err) < 0
      || netdev_validate (c->cfg->linux_, &c->init.ns, err) < 0
      || intelrdt_prepare (c->cfg->linux_, c->o->id, "/proc/self/mountinfo", &c->rdt, err) < 0)
    return -1;
  if (c->cfg->linux_ && c->cfg->linux_->seccomp && seccomp_validate (c->cfg->linux_->seccomp, err) < 0)
    return -1;
  if (lsm_validate (c->init.proc.apparmor_profile, c->init.proc.selinux_label,
                    c->cfg->linux_ ? c->cfg->linux_->mount_label : NULL, err) < 0)
    return -1;
  if (exec_kill_tree_annotation (&c->cfg->annotations, &kill_tree, err) < 0)
    return -1;
  if (prepare_overlay (c, err) < 0)
    return -1;
  if (c->cfg->hooks)
    {
      const oci_hooks *h = c->cfg->hooks;
      c->init.parent_step = h->prestart_len || h->create_runtime_len;
      c->child_hooks = h->create_container_len || h->start_container_len;
    }
  if (c->cfg->linux_ && c->cfg->linux_->net_devices_len)
    c->init.parent_step = true;
  /* `run` in the foreground: the init dies with us */
  c->init.proc.pdeathsig = foreground && !o->detach ? SIGKILL : 0;
  /* the init's order (container_init.c) */
  c->init.go_at = create_go_at (c->init.userns, (c->init.ns.new_flags & CLONE_NEWCGROUP) != 0, c->init.parent_step, c->child_hooks);
  return 0;
}

init_go
create_go_at (bool userns, bool new_cgroupns, bool parent_step, bool child_hooks)
{
  if (userns || new_cgroupns)
    return INIT_GO_AFTER_JOIN;
  if (parent_step || child_hooks)
    return INIT_GO_BEFORE_HOOKS;
  return INIT_GO_BEFORE_PROCESS;
}

/* ---- the state document for hooks ---- */

char *
create_state_json (const create_ctx *c, container_status status)
{
  container_state st = {
    .oci_version = c->cfg->oci_version,
    .id = (char *) c->o->id,
    .pid = c->sp.pid,
    .bundle = c->bundle,
    .annotations = c->cfg->annotations,
  };
  return container_state_doc (&st, status, false);
}

/* ---- the pipeline ---- */

/* NOTIFY_SOCKET: the dir the container sees as /run/notify; `run` listens from now on. */
static int
setup_notify (create_ctx *c, ocisbx_err **err)
{
  if (!c->notify)
    return 0;
  if (notify_dir_create (c->lockfd, err) < 0)
    return -1;
  if (c->init.start_now)
    {
      c->notify_fd = notify_listen (c->lockfd, err);
      if (c->notify_fd < 0)
        return -1;
    }
  return 0;
}

/* --root, made if missing: the seccomp cache lives in it. */
static int
open_state_root (create_ctx *c, ocisbx_err **err)
{
  c->rootfd = state_root_open (c->o->root, true, err);
  return c->rootfd < 0 ? -1 : 0;
}

static int
claim_id (create_ctx *c, ocisbx_err **err)
{
  c->lockfd = state_dir_create (c->rootfd, c->o->id, err);
  if (c->lockfd < 0)
    return -1;
  c->dir_created = true;
  {
    struct stat st;
    if (fstat (c->lockfd, &st) < 0)
      return err_set (err, errno, "stat the state dir");
    c->dir_dev = st.st_dev;
    c->dir_ino = st.st_ino;
  }
  if (c->init.start_now)
    return 0;
  /* Writable by all: the init opens it after switching to process.user (as runc). */
  if (mkfifoat (c->lockfd, STATE_FIFO, 0622) < 0 || fchmodat (c->lockfd, STATE_FIFO, 0622, 0) < 0)
    return err_set (err, errno, "create the exec fifo");
  c->init.fifofd = openat (c->lockfd, STATE_FIFO, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  if (c->init.fifofd < 0)
    return err_set (err, errno, "open the exec fifo");
  return 0;
}

/* An ephemeral run on a btrfs subvolume works on a snapshot of it (snapshot.c) instead
   of the tmpfs overlay; whatever prevents it, the overlay it is, and --debug says why. */
static int
take_snapshot (create_ctx *c, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  cleanup_free char *why = NULL;

  if (c->overlay != ROOTFS_OVERLAY_EPHEMERAL)
    return 0;
  why = rootfs_snapshot_unusable (c->rootfs, c->cfg->linux_, (c->init.ns.new_flags & CLONE_NEWUSER) != 0);
  if (why == NULL && rootfs_snapshot_create (c->lockfd, c->rootfs, c->o->id, &c->snapshot, &e) < 0)
    {
      if (faccessat (c->lockfd, ROOTFS_SNAPSHOT_RECORD, F_OK, 0) == 0)
        {
          *err = e; /* the record could not be written, or removed */
          e = NULL;
          return -1;
        }
      why = xstrdup (e->msg);
    }
  if (why)
    {
      log_debug ("%s: ephemeral: %s: the rootfs as an overlay's lower layer, its upper on a tmpfs",
                 ROOTFS_OVERLAY_ANNOTATION, why);
      return 0;
    }
  log_debug ("%s: ephemeral: on the btrfs snapshot `%s` of `%s`", ROOTFS_OVERLAY_ANNOTATION, c->snapshot, c->rootfs);
  free (c->rootfs);
  c->rootfs = xstrdup (c->snapshot);
  c->overlay = ROOTFS_OVERLAY_NONE;
  return 0;
}

static int
setup_cgroups (create_ctx *c, ocisbx_err **err)
{
  const oci_linux *lx = c->cfg->linux_;
  cgroup_config cc = {
    .fs_root = CGROUP_FS_ROOT,
    .id = c->o->id,
    .cgroups_path = lx ? lx->cgroups_path : NULL,
    .systemd = c->o->systemd_cgroup,
    .resources = lx ? lx->resources : NULL,
    .rootless = c->o->rootless,
    .record = cgroup_record_write,
    .record_arg = &c->lockfd,
  };
  if (cgroup_setup (&cc, &c->cgroup, err) < 0)
    return err_wrap (err, "cgroups");
  return 0;
}

/* Whether the container's processes may reach into the init while it runs our code
   (/proc/1/exe, /proc/1/fd): no user namespace between us and CAP_SYS_PTRACE in their
   bounding set (process.h).  Then the init runs from a read-only view of our binary
   (dmz_stub.h) and keeps no fd of the runtime's memory cgroup. */
static bool
container_reaches_init (const create_ctx *c)
{
  return !c->init.userns && c->cfg->process && process_may_ptrace (&c->init.proc);
}

/* The seccomp filter, and how the process will be executed without exposing our binary
   (spawn.h): MAY RE-EXECUTE the command (a re-executed `run` starts with its caller's
   mask, not the one we blocked). */
static int
protect_exec (create_ctx *c, ocisbx_err **err)
{
  const oci_linux *lx = c->cfg->linux_;

  if (c->cfg->process == NULL)
    return 0; /* nothing will be executed: no filter either, it is the process's */
  return spawn_protect_exec (SPAWN_CREATE, lx ? lx->seccomp : NULL, c->o->root, container_reaches_init (c),
                             &c->seccomp, &c->init.proc, c->caller, err);
}

/* A bind source for the init in a user namespace (mounts_runtime_source), from inside
   its mount namespace, or a device node (c->mount_server: sync_ask_mount_source's
   answer). */
static int
open_mount_source (void *arg, size_t index, int child_fd, ocisbx_err **err)
{
  create_ctx *c = arg;
  int fd;
  ns_saved saved;

  if (IS_DEVICE_SOURCE (index)) /* made on the host's side: no path to resolve */
    {
      fd = devices_runtime_node (c->cfg, DEVICE_SOURCE_INDEX (index), c->sp.pid, err);
      return fd < 0 ? err_wrap (err, "rootfs") : fd;
    }
  if (ns_enter_mount_of (c->sp.pidfd, c->sp.pid, &saved, err) < 0)
    return -1;
  if (index == ROOTFS_SOURCE)
    {
      fd = open (c->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        err_set (err, errno, "open `%s`", c->rootfs);
    }
  else
    fd = mounts_runtime_source (&c->init.rctx, index, child_fd, err);
  if (ns_leave (&saved, fd < 0 ? NULL : err) < 0 || fd < 0)
    {
      if (fd >= 0)
        close (fd);
      return err_wrap (err, "rootfs");
    }
  return fd;
}

static int
clone_init (create_ctx *c, ocisbx_err **err)
{
  ns_saved saved;
  int r;

  if (spawn_open (&c->sp, c->o->console_socket, err) < 0)
    return -1;
  /* In a user namespace the init cannot idmap host file systems nor reach host paths of
     host root's: it asks us (open_mount_source). */
  c->init.mount_help = c->init.userns && geteuid () == 0;
  if (c->init.mount_help)
    c->mount_server = (sync_mount_server){ open_mount_source, c };
  c->mount_opts = mounts_parse_options (c->cfg);
  c->init.rctx = (rootfs_ctx){
    .cfg = c->cfg,
    .rootfs = c->rootfs,
    .bundle = c->bundle,
    /* in a user namespace, new or the runtime's own (rootless podman): no mknod */
    .userns = c->init.userns || rootless_in_userns (),
    .no_pivot = c->o->no_pivot,
    .new_cgroupns = (c->init.ns.new_flags & CLONE_NEWCGROUP) != 0,
    .cgroup_path = cgroup_path (c->cgroup),
    .cgroup = c->cgroup,
    .overlay = c->overlay,
    .overlay_dir = c->overlay_dir,
    .mount_opts = c->mount_opts,
  };

  /* From the clone on, our memory and fds are in the container: none of its processes
     may look into the init (ptrace, /proc/PID/exe, /proc/PID/fd) until its execve (dmz_stub.h).
     An unprivileged parent must still write its child's id maps (/proc/PID/uid_map,
     newuidmap), which a non-dumpable child refuses: that child turns itself
     non-dumpable once they are written, unless we must then take its seccomp listener
     with pidfd_getfd, which needs the same access. */
  if (geteuid () == 0)
    {
      if (spawn_nondumpable (err) < 0)
        return -1;
    }
  else
    c->init.child_nondumpable = c->seccomp == NULL || !seccomp_prog_has_listener (c->seccomp);

  cgroup_join_prepare (c->cgroup, !container_reaches_init (c), &c->init.cgj);
  c->init.cfg = c->cfg;
  c->init.id = c->o->id;
  c->init.no_new_keyring = c->o->no_new_keyring;
  spawn_child_plan (&c->sp, &c->init.proc, &c->init.cgj, c->rootfd, c->lockfd, 3 + c->preserve_fds, &c->init.child);
  r = ns_enter_for_clone (&c->init.ns, &saved, err);
  if (r == 0)
    {
      pid_t pid = spawn_clone (&c->sp, ns_clone_flags (&c->init.ns), &c->init.cgj, &c->init.proc, err);
      if (pid == 0)
        container_init (&c->init);
      if (pid < 0)
        r = -1;
    }
  cgroup_join_close (&c->init.cgj); /* the child has its copies */
  if (c->init.proc.via_dmz)
    close_fd (&c->init.proc.dmz_fd); /* the child's now */
  /* back to our own namespaces, whatever happened */
  if (ns_leave (&saved, r == 0 ? err : NULL) < 0)
    r = -1;
  close_fd (&c->sp.sync_child);
  return r;
}

/* With a joined user namespace and a new pid namespace the clone made an intermediate
   process, which forks the init and reports its pid (container_init.c: fork_init). */
static int
adopt_grandchild (create_ctx *c, ocisbx_err **err)
{
  pid_t pid;
  int fd;

  if (!(c->init.ns.join_user && (c->init.ns.new_flags & CLONE_NEWPID)))
    return 0;
  if (sync_recv_pid (c->sp.sync_parent, &pid, err) < 0)
    return -1;
  while (waitpid (c->sp.pid, NULL, 0) < 0 && errno == EINTR)
    ;
  c->sp.pid = pid;
  fd = syscall (SYS_pidfd_open, c->sp.pid, 0);
  if (c->sp.pidfd >= 0)
    close (c->sp.pidfd);
  c->sp.pidfd = fd;
  return 0;
}

static int
init_environment (create_ctx *c, ocisbx_err **err)
{
  const oci_linux *lx = c->cfg->linux_;
  cleanup_free char *payload = NULL;
  size_t len = 0;

  if (adopt_grandchild (c, err) < 0)
    return -1;

  if (proc_stat_start_time (c->sp.pid, &c->start_time, NULL) < 0)
    return err_set (err, ESRCH, "the container init exited at once");
  /* Before anything can block: from now on a delete finds the init even if this
     create dies before its last state write, or state.json is lost. */
  if (state_init_record_write (c->lockfd, c->sp.pid, c->start_time, err) < 0)
    return -1;
  if (c->init.ns.new_flags & CLONE_NEWUSER)
    {
      if (idmap_write (c->sp.pid, lx, &c->idmap, err) < 0)
        return -1;
    }
  /* the init is in its user namespace: lowering it needs our CAP_SYS_RESOURCE (spawn.h) */
  if (process_set_oom_score_adj (&c->init.proc, c->sp.pid, err) < 0)
    return -1;
  if (!c->init.cgj.usable && cgroup_enter (c->cgroup, c->sp.pid, err) < 0)
    return err_wrap (err, "cgroups");
  if (intelrdt_enter (&c->rdt, c->sp.pid, err) < 0)
    return -1;
  if (c->child_hooks)
    {
      /* "creating" for createContainer, NUL, "created" for startContainer */
      cleanup_free char *a = create_state_json (c, STATUS_CREATING);
      cleanup_free char *b = create_state_json (c, STATUS_CREATED);
      size_t la = strlen (a), lb = strlen (b);
      payload = xmalloc0 (la + lb + 2);
      memcpy (payload, a, la);
      memcpy (payload + la + 1, b, lb);
      len = la + lb + 2;
    }
  return sync_send_go (c->sp.sync_parent, payload, len, err);
}

/* In a user namespace with our help (mount_help): the init's rootfs set-up, during
   which it asks for the bind sources it cannot open or idmap (open_mount_source), until
   it says it is over: a request at any other step is a protocol error (sync.h). */
static int
serve_mount_sources (create_ctx *c, ocisbx_err **err)
{
  if (!c->init.mount_help)
    return 0;
  return sync_serve_mount_sources (c->sp.sync_parent, &c->mount_server, err);
}

/* The createRuntime step: the init's namespaces are final, its process not started:
   linux.netDevices moved into its network namespace, then the hooks. */
static int
create_runtime_step (create_ctx *c, ocisbx_err **err)
{
  const oci_hooks *h = c->cfg->hooks;
  cleanup_free char *created = NULL, *creating = NULL;

  if (!c->init.parent_step)
    return 0;
  if (sync_wait_hooks (c->sp.sync_parent, err) < 0)
    return -1;
  if (netdev_move (c->cfg->linux_, c->sp.pidfd, c->sp.pid, err) < 0)
    return -1;
  if (h == NULL)
    return sync_hooks_done (c->sp.sync_parent, err);
  /* prestart (deprecated) sees "created", as crun and the runtime-tools suite have it;
     createRuntime "creating", as runc */
  created = create_state_json (c, STATUS_CREATED);
  creating = create_state_json (c, STATUS_CREATING);
  if (hooks_run (h->prestart, h->prestart_len, created, "prestart", NULL, err) < 0
      || hooks_run (h->create_runtime, h->create_runtime_len, creating, "createRuntime", NULL, err) < 0)
    return -1;
  return sync_hooks_done (c->sp.sync_parent, err);
}

static int
seccomp_listener (create_ctx *c, ocisbx_err **err)
{
  cleanup_free char *state = NULL;

  if (c->seccomp == NULL || !seccomp_prog_has_listener (c->seccomp))
    return 0;
  state = create_state_json (c, STATUS_CREATING);
  return spawn_hand_off_listener (&c->sp, c->cfg->linux_->seccomp, state, err);
}

static int
wait_ready (create_ctx *c, ocisbx_err **err)
{
  return sync_wait_ready (c->sp.sync_parent, &c->sp.master, err);
}

static int
write_pid_file (create_ctx *c, ocisbx_err **err)
{
  return foreground_write_pid_file (c->o->pid_file, c->sp.pid, err);
}

void
create_ctx_state (const create_ctx *c, container_state *st, cgroup_state **cg)
{
  const oci_hooks *h = c->cfg->hooks;

  *cg = cgroup_state_of (c->cgroup);
  *st = (container_state){
    .oci_version = c->cfg->oci_version,
    .id = (char *) c->o->id,
    .pid = c->sp.pid,
    .start_time = c->start_time,
    .bundle = c->bundle,
    .config = c->config_path,
    .rootfs = c->rootfs,
    .created = c->created,
    .owner = geteuid (),
    .cgroups = *cg,
    .systemd_cgroup = c->o->systemd_cgroup,
    .rootless = c->o->rootless,
    .userns = c->init.userns,
    .no_process = c->cfg->process == NULL,
    .annotations = c->cfg->annotations,
  };
  if (h)
    {
      st->poststart = h->poststart;
      st->poststart_len = h->poststart_len;
      st->poststop = h->poststop;
      st->poststop_len = h->poststop_len;
    }
}

static int
write_state (create_ctx *c, ocisbx_err **err)
{
  cleanup_cgroup_state cgroup_state *cg = NULL;
  container_state st;

  create_ctx_state (c, &st, &cg);
  return state_write (c->lockfd, &st, err);
}

int
create_run_pipeline (create_ctx *c, ocisbx_err **err)
{
  c->created = state_timestamp_now ();
  if (open_state_root (c, err) < 0)
    return -1;
  /* First (but for --root, where the filter's cache lives): it may re-execute us, which
     must happen before the state dir and the cgroups exist. */
  if (protect_exec (c, err) < 0)
    return -1;
  if (claim_id (c, err) < 0 || setup_notify (c, err) < 0 || take_snapshot (c, err) < 0)
    return -1;
  if (setup_cgroups (c, err) < 0 || intelrdt_setup (&c->rdt, c->lockfd, err) < 0)
    return -1;
  /* A first state (pid 0: "creating"), so that a create killed from now on leaves
     something `delete` can clean up, cgroups included. */
  if (write_state (c, err) < 0)
    return -1;
  if (clone_init (c, err) < 0)
    return -1;
  log_debug ("container `%s`: init pid %d", c->o->id, (int) c->sp.pid);
  if (init_environment (c, err) < 0 || serve_mount_sources (c, err) < 0 || create_runtime_step (c, err) < 0
      || seccomp_listener (c, err) < 0 || wait_ready (c, err) < 0)
    return -1;
  if (write_pid_file (c, err) < 0 || write_state (c, err) < 0)
    return -1;
  /* last: until then a failure removes every resctrl group this create made */
  return intelrdt_commit (&c->rdt, c->lockfd, err);
}

/* ---- clean-up ---- */

/* runtime-spec's lifecycle: a create (or run) that fails, a hook of it or not, is
   undone (step 12) and then its poststop hooks run (step 13), as in a delete.  Only
   for a container this create made: not when the id was someone else's. */
static void
undo_create (create_ctx *c)
{
  const oci_hooks *h = c->cfg ? c->cfg->hooks : NULL;

  spawn_kill (&c->sp);
  if (c->cgroup)
    {
      cleanup_err ocisbx_err *e = NULL;
      if (cgroup_destroy (c->cgroup, &e) < 0)
        log_warning ("%s", e->msg);
    }
  rootfs_overlay_unmake (c->overlay_dir, c->overlay_made);
  if (!c->dir_created)
    return;
  if (h && h->poststop_len && !c->deleted)
    {
      cleanup_free char *doc = create_state_json (c, STATUS_STOPPED);
      hooks_run_all (h->poststop, h->poststop_len, doc, "poststop");
    }
  {
    cleanup_err ocisbx_err *e = NULL;
    cleanup_close int dirfd = openat (c->rootfd, c->o->id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dirfd >= 0 && (intelrdt_cleanup_at (dirfd, &e) < 0 || rootfs_snapshot_cleanup_at (dirfd, &e) < 0))
      {
        log_warning ("%s (the state dir stays: `delete` retries)", e->msg);
        return;
      }
  }
  state_dir_remove (c->rootfd, c->o->id, NULL);
}

void
create_ctx_cleanup (create_ctx *c, bool failed)
{
  if (failed)
    undo_create (c);
  spawn_free (&c->sp, false);
  close_fd (&c->init.fifofd);
  close_fd (&c->lockfd);
  close_fd (&c->rootfd);
  close_fd (&c->notify_fd);
  cgroup_join_close (&c->init.cgj);
  intelrdt_plan_free (&c->rdt);
  ns_plan_close (&c->init.ns);
  idmap_plan_free (&c->idmap);
  process_plan_free (&c->init.proc);
  mounts_free_options (c->mount_opts, c->cfg ? c->cfg->mounts_len : 0);
  if (c->seccomp)
    seccomp_prog_free (c->seccomp);
  if (c->cgroup)
    cgroup_manager_free (c->cgroup);
  if (c->cfg)
    oci_config_free (c->cfg);
  free (c->bundle);
  free (c->config_path);
  free (c->rootfs);
  free (c->overlay_dir);
  free (c->snapshot);
  free (c->created);
  memset (c, 0, sizeof *c);
}

void
create_ctx_init (create_ctx *c)
{
  memset (c, 0, sizeof *c);
  c->rootfd = c->lockfd = c->init.fifofd = c->notify_fd = -1;
  spawn_init (&c->sp);
  cgroup_join_init (&c->init.cgj);
}

int
container_create (const container_opts *o, ocisbx_err **err)
{
  create_ctx c;
  int r;

  create_ctx_init (&c);
  r = create_prepare (&c, o, false, err);
  if (r == 0)
    r = create_run_pipeline (&c, err);
  create_ctx_cleanup (&c, r < 0);
  return r;
}
