#include <config.h>
#include "core/rootfs/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rootfs/device_nodes.h"
#include "core/rootfs/mount_options.h"
#include "core/rootfs/mounts.h"
#include "core/rootfs/pathres.h"
#include "core/rootfs/paths.h"
#include "core/rootfs/sysctl.h"
#include "core/utils.h"
#include "core/syscalls.h"

static unsigned long
root_propagation (const oci_config *cfg)
{
  if (cfg->linux_ == NULL || cfg->linux_->rootfs_propagation == NULL)
    return 0;
  return mount_propagation_flags (cfg->linux_->rootfs_propagation);
}

/* The longest line of /proc/self/mountinfo read: two escaped paths (up to 4 x 4095
   bytes each) do not fit, which only --no-pivot must know of (hide_line). */
#define MOUNTINFO_LINE 16384

/* containing_mount's walk: the longest mount point that holds PATH. */
typedef struct holder
{
  const char *path;
  char mp[PATH_MAX];
  size_t len;
  bool found;
} holder;

static int
holder_line (char *line, void *arg)
{
  holder *h = arg;
  char mp[PATH_MAX];
  size_t n;

  if (line == NULL || sscanf (line, "%*s %*s %*s %*s %4095s", mp) != 1)
    return 0;
  n = strlen (mp);
  /* mountinfo escapes spaces as \040: such mount points simply never match. */
  if (strncmp (h->path, mp, n) == 0 && (h->path[n] == '/' || h->path[n] == '\0' || n == 1)
      && (!h->found || n >= h->len))
    {
      memcpy (h->mp, mp, n + 1);
      h->len = n;
      h->found = true;
    }
  return 0;
}

/* The mount point under which PATH lives, from /proc/self/mountinfo; malloc'd. */
static char *
containing_mount (const char *path)
{
  holder h = { .path = path };
  char buf[MOUNTINFO_LINE];

  if (lines_each ("/proc/self/mountinfo", buf, sizeof buf, holder_line, &h) < 0 || !h.found)
    return NULL;
  return xstrdup (h.mp);
}

/* The rootfs as an overlay's lower layer (overlay.c): opened by the init, or by the
   runtime where the init cannot reach it (as bind_rootfs below). */
