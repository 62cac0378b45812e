#include <config.h>
#include "core/rootfs/mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/rootfs/pathres.h"
#include "core/utils.h"
#include "core/syscalls.h"

bool
mounts_dest_is (const oci_mount *m, const char *dest)
{
  cleanup_free char *c = NULL;
  if (m->destination == NULL)
    return false;
  c = pathres_clean (m->destination);
  return strcmp (c, dest) == 0;
}

bool
mount_is_bind (const oci_mount *m)
{
  if (m->type && strcmp (m->type, "bind") == 0)
    return true;
  for (size_t i = 0; i < m->options_len; i++)
    if (strcmp (m->options[i], "bind") == 0 || strcmp (m->options[i], "rbind") == 0)
      return true;
  return false;
}

/* The bind source of mounts[INDEX]: relative paths are under the bundle.  Host paths
   are trusted: one that the container's root cannot reach (below a directory of host
   root's, mode 0700) the runtime opens when it lends its privileges, as runc does. */
static int
open_source (const rootfs_ctx *ctx, size_t index, const char *source, ocisbx_err **err)
{
  cleanup_free char *path = NULL;
  cleanup_free char *clean = NULL;
  int fd, e;

  if (source == NULL || *source == '\0')
    return err_set (err, EINVAL, "bind mount without a source");
  path = source[0] == '/' || ctx->bundle == NULL ? xstrdup (source)
                                                 : xasprintf ("%s/%s", ctx->bundle, source);
  fd = open (path, O_PATH | O_CLOEXEC);
  if (fd >= 0)
    return fd;
  e = errno;
  clean = pathres_clean (path);
  if ((e == EACCES || e == EPERM) && ctx->runtime_source && !pathres_under (ctx->rootfs, clean))
    return ctx->runtime_source (ctx->runtime_source_arg, index, -1, err);
  return err_set (err, e, "open mount source `%s`", path);
}

/* Remove "gid=N" from a devpts data string (a gid not mapped in a user namespace). */
static char *
data_without_gid (const char *data)
{
  cleanup_free char *copy = xstrdup (data);
  char *out = xmalloc0 (strlen (data) + 1), *save = NULL;

  for (char *tok = strtok_r (copy, ",", &save); tok; tok = strtok_r (NULL, ",", &save))
    {
      if (strncmp (tok, "gid=", 4) == 0)
        continue;
      if (*out)
        strcat (out, ",");
      strcat (out, tok);
    }
  return out;
}

/* Before pivot_root: is the procfs at /proc (the runtime's) one of our own pid
   namespace?  Its "self" then names our pid. */
static bool
host_proc_is_ours (void)
{
  char buf[32];
  ssize_t n = readlink ("/proc/self", buf, sizeof buf - 1);

  if (n <= 0)
    return false;
  buf[n] = '\0';
  return strtol (buf, NULL, 10) == (long) getpid ();
}

/* A filesystem mount (not a bind).  Sets *bound when it had to fall back to a bind
   of the host's filesystem (sysfs, mqueue or proc from a user namespace). */
static int
mount_filesystem (const rootfs_ctx *ctx, const oci_mount *m, const mount_opts *o, int dstfd,
                  bool *bound, ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  const char *type = m->type;
  const char *source = m->source && *m->source ? m->source : type;
  unsigned long flags = o->flags & ~(MS_BIND | MS_REC);
  const char *host = NULL;
  int e;

  pathres_fd_path (dstfd, d);
  if (sys->mount (source, d, type, flags, o->data) == 0)
    return 0;
  e = errno;
  if (ctx->userns && type && (e == EPERM || e == EACCES))
    {
      /* Without the namespace owning it (net for sysfs, ipc for mqueue) the kernel
         refuses a new instance: bind the host's, as runc does.  The same for proc in
         the host's pid namespace (rootless), whose procfs shows just what a new one
         would. */
      if (strcmp (type, "sysfs") == 0)
        host = "/sys";
      else if (strcmp (type, "mqueue") == 0)
        host = "/dev/mqueue";
      else if (strcmp (type, "proc") == 0 && host_proc_is_ours ())
        host = "/proc";
    }
  if (host)
    {
      cleanup_close int src = open (host, O_PATH | O_DIRECTORY | O_CLOEXEC);
      if (src < 0)
        return err_set (err, errno, "open `%s`", host);
      *bound = true;
      return mount_bind_fd_known (ctx->procfd, src, dstfd, MS_REC, m->destination, err);
    }
  if (ctx->userns && e == EINVAL && type && strcmp (type, "devpts") == 0 && o->data
      && strstr (o->data, "gid="))
    {
      cleanup_free char *data = data_without_gid (o->data);
      if (sys->mount (source, d, type, flags, data) == 0)
        return 0;
      e = errno;
    }
  return err_set (err, e, "mount %s `%s`", type ? type : "(no type)", m->destination);
}

