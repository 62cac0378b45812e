/* Unit tests of the filesystem area: the mount option table, in-root path
   resolution (openat2 and the fallback walk) against hostile symlinks, and the
   config checks (mount destinations, devices, sysctl). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/magic.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rootfs/mount_options.h"
#include "core/rootfs/mounts.h"
#include "core/rootfs/pathres.h"
#include "core/rootfs/rootfs.h"
#include "core/rootfs/sysctl.h"
#include "core/utils.h"
#include "ocispec.h"
#include "unit.h"
#include "unit_files.h"

/* ---- option table ---- */

static void
test_options_flags (void)
{
  char *opts[] = { "nosuid", "nodev", "noexec", "ro", "sync", "dirsync", "mand", "lazytime" };
  mount_opts o;

  mount_opts_parse (opts, 8, &o);
  CHECK (o.flags == (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY | MS_SYNCHRONOUS | MS_DIRSYNC
                     | MS_MANDLOCK | MS_LAZYTIME));
  CHECK (o.data == NULL);
  CHECK (!o.recursive && o.n_propagation == 0);
  mount_opts_free (&o);
}

static void
test_options_clear (void)
{
  char *opts[] = { "ro", "nosuid", "rw", "suid", "dev", "exec", "async", "nomand" };
  mount_opts o;

  mount_opts_parse (opts, 8, &o);
  CHECK (o.flags == 0);
  CHECK ((o.cleared & (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS | MS_MANDLOCK))
         == (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_SYNCHRONOUS | MS_MANDLOCK));
  mount_opts_free (&o);
}

/* iversion / noiversion (runtime-spec 1.3): MS_I_VERSION, not filesystem data */
static void
test_options_iversion (void)
{
  char *on[] = { "iversion" }, *off[] = { "iversion", "noiversion" };
  mount_opts o;

  mount_opts_parse (on, 1, &o);
  CHECK (o.flags == MS_I_VERSION && o.data == NULL);
  mount_opts_free (&o);
  mount_opts_parse (off, 2, &o);
  CHECK (o.flags == 0 && (o.cleared & MS_I_VERSION) && o.data == NULL);
  mount_opts_free (&o);
  CHECK (mount_opt_known ("iversion") && mount_opt_known ("noiversion"));
}

static void
test_options_atime (void)
{
  mount_opts o;
  char *a[] = { "noatime", "strictatime" };
  char *b[] = { "strictatime", "atime" };
  char *c[] = { "relatime", "nodiratime" };
  char *d[] = { "nodiratime", "diratime", "norelatime" };

  mount_opts_parse (a, 2, &o);
  CHECK ((o.flags & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)) == MS_STRICTATIME);
  CHECK (o.atime_set);
  mount_opts_free (&o);
  mount_opts_parse (b, 2, &o);
  CHECK ((o.flags & (MS_NOATIME | MS_RELATIME | MS_STRICTATIME)) == 0);
  mount_opts_free (&o);
  mount_opts_parse (c, 2, &o);
  CHECK (o.flags == (MS_RELATIME | MS_NODIRATIME));
  mount_opts_free (&o);
  mount_opts_parse (d, 3, &o);
  CHECK (o.flags == MS_STRICTATIME);
  CHECK (o.cleared & MS_NODIRATIME);
  mount_opts_free (&o);
}

static void
test_options_bind_and_data (void)
{
  char *opts[] = { "rbind", "mode=755", "size=65536k", "ro", "newinstance", "", "tmpcopyup" };
  mount_opts o;

  mount_opts_parse (opts, 7, &o);
  CHECK (o.flags == (MS_BIND | MS_REC | MS_RDONLY));
  CHECK_STR (o.data, "mode=755,size=65536k,newinstance");
  CHECK (o.tmpcopyup);
  mount_opts_free (&o);
  CHECK (o.data == NULL);
}

static void
test_options_propagation (void)
{
  char *opts[] = { "rprivate", "shared", "rslave", "unbindable", "runbindable", "private",
                   "rshared", "slave" };
  mount_opts o;

  mount_opts_parse (opts, 8, &o);
  CHECK (o.n_propagation == 8);
  CHECK (o.propagation[0] == (MS_PRIVATE | MS_REC));
  CHECK (o.propagation[1] == MS_SHARED);
  CHECK (o.propagation[2] == (MS_SLAVE | MS_REC));
  CHECK (o.propagation[3] == MS_UNBINDABLE);
  CHECK (o.propagation[4] == (MS_UNBINDABLE | MS_REC));
  CHECK (o.propagation[5] == MS_PRIVATE);
  CHECK (o.propagation[6] == (MS_SHARED | MS_REC));
  CHECK (o.propagation[7] == MS_SLAVE);
  CHECK (o.flags == 0 && o.data == NULL);
  CHECK (mount_propagation_flags ("rslave") == (MS_SLAVE | MS_REC));
  CHECK (mount_propagation_flags ("bogus") == 0);
  mount_opts_free (&o);
}