static int
overlay_rootfs (const rootfs_ctx *ctx, ocisbx_err **err)
{
  cleanup_close int lower = open (ctx->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (lower < 0 && (errno == EACCES || errno == EPERM) && ctx->runtime_source != NULL)
    lower = ctx->runtime_source (ctx->runtime_source_arg, ROOTFS_SOURCE, -1, err);
  else if (lower < 0)
    return err_set (err, errno, "open `%s`", ctx->rootfs);
  if (lower < 0)
    return -1;
  return rootfs_overlay_mount (ctx, lower, err);
}

/* The rootfs bound onto itself: the mount that holds every config mount and that
   pivot_root makes the root; an O_PATH fd of it.  In a user namespace the container's
   root may not reach the rootfs (a bundle in a directory of host root's, mode 0700):
   the runtime then opens it, and the bind is made from that fd. */
static int
bind_rootfs (const rootfs_ctx *ctx, ocisbx_err **err)
{
  cleanup_close int src = -1;
  cleanup_close int tree = -1;
  int fd;

  if (ctx->overlay != ROOTFS_OVERLAY_NONE)
    return overlay_rootfs (ctx, err);
  if (sys->mount (ctx->rootfs, ctx->rootfs, NULL, MS_BIND | MS_REC, NULL) == 0)
    {
      fd = open (ctx->rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        return err_set (err, errno, "open `%s`", ctx->rootfs);
      return fd;
    }
  if ((errno != EACCES && errno != EPERM) || ctx->runtime_source == NULL)
    return err_set (err, errno, "bind `%s` onto itself", ctx->rootfs);
  src = ctx->runtime_source (ctx->runtime_source_arg, ROOTFS_SOURCE, -1, err);
  if (src < 0)
    return -1;
  tree = sys->open_tree (src, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  if (tree < 0 || sys->move_mount (tree, "", src, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "bind `%s` onto itself", ctx->rootfs);
  return steal_fd (&tree); /* attached now: the new mount */
}

int
rootfs_setup (const rootfs_ctx *ctx_in, int *rootfd_out, ocisbx_err **err)
{
  rootfs_ctx c = *ctx_in;
  const rootfs_ctx *ctx = &c;
  unsigned long prop = root_propagation (ctx->cfg);
  cleanup_close int rootfd = -1;

  /* Nothing done below may propagate back to the host.  An unbindable root comes at
     the end (rootfs_finalize): the rootfs could not be bound onto itself. */
  if (sys->mount (NULL, "/", NULL, MS_REC | (prop & (MS_SHARED | MS_SLAVE) ? prop & ~MS_REC : MS_PRIVATE), NULL) < 0)
    return err_set (err, errno, "rootfs: set propagation of /");
  if (prop & MS_SHARED)
    {
      /* pivot_root refuses a shared parent, and a bind of a shared mount would join its
         peer group: make the mount holding the rootfs private. */
      cleanup_free char *parent = containing_mount (ctx->rootfs);
      if (parent && sys->mount (NULL, parent, NULL, MS_PRIVATE, NULL) < 0)
        return err_set (err, errno, "rootfs: make `%s` private", parent);
    }
  rootfd = bind_rootfs (ctx, err);
  if (rootfd < 0)
    return err_wrap (err, "rootfs");
  /* Before pivot_root /proc is the host's, and nothing mounted below can cover it:
     every destination resolves inside the rootfs, none may be /proc or inside a
     procfs (mounts.c), so the answer holds for every mount of this step. */
  c.procfd = mount_procfd_usable () ? ROOTFS_PROCFD_USABLE : ROOTFS_PROCFD_UNUSABLE;
  if (mounts_setup (ctx, rootfd, err) < 0)
    return err_wrap (err, "rootfs");
  if (devices_setup (ctx, rootfd, err) < 0)
    return err_wrap (err, "rootfs");
  *rootfd_out = steal_fd (&rootfd);
  return 0;
}

static int
pivot (const char *rootfs, int newroot, ocisbx_err **err)
{
  cleanup_close int oldroot = open ("/", O_DIRECTORY | O_RDONLY | O_CLOEXEC);

  if (oldroot < 0)
    return err_set (err, errno, "open /");
  if (fchdir (newroot) < 0)
    return err_set (err, errno, "chdir `%s`", rootfs);
  if (sys->pivot_root (".", ".") < 0)
    {
      /* A shared "/" (rootfsPropagation shared) is refused: it is our own copy. */
      if (errno != EINVAL || sys->mount (NULL, "/", NULL, MS_PRIVATE, NULL) < 0
          || sys->pivot_root (".", ".") < 0)
        return err_set (err, errno, "pivot_root `%s`", rootfs);
    }
  /* The old root is now stacked on top of the new one at "/": detach it, without
     letting the unmount propagate anywhere. */
  if (fchdir (oldroot) < 0)
    return err_set (err, errno, "chdir to the old root");
  if (sys->mount (NULL, ".", NULL, MS_SLAVE | MS_REC, NULL) < 0)
    return err_set (err, errno, "make the old root slave");
  if (sys->umount2 (".", MNT_DETACH) < 0)
    return err_set (err, errno, "detach the old root");
  if (chdir ("/") < 0)
    return err_set (err, errno, "chdir /");
  return 0;
}

/* Is the mountinfo LINE a whole procfs or sysfs (its root "/") outside ROOTFS?  Its
   mount point goes to MP (PATH_MAX bytes; mountinfo's \040 escapes are left: such a
   path fails with ENOENT and is skipped). */
static bool
host_pseudo_fs (const char *line, const char *rootfs, char *mp)
{
  char root[PATH_MAX], type[32];
  const char *sep = strstr (line, " - ");

  if (sep == NULL || sscanf (line, "%*s %*s %*s %4095s %4095s", root, mp) != 2
      || sscanf (sep + 3, "%31s", type) != 1)
    return false;
  if (strcmp (root, "/") != 0 || (strcmp (type, "proc") != 0 && strcmp (type, "sysfs") != 0))
    return false;
  return !pathres_under (rootfs, mp);
}

typedef struct hide_walk
{
  const char *rootfs;
  ocisbx_err **err;
} hide_walk;

static int
hide_line (char *line, void *arg)
{
  hide_walk *w = arg;
  char mp[PATH_MAX];

  if (line == NULL)
    return err_set (w->err, E2BIG, "a line of /proc/self/mountinfo over %d bytes", MOUNTINFO_LINE - 2);
  if (!host_pseudo_fs (line, w->rootfs, mp))
    return 0;
  if (sys->mount (NULL, mp, NULL, MS_SLAVE | MS_REC, NULL) < 0)
    {
      if (errno == ENOENT)
        return 0; /* under one detached already */
      return err_set (w->err, errno, "make `%s` slave", mp);
    }
  if (sys->umount2 (mp, MNT_DETACH) == 0)
    return 0;
  if ((errno != EINVAL && errno != EPERM) || sys->mount ("tmpfs", mp, "tmpfs", MS_RDONLY, NULL) < 0)
    return err_set (w->err, errno, "hide the host's `%s`", mp);
  return 0;
}

/* Without pivot_root the old root stays underneath, with the host's /proc and /sys:
   a full procfs anywhere in the mount namespace lets a nested user namespace mount a
   fresh, unmasked one.  Detach them (slave first: nothing may propagate to the host),
   or cover them where the kernel locks them (a user namespace), as runc does. */
static int
hide_host_pseudo_fs (const char *rootfs, ocisbx_err **err)
{
  hide_walk w = { .rootfs = rootfs, .err = err };
  char buf[MOUNTINFO_LINE];
  int r = lines_each ("/proc/self/mountinfo", buf, sizeof buf, hide_line, &w);

  if (r < 0 && *err == NULL)
    return err_set (err, errno, "read /proc/self/mountinfo");
  return r;
}

static int
move_root (const char *rootfs, int newroot, ocisbx_err **err)
{
  if (hide_host_pseudo_fs (rootfs, err) < 0)
    return -1;
  if (fchdir (newroot) < 0)
    return err_set (err, errno, "chdir `%s`", rootfs);
  if (sys->mount (".", "/", NULL, MS_MOVE, NULL) < 0)
    return err_set (err, errno, "move `%s` to /", rootfs);
  if (chroot (".") < 0)
    return err_set (err, errno, "chroot `%s`", rootfs);
  if (chdir ("/") < 0)
    return err_set (err, errno, "chdir /");
  return 0;
}

int
rootfs_pivot (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  if ((ctx->no_pivot ? move_root : pivot) (ctx->rootfs, rootfd, err) < 0)
    return err_wrap (err, "rootfs");
  return 0;
}

int
rootfs_setup_ns_enter (int *shared_ns, ocisbx_err **err)
{
  *shared_ns = open ("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
  if (*shared_ns < 0)
    return err_set (err, errno, "rootfs: open /proc/self/ns/mnt");
  if (unshare (CLONE_NEWNS) < 0)
    return err_set (err, errno, "rootfs: unshare a mount namespace to build the root in");
  return 0;
}

int
rootfs_setup_ns_leave (int shared_ns, ocisbx_err **err)
{
  cleanup_close int tree = sys->open_tree (AT_FDCWD, "/", OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE);

  if (tree < 0)
    return err_set (err, errno, "rootfs: detached copy of the root (open_tree, Linux >= 5.2)");
  if (sys->setns (shared_ns, CLONE_NEWNS) < 0)
    return err_set (err, errno, "rootfs: return to the mount namespace the container shares");
  if (fchdir (tree) < 0 || chroot (".") < 0 || chdir ("/") < 0)
    return err_set (err, errno, "rootfs: chroot into the detached root");
  return 0;
}

void
rootfs_pseudo_clear (rootfs_pseudo *p)
{
  for (size_t i = 0; i < p->n; i++)
    {
      free (p->m[i].dest);
      close (p->m[i].fd);
    }
  p->n = 0;
}

int
rootfs_finalize (const rootfs_ctx *ctx, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;
  unsigned long prop = root_propagation (cfg);
  cleanup_close int rootfd = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

  if (rootfd < 0)
    return err_set (err, errno, "rootfs: open /");
  /* sysctls first: the read-only paths below usually include /proc/sys. */
  if (sysctl_apply (cfg, err) < 0)
    return err_wrap (err, "rootfs");
  if (paths_check_pseudo (ctx->pseudo, rootfd, err) < 0 || paths_readonly (cfg, ctx->pseudo, rootfd, err) < 0
      || paths_mask (cfg, ctx->pseudo, rootfd, err) < 0)
    return err_wrap (err, "rootfs");
  rootfs_pseudo_clear (ctx->pseudo);
  if (mounts_finalize (ctx, rootfd, err) < 0)
    return err_wrap (err, "rootfs");
  if (cfg->root && cfg->root->readonly
      && mount_remount_bind (rootfd, MS_RDONLY, 0, false, "/", err) < 0)
    return err_wrap (err, "rootfs: read-only root");
  if (prop && sys->mount (NULL, "/", NULL, prop, NULL) < 0)
    return err_set (err, errno, "rootfs: rootfsPropagation \"%s\"", cfg->linux_->rootfs_propagation);
  return 0;
}

/* Bind mounts under /proc are refused except onto these (what lxcfs emulates). */
static const char *const proc_allowed[] = {
  "/proc/cpuinfo", "/proc/diskstats", "/proc/meminfo", "/proc/stat", "/proc/swaps",
  "/proc/uptime", "/proc/loadavg", "/proc/slabinfo", "/proc/net/dev",
  "/proc/sys/kernel/ns_last_pid", NULL,
};

bool
rootfs_proc_dest_allowed (const char *clean_dest, const char *type)
{
  if (strcmp (clean_dest, "/proc") == 0) /* a bind: of a procfs root (mounts.c checks) */
    return type == NULL || strcmp (type, "proc") == 0;
  if (strncmp (clean_dest, "/proc/", 6) != 0)
    return true;
  for (size_t i = 0; proc_allowed[i]; i++)
    if (strcmp (clean_dest, proc_allowed[i]) == 0)
      return true;
  return false;
}

static int
validate_mount (const oci_config *cfg, size_t i, ocisbx_err **err)
{
  const oci_mount *m = &cfg->mounts[i];
  cleanup_free char *clean = NULL;
  bool bind = mount_is_bind (m), idmap = false;

  if (m->destination == NULL || m->destination[0] != '/') /* rootfs_absolute_destinations */
    return err_set (err, 0, "config.json: .mounts[%zu].destination: \"%s\" is not an absolute path", i,
                    m->destination ? m->destination : "");
  clean = pathres_clean (m->destination);
  if (strcmp (clean, "/") == 0)
    return err_set (err, 0, "config.json: .mounts[%zu].destination: \"%s\" is the root of the container: a mount "
                            "there would hide the rootfs", i, m->destination);
  if (!rootfs_proc_dest_allowed (clean, bind ? NULL : m->type))
    return err_set (err, 0, "config.json: .mounts[%zu].destination: \"%s\" cannot be mounted: it is inside /proc",
                    i, m->destination);
  if (bind && (m->source == NULL || m->source[0] == '\0'))
    return err_set (err, 0, "config.json: .mounts[%zu].source: a bind mount needs a source", i);
  if (!bind && (m->type == NULL || m->type[0] == '\0'))
    return err_set (err, 0, "config.json: .mounts[%zu].type: required for a non-bind mount", i);
  for (size_t j = 0; j < m->options_len; j++)
    if (strcmp (m->options[j], "idmap") == 0 || strcmp (m->options[j], "ridmap") == 0)
      idmap = true;
  if (idmap || m->uid_mappings_len || m->gid_mappings_len)
    {
      const oci_linux *lx = cfg->linux_;
      if (!bind)
        return err_set (err, 0, "config.json: .mounts[%zu]: only bind mounts can be idmapped", i);
      if ((m->uid_mappings_len == 0) != (m->gid_mappings_len == 0))
        return err_set (err, 0, "config.json: .mounts[%zu]: uidMappings and gidMappings go together", i);
      if (m->uid_mappings_len == 0 && (lx == NULL || lx->uid_mappings_len == 0 || lx->gid_mappings_len == 0))
        return err_set (err, 0, "config.json: .mounts[%zu]: idmap needs uidMappings/gidMappings (on the mount or in .linux)", i);
      for (size_t j = 0; j < m->uid_mappings_len; j++)
        if (m->uid_mappings[j].size == 0)
          return err_set (err, 0, "config.json: .mounts[%zu].uidMappings[%zu].size: must be > 0", i, j);
      for (size_t j = 0; j < m->gid_mappings_len; j++)
        if (m->gid_mappings[j].size == 0)
          return err_set (err, 0, "config.json: .mounts[%zu].gidMappings[%zu].size: must be > 0", i, j);
    }
  return 0;
}

void
rootfs_absolute_destinations (oci_config *cfg)
{
  for (size_t i = 0; i < cfg->mounts_len; i++)
    {
      char **d = &cfg->mounts[i].destination;
      if (*d && (*d)[0] != '/')
        {
          char *abs = xasprintf ("/%s", *d);
          free (*d);
          *d = abs;
        }
    }
}

int
rootfs_validate_config (const oci_config *cfg, ocisbx_err **err)
{
  for (size_t i = 0; i < cfg->mounts_len; i++)
    if (validate_mount (cfg, i, err) < 0)
      return -1;
  if (cfg->linux_ && cfg->linux_->rootfs_propagation
      && mount_propagation_flags (cfg->linux_->rootfs_propagation) == 0)
    return err_set (err, 0, "config.json: .linux.rootfsPropagation: unknown propagation \"%s\"",
                    cfg->linux_->rootfs_propagation);
  if (devices_validate (cfg, err) < 0 || paths_validate (cfg, err) < 0 || sysctl_validate (cfg, err) < 0)
    return -1;
  return 0;
}
