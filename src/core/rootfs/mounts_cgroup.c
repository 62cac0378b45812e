/* `cgroup` mounts: the container's own cgroups at the destination.
 *
 *   v1 / hybrid  a tmpfs with one bind per hierarchy of /sys/fs/cgroup/<ctrl><cgroup_path>
 *                (symlinks such as cpu -> cpu,cpuacct are recreated), read-only with "ro"
 *   v2           a new cgroup2 mount with a cgroup namespace, else a bind of the
 *                container's cgroup directory
 */
#include <config.h>
#include "core/rootfs/mounts.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/cgroups/cgroups.h"
#include "core/rootfs/pathres.h"
#include "core/utils.h"
#include "core/syscalls.h"

/* The process's own cgroup in hierarchy NAME (a directory under /sys/fs/cgroup:
   "cpu,cpuacct", "systemd", "unified"), from /proc/self/cgroup; malloc'd or NULL. */
static char *
own_cgroup (const char *name, bool v2)
{
  cleanup_free char *data = NULL;
  char *save = NULL;
  ocisbx_err *ignored = NULL;

  if (read_file_at (AT_FDCWD, "/proc/self/cgroup", &data, NULL, &ignored) < 0)
    {
      err_free (ignored);
      return NULL;
    }
  for (char *line = strtok_r (data, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *ctrls = strchr (line, ':'), *path;
      if (ctrls == NULL || (path = strchr (ctrls + 1, ':')) == NULL)
        continue;
      *path++ = '\0';
      ctrls++;
      if (*ctrls == '\0')
        {
          if (v2 || strcmp (name, "unified") == 0)
            return xstrdup (path);
          continue;
        }
      if (v2)
        continue;
      if (strcmp (ctrls, name) == 0
          || (strncmp (ctrls, "name=", 5) == 0 && strcmp (ctrls + 5, name) == 0))
        return xstrdup (path);
    }
  return NULL;
}

static char *
cgroup_source (const rootfs_ctx *ctx, const char *hierarchy, bool v2)
{
  cleanup_free char *own = NULL;
  const char *rel = ctx->cgroup_path;

  /* Relative cgroupsPaths differ per hierarchy (under the runtime's own cgroup there). */
  if (ctx->cgroup != NULL && cgroup_path_in (ctx->cgroup, v2 ? NULL : hierarchy) != NULL)
    rel = cgroup_path_in (ctx->cgroup, v2 ? NULL : hierarchy);
  if (rel == NULL || *rel == '\0')
    rel = own = own_cgroup (hierarchy, v2);
  if (rel == NULL)
    rel = "/";
  if (hierarchy == NULL)
    return xasprintf (CGROUP_FS_ROOT "%s%s", *rel == '/' ? "" : "/", rel);
  return xasprintf (CGROUP_FS_ROOT "/%s%s%s", hierarchy, *rel == '/' ? "" : "/", rel);
}

static bool wants_remount (const mount_opts *o);

static int
remount_if (int fd, const mount_opts *o, const char *what, ocisbx_err **err)
{
  if (!wants_remount (o))
    return 0;
  return mount_remount_bind (fd, o->flags, o->cleared, o->atime_set, what, err);
}

static bool
wants_remount (const mount_opts *o)
{
  return (o->flags | o->cleared) & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME
                                    | MS_RELATIME | MS_STRICTATIME | MS_NODIRATIME);
}

/* The bind and its flags in one go (mount_tree_with_attrs); -1: bind and remount. */
static int
bind_with_flags (const rootfs_ctx *ctx, int srcfd, int dst, const mount_opts *o)
{
  uint64_t aset = 0, aclr = 0;

  if (wants_remount (o))
    mount_attrs_of (o->flags & ~(MS_BIND | MS_REC | MS_REMOUNT), o->cleared, o->atime_set, &aset, &aclr);
  return mount_tree_with_attrs (ctx->cfg, srcfd, dst, wants_remount (o), aset, aclr);
}

/* The directory PATH: a detached copy of its tree (open_tree) when the kernel can make
   one (*IS_TREE), else an O_PATH fd. */
static int
open_cgroup_dir (const char *path, bool *is_tree)
{
  int fd = sys->open_tree (AT_FDCWD, path, OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE);

  *is_tree = fd >= 0;
  return fd >= 0 ? fd : open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* What the entry NAME of /sys/fs/cgroup (DIRFD) is: 1 for a cgroup hierarchy, with
   *SRCFD open on the container's cgroup in it (a detached copy of it when possible:
   *IS_TREE) and *SRC its path; 0 to skip NAME (not a cgroup filesystem, or
   no cgroup of ours there); -1 on error.
   The usual case asks the container's cgroup directory itself (open + fstatfs): it is
   on its hierarchy's filesystem.  Otherwise (it cannot be opened, or the guess of
   cgroup2 for "unified" only was wrong) the hierarchy's root answers, as it did
   before, and the source follows from that answer. */