static void
test_options_recursive (void)
{
  char *a[] = { "rro", "rnosuid", "rnodev", "rnoexec", "rnoatime" };
  char *b[] = { "rrw", "rsuid", "rdev", "rexec", "rstrictatime" };
  char *c[] = { "rnoatime", "ratime" };
  char *d[] = { "rnostrictatime", "rnorelatime" };
  mount_opts o;

  mount_opts_parse (a, 5, &o);
  CHECK (o.recursive);
  CHECK (o.attr_set
         == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC
             | MOUNT_ATTR_NOATIME));
  CHECK (o.attr_clr == MOUNT_ATTR__ATIME);
  CHECK (o.flags == 0);
  mount_opts_free (&o);

  mount_opts_parse (b, 5, &o);
  CHECK (o.attr_set == MOUNT_ATTR_STRICTATIME);
  CHECK (o.attr_clr
         == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC
             | MOUNT_ATTR__ATIME));
  mount_opts_free (&o);

  mount_opts_parse (c, 2, &o); /* the last atime mode wins */
  CHECK ((o.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_RELATIME);
  mount_opts_free (&o);
  mount_opts_parse (d, 2, &o);
  CHECK ((o.attr_set & MOUNT_ATTR__ATIME) == MOUNT_ATTR_STRICTATIME);
  mount_opts_free (&o);
}

static void
test_options_idmap (void)
{
  char *a[] = { "bind", "idmap" };
  char *b[] = { "rbind", "ridmap" };
  mount_opts o;

  mount_opts_parse (a, 2, &o);
  CHECK (o.idmap && !o.ridmap && o.data == NULL);
  mount_opts_free (&o);
  mount_opts_parse (b, 2, &o);
  CHECK (o.ridmap && !o.idmap);
  mount_opts_free (&o);
}

static void
test_options_full_table_known (void)
{
  static const char *const oci[]
      = { "ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec", "sync", "async", "dirsync",
          "remount", "mand", "nomand", "atime", "noatime", "diratime", "nodiratime", "relatime",
          "norelatime", "strictatime", "nostrictatime", "lazytime", "bind", "rbind", "private",
          "rprivate", "shared", "rshared", "slave", "rslave", "unbindable", "runbindable", "rro",
          "rrw", "rnosuid", "rsuid", "rnodev", "rdev", "rnoexec", "rexec", "rnoatime", "ratime",
          "rrelatime", "rnorelatime", "rstrictatime", "rnostrictatime", "idmap", "ridmap", NULL };
  size_t n = 0;

  for (size_t i = 0; oci[i]; i++)
    {
      if (!mount_opt_known (oci[i]))
        fprintf (stderr, "  unknown option %s\n", oci[i]);
      CHECK (mount_opt_known (oci[i]));
    }
  for (size_t i = 0; mount_opt_names[i]; i++, n++)
    CHECK (mount_opt_known (mount_opt_names[i]));
  CHECK (n >= 49);
  CHECK (!mount_opt_known ("mode=755"));
}

/* Every option runtime-spec 1.3 (config.md, "Linux mount options") says a runtime MUST
   implement is a mount flag or propagation of the table, never passed on as filesystem
   data; those no other test looks at, by their flag. */
static void
test_options_spec_must (void)
{
  static const char *const must[]
      = { "async", "atime", "bind", "defaults", "dev", "diratime", "dirsync", "exec", "iversion",
          "lazytime", "loud", "noatime", "nodev", "nodiratime", "noexec", "noiversion", "nolazytime",
          "norelatime", "nostrictatime", "nosuid", "private", "rbind", "relatime", "remount", "ro",
          "rprivate", "rshared", "rslave", "runbindable", "rw", "shared", "silent", "slave",
          "strictatime", "suid", "sync", "unbindable", NULL };
  mount_opts o;

  for (size_t i = 0; must[i]; i++)
    {
      char *one[] = { (char *) must[i] };
      if (!mount_opt_known (must[i]))
        fprintf (stderr, "  unknown option %s\n", must[i]);
      CHECK (mount_opt_known (must[i]));
      mount_opts_parse (one, 1, &o);
      if (o.data != NULL)
        fprintf (stderr, "  %s passed on as data \"%s\"\n", must[i], o.data);
      CHECK (o.data == NULL);
      mount_opts_free (&o);
    }

  char *defaults[] = { "defaults" }, *silent[] = { "silent" }, *loud[] = { "silent", "loud" },
       *lazy[] = { "lazytime", "nolazytime" }, *remount[] = { "remount" };
  mount_opts_parse (defaults, 1, &o);
  CHECK (o.flags == 0 && o.cleared == 0 && o.n_propagation == 0);
  mount_opts_free (&o);
  mount_opts_parse (silent, 1, &o);
  CHECK (o.flags == MS_SILENT);
  mount_opts_free (&o);
  mount_opts_parse (loud, 2, &o);
  CHECK ((o.flags & MS_SILENT) == 0 && (o.cleared & MS_SILENT));
  mount_opts_free (&o);
  mount_opts_parse (lazy, 2, &o);
  CHECK ((o.flags & MS_LAZYTIME) == 0 && (o.cleared & MS_LAZYTIME));
  mount_opts_free (&o);
  mount_opts_parse (remount, 1, &o);
  CHECK (o.flags == MS_REMOUNT);
  mount_opts_free (&o);
}

