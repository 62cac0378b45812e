#include <config.h>
#include "mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pathres.h"
#include "utils.h"

/* The per-mount flags a bind remount can change. */
#define MS_PER_MOUNT                                                                               \
  (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME | MS_RELATIME        \
   | MS_STRICTATIME | MS_NOSYMFOLLOW)
#define MS_ATIME_MODES (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)

#ifndef ST_NOSYMFOLLOW
#define ST_NOSYMFOLLOW 0x2000
#endif

struct mount_attr_compat
{
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};

int
sys_open_tree (int dfd, const char *path, unsigned flags)
{
#ifdef SYS_open_tree
  return (int) syscall (SYS_open_tree, dfd, path, flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

int
sys_move_mount (int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags)
{
#ifdef SYS_move_mount
  return (int) syscall (SYS_move_mount, from_dfd, from, to_dfd, to, flags);
#else
  errno = ENOSYS;
  return -1;
#endif
}

int
mount_setattr_fd (int fd, uint64_t set, uint64_t clr, bool recursive, const char *what,
                  ocisbx_err **err)
{
  struct mount_attr_compat a = { .attr_set = set, .attr_clr = clr };
#ifdef SYS_mount_setattr
  if (syscall (SYS_mount_setattr, fd, "", AT_EMPTY_PATH | (recursive ? AT_RECURSIVE : 0), &a,
               sizeof a)
      == 0)
    return 0;
#else
  errno = ENOSYS;
#endif
  if (errno == ENOSYS)
    return err_set (err, errno, "set mount attributes of `%s` (needs Linux >= 5.12)", what);
  return err_set (err, errno, "set mount attributes of `%s`", what);
}

bool
mount_procfd_usable (void)
{
  /* After pivot_root "/proc" is whatever the rootfs has there: use it only when it
     is a real procfs. */
  cleanup_close int fd = open ("/proc/self/fd", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct statfs sfs;
  return fd >= 0 && fstatfs (fd, &sfs) == 0 && sfs.f_type == PROC_SUPER_MAGIC;
}

static bool
procfd_usable (rootfs_procfd procfd)
{
  if (procfd == ROOTFS_PROCFD_UNKNOWN)
    return mount_procfd_usable ();
  return procfd == ROOTFS_PROCFD_USABLE;
}

int
mount_bind_fd (int srcfd, int dstfd, unsigned long flags, const char *what, ocisbx_err **err)
{
  return mount_bind_fd_known (ROOTFS_PROCFD_UNKNOWN, srcfd, dstfd, flags, what, err);
}

int
mount_bind_fd_known (rootfs_procfd procfd, int srcfd, int dstfd, unsigned long flags,
                     const char *what, ocisbx_err **err)
{
  char s[PATHRES_FD_PATH_MAX], d[PATHRES_FD_PATH_MAX];
  cleanup_close int tree = -1;

  if (procfd_usable (procfd))
    {
      if (mount (pathres_fd_path (srcfd, s), pathres_fd_path (dstfd, d), NULL,
                 MS_BIND | (flags & MS_REC), NULL)
          < 0)
        return err_set (err, errno, "bind mount `%s`", what);
      return 0;
    }
  /* No procfs at /proc (after pivot_root into a rootfs without one): the new mount
     API takes the fds themselves. */
  tree = sys_open_tree (srcfd, "",
                        OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | ((flags & MS_REC) ? AT_RECURSIVE : 0));
  if (tree < 0 || sys_move_mount (tree, "", dstfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "bind mount `%s`", what);
  return 0;
}

uint64_t
mount_ms_to_attr (unsigned long ms)
{
  uint64_t a = 0;
  if (ms & MS_RDONLY)
    a |= MOUNT_ATTR_RDONLY;
  if (ms & MS_NOSUID)
    a |= MOUNT_ATTR_NOSUID;
  if (ms & MS_NODEV)
    a |= MOUNT_ATTR_NODEV;
  if (ms & MS_NOEXEC)
    a |= MOUNT_ATTR_NOEXEC;
  if (ms & MS_NODIRATIME)
    a |= MOUNT_ATTR_NODIRATIME;
  if (ms & MS_NOSYMFOLLOW)
    a |= MOUNT_ATTR_NOSYMFOLLOW;
  return a;
}

static unsigned long
statvfs_to_ms (unsigned long f)
{
  unsigned long ms = 0;
  if (f & ST_RDONLY)
    ms |= MS_RDONLY;
  if (f & ST_NOSUID)
    ms |= MS_NOSUID;
  if (f & ST_NODEV)
    ms |= MS_NODEV;
  if (f & ST_NOEXEC)
    ms |= MS_NOEXEC;
  if (f & ST_NOATIME)
    ms |= MS_NOATIME;
  if (f & ST_NODIRATIME)
    ms |= MS_NODIRATIME;
  if (f & ST_RELATIME)
    ms |= MS_RELATIME;
  if (!(f & (ST_NOATIME | ST_RELATIME)))
    ms |= MS_STRICTATIME; /* statvfs's way of saying strictatime */
  if (f & ST_NOSYMFOLLOW)
    ms |= MS_NOSYMFOLLOW;
  return ms;
}

void
mount_attrs_of (unsigned long set, unsigned long cleared, bool atime_set, uint64_t *attr_set,
                uint64_t *attr_clr)
{
  uint64_t aset = mount_ms_to_attr (set), aclr = mount_ms_to_attr (cleared & ~set);
  if ((set & MS_ATIME_MODES) || atime_set)
    {
      aclr |= MOUNT_ATTR__ATIME;
      aset |= (set & MS_NOATIME) ? MOUNT_ATTR_NOATIME
              : (set & MS_STRICTATIME) ? MOUNT_ATTR_STRICTATIME : MOUNT_ATTR_RELATIME;
    }
  *attr_set = aset;
  *attr_clr = aclr;
}

int
mount_remount_bind (int fd, unsigned long set, unsigned long cleared, bool atime_set,
                    const char *what, ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  struct statvfs sv;
  unsigned long keep, flags;
  uint64_t aset, aclr;

  /* mount_setattr changes only what is asked, as the remount below does by passing
     back what the mount has: one call, no /proc.  Any failure (old kernel, an
     attribute it does not know, a real error) takes the remount, which decides. */
  set &= MS_PER_MOUNT;
  mount_attrs_of (set, cleared, atime_set, &aset, &aclr);
  {
    ocisbx_err *ignored = NULL;
    if (mount_setattr_fd (fd, aset, aclr, false, what, &ignored) == 0)
      return 0;
    err_free (ignored);
  }
  if (fstatvfs (fd, &sv) < 0)
    return err_set (err, errno, "statvfs `%s`", what);
  keep = statvfs_to_ms (sv.f_flag) & ~cleared;
  if (atime_set || (set & MS_ATIME_MODES))
    keep &= ~MS_ATIME_MODES;
  /* The atime mode must be passed again: without one the kernel picks relatime,
     which is EPERM on a strictatime mount whose atime is locked (user namespace). */
  flags = MS_BIND | MS_REMOUNT | ((set | keep) & MS_PER_MOUNT);
  if (mount_procfd_usable ())
    {
      if (mount (NULL, pathres_fd_path (fd, d), NULL, flags, NULL) < 0)
        return err_set (err, errno, "remount `%s`", what);
      return 0;
    }
  /* Without /proc: change only what was asked, on the fd (again, for the error). */
  return mount_setattr_fd (fd, aset, aclr, false, what, err);
}

int
mount_tmpfs_fd (int dstfd, unsigned long flags, const char *mode, const char *what, ocisbx_err **err)
{
  return mount_tmpfs_fd_known (ROOTFS_PROCFD_UNKNOWN, dstfd, flags, mode, what, err);
}

int
mount_tmpfs_fd_known (rootfs_procfd procfd, int dstfd, unsigned long flags, const char *mode,
                      const char *what, ocisbx_err **err)
{
  char d[PATHRES_FD_PATH_MAX];
  cleanup_free char *data = xasprintf ("mode=%s", mode);
  cleanup_close int fs = -1;
  cleanup_close int mnt = -1;

  if (procfd_usable (procfd))
    {
      if (mount ("tmpfs", pathres_fd_path (dstfd, d), "tmpfs", flags, data) < 0)
        return err_set (err, errno, "mount tmpfs on `%s`", what);
      return 0;
    }
#if defined SYS_fsopen && defined SYS_fsconfig && defined SYS_fsmount
  fs = (int) syscall (SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC);
  if (fs < 0 || syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", mode, 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    return err_set (err, errno, "create tmpfs for `%s`", what);
  mnt = (int) syscall (SYS_fsmount, fs, FSMOUNT_CLOEXEC, (unsigned) mount_ms_to_attr (flags));
  if (mnt < 0 || sys_move_mount (mnt, "", dstfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "mount tmpfs on `%s`", what);
  return 0;
#else
  return err_set (err, ENOSYS, "mount tmpfs on `%s`: no /proc and no fsopen", what);
#endif
}

unsigned long
mount_propagation_flags (const char *name)
{
  static const struct
  {
    const char *name;
    unsigned long flags;
  } t[] = {
    { "private", MS_PRIVATE },       { "rprivate", MS_PRIVATE | MS_REC },
    { "shared", MS_SHARED },         { "rshared", MS_SHARED | MS_REC },
    { "slave", MS_SLAVE },           { "rslave", MS_SLAVE | MS_REC },
    { "unbindable", MS_UNBINDABLE }, { "runbindable", MS_UNBINDABLE | MS_REC },
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp (t[i].name, name) == 0)
      return t[i].flags;
  return 0;
}

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

/* A filesystem mount (not a bind).  Sets *bound when it had to fall back to a bind
   of the host's filesystem (sysfs or mqueue from a user namespace). */
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
  if (mount (source, d, type, flags, o->data) == 0)
    return 0;
  e = errno;
  if (ctx->userns && type && (e == EPERM || e == EACCES))
    {
      /* Without the namespace owning it (net for sysfs, ipc for mqueue) the kernel
         refuses a new instance: bind the host's, as runc does. */
      if (strcmp (type, "sysfs") == 0)
        host = "/sys";
      else if (strcmp (type, "mqueue") == 0)
        host = "/dev/mqueue";
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
      if (mount (source, d, type, flags, data) == 0)
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
  src = statvfs_to_ms (sv.f_flag);
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

static int
mount_one (const rootfs_ctx *ctx, int rootfd, const oci_mount *m, ocisbx_err **err)
{
  cleanup_mount_opts mount_opts o;
  cleanup_close int srcfd = -1;
  cleanup_close int dstfd = -1;
  cleanup_close int top = -1;
  pathres_create_kind kind = PATHRES_DIR;
  bool bind = mount_is_bind (m);
  bool idmapped;

  mount_opts_parse (m->options, m->options_len, &o);
  idmapped = o.idmap || o.ridmap || m->uid_mappings_len || m->gid_mappings_len;
  if (bind)
    o.flags |= MS_BIND;
  if (readonly_later (m, &o))
    o.flags &= ~MS_RDONLY;

  if (bind)
    {
      struct stat st;
      srcfd = open_source (ctx, (size_t) (m - ctx->cfg->mounts), m->source, err);
      if (srcfd < 0)
        return -1;
      if (fstat (srcfd, &st) < 0)
        return err_set (err, errno, "stat mount source `%s`", m->source);
      if (!S_ISDIR (st.st_mode))
        kind = PATHRES_FILE;
      if (mounts_dest_is (m, "/proc") && !is_procfs_root (srcfd, &st))
        return err_set (err, EPERM, "bind mount on `%s`: `%s` is not the root of a procfs", m->destination,
                        m->source);
    }
  if (!bind && needs_plain_directory (m->type) && pathres_has_symlink (rootfd, m->destination))
    return err_set (err, ELOOP, "`%s` is a symlink in the rootfs: filesystem \"%s\" must be mounted on ordinary directory",
                    m->destination, m->type);
  dstfd = pathres_create (rootfd, m->destination, kind, kind == PATHRES_DIR ? 0755 : 0644, err);
  if (dstfd < 0)
    return -1;
  if (is_root (rootfd, dstfd))
    return err_set (err, EINVAL, "`%s` resolves to the root of the container: a mount there would hide the rootfs",
                    m->destination);
  if (on_procfs (dstfd))
    {
      /* A symlink in the rootfs must not smuggle a mount into /proc either. */
      cleanup_free char *clean = pathres_clean (m->destination);
      if (strncmp (clean, "/proc/", 6) != 0 || !rootfs_proc_dest_allowed (clean, bind ? NULL : m->type))
        return err_set (err, EPERM, "`%s` resolves inside /proc: refusing to mount there",
                        m->destination);
    }

  if (!bind && m->type && strcmp (m->type, "cgroup") == 0)
    return mount_cgroup (ctx, rootfd, m, &o, dstfd, err);

  if (bind && idmapped)
    {
      if (mount_idmapped (ctx, m, &o, srcfd, dstfd, err) < 0)
        return -1;
    }
  else if (idmapped)
    return err_set (err, EINVAL, "idmapped mount `%s`: only bind mounts can be idmapped",
                    m->destination);
  else if (bind)
    {
      if (mount_bind_fd_known (ctx->procfd, srcfd, dstfd, o.flags, m->destination, err) < 0)
        return -1;
    }
  else if (mount_filesystem (ctx, m, &o, dstfd, &bind, err) < 0)
    return -1;
  else if (bind && (o.flags & MS_RDONLY))
    {
      /* The host's sysfs/mqueue came with its submounts: all of them read-only. */
      o.recursive = true;
      o.attr_set |= MOUNT_ATTR_RDONLY;
      o.attr_clr &= ~(uint64_t) MOUNT_ATTR_RDONLY;
    }

  /* What follows acts on the new mount: re-resolve the destination, since DSTFD is
     the directory underneath it. */
  if (!(bind && ((o.flags | o.cleared) & MS_PER_MOUNT)) && o.n_propagation == 0 && !o.recursive
      && !o.tmpcopyup)
    return 0;
  top = pathres_open (rootfd, m->destination, err);
  if (top < 0)
    return -1;
  if (o.tmpcopyup && !bind && m->type && strcmp (m->type, "tmpfs") == 0
      && mount_copyup (dstfd, top, o.data, err) < 0)
    return err_wrap (err, "`%s`", m->destination);
  if (bind && ((o.flags | o.cleared) & MS_PER_MOUNT)
      && remount_bind_flags (top, &o, ctx->userns, m->destination, err) < 0)
    return -1;
  for (size_t i = 0; i < o.n_propagation; i++)
    {
      char d[PATHRES_FD_PATH_MAX];
      if (mount (NULL, pathres_fd_path (top, d), NULL, o.propagation[i], NULL) < 0)
        return err_set (err, errno, "set propagation of `%s`", m->destination);
    }
  if (o.recursive && mount_setattr_fd (top, o.attr_set, o.attr_clr, true, m->destination, err) < 0)
    return -1;
  return 0;
}

int
mounts_setup (const rootfs_ctx *ctx, int rootfd, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;

  for (size_t i = 0; i < cfg->mounts_len; i++)
    if (mount_one (ctx, rootfd, &cfg->mounts[i], err) < 0)
      return err_wrap (err, "mounts[%zu]", i);
  return 0;
}

int
mounts_finalize (const oci_config *cfg, int rootfd, ocisbx_err **err)
{
  for (size_t i = 0; i < cfg->mounts_len; i++)
    {
      const oci_mount *m = &cfg->mounts[i];
      cleanup_mount_opts mount_opts o;
      cleanup_close int fd = -1;

      mount_opts_parse (m->options, m->options_len, &o);
      if (!readonly_later (m, &o))
        continue;
      fd = pathres_open (rootfd, m->destination, err);
      if (fd < 0 || mount_remount_bind (fd, MS_RDONLY, 0, false, m->destination, err) < 0)
        return err_wrap (err, "mounts[%zu]: read-only", i);
    }
  return 0;
}

int
mount_tree_with_attrs (const oci_config *cfg, int srcfd, int dst, bool set_attrs, uint64_t attr_set,
                       uint64_t attr_clr)
{
  const char *prop = cfg->linux_ ? cfg->linux_->rootfs_propagation : NULL;
  cleanup_close int tree = -1;
  ocisbx_err *ignored = NULL;

  if (prop && (mount_propagation_flags (prop) & MS_SHARED))
    return -1;
  tree = sys_open_tree (srcfd, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
  if (tree < 0)
    return -1;
  if (set_attrs && mount_setattr_fd (tree, attr_set, attr_clr, false, "", &ignored) < 0)
    {
      err_free (ignored);
      return -1;
    }
  return sys_move_mount (tree, "", dst, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
}
