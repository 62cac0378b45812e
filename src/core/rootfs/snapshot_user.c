/* Btrfs snapshots without CAP_SYS_ADMIN (snapshot.c's rootless half).  What the kernel
 * lets a user do (Linux 6.18, found by trying):
 *
 *   - BTRFS_IOC_SNAP_CREATE_V2 of a subvolume the user owns (inode_owner_or_capable),
 *     into a directory it may write;
 *   - BTRFS_IOC_SNAP_DESTROY (and _V2) only with the mount option user_subvol_rm_allowed
 *     (and write access to the snapshot's root): EPERM otherwise;
 *   - rmdir of an EMPTY subvolume (btrfs_rmdir deletes it) with no option at all.
 *
 * So a rootless ephemeral run takes a snapshot when delete will be able to remove it:
 * the mount has user_subvol_rm_allowed, or every file the container can make is the
 * user's (its uid mapping is the user alone), so that the user can empty the snapshot
 * and rmdir it.  Emptying walks the snapshot with openat2 (no symlink, no other mount
 * followed), makes the user's own directories writable as it goes, and moves what is
 * nested too deep up to the snapshot's top rather than recursing without end.
 */
#include <config.h>
#include "core/rootfs/rootfs.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/utils.h"

#define EMPTY_DEPTH_MAX 64
#define EMPTY_PASSES_MAX 64
#define MOUNTINFO_LINE_MAX 16384

/* ---- the mount option ---- */

typedef struct mount_opt
{
  unsigned long id;
  bool found;
} mount_opt;

static int
mount_opt_line (char *line, void *arg)
{
  mount_opt *m = arg;
  const char *super;
  char *end;

  if (line == NULL || strtoul (line, &end, 10) != m->id || end == line || *end != ' ')
    return 0;
  super = strstr (line, " - ");
  /* " - FSTYPE SOURCE SUPER_OPTIONS": the options are the last field */
  super = super ? strrchr (super, ' ') : NULL;
  if (super)
    {
      cleanup_free char *opts = xasprintf (",%s,", super + 1);
      opts[strcspn (opts, "\n")] = '\0';
      m->found = strstr (opts, ",user_subvol_rm_allowed,") != NULL;
    }
  return 0;
}

bool
rootfs_snapshot_user_rm_allowed (int dirfd)
{
  struct statx x;
  mount_opt m = { 0 };
  char buf[MOUNTINFO_LINE_MAX];

  if (statx (dirfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &x) < 0 || !(x.stx_mask & STATX_MNT_ID))
    return false;
  m.id = x.stx_mnt_id;
  if (lines_each ("/proc/self/mountinfo", buf, sizeof buf, mount_opt_line, &m) < 0)
    return false;
  return m.found;
}

/* ---- emptying ---- */

typedef struct emptier
{
  int fd;            /* the directory being emptied */
  int top;           /* the snapshot's root */
  int depth;
  unsigned *counter; /* names for what is moved up */
  const char *snap;  /* for messages */
  const char *rel;   /* the directory's path in the snapshot ("": its root) */
  ocisbx_err **err;
} emptier;

static int empty_dir (const emptier *parent, int fd, const char *rel);

/* An error about NAME in E's directory, named by its path in the snapshot. */
static int
entry_err (const emptier *e, int errnum, const char *what, const char *name)
{
  return err_set (e->err, errnum, "`%s`: %s `%s%s%s` in it", e->snap, what, e->rel, e->rel[0] ? "/" : "", name);
}

/* The directory NAME in E->fd opened without following anything, made the user's
   to write when it is theirs and is not. */