/* ---- lexical helpers ---- */

static void
test_clean_split (void)
{
  char *s;
  char *dir, *base;

  CHECK_STR (s = pathres_clean ("//a/./b/../c/"), "/a/c");
  free (s);
  CHECK_STR (s = pathres_clean ("/../../etc"), "/etc");
  free (s);
  CHECK_STR (s = pathres_clean ("/"), "/");
  free (s);
  CHECK_STR (s = pathres_clean ("a/../../b"), "../b");
  free (s);
  CHECK_STR (s = pathres_clean ("../../x"), "../../x");
  free (s);
  pathres_split ("/dev/net/tun", &dir, &base);
  CHECK_STR (dir, "/dev/net");
  CHECK_STR (base, "tun");
  free (dir), free (base);
  pathres_split ("/null", &dir, &base);
  CHECK_STR (dir, "/");
  CHECK_STR (base, "null");
  free (dir), free (base);
  CHECK (pathres_has_dotdot ("/a/../b"));
  CHECK (pathres_has_dotdot (".."));
  CHECK (pathres_has_dotdot ("/a/.."));
  CHECK (!pathres_has_dotdot ("/a/..b/c.."));
  CHECK (pathres_under ("/r/rootfs", "/r/rootfs"));
  CHECK (pathres_under ("/r/rootfs", "/r/rootfs/etc"));
  CHECK (!pathres_under ("/r/rootfs", "/r/rootfs2"));
  CHECK (!pathres_under ("/r/rootfs", "/r"));
  CHECK (pathres_under ("/", "/anything"));
}

/* ---- path resolution against hostile symlinks ---- */

/* A scratch tree: a temp dir holding a fake rootfs (with /etc) and a "host" directory
   beside it, what hostile symlinks aim at. */
typedef struct
{
  char *dir;        /* the temp dir: the caller's mkdtemp template, filled in */
  char rootfs[256]; /* DIR/rootfs */
  char host[256];   /* DIR/<host name> */
} scratch;