static int
open_cgroup_source (const rootfs_ctx *ctx, int dirfd, const char *name, int *srcfd, bool *is_tree,
                char **src, ocisbx_err **err)
{
  bool v2, guess = strcmp (name, "unified") == 0;
  cleanup_free char *path = cgroup_source (ctx, name, guess);
  cleanup_close int fd = open_cgroup_dir (path, is_tree);
  struct statfs sfs;

  if (fd < 0 || fstatfs (fd, &sfs) < 0)
    {
      cleanup_close int h = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (h < 0 || fstatfs (h, &sfs) < 0)
        return 0;
      if (fd >= 0)
        close (fd);
      fd = -1;
    }
  if (sfs.f_type != CGROUP_SUPER_MAGIC && sfs.f_type != CGROUP2_SUPER_MAGIC)
    return 0;
  v2 = sfs.f_type == CGROUP2_SUPER_MAGIC;
  if (fd < 0 || v2 != guess)
    {
      if (fd >= 0)
        close (fd);
      free (path);
      path = cgroup_source (ctx, name, v2);
      fd = open_cgroup_dir (path, is_tree);
      if (fd < 0)
        {
          if (errno == ENOENT)
            return 0; /* no cgroup of ours in this hierarchy */
          return err_set (err, errno, "open `%s`", path);
        }
    }
  *srcfd = steal_fd (&fd);
  *src = path;
  path = NULL;
  return 1;
}

/* NAME under the tmpfs: SRCFD's cgroup.  A detached copy (IS_TREE) is attached as it
   is (mount_v1 gives the whole tree its flags at the end); otherwise a bind with the
   flags of O. */
