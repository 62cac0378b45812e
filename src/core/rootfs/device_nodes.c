#include <config.h>
#include "core/rootfs/device_nodes.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/ns/namespaces.h"
#include "core/rootfs/mounts.h"
#include "core/rootfs/pathres.h"
#include "core/utils.h"
#include "core/syscalls.h"

#define PTS_MAJOR_FIRST 136 /* UNIX98_PTY_SLAVE_MAJOR */
#define PTS_MAJOR_LAST 143

typedef struct
{
  const char *path;
  mode_t type; /* S_IFCHR, S_IFBLK, S_IFIFO */
  unsigned major, minor;
  mode_t mode;
  uid_t uid;
  gid_t gid;
} device_node;

static const device_node default_devices[] = {
  { "/dev/null", S_IFCHR, 1, 3, 0666, 0, 0 },    { "/dev/zero", S_IFCHR, 1, 5, 0666, 0, 0 },
  { "/dev/full", S_IFCHR, 1, 7, 0666, 0, 0 },    { "/dev/random", S_IFCHR, 1, 8, 0666, 0, 0 },
  { "/dev/urandom", S_IFCHR, 1, 9, 0666, 0, 0 }, { "/dev/tty", S_IFCHR, 5, 0, 0666, 0, 0 },
};

static const struct
{
  const char *target, *name;
} default_links[] = {
  { "/proc/self/fd", "fd" },       { "/proc/self/fd/0", "stdin" },
  { "/proc/self/fd/1", "stdout" }, { "/proc/self/fd/2", "stderr" },
  { "pts/ptmx", "ptmx" },
};

/* The host's node N, checked to be N's device (O_PATH). */
static int
open_host_node (const device_node *n, ocisbx_err **err)
{
  cleanup_close int src = open (n->path, O_PATH | O_CLOEXEC);
  struct stat st;

  if (src < 0)
    return err_set (err, errno, "open host device `%s`", n->path);
  if (fstat (src, &st) < 0)
    return err_set (err, errno, "stat host device `%s`", n->path);
  if ((st.st_mode & S_IFMT) != n->type
      || (n->type != S_IFIFO && (major (st.st_rdev) != n->major || minor (st.st_rdev) != n->minor)))
    return err_set (err, EINVAL, "host `%s` is not the device %u:%u", n->path, n->major, n->minor);
  return steal_fd (&src);
}

/* In a user namespace: an empty file at the node's path with the host's node bound on it,
   nosuid and noexec. */
static int
bind_host_node (rootfs_procfd procfd, int rootfd, const device_node *n, ocisbx_err **err)
{
  cleanup_close int src = open_host_node (n, err);
  cleanup_close int dst = -1, mnt = -1;

  if (src < 0)
    return -1;
  dst = pathres_create (rootfd, n->path, PATHRES_FILE, 0644, err);
  if (dst < 0 || mount_bind_fd_known (procfd, src, dst, 0, n->path, err) < 0)
    return -1;
  /* The bind grants neither set-uid nor exec (as crun's) */
  mnt = pathres_open (rootfd, n->path, err);
  if (mnt < 0)
    return -1;
  return mount_setattr_fd (mnt, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0, false, n->path, err);
}

/* In a user namespace, with the runtime's help: linux.devices[INDEX]'s node as the
   runtime made it (devices_runtime_node), moved onto an empty file at its path. */