/* procfs and sysfs: a symlink in the rootfs must not decide where they go (the masked
   and read-only paths would miss them), as in runc. */
static bool
needs_plain_directory (const char *type)
{
  return type && (strcmp (type, "proc") == 0 || strcmp (type, "sysfs") == 0);
}

static bool
is_root (int rootfd, int fd)
{
  struct stat a, b;
  return fstat (rootfd, &a) == 0 && fstat (fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* A read-only tmpfs, and a read-only /dev, are mounted writable and made read-only by
   mounts_finalize (as runc does): the devices and links, later mounts inside them and
   tmpcopyup write there first. */
static bool
readonly_later (const oci_mount *m, const mount_opts *o)
{
  if (!(o->flags & MS_RDONLY))
    return false;
  if (!mount_is_bind (m) && m->type && strcmp (m->type, "tmpfs") == 0)
    return true;
  return mounts_dest_is (m, "/dev");
}

/* The per-mount flags of a bind that has some among its options: those asked, the
   others kept from the source, except ro: read-write unless `ro` is there (runc's
   "mount --bind -o" reading).  In a user namespace the kernel locks the flags the
   source had: a locked ro then stays, and an explicit change of a locked flag fails,
   saying so. */
static int
remount_bind_flags (int top, const mount_opts *o, bool userns, const char *dest, ocisbx_err **err)
{
  unsigned long set = o->flags & MS_PER_MOUNT;
  struct statvfs sv;
  unsigned long src;

  if (!(set & MS_RDONLY) && !(o->cleared & MS_RDONLY))
    {
      ocisbx_err *e = NULL;
      if (mount_remount_bind (top, set, o->cleared | MS_RDONLY, o->atime_set, dest, &e) == 0)
        return 0;
      if (e->errnum != EPERM || !userns)
        {
          *err = e;
          return -1;
        }
      err_free (e); /* a locked ro: kept */
    }
  if (mount_remount_bind (top, set, o->cleared, o->atime_set, dest, err) == 0)
    return 0;
  if ((*err)->errnum != EPERM || !userns || fstatvfs (top, &sv) < 0)
    return -1;
  src = mount_flags_of_statvfs (sv.f_flag);
  err_freep (err);
  return err_set (err, EPERM,
                  "remount `%s`: a user namespace locks the flags of the source (%s%s%s%s%s,%s): the "
                  "options cannot change them",
                  dest, src & MS_RDONLY ? "ro" : "rw", src & MS_NOSUID ? ",nosuid" : "",
                  src & MS_NODEV ? ",nodev" : "", src & MS_NOEXEC ? ",noexec" : "",
                  src & MS_NODIRATIME ? ",nodiratime" : "",
                  src & MS_NOATIME ? "noatime" : src & MS_STRICTATIME ? "strictatime" : "relatime");
}

static bool
on_procfs (int fd)
{
  struct statfs sfs;
  return fstatfs (fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

#define PROC_ROOT_INO 1

static bool
is_procfs_root (int fd, const struct stat *st)
{
  return on_procfs (fd) && st->st_ino == PROC_ROOT_INO;
}

/* A mount at DEST covers what was recorded at DEST or below it. */
static void
pseudo_forget_under (rootfs_pseudo *p, const char *dest)
{
  size_t kept = 0;

  for (size_t i = 0; i < p->n; i++)
    {
      if (pathres_under (dest, p->m[i].dest))
        {
          free (p->m[i].dest);
          close (p->m[i].fd);
          continue;
        }
      p->m[kept++] = p->m[i];
    }
  p->n = kept;
}

/* The procfs or sysfs (MAGIC) just mounted at DEST: an fd of its root, from DEST
   resolved again (PLAIN: following no symlink, as a proc or sysfs mount's destination
   must be; else inside the root), and checked to be such a file system (a writer of
   the rootfs may have swapped the directory meanwhile: then it is an error, not a
   mount the masks would miss). */
static int
pseudo_record (rootfs_pseudo *p, int rootfd, const char *dest, long magic, bool plain, ocisbx_err **err)
{
  cleanup_free char *clean = pathres_clean (dest);
  cleanup_close int fd = plain ? pathres_open_plain (rootfd, clean, err) : pathres_open (rootfd, clean, err);
  struct statfs sfs;

  if (fd < 0)
    return err_wrap (err, "`%s` changed while it was mounted", dest);
  if (sys->fstatfs (fd, &sfs) < 0)
    return err_set (err, errno, "statfs `%s`", dest);
  if (sfs.f_type != magic)
    return err_set (err, EXDEV, "`%s` is not the %s just mounted there: the rootfs changed under it", dest,
                    magic == PROC_SUPER_MAGIC ? "procfs" : "sysfs");
  if (p->n == ROOTFS_PSEUDO_MAX)
    return err_set (err, E2BIG, "`%s`: more than %d procfs and sysfs mounts", dest, ROOTFS_PSEUDO_MAX);
  p->m[p->n++] = (rootfs_pseudo_mount){ .dest = steal_ptr (&clean), .fd = steal_fd (&fd), .magic = magic };
  return 0;
}

/* The file system type of a mount of M: a procfs or sysfs (M's type, or its bind
   source's), 0 for anything else. */
static long
pseudo_magic (const oci_mount *m, bool bind, int srcfd)
{
  struct statfs sfs;

  if (bind)
    return sys->fstatfs (srcfd, &sfs) == 0 && (sfs.f_type == PROC_SUPER_MAGIC || sfs.f_type == SYSFS_MAGIC)
               ? (long) sfs.f_type
               : 0;
  if (m->type && strcmp (m->type, "proc") == 0)
    return PROC_SUPER_MAGIC;
  if (m->type && strcmp (m->type, "sysfs") == 0)
    return SYSFS_MAGIC;
  return 0;
}

/* A tmpfs without mode= takes the mode of the directory it covers, when there is one
   (as runc and crun): the image's 0700 or 0712 stays so under the mount; a destination
   made for it gets tmpfs's own 1777.  The data to mount with when it changes (the
   plan's DATA with mode= first), else NULL. */
static char *
tmpfs_mode_of_destination (int rootfd, const char *dest, const char *data)
{
  ocisbx_err *ignored = NULL;
  cleanup_close int fd = -1;
  struct stat st;

  for (const char *p = data; p; p = strchr (p, ','), p = p ? p + 1 : NULL)
    if (strncmp (p, "mode=", 5) == 0)
      return NULL;
  fd = pathres_open (rootfd, dest, &ignored);
  if (fd < 0)
    {
      err_free (ignored);
      return NULL;
    }
  if (fstat (fd, &st) < 0 || !S_ISDIR (st.st_mode))
    return NULL;
  return data ? xasprintf ("mode=%04o,%s", (unsigned) (st.st_mode & 07777), data)
              : xasprintf ("mode=%04o", (unsigned) (st.st_mode & 07777));
}

/* The bind source of mounts[INDEX] open, and what it is: *KIND a file or a directory.
   /proc only from the root of a procfs. */
static int
bind_source (const rootfs_ctx *ctx, size_t index, pathres_create_kind *kind, ocisbx_err **err)
{
  const oci_mount *m = &ctx->cfg->mounts[index];
  cleanup_close int srcfd = open_source (ctx, index, m->source, err);
  struct stat st;

  if (srcfd < 0)
    return -1;
  if (fstat (srcfd, &st) < 0)
    return err_set (err, errno, "stat mount source `%s`", m->source);
  *kind = S_ISDIR (st.st_mode) ? PATHRES_DIR : PATHRES_FILE;
  if (mounts_dest_is (m, "/proc") && !is_procfs_root (srcfd, &st))
    return err_set (err, EPERM, "bind mount on `%s`: `%s` is not the root of a procfs", m->destination,
                    m->source);
  return steal_fd (&srcfd);
}

/* The destination's checks, then its fd (created as KIND when missing): no symlink
   under a procfs or sysfs, not the root itself, inside /proc only where allowed. */
static int
mount_destination (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, bool bind, pathres_create_kind kind,
                   ocisbx_err **err)
{
  cleanup_close int dstfd = -1;
  cleanup_free char *clean = pathres_clean (m->destination);

  if (!bind && needs_plain_directory (m->type) && pathres_has_symlink (rootfd, m->destination))
    return err_set (err, ELOOP, "`%s` is a symlink in the rootfs: filesystem \"%s\" must be mounted on ordinary directory",
                    m->destination, m->type);
  dstfd = pathres_create (rootfd, m->destination, kind, kind == PATHRES_DIR ? 0755 : 0644, err);
  if (dstfd < 0)
    return -1;
  if (is_root (rootfd, dstfd))
    return err_set (err, EINVAL, "`%s` resolves to the root of the container: a mount there would hide the rootfs",
                    m->destination);
  /* A symlink in the rootfs must not smuggle a mount into /proc either. */
  if (on_procfs (dstfd)
      && (strncmp (clean, "/proc/", 6) != 0 || !rootfs_proc_dest_allowed (clean, bind ? NULL : m->type)))
    return err_set (err, EPERM, "`%s` resolves inside /proc: refusing to mount there", m->destination);
  pseudo_forget_under (ctx->pseudo, clean);
  return steal_fd (&dstfd);
}

/* A new file system at DSTFD; where it had to be the host's bound instead (*BOUND),
   a read-only one is read-only with its submounts (the host's sysfs/mqueue). */
static int
mount_new_filesystem (const rootfs_ctx *ctx, const oci_mount *m, mount_opts *o, int dstfd, bool *bound,
                      ocisbx_err **err)
{
  if (mount_filesystem (ctx, m, o, dstfd, bound, err) < 0)
    return -1;
  if (*bound && (o->flags & MS_RDONLY))
    {
      o->recursive = true;
      o->attr_set |= MOUNT_ATTR_RDONLY;
      o->attr_clr &= ~(uint64_t) MOUNT_ATTR_RDONLY;
    }
  return 0;
}

/* The mount itself, by its kind: an idmapped bind, a bind, or a new file system.
   *BOUND: what DSTFD got is a bind (for the fix-ups). */
static int
mount_dispatch (const rootfs_ctx *ctx, const oci_mount *m, mount_opts *o, bool bind, int srcfd, int dstfd,
                bool *bound, ocisbx_err **err)
{
  bool idmapped = o->idmap || o->ridmap || m->uid_mappings_len || m->gid_mappings_len;

  *bound = bind;
  if (idmapped && !bind)
    return err_set (err, EINVAL, "idmapped mount `%s`: only bind mounts can be idmapped", m->destination);
  if (idmapped)
    return mount_idmapped (ctx, m, o, srcfd, dstfd, err);
  if (!bind)
    return mount_new_filesystem (ctx, m, o, dstfd, bound, err);
  /* `ro` on an rbind is the top mount's alone, as runc and mount(8) do it; `rro` is the
     recursive form (docker's bind-recursive=writable asks for rbind,ro) */
  return mount_bind_fd_known (ctx->procfd, srcfd, dstfd, o->flags, m->destination, err);
}

/* What acts on the new mount once made: tmpcopyup, a bind's per-mount flags,
   propagation, recursive attributes.  The destination is resolved again, DSTFD being
   the directory underneath. */
static int
mount_fixups (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, const mount_opts *o, bool bound, int dstfd,
              ocisbx_err **err)
{
  bool per_mount = bound && ((o->flags | o->cleared) & MS_PER_MOUNT);
  cleanup_close int top = -1;

  if (!per_mount && o->n_propagation == 0 && !o->recursive && !o->tmpcopyup)
    return 0;
  top = pathres_open (rootfd, m->destination, err);
  if (top < 0)
    return -1;
  if (o->tmpcopyup && !bound && m->type && strcmp (m->type, "tmpfs") == 0
      && mount_copyup (dstfd, top, o->data, err) < 0)
    return err_wrap (err, "`%s`", m->destination);
  if (per_mount && remount_bind_flags (top, o, ctx->userns, m->destination, err) < 0)
    return -1;
  for (size_t i = 0; i < o->n_propagation; i++)
    {
      char d[PATHRES_FD_PATH_MAX];
      if (sys->mount (NULL, pathres_fd_path (top, d), NULL, o->propagation[i], NULL) < 0)
        return err_set (err, errno, "set propagation of `%s`", m->destination);
    }
  if (o->recursive && mount_setattr_fd (top, o->attr_set, o->attr_clr, true, m->destination, err) < 0)
    return -1;
  return 0;
}

/* mounts[INDEX]: its options as the plan parsed them (a copy: the flags are adjusted
   here; the data is the plan's), the destination checked, the mount, the fix-ups. */
static int
mount_one (const rootfs_ctx *ctx, int rootfd, size_t index, ocisbx_err **err)
{
  const oci_mount *m = &ctx->cfg->mounts[index];
  mount_opts o = ctx->mount_opts[index];
  cleanup_close int srcfd = -1;
  cleanup_close int dstfd = -1;
  cleanup_free char *tmpfs_data = NULL;
  pathres_create_kind kind = PATHRES_DIR;
  bool bind = mount_is_bind (m), bound;
  long magic;

  if (bind)
    o.flags |= MS_BIND;
  if (readonly_later (m, &o))
    o.flags &= ~MS_RDONLY;
  if (bind && (srcfd = bind_source (ctx, index, &kind, err)) < 0)
    return -1;
  if (!bind && m->type && strcmp (m->type, "tmpfs") == 0
      && (tmpfs_data = tmpfs_mode_of_destination (rootfd, m->destination, o.data)) != NULL)
    o.data = tmpfs_data;
  dstfd = mount_destination (ctx, rootfd, m, bind, kind, err);
  if (dstfd < 0)
    return -1;
  magic = pseudo_magic (m, bind, srcfd);
  if (!bind && m->type && strcmp (m->type, "cgroup") == 0)
    return mount_cgroup (ctx, rootfd, m, &o, dstfd, err);
  if (mount_dispatch (ctx, m, &o, bind, srcfd, dstfd, &bound, err) < 0)
    return -1;
  if (magic && pseudo_record (ctx->pseudo, rootfd, m->destination, magic, !bind, err) < 0)
    return -1;
  return mount_fixups (ctx, rootfd, m, &o, bound, dstfd, err);
}

int
mounts_setup (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;

  for (size_t i = 0; i < cfg->mounts_len; i++)
    if (mount_one (ctx, rootfd, i, err) < 0)
      return err_wrap (err, "mounts[%zu]", i);
  return 0;
}

int
mounts_finalize (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;

  for (size_t i = 0; i < cfg->mounts_len; i++)
    {
      const oci_mount *m = &cfg->mounts[i];
      const mount_opts *o = &ctx->mount_opts[i];
      cleanup_close int fd = -1;

      if (!readonly_later (m, o))
        continue;
      fd = pathres_open (rootfd, m->destination, err);
      if (fd < 0 || mount_remount_bind (fd, MS_RDONLY, 0, false, m->destination, err) < 0)
        return err_wrap (err, "mounts[%zu]: read-only", i);
    }
  return 0;
}

mount_opts *
mounts_parse_options (const oci_config *cfg)
{
  mount_opts *all = xmalloc0 ((cfg->mounts_len ? cfg->mounts_len : 1) * sizeof *all);

  for (size_t i = 0; i < cfg->mounts_len; i++)
    mount_opts_parse (cfg->mounts[i].options, cfg->mounts[i].options_len, &all[i]);
  return all;
}

void
mounts_free_options (mount_opts *all, size_t n)
{
  if (all == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    mount_opts_free (&all[i]);
  free (all);
}