static int
bind_hierarchy (const rootfs_ctx *ctx, int tmpfs, const char *name, int srcfd, bool is_tree,
                const char *src, const mount_opts *o, ocisbx_err **err)
{
  cleanup_close int dst = -1;
  cleanup_close int top = -1;
  cleanup_close int plain = -1;

  if (mkdirat (tmpfs, name, 0755) < 0 && errno != EEXIST)
    return err_set (err, errno, "mkdir cgroup `%s`", name);
  if (is_tree)
    {
      if (sys->move_mount (srcfd, "", tmpfs, name, MOVE_MOUNT_F_EMPTY_PATH) == 0)
        return 0;
      /* a bind needs the directory itself, not a detached copy */
      srcfd = plain = open (src, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (srcfd < 0)
        return err_set (err, errno, "open `%s`", src);
    }
  dst = openat (tmpfs, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (dst < 0)
    return err_set (err, errno, "open cgroup `%s`", name);
  if (bind_with_flags (ctx, srcfd, dst, o) == 0)
    return 0;
  if (mount_bind_fd_known (ctx->procfd, srcfd, dst, MS_REC, src, err) < 0)
    return -1;
  top = openat (tmpfs, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (top < 0)
    return err_set (err, errno, "open cgroup `%s`", name);
  return remount_if (top, o, src, err);
}

typedef struct remount_walk
{
  int top;
  const mount_opts *o;
  ocisbx_err **err;
} remount_walk;

/* The bind of hierarchy NAME in the tmpfs, remounted with O's flags. */
static int
remount_walk_entry (const char *name, unsigned char type, void *arg)
{
  const remount_walk *w = arg;
  cleanup_close int fd = -1;

  if (name[0] == '.' || type != DT_DIR)
    return 0;
  fd = openat (w->top, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return err_set (w->err, errno, "open cgroup `%s`", name);
  return remount_if (fd, w->o, name, w->err);
}

/* The flags of O on the tmpfs TOP and every bind in it: one recursive mount_setattr,
   or (old kernel, a shared rootfsPropagation whose peers would keep their flags) a
   remount of each. */
static int
remount_tree (const rootfs_ctx *ctx, int top, const mount_opts *o, const char *what, ocisbx_err **err)
{
  const char *prop = ctx->cfg->linux_ ? ctx->cfg->linux_->rootfs_propagation : NULL;
  remount_walk w = { top, o, err };
  cleanup_close int dir = -1;
  uint64_t aset, aclr;

  if (!wants_remount (o))
    return 0;
  mount_attrs_of (o->flags & ~(MS_BIND | MS_REC | MS_REMOUNT), o->cleared, o->atime_set, &aset, &aclr);
  if (!(prop && (mount_propagation_flags (prop) & MS_SHARED)))
    {
      ocisbx_err *ignored = NULL;
      if (mount_setattr_fd (top, aset, aclr, true, what, &ignored) == 0)
        return 0;
      err_free (ignored);
    }
  dir = openat (top, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    return err_set (err, errno, "open `%s`", what);
  if (dir_each (dir, remount_walk_entry, &w) < 0)
    return *err ? -1 : err_set (err, errno, "read `%s`", what);
  return remount_if (top, o, what, err);
}

typedef struct v1_walk
{
  const rootfs_ctx *ctx;
  const mount_opts *o;
  int top;   /* the tmpfs */
  int hosts; /* the host's /sys/fs/cgroup */
  ocisbx_err **err;
} v1_walk;

/* One entry of the host's /sys/fs/cgroup: a symlink (cpu -> cpu,cpuacct) again, a
   hierarchy bound. */
static int
v1_entry (const char *name, unsigned char type, void *arg)
{
  v1_walk *w = arg;
  cleanup_close int srcfd = -1;
  cleanup_free char *src = NULL;
  char target[256];
  bool is_tree;
  ssize_t n;
  int r;

  /* d_type spares a readlinkat per hierarchy directory (DT_UNKNOWN: ask). */
  n = type == DT_DIR ? -1 : readlinkat (w->hosts, name, target, sizeof target);
  if (n >= (ssize_t) sizeof target)
    return err_set (w->err, ENAMETOOLONG, "symlink cgroup `%s`", name);
  if (n >= 0)
    {
      target[n] = '\0';
      if (symlinkat (target, w->top, name) < 0 && errno != EEXIST)
        return err_set (w->err, errno, "symlink cgroup `%s`", name);
      return 0;
    }
  r = open_cgroup_source (w->ctx, w->hosts, name, &srcfd, &is_tree, &src, w->err);
  if (r <= 0)
    return r;
  return bind_hierarchy (w->ctx, w->top, name, srcfd, is_tree, src, w->o, w->err);
}

static int
mount_v1 (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, const mount_opts *o, int dstfd,
          ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  cleanup_close int top = -1;
  cleanup_close int hosts = -1;
  v1_walk w = { .ctx = ctx, .o = o, .err = err };
  unsigned long flags = (o->flags & ~(MS_RDONLY | MS_BIND | MS_REC | MS_REMOUNT))
                        | MS_NOSUID | MS_NODEV | MS_NOEXEC;

  if (sys->mount ("tmpfs", pathres_fd_path (dstfd, d), "tmpfs", flags, "mode=755") < 0)
    return err_set (err, errno, "mount tmpfs for cgroups at `%s`", m->destination);
  top = pathres_open (rootfd, m->destination, err);
  if (top < 0)
    return -1;

  hosts = open (CGROUP_FS_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (hosts < 0)
    return err_set (err, errno, "open " CGROUP_FS_ROOT);
  w.top = top;
  w.hosts = hosts;
  if (dir_each (hosts, v1_entry, &w) < 0)
    return *err ? -1 : err_set (err, errno, "read " CGROUP_FS_ROOT);
  /* The tmpfs last, so that its directories could be made. */
  return remount_tree (ctx, top, o, m->destination, err);
}

static int
mount_v2 (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, const mount_opts *o, int dstfd,
          ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  cleanup_free char *src = NULL;
  cleanup_close int srcfd = -1;
  cleanup_close int top = -1;
  unsigned long flags = o->flags & ~(MS_BIND | MS_REC | MS_REMOUNT);

  if (ctx->new_cgroupns)
    {
      if (sys->mount ("cgroup2", pathres_fd_path (dstfd, d), "cgroup2", flags, o->data) == 0)
        return 0;
      if (errno != EPERM && errno != EBUSY)
        return err_set (err, errno, "mount cgroup2 at `%s`", m->destination);
    }
  src = cgroup_source (ctx, NULL, true);
  srcfd = open (src, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (srcfd < 0)
    return err_set (err, errno, "open `%s`", src);
  if (mount_bind_fd_known (ctx->procfd, srcfd, dstfd, MS_REC, m->destination, err) < 0)
    return -1;
  top = pathres_open (rootfd, m->destination, err);
  if (top < 0)
    return -1;
  return remount_if (top, o, m->destination, err);
}

int
mount_cgroup (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, const mount_opts *o,
              int dstfd, ocisbx_err **err)
{
  struct statfs sfs;

  if (statfs (CGROUP_FS_ROOT, &sfs) < 0)
    return err_set (err, errno, "statfs " CGROUP_FS_ROOT);
  if (sfs.f_type == CGROUP2_SUPER_MAGIC)
    return mount_v2 (ctx, rootfd, m, o, dstfd, err);
  return mount_v1 (ctx, rootfd, m, o, dstfd, err);
}