static int
bind_runtime_node (const rootfs_ctx *ctx, int rootfd, const device_node *n, size_t index, ocisbx_err **err)
{
  cleanup_close int tree = ctx->runtime_source (ctx->runtime_source_arg, DEVICE_SOURCE (index), -1, err);
  cleanup_close int dst = -1;

  if (tree < 0)
    return -1;
  dst = pathres_create (rootfd, n->path, PATHRES_FILE, 0644, err);
  if (dst < 0)
    return -1;
  if (sys->move_mount (tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "mount `%s`", n->path);
  return 0;
}

/* After mknodat: the node itself (O_PATH, O_NOFOLLOW), checked to be the one just made,
   whose mode and owner are then set through the fd.  A writer of the same directory
   (another container sharing the rootfs) may have put a symlink in its place: a
   second lookup by name would follow it to a host file. */
static int
fix_node (int dirfd, const char *base, const device_node *n, ocisbx_err **err)
{
  cleanup_close int fd = openat (dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;

  if (fd < 0 || fstat (fd, &st) < 0)
    return err_set (err, errno, "open `%s` after mknod", n->path);
  if ((st.st_mode & S_IFMT) != n->type
      || (n->type != S_IFIFO && st.st_rdev != makedev (n->major, n->minor)))
    return err_set (err, EPERM, "`%s` was replaced while it was made: not the device %u:%u", n->path,
                    n->major, n->minor);
  /* The umask (devices_setup clears it), a default ACL or a set-group-ID directory may
     have changed the mode or the group: set what differs. */
  if ((st.st_mode & 07777) != (n->mode & 07777) && fd_chmod (fd, n->mode & 07777) < 0)
    return err_set (err, errno, "chmod `%s`", n->path);
  if ((st.st_uid != n->uid || st.st_gid != n->gid) && fchownat (fd, "", n->uid, n->gid, AT_EMPTY_PATH) < 0)
    return err_set (err, errno, "chown `%s`", n->path);
  return 0;
}

/* N's node; DEVFD, when not -1, is the container's /dev already resolved (N is in it).
   INDEX: N's entry in linux.devices, or NOT_IN_CONFIG (a default device). */
#define NOT_IN_CONFIG ((size_t) -1)
static int
make_node (const rootfs_ctx *ctx, int rootfd, int devfd, const device_node *n, size_t index,
           ocisbx_err **err)
{
  bool config_entry = index != NOT_IN_CONFIG;

  cleanup_free char *dir = NULL, *base = NULL;
  cleanup_close int own = -1;
  int dirfd = devfd;

  /* In a user namespace mknod is refused (and a node on the container's own /dev could
     not be opened): the runtime, when it lends its privileges, makes linux.devices' with
     their mode and owner; otherwise, and for the default devices, the host's are bound. */
  if (ctx->userns && config_entry && ctx->runtime_source)
    return bind_runtime_node (ctx, rootfd, n, index, err);
  if (ctx->userns)
    return bind_host_node (ctx->procfd, rootfd, n, err);
  pathres_split (n->path, &dir, &base);
  if (dirfd < 0)
    {
      own = pathres_create (rootfd, dir, PATHRES_DIR, 0755, err);
      if (own < 0)
        return -1;
      dirfd = own;
    }
  if (sys->mknodat (dirfd, base, n->type | (n->mode & 07777), makedev (n->major, n->minor)) < 0)
    {
      struct stat st;

      if (errno != EEXIST)
        return err_set (err, errno, "mknod `%s`", n->path);
      /* Already there: a node (an earlier entry, the image's) or a link (/dev/ptmx, ours
         to pts/ptmx) is left as it is, as runc does.  A plain file or a directory of the
         rootfs is no device at all: a linux.devices entry there is refused, never
         skipped (runc 1.1 skips it silently); a default device there is left to the
         checks that use it (the masks want the null device). */
      if (fstatat (dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return err_set (err, errno, "stat `%s`", n->path);
      if (!config_entry || !(S_ISREG (st.st_mode) || S_ISDIR (st.st_mode)))
        return 0;
      return err_set (err, EEXIST, "config.json: .linux.devices: `%s` exists in the rootfs and is no device",
                      n->path);
    }
  return fix_node (dirfd, base, n, err);
}

static int
make_links (int dev, ocisbx_err **err)
{
  for (size_t i = 0; i < sizeof default_links / sizeof default_links[0]; i++)
    if (symlinkat (default_links[i].target, dev, default_links[i].name) < 0 && errno != EEXIST)
      return err_set (err, errno, "symlink `/dev/%s`", default_links[i].name);
  if (access ("/proc/kcore", F_OK) == 0 && symlinkat ("/proc/kcore", dev, "core") < 0
      && errno != EEXIST)
    return err_set (err, errno, "symlink `/dev/core`");
  return 0;
}

static int
node_from_config (const oci_device *d, device_node *n, ocisbx_err **err)
{
  memset (n, 0, sizeof *n);
  n->path = d->path;
  switch (d->type ? d->type[0] : '\0')
    {
    case 'c':
    case 'u':
      n->type = S_IFCHR;
      break;
    case 'b':
      n->type = S_IFBLK;
      break;
    case 'p':
      n->type = S_IFIFO;
      break;
    default:
      return err_set (err, EINVAL, "device `%s`: unknown type \"%s\"", d->path,
                      d->type ? d->type : "");
    }
  if (n->type != S_IFIFO)
    {
      if (d->major == NULL || d->minor == NULL) /* libocispec's validate_device refuses it */
        return err_set (err, EINVAL, "device `%s`: no major or minor", d->path);
      n->major = (unsigned) *d->major;
      n->minor = (unsigned) *d->minor;
    }
  n->mode = d->file_mode ? (*d->file_mode & 07777) : 0666;
  n->uid = d->uid ? *d->uid : 0;
  n->gid = d->gid ? *d->gid : 0;
  return 0;
}

/* ID (.linux.devices[INDEX].FIELD) as the host sees it in the user namespace of PID. */
static int
node_host_id (pid_t pid, const char *map, uint32_t id, size_t index, const char *field, uint32_t *host,
              ocisbx_err **err)
{
  int r = ns_id_to_host (pid, map, id, host, err);

  if (r == 0)
    return err_set (err, EINVAL, "config.json: .linux.devices[%zu].%s: %u is not mapped in the user namespace",
                    index, field, id);
  return r < 0 ? -1 : 0;
}

/* A tmpfs of our own with N made as "node": by host root (no nodev), unreachable by
   anyone else (never attached), so that mode and owner are set by name safely. */
static int
runtime_tmpfs_node (const device_node *n, uint32_t uid, uint32_t gid, ocisbx_err **err)
{
  cleanup_close int fs = sys->fsopen ("tmpfs", FSOPEN_CLOEXEC);
  cleanup_close int mnt = -1;

  if (fs < 0 || sys->fsconfig (fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return err_set (err, errno, "create a tmpfs for `%s`", n->path);
  mnt = sys->fsmount (fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
  if (mnt < 0)
    return err_set (err, errno, "mount a tmpfs for `%s`", n->path);
  if (sys->mknodat (mnt, "node", n->type | 0600, makedev (n->major, n->minor)) < 0)
    return err_set (err, errno, "mknod `%s`", n->path);
  if (fchmodat (mnt, "node", n->mode & 07777, 0) < 0)
    return err_set (err, errno, "chmod `%s`", n->path);
  if (fchownat (mnt, "node", uid, gid, AT_SYMLINK_NOFOLLOW) < 0)
    return err_set (err, errno, "chown `%s`", n->path);
  return steal_fd (&mnt);
}

int
devices_runtime_node (const oci_config *cfg, size_t index, pid_t pid, ocisbx_err **err)
{
  device_node n;
  uint32_t uid, gid;
  cleanup_close int mnt = -1, host = -1;
  int tree;

  if (cfg->linux_ == NULL || index >= cfg->linux_->devices_len)
    return err_set (err, EPROTO, "linux.devices[%zu]: no such device", index);
  if (node_from_config (&cfg->linux_->devices[index], &n, err) < 0
      || node_host_id (pid, "uid_map", n.uid, index, "uid", &uid, err) < 0
      || node_host_id (pid, "gid_map", n.gid, index, "gid", &gid, err) < 0)
    return -1;
  mnt = runtime_tmpfs_node (&n, uid, gid, err);
  if (mnt < 0)
    return -1;
  tree = sys->open_tree (mnt, "node", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
  if (tree >= 0 || errno != EINVAL)
    return tree < 0 ? err_set (err, errno, "bind `%s`", n.path) : tree;
  /* An older kernel clones no detached mount (EINVAL): the host's node, as before (its own
     mode and owner: runc's way) */
  host = open_host_node (&n, err);
  if (host < 0)
    return -1;
  tree = sys->open_tree (host, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
  if (tree < 0)
    return err_set (err, errno, "bind host device `%s`", n.path);
  if (mount_setattr_fd (tree, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC, 0, false, n.path, err) < 0)
    {
      close (tree);
      return -1;
    }
  return tree;
}

static int devices_setup_nodes (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err);

static const char *
console_kind (mode_t mode)
{
  switch (mode & S_IFMT)
    {
    case S_IFLNK:
      return "a symbolic link (not followed)";
    case S_IFDIR:
      return "a directory";
    case S_IFIFO:
      return "a FIFO";
    case S_IFSOCK:
      return "a socket";
    case S_IFBLK:
      return "a block device";
    }
  return "not a file";
}

/* The place of the console: the rootfs's /dev/console itself, never where a symlink
   there leads (an image's /dev/console -> /proc/sys/... would put the pty over a
   sysctl, which the runtime then writes to, or reads for ever), made as an empty file
   when missing; what is there must be a regular file or a character device, not on
   procfs or sysfs.  The fd checked is the one bound over. */
static int
console_target (int rootfd, ocisbx_err **err)
{
  cleanup_close int dev = pathres_create (rootfd, "/dev", PATHRES_DIR, 0755, err);
  cleanup_close int fd = -1;
  struct statfs sfs;
  struct stat st;

  if (dev < 0)
    return -1;
  fd = openat (dev, "console", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST)
    fd = openat (dev, "console", O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "`/dev/console` in the rootfs");
  if (fstat (fd, &st) < 0 || fstatfs (fd, &sfs) < 0)
    return err_set (err, errno, "stat `/dev/console` in the rootfs");
  if (!S_ISREG (st.st_mode) && !S_ISCHR (st.st_mode))
    return err_set (err, EINVAL, "`/dev/console` in the rootfs is %s: the console is bound only over a file "
                                 "or a character device", console_kind (st.st_mode));
  if (sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC)
    return err_set (err, EINVAL, "`/dev/console` in the rootfs is on %s: the console is not bound over it",
                    sfs.f_type == PROC_SUPER_MAGIC ? "procfs" : "sysfs");
  return steal_fd (&fd);
}

int
devices_setup_console (int rootfd, int console_fd, ocisbx_err **err)
{
  cleanup_close int dst = -1;
  struct stat st;

  if (fstat (console_fd, &st) < 0)
    return err_set (err, errno, "stat console");
  if (!S_ISCHR (st.st_mode) || major (st.st_rdev) < PTS_MAJOR_FIRST
      || major (st.st_rdev) > PTS_MAJOR_LAST)
    return err_set (err, EINVAL, "console fd %d is not a pty slave", console_fd);
  dst = console_target (rootfd, err);
  if (dst < 0)
    return -1;
  if (mount_bind_fd (console_fd, dst, 0, "/dev/console", err) == 0)
    return 0;
  if ((*err)->errnum != EINVAL)
    return -1;
  err_freep (err);
  {
    /* The slave was opened in the parent's mount namespace, which a bind cannot take
       from: bind our copy of the same /dev/pts/N, checked to be the same device. */
    char link[PATHRES_FD_PATH_MAX], name[256];
    cleanup_close int same = -1;
    struct stat st2;
    ssize_t n = readlink (pathres_fd_path (console_fd, link), name, sizeof name - 1);

    if (n < 0)
      return err_set (err, errno, "readlink console fd");
    name[n] = '\0';
    same = open (name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (same < 0)
      return err_set (err, errno, "open console `%s`", name);
    if (fstat (same, &st2) < 0 || !S_ISCHR (st2.st_mode) || st2.st_rdev != st.st_rdev
        || st2.st_dev != st.st_dev)
      return err_set (err, EINVAL, "console `%s` is not the pty slave given", name);
    return mount_bind_fd (same, dst, 0, "/dev/console", err);
  }
}

/* The default devices go into /dev unless the host's /dev is bound there (as runc:
   a tmpfs /dev, or the rootfs's own /dev directory). */
static bool
wants_default_devices (const oci_config *cfg)
{
  bool wanted = true;
  for (size_t i = 0; i < cfg->mounts_len; i++) /* the last mount at /dev decides */
    if (mounts_dest_is (&cfg->mounts[i], "/dev"))
      wanted = !mount_is_bind (&cfg->mounts[i]);
  return wanted;
}

int
devices_setup (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  mode_t old = umask (0); /* nodes get their modes as given: no chmod after mknod */
  int r = devices_setup_nodes (ctx, rootfd, err);

  umask (old);
  return r;
}

static int
devices_setup_nodes (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;

  if (wants_default_devices (cfg))
    {
      /* All of them are in /dev: resolve it once (nodes and links do not move it). */
      cleanup_close int dev = pathres_create (rootfd, "/dev", PATHRES_DIR, 0755, err);
      if (dev < 0)
        return err_wrap (err, "default devices");
      for (size_t i = 0; i < sizeof default_devices / sizeof default_devices[0]; i++)
        if (make_node (ctx, rootfd, dev, &default_devices[i], NOT_IN_CONFIG, err) < 0)
          return err_wrap (err, "default devices");
      if (make_links (dev, err) < 0)
        return err_wrap (err, "/dev links");
    }
  if (cfg->linux_)
    for (size_t i = 0; i < cfg->linux_->devices_len; i++)
      {
        device_node n;
        if (node_from_config (&cfg->linux_->devices[i], &n, err) < 0
            || make_node (ctx, rootfd, -1, &n, i, err) < 0)
          return err_wrap (err, "linux.devices[%zu]", i);
      }
  return 0;
}

int
devices_validate (const oci_config *cfg, ocisbx_err **err)
{
  if (cfg->linux_ == NULL)
    return 0;
  for (size_t i = 0; i < cfg->linux_->devices_len; i++)
    {
      const oci_device *d = &cfg->linux_->devices[i];
      cleanup_free char *clean = NULL;

      if (d->path == NULL || d->path[0] != '/')
        return err_set (err, 0, "config.json: .linux.devices[%zu].path: \"%s\" is not an absolute path",
                        i, d->path ? d->path : "");
      clean = pathres_clean (d->path);
      if (strcmp (clean, "/") == 0 || pathres_has_dotdot (d->path))
        return err_set (err, 0, "config.json: .linux.devices[%zu].path: \"%s\" is not a device path",
                        i, d->path);
      if (d->type == NULL || strlen (d->type) != 1 || strchr ("cbup", d->type[0]) == NULL)
        return err_set (err, 0, "config.json: .linux.devices[%zu].type: unknown device type \"%s\"",
                        i, d->type ? d->type : "");
      /* a missing major or minor: refused by libocispec's validate_device */
      if (d->type[0] != 'p' && d->major && d->minor && (*d->major < 0 || *d->minor < 0 || *d->major > 4095 || *d->minor > 1048575))
        return err_set (err, 0, "config.json: .linux.devices[%zu]: bad major:minor %lld:%lld", i,
                        (long long) *d->major, (long long) *d->minor);
    }
  return 0;
}