static void
mkfile (const char *path)
{
  int fd = open (path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
}

/* DIR/REL made: an empty file, or a directory (0755). */
static void
make_in (const char *dir, const char *rel, bool is_dir)
{
  char p[1024];
  snprintf (p, sizeof p, "%s/%s", dir, rel);
  if (is_dir)
    mkdir (p, 0755);
  else
    mkfile (p);
}

/* The symlink DIR/REL -> TARGET; symlink's result. */
static int
link_in (const char *dir, const char *target, const char *rel)
{
  char p[1024];
  snprintf (p, sizeof p, "%s/%s", dir, rel);
  return symlink (target, p);
}

/* TMPL's temp dir with rootfs/, rootfs/etc/ and HOST_NAME/ in it; false if mkdtemp failed. */
static bool
scratch_make (scratch *t, char *tmpl, const char *host_name)
{
  t->dir = mkdtemp (tmpl);
  if (t->dir == NULL)
    return false;
  snprintf (t->rootfs, sizeof t->rootfs, "%s/rootfs", t->dir);
  snprintf (t->host, sizeof t->host, "%s/%s", t->dir, host_name);
  mkdir (t->rootfs, 0755);
  mkdir (t->host, 0755);
  make_in (t->rootfs, "etc", true);
  return true;
}

/* rm -rf the whole scratch tree; true on success. */
static bool
scratch_remove (const scratch *t)
{
  char cmd[1024];
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", t->dir);
  return system (cmd) == 0;
}

/* The tree the path resolution tests share: made by test_resolve_openat2, removed by
   test_create_last. */
static char tmpl[] = "/tmp/ocisbx-test-mounts.XXXXXX";
static scratch tree;

static void
setup_tree (void)
{
  CHECK (scratch_make (&tree, tmpl, "host"));
  make_in (tree.rootfs, "etc/passwd", false);
  make_in (tree.host, "secret", false);
  make_in (tree.rootfs, "sub", true);
  make_in (tree.rootfs, "afile", false);
  CHECK (link_in (tree.rootfs, "/etc", "a") == 0);                 /* absolute: must stay in the rootfs */
  CHECK (link_in (tree.rootfs, "../../..", "b") == 0);             /* climbs: stops at the root */
  CHECK (link_in (tree.rootfs, "../../../../host", "sub/c") == 0); /* relative climb toward the host dir */
  CHECK (link_in (tree.rootfs, tree.host, "h") == 0);              /* absolute path of the host dir itself */
  CHECK (link_in (tree.rootfs, "l2", "l1") == 0);                  /* loop */
  CHECK (link_in (tree.rootfs, "l1", "l2") == 0);
  CHECK (link_in (tree.rootfs, "/newdir/deeper", "dangling") == 0);
  CHECK (link_in (tree.rootfs, "/proc/self/root/etc", "magic") == 0); /* a magic link path, textually */
}

static void
remove_tree (void)
{
  if (!scratch_remove (&tree))
    fprintf (stderr, "  could not remove %s\n", tree.dir);
}

static bool
fd_is (int fd, const char *path)
{
  struct stat a, b;
  return fd >= 0 && fstat (fd, &a) == 0 && stat (path, &b) == 0 && a.st_dev == b.st_dev
         && a.st_ino == b.st_ino;
}

static bool
lexists (const char *dir, const char *rel)
{
  char p[2048];
  struct stat st;
  snprintf (p, sizeof p, "%s/%s", dir, rel);
  return lstat (p, &st) == 0;
}

/* FD is open, on PATH when PATH is not NULL; FD is closed here. */
static bool
opened_as (int fd, const char *path)
{
  bool r = path ? fd_is (fd, path) : fd >= 0;
  close (fd);
  return r;
}

/* FD, from a call that set *ERR, is a failure with ERRNUM; the error is dropped. */
static bool
fails_with (int fd, ocisbx_err **err, int errnum)
{
  bool r = fd < 0 && *err && (*err)->errnum == errnum;
  err_freep (err);
  return r;
}

typedef int (*resolver) (int rootfd, const char *path, ocisbx_err **err);

static int
walk_open (int rootfd, const char *path, ocisbx_err **err)
{
  return pathres_walk (rootfd, path, PATHRES_NONE, 0, err);
}

static void
check_resolver (resolver open_fn, const char *name)
{
  cleanup_close int rootfd = open (tree.rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  char p[1024];
  ocisbx_err *err = NULL;

  fprintf (stderr, "  [%s]\n", name);
  snprintf (p, sizeof p, "%s/etc/passwd", tree.rootfs);
  /* "/a/passwd" (a -> /etc) is the rootfs's /etc/passwd, never the host's */
  CHECK (opened_as (open_fn (rootfd, "/a/passwd", &err), p));
  /* "b/../../etc/passwd": `..` stops at the root */
  CHECK (opened_as (open_fn (rootfd, "b/../../etc/passwd", &err), p));
  CHECK (opened_as (open_fn (rootfd, "/../../../etc/passwd", &err), p));
  CHECK (opened_as (open_fn (rootfd, "/b", &err), tree.rootfs));
  /* the host dir is unreachable by relative or absolute links */
  CHECK (fails_with (open_fn (rootfd, "/sub/c/secret", &err), &err, ENOENT));
  CHECK (fails_with (open_fn (rootfd, "/h/secret", &err), &err, ENOENT));
  /* loops */
  CHECK (fails_with (open_fn (rootfd, "/l1", &err), &err, ELOOP));
  /* a file in the middle */
  CHECK (fails_with (open_fn (rootfd, "/afile/x", &err), &err, ENOTDIR));
  /* "/magic" resolves /proc/self/root inside the rootfs: not there */
  CHECK (fails_with (open_fn (rootfd, "/magic/passwd", &err), &err, ENOENT));
}

static void
test_resolve_openat2 (void)
{
  setup_tree ();
  check_resolver (pathres_open, "openat2");
}

static void
test_resolve_walk (void)
{
  check_resolver (walk_open, "walk");
}

/* procfs and sysfs go on ordinary directories only: a symlink anywhere on the way shows. */
static void
test_has_symlink (void)
{
  cleanup_close int rootfd = open (tree.rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);

  CHECK (!pathres_has_symlink (rootfd, "/etc/passwd"));
  CHECK (!pathres_has_symlink (rootfd, "/sub"));
  CHECK (!pathres_has_symlink (rootfd, "/missing/deeper")); /* created later, as directories */
  CHECK (!pathres_has_symlink (rootfd, "/"));
  CHECK (pathres_has_symlink (rootfd, "/a"));
  CHECK (pathres_has_symlink (rootfd, "/a/passwd"));
  CHECK (pathres_has_symlink (rootfd, "/sub/c"));
  CHECK (pathres_has_symlink (rootfd, "/dangling"));
  CHECK (pathres_has_symlink (rootfd, "/x/../a")); /* cleaned first: "/a" */
}

static void
check_create (bool walk)
{
  cleanup_close int rootfd = open (tree.rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ocisbx_err *err = NULL;
  const char *sfx = walk ? "-w" : "";
  char path[256], p[1024];

#define CREATE(path, kind)                                                                         \
  (walk ? pathres_walk (rootfd, path, kind, kind == PATHRES_FILE ? 0644 : 0755, &err)              \
        : pathres_create (rootfd, path, kind, kind == PATHRES_FILE ? 0644 : 0755, &err))

  /* a file through an absolute link: lands in the rootfs's /etc */
  snprintf (path, sizeof path, "/a/created%s", sfx);
  snprintf (p, sizeof p, "%s/etc/created%s", tree.rootfs, sfx);
  CHECK (opened_as (CREATE (path, PATHRES_FILE), p));
  CHECK (!lexists ("/etc", path + 3));

  /* directories through `..` chains and a relative link toward the host */
  snprintf (path, sizeof path, "/b/../../x%s/y/z", sfx);
  snprintf (p, sizeof p, "%s/x%s/y/z", tree.rootfs, sfx);
  CHECK (opened_as (CREATE (path, PATHRES_DIR), p));
  snprintf (path, sizeof path, "/sub/c/evil%s", sfx);
  CHECK (opened_as (CREATE (path, PATHRES_FILE), NULL));
  snprintf (p, sizeof p, "evil%s", sfx);
  CHECK (!lexists (tree.host, p));
  snprintf (p, sizeof p, "host/evil%s", sfx);
  CHECK (lexists (tree.rootfs, p)); /* ../../../../host from /sub is the rootfs's /host */
  snprintf (path, sizeof path, "/h/evil%s", sfx);
  CHECK (opened_as (CREATE (path, PATHRES_DIR), NULL));
  snprintf (p, sizeof p, "evil%s", sfx);
  CHECK (!lexists (tree.host, p));

  /* a dangling link: its target is created inside the rootfs */
  snprintf (path, sizeof path, "/dangling/leaf%s", sfx);
  snprintf (p, sizeof p, "%s/newdir/deeper/leaf%s", tree.rootfs, sfx);
  CHECK (opened_as (CREATE (path, PATHRES_DIR), p));

  /* an existing file as a directory component */
  CHECK (fails_with (CREATE ("/afile/x", PATHRES_DIR), &err, ENOTDIR));
  CHECK (fails_with (CREATE ("/l1/x", PATHRES_DIR), &err, ELOOP));
#undef CREATE
}

static void
test_create_openat2 (void)
{
  check_create (false);
}

static void
test_create_walk (void)
{
  check_create (true);
}

/* pathres_create when only the last component is missing (created in its parent
   resolved inside the root), and the cases it leaves to the walk. */
static void
test_create_last (void)
{
  cleanup_close int rootfd = open (tree.rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  ocisbx_err *err = NULL;
  char p[1024];
  struct stat st;
  mode_t old = umask (0);
  int fd;

  /* a directory and a file, each with its mode, through an absolute link */
  fd = pathres_create (rootfd, "/a/lastdir", PATHRES_DIR, 0750, &err);
  snprintf (p, sizeof p, "%s/etc/lastdir", tree.rootfs);
  CHECK (fd_is (fd, p));
  CHECK (stat (p, &st) == 0 && S_ISDIR (st.st_mode) && (st.st_mode & 07777) == 0750);
  close (fd);
  fd = pathres_create (rootfd, "/a/lastfile", PATHRES_FILE, 0640, &err);
  snprintf (p, sizeof p, "%s/etc/lastfile", tree.rootfs);
  CHECK (fd_is (fd, p));
  CHECK (stat (p, &st) == 0 && S_ISREG (st.st_mode) && (st.st_mode & 07777) == 0640);
  close (fd);
  /* existing: opened as is */
  CHECK (opened_as (pathres_create (rootfd, "/a/lastfile", PATHRES_DIR, 0755, &err), p));
  /* the last component a dangling link: its target is made inside the rootfs */
  CHECK (link_in (tree.rootfs, "/h2/target", "dangling2") == 0);
  snprintf (p, sizeof p, "%s/h2/target", tree.rootfs);
  CHECK (opened_as (pathres_create (rootfd, "/sub/../dangling2", PATHRES_DIR, 0755, &err), p));
  CHECK (access ("/h2/target", F_OK) < 0);
  /* ".." last, and a link toward the host as the parent */
  snprintf (p, sizeof p, "%s/newp", tree.rootfs);
  CHECK (opened_as (pathres_create (rootfd, "/newp/q/..", PATHRES_DIR, 0755, &err), p));
  CHECK (opened_as (pathres_create (rootfd, "/h/lastevil", PATHRES_FILE, 0644, &err), NULL));
  CHECK (!lexists (tree.host, "lastevil"));
  snprintf (p, sizeof p, "%s%s/lastevil", tree.rootfs, tree.host);
  CHECK (access (p, F_OK) == 0);
  /* errors stay the walk's */
  CHECK (fails_with (pathres_create (rootfd, "/afile/y", PATHRES_FILE, 0644, &err), &err, ENOTDIR));
  umask (old);
  remove_tree ();
}

/* The attributes mount_remount_bind (and the v1 cgroup binds) give mount_setattr. */
static void
test_remount_attrs (void)
{
  uint64_t set, clr;

  mount_attrs_of (MS_RDONLY, 0, false, &set, &clr);
  CHECK (set == MOUNT_ATTR_RDONLY && clr == 0); /* the atime mode is kept */
  mount_attrs_of (MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME, 0, false, &set, &clr);
  CHECK (set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC
                 | MOUNT_ATTR_RELATIME));
  CHECK (clr == MOUNT_ATTR__ATIME);
  mount_attrs_of (MS_NOATIME, MS_RDONLY | MS_NOSUID, false, &set, &clr);
  CHECK (set == MOUNT_ATTR_NOATIME && clr == (MOUNT_ATTR__ATIME | MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID));
  mount_attrs_of (MS_STRICTATIME, 0, false, &set, &clr);
  CHECK (set == MOUNT_ATTR_STRICTATIME && clr == MOUNT_ATTR__ATIME);
  /* "atime" alone (atime_set): back to relatime */
  mount_attrs_of (0, MS_NOATIME, true, &set, &clr);
  CHECK (set == MOUNT_ATTR_RELATIME && clr == MOUNT_ATTR__ATIME);
  /* set wins over cleared */
  mount_attrs_of (MS_RDONLY | MS_NODIRATIME, MS_RDONLY | MS_NOEXEC, false, &set, &clr);
  CHECK (set == (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NODIRATIME) && clr == MOUNT_ATTR_NOEXEC);
}

/* ---- config checks ---- */

#define CFG(mounts, linux)                                                                         \
  "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},\"mounts\":" mounts                  \
  ",\"linux\":" linux "}"

static void
expect_error (const char *json, const char *msg)
{
  oci_config *c = parse (json);
  ocisbx_err *err = NULL;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK (rootfs_validate_config (c, &err) < 0);
  CHECK_STR (err ? err->msg : NULL, msg);
  err_free (err);
  oci_config_free (c);
}

static void
expect_ok (const char *json)
{
  oci_config *c = parse (json);
  ocisbx_err *err = NULL;

  CHECK (c != NULL);
  if (c == NULL)
    return;
  CHECK (rootfs_validate_config (c, &err) == 0);
  if (err)
    fprintf (stderr, "  unexpected: %s\n", err->msg);
  err_free (err);
  oci_config_free (c);
}

static void
test_validate (void)
{
  expect_ok (CFG ("[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"
                  "{\"destination\":\"/x\",\"type\":\"tmpfs\",\"options\":[\"whatever=1\",\"rro\"]}]",
                  "{\"namespaces\":[{\"type\":\"ipc\"},{\"type\":\"uts\"}],"
                  "\"sysctl\":{\"kernel.shmmax\":\"1\",\"fs.mqueue.msg_max\":\"10\"}}"));
  expect_error (CFG ("[{\"destination\":\"/proc\",\"type\":\"proc\"},{\"destination\":\"tmp\",\"type\":\"tmpfs\"}]",
                     "{}"),
                "config.json: .mounts[1].destination: \"tmp\" is not an absolute path");
  expect_error (CFG ("[{\"destination\":\"/mnt\",\"type\":\"bind\"}]", "{}"),
                "config.json: .mounts[0].source: a bind mount needs a source");
  expect_error (CFG ("[{\"destination\":\"/proc/self/attr\",\"type\":\"bind\",\"source\":\"/tmp\"}]", "{}"),
                "config.json: .mounts[0].destination: \"/proc/self/attr\" cannot be mounted: it is inside /proc");
  expect_ok (CFG ("[{\"destination\":\"/proc/cpuinfo\",\"type\":\"bind\",\"source\":\"/tmp\"}]", "{}"));
  expect_error (CFG ("[]", "{\"sysctl\":{\"kernel.foo\":\"1\"}}"),
                "config.json: .linux.sysctl: \"kernel.foo\" is not a namespaced sysctl");
  expect_error (CFG ("[]", "{\"sysctl\":{\"net.ipv4.ip_forward\":\"1\"}}"),
                "config.json: .linux.sysctl: \"net.ipv4.ip_forward\" needs the network namespace in "
                ".linux.namespaces");
  expect_error (CFG ("[]", "{\"sysctl\":{\"kernel/../../etc\":\"1\"}}"),
                "config.json: .linux.sysctl: \"kernel/../../etc\" is not a sysctl name");
  expect_error (CFG ("[]", "{\"devices\":[{\"path\":\"dev/x\",\"type\":\"c\",\"major\":1,\"minor\":3}]}"),
                "config.json: .linux.devices[0].path: \"dev/x\" is not an absolute path");
  expect_error (CFG ("[]", "{\"devices\":[{\"path\":\"/dev/../x\",\"type\":\"c\",\"major\":1,\"minor\":3}]}"),
                "config.json: .linux.devices[0].path: \"/dev/../x\" is not a device path");
  expect_error (CFG ("[]", "{\"maskedPaths\":[\"proc/kcore\"]}"),
                "config.json: .linux.maskedPaths[0]: \"proc/kcore\" is not an absolute path");
  expect_error (CFG ("[{\"destination\":\"/m\",\"type\":\"bind\",\"source\":\"/tmp\",\"options\":[\"idmap\"]}]", "{}"),
                "config.json: .mounts[0]: idmap needs uidMappings/gidMappings (on the mount or in .linux)");
  expect_error (CFG ("[{\"destination\":\"/x/..\",\"type\":\"tmpfs\"}]", "{}"),
                "config.json: .mounts[0].destination: \"/x/..\" is the root of the container: a mount there "
                "would hide the rootfs");
  /* a bind onto /proc (of a procfs root: checked when it is mounted) */
  expect_ok (CFG ("[{\"destination\":\"/proc\",\"type\":\"bind\",\"source\":\"/proc\",\"options\":[\"rbind\"]}]",
                  "{}"));
  expect_error (CFG ("[{\"destination\":\"/proc\",\"type\":\"tmpfs\"}]", "{}"),
                "config.json: .mounts[0].destination: \"/proc\" cannot be mounted: it is inside /proc");
}

static void
test_sysctl_validate (void)
{
  oci_config *c = parse (CFG ("[]", "{\"namespaces\":[{\"type\":\"network\"}],"
                                    "\"sysctl\":{\"net.ipv4.ip_forward\":\"1\",\"net/core/somaxconn\":\"5\"}}"));
  ocisbx_err *err = NULL;

  CHECK (c && sysctl_validate (c, &err) == 0);
  err_free (err);
  oci_config_free (c);
  c = parse (CFG ("[]", "{\"namespaces\":[{\"type\":\"network\"}],\"sysctl\":{\"kernel.shmmax\":\"1\"}}"));
  err = NULL;
  CHECK (c && sysctl_validate (c, &err) < 0);
  CHECK_STR (err ? err->msg : NULL,
             "config.json: .linux.sysctl: \"kernel.shmmax\" needs the ipc namespace in .linux.namespaces");
  err_free (err);
  oci_config_free (c);
  /* the uts sysctls set what .hostname and .domainname set: the field's value passes
     (as crun), another is refused naming both; without the field, the sysctl sets it */
  c = parse ("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\"},\"hostname\":\"h\","
             "\"linux\":{\"namespaces\":[{\"type\":\"uts\"}],\"sysctl\":{\"kernel.hostname\":\"h\"}}}");
  err = NULL;
  CHECK (c && sysctl_validate (c, &err) == 0);
  err_free (err);
  oci_config_free (c);
  c = parse ("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\"},\"hostname\":\"h\","
             "\"linux\":{\"namespaces\":[{\"type\":\"uts\"}],\"sysctl\":{\"kernel.hostname\":\"x\"}}}");
  err = NULL;
  CHECK (c && sysctl_validate (c, &err) < 0);
  CHECK_STR (err ? err->msg : NULL,
             "config.json: .linux.sysctl: \"kernel.hostname\" (\"x\") conflicts with .hostname (\"h\"): set the "
             "hostname once");
  err_free (err);
  oci_config_free (c);
  c = parse ("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\"},\"domainname\":\"e\","
             "\"linux\":{\"namespaces\":[{\"type\":\"uts\"}],\"sysctl\":{\"kernel/domainname\":\"d\"}}}");
  err = NULL;
  CHECK (c && sysctl_validate (c, &err) < 0);
  CHECK_STR (err ? err->msg : NULL,
             "config.json: .linux.sysctl: \"kernel/domainname\" (\"d\") conflicts with .domainname (\"e\"): set the "
             "domainname once");
  err_free (err);
  oci_config_free (c);
  c = parse ("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"r\"},"
             "\"linux\":{\"namespaces\":[{\"type\":\"uts\"}],\"sysctl\":{\"kernel/domainname\":\"d\"}}}");
  err = NULL;
  CHECK (c && sysctl_validate (c, &err) == 0);
  err_free (err);
  oci_config_free (c);
  /* a joined namespace that is the runtime's own is the host's: none of its keys */
  {
    ns_plan plan;
    c = parse (CFG ("[]", "{\"namespaces\":[{\"type\":\"network\",\"path\":\"/proc/self/ns/net\"},"
                          "{\"type\":\"ipc\"}],\"sysctl\":{\"kernel.shmmax\":\"1\",\"net.ipv4.ip_forward\":\"1\"}}"));
    err = NULL;
    CHECK (c && ns_prepare (c->linux_, &plan, &err) == 0);
    CHECK (ns_plan_joins_own (&plan, CLONE_NEWNET) && !ns_plan_joins_own (&plan, CLONE_NEWIPC));
    CHECK (c && sysctl_validate_joined (c, &plan, &err) < 0);
    CHECK_STR (err ? err->msg : NULL,
               "config.json: .linux.sysctl: \"net.ipv4.ip_forward\" would be written into the runtime's own (the "
               "host's) network namespace: .linux.namespaces joins `/proc/self/ns/net`");
    err_free (err);
    ns_plan_close (&plan);
    oci_config_free (c);
  }
}

/* ---- the whole rootfs sequence, in a child with its own mount namespace ---- */

/* Lines of /proc/self/mountinfo mentioning DIR (other tests may mount elsewhere). */
static int
count_mounts_under (const char *dir)
{
  FILE *f = fopen ("/proc/self/mountinfo", "re");
  char line[4096];
  int n = 0;
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f))
    n += strstr (line, dir) != NULL;
  fclose (f);
  return n;
}

/* In the child: setup + pivot + finalize, then check from inside; the exit code
   carries the first failed check's number. */
static int
child_checks (const rootfs_ctx *ctx)
{
  ocisbx_err *err = NULL;
  struct stat st;
  struct statfs sfs;

  int rootfd = -1;

  if (rootfs_setup (ctx, &rootfd, &err) < 0 || rootfs_pivot (ctx, rootfd, &err) < 0
      || rootfs_finalize (ctx, &err) < 0)
    {
      fprintf (stderr, "  child: %s\n", err->msg);
      return 10;
    }
  if (statfs ("/evil/x", &sfs) < 0 || sfs.f_type != TMPFS_MAGIC)
    return 11;
  if (stat ("/dev/null", &st) < 0 || !S_ISCHR (st.st_mode) || st.st_rdev != makedev (1, 3))
    return 12;
  if (mkdir ("/newdir", 0755) == 0 || errno != EROFS)
    return 13;
  if (stat ("/etc/masked", &st) < 0 || st.st_rdev != makedev (1, 3))
    return 14;
  if (access ("/sentinel", F_OK) < 0) /* we are in the rootfs */
    return 15;
  if (statfs ("/ro", &sfs) < 0 || !(sfs.f_flags & ST_RDONLY))
    return 16;
  return 0;
}

static void
test_rootfs_in_mount_ns (void)
{
  char dir[] = "/tmp/ocisbx-test-rootfs.XXXXXX";
  char p[1024], json[4096];
  scratch t;
  oci_config *cfg;
  int before, status;
  pid_t pid;

  if (geteuid () != 0)
    {
      UNIT_SKIP ("needs root");
      return;
    }
  CHECK (scratch_make (&t, dir, "hostdir"));
  make_in (t.rootfs, "etc/masked", false);
  make_in (t.rootfs, "sentinel", false);
  CHECK (link_in (t.rootfs, t.host, "evil") == 0); /* absolute symlink to a host directory */

  snprintf (json, sizeof json,
            "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\",\"readonly\":true},"
            "\"mounts\":[{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\","
            "\"options\":[\"nosuid\",\"mode=755\"]},"
            "{\"destination\":\"/evil/x\",\"type\":\"tmpfs\",\"source\":\"tmpfs\"},"
            "{\"destination\":\"/ro\",\"type\":\"bind\",\"source\":\"%s\",\"options\":[\"rbind\",\"ro\"]}],"
            "\"linux\":{\"maskedPaths\":[\"/etc/masked\",\"/missing\"],\"readonlyPaths\":[\"/etc\"]}}",
            t.host);
  cfg = parse (json);
  CHECK (cfg != NULL);
  if (cfg == NULL)
    return;
  before = count_mounts_under (dir);
  pid = fork ();
  if (pid == 0)
    {
      rootfs_pseudo pseudo = { 0 };
      rootfs_ctx ctx = { .cfg = cfg, .rootfs = t.rootfs, .bundle = dir, .pseudo = &pseudo,
                         .mount_opts = mounts_parse_options (cfg) };
      if (unshare (CLONE_NEWNS) < 0)
        _exit (9);
      _exit (child_checks (&ctx));
    }
  CHECK (waitpid (pid, &status, 0) == pid);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    fprintf (stderr, "  child failed check %d\n", WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  /* the host is untouched: nothing created through the symlink, no mount left */
  snprintf (p, sizeof p, "%s/x", t.host);
  CHECK (access (p, F_OK) < 0);
  snprintf (p, sizeof p, "%s/%s/x", t.rootfs, t.host);
  CHECK (access (p, F_OK) == 0); /* ... but inside the rootfs */
  CHECK (before == 0 && count_mounts_under (dir) == 0);
  oci_config_free (cfg);
  CHECK (scratch_remove (&t));
}

UNIT_MAIN (T (test_options_flags), T (test_options_clear), T (test_options_iversion), T (test_options_atime),
           T (test_options_bind_and_data), T (test_options_propagation), T (test_options_recursive),
           T (test_options_idmap), T (test_options_full_table_known), T (test_options_spec_must), T (test_clean_split),
           T (test_resolve_openat2), T (test_resolve_walk), T (test_has_symlink), T (test_create_openat2),
           T (test_create_walk), T (test_create_last), T (test_remount_attrs), T (test_validate), T (test_sysctl_validate),
           T (test_rootfs_in_mount_ns))