static int
open_subdir (const emptier *e, const char *name)
{
  struct open_how how = {
    .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  struct stat st;
  int fd;

  if (fstatat (e->fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
    return -1;
  if (!S_ISDIR (st.st_mode))
    return errno = ENOTDIR, -1;
  if (st.st_uid == geteuid () && (st.st_mode & 0700) != 0700 && fchmodat (e->fd, name, 0700, 0) < 0)
    return -1;
  fd = (int) syscall (SYS_openat2, e->fd, name, &how, sizeof how);
  return fd;
}

static int
empty_entry (const char *name, unsigned char type, void *arg)
{
  const emptier *e = arg;
  cleanup_close int sub = -1;

  if (type != DT_DIR && type != DT_UNKNOWN)
    {
      if (unlinkat (e->fd, name, 0) == 0 || errno == ENOENT)
        return 0;
      return entry_err (e, errno, "remove", name);
    }
  if (unlinkat (e->fd, name, 0) == 0 || errno == ENOENT)
    return 0; /* DT_UNKNOWN: not a directory after all */
  if (e->depth >= EMPTY_DEPTH_MAX)
    {
      /* emptied in a later pass, from the top, under a name not taken */
      char up[64];
      for (;;)
        {
          snprintf (up, sizeof up, ".ocisbx-deep-%u", (*e->counter)++);
          if (renameat2 (e->fd, name, e->top, up, RENAME_NOREPLACE) == 0)
            return 0;
          if (errno != EEXIST)
            return entry_err (e, errno, "move up (to empty it)", name);
        }
    }
  sub = open_subdir (e, name);
  if (sub < 0)
    return entry_err (e, errno, "open the directory", name);
  {
    cleanup_free char *rel = e->rel[0] ? xasprintf ("%s/%s", e->rel, name) : xstrdup (name);
    if (empty_dir (e, sub, rel) < 0)
      return -1;
  }
  /* a subvolume the container made goes too: rmdir deletes an empty one */
  if (unlinkat (e->fd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && errno != ENOTEMPTY)
    return entry_err (e, errno, "remove the directory", name);
  return 0;
}

/* FD (REL in the snapshot) emptied, one level below PARENT's. */
static int
empty_dir (const emptier *parent, int fd, const char *rel)
{
  emptier e = *parent;
  int r;

  e.fd = fd;
  e.depth = parent->depth + 1;
  e.rel = rel;
  r = dir_each (fd, empty_entry, &e);
  if (r < 0 && *e.err == NULL)
    return err_set (e.err, errno, "`%s`: read the directory `%s` in it", e.snap, rel[0] ? rel : ".");
  return r;
}

int
rootfs_snapshot_user_remove (int dirfd, const char *name, const char *path, ocisbx_err **err)
{
  struct open_how how = {
    .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  cleanup_close int top = -1;
  unsigned counter = 0;
  long deadline = monotonic_ms () + 5000;
  struct stat st;

  if (fstatat (dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid == geteuid ()
      && (st.st_mode & 0700) != 0700)
    fchmodat (dirfd, name, 0700, 0);
  top = (int) syscall (SYS_openat2, dirfd, name, &how, sizeof how);
  if (top < 0)
    return err_set (err, errno, "btrfs snapshot `%s`: open it to empty it", path);
  for (int pass = 0;; pass++)
    {
      struct timespec ts = { 0, 20 * 1000 * 1000 };
      emptier e = { .top = top, .depth = -1, .counter = &counter, .snap = path, .rel = "", .err = err };
      /* each pass reads the root from its start (what was moved up is there) */
      if (lseek (top, 0, SEEK_SET) < 0)
        return err_set (err, errno, "btrfs snapshot `%s`: read it again", path);
      if (empty_dir (&e, top, "") < 0)
        return err_wrap (err, "empty the btrfs snapshot (without CAP_SYS_ADMIN or the mount option "
                              "user_subvol_rm_allowed it can only be removed empty, with rmdir)");
      if (unlinkat (dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return 0;
      if ((errno != ENOTEMPTY && errno != EBUSY) || pass >= EMPTY_PASSES_MAX || monotonic_ms () > deadline)
        return err_set (err, errno, "remove the emptied btrfs snapshot `%s` (rmdir)", path);
      if (errno == EBUSY)
        nanosleep (&ts, NULL);
    }
}
