/* The rootfs sequence through the syscall seam (core/syscalls.h): this program defines
   `sys` itself, a table that records each mount, umount2, open_tree, move_mount,
   mount_setattr, fsopen/fsconfig/fsmount, pivot_root, mknodat and setns instead of
   making it, so the calls a config produces and their order are checked without root,
   as youki's TestHelperSyscall does.  rootfs_setup, rootfs_pivot and rootfs_finalize
   run in a child in its own mount namespace (and user namespace when not root, for
   the chroot), on a scratch rootfs: files and directories are really created in it;
   nothing is mounted. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rootfs/mounts.h"
#include "core/rootfs/rootfs.h"
#include "core/syscalls.h"
#include "unit.h"
#include "unit_files.h"

/* ---- the recorder ---- */

static char rec_log[16384];
static const char *rec_rootfs; /* shown as "R" in the log */
static char rec_tmpfs[PATH_MAX]; /* when set, a tmpfs's fsmount gives this directory ("T") */
static char rec_fsname[32];      /* the last fsopen's */
static const char *rec_refuse;   /* fsopen refuses this file system (with rec_refuse_errno) */
static int rec_refuse_errno;
static int rec_proc = -1;      /* the host's /proc, still readable after the chroot */

static void __attribute__ ((format (printf, 1, 2)))
rec (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  unit_vlog (rec_log, sizeof rec_log, fmt, ap);
  va_end (ap);
}

/* A path for the log: /proc/self/fd/N as the file it names, the rootfs as "R". */
static const char *
show (const char *path, char buf[PATH_MAX])
{
  size_t rl = rec_rootfs ? strlen (rec_rootfs) : 0;
  char tmp[PATH_MAX];

  if (path == NULL)
    return "-";
  if (strncmp (path, "/proc/self/fd/", 14) == 0)
    {
      ssize_t n = readlinkat (rec_proc, path + 6, tmp, sizeof tmp - 1);
      if (n >= 0)
        {
          tmp[n] = '\0';
          path = tmp;
        }
    }
  if (rec_tmpfs[0] && strncmp (path, rec_tmpfs, strlen (rec_tmpfs)) == 0)
    snprintf (buf, PATH_MAX, "T%s", path + strlen (rec_tmpfs));
  else if (rl && strncmp (path, rec_rootfs, rl) == 0 && (path[rl] == '/' || path[rl] == '\0'))
    snprintf (buf, PATH_MAX, "R%s", path + rl);
  else
    snprintf (buf, PATH_MAX, "%s", path);
  return buf;
}

static const char *
show_fd (int fd, char buf[PATH_MAX])
{
  char p[64];
  if (fd == AT_FDCWD)
    return "cwd";
  snprintf (p, sizeof p, "/proc/self/fd/%d", fd);
  return show (p, buf);
}

static const char *
show_flags (unsigned long f, char buf[256])
{
  static const struct
  {
    unsigned long flag;
    const char *name;
  } names[] = {
    { MS_RDONLY, "ro" },       { MS_NOSUID, "nosuid" },     { MS_NODEV, "nodev" },
    { MS_NOEXEC, "noexec" },   { MS_REMOUNT, "remount" },   { MS_BIND, "bind" },
    { MS_MOVE, "move" },       { MS_REC, "rec" },           { MS_PRIVATE, "private" },
    { MS_SLAVE, "slave" },     { MS_SHARED, "shared" },     { MS_UNBINDABLE, "unbindable" },
    { MS_NOATIME, "noatime" }, { MS_RELATIME, "relatime" }, { MS_STRICTATIME, "strictatime" },
  };
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (f & names[i].flag)
      {
        strcat (buf, buf[0] ? "," : "");
        strcat (buf, names[i].name);
        f &= ~names[i].flag;
      }
  if (f)
    sprintf (buf + strlen (buf), "%s%#lx", buf[0] ? "," : "", f);
  return buf[0] ? buf : "0";
}

/* The directories a recorded proc or sysfs mount went on: rec_fstatfs says they are
   one (rootfs/ checks what it mounted there). */
static struct
{
  dev_t dev;
  ino_t ino;
  long magic;
} rec_pseudo[8];
static size_t rec_pseudo_n;

static int
rec_mount (const char *source, const char *target, const char *type, unsigned long flags,
           const void *data)
{
  char s[PATH_MAX], t[PATH_MAX], f[256];
  struct stat st;

  rec ("mount %s %s %s %s %s", show (source, s), show (target, t), type ? type : "-",
       show_flags (flags, f), data ? (const char *) data : "-");
  if (type && (strcmp (type, "proc") == 0 || strcmp (type, "sysfs") == 0) && stat (target, &st) == 0
      && rec_pseudo_n < sizeof rec_pseudo / sizeof rec_pseudo[0])
    rec_pseudo[rec_pseudo_n++] = (typeof (rec_pseudo[0])){ st.st_dev, st.st_ino,
                                                           strcmp (type, "proc") == 0 ? PROC_SUPER_MAGIC : SYSFS_MAGIC };
  return 0;
}

static int
rec_fstatfs (int fd, struct statfs *buf)
{
  struct stat st;

  if (fstatfs (fd, buf) < 0 || fstat (fd, &st) < 0)
    return -1;
  for (size_t i = 0; i < rec_pseudo_n; i++)
    if (rec_pseudo[i].dev == st.st_dev && rec_pseudo[i].ino == st.st_ino)
      buf->f_type = rec_pseudo[i].magic;
  return 0;
}

static int
rec_umount2 (const char *target, int flags)
{
  char t[PATH_MAX];
  rec ("umount2 %s %s", show (target, t), flags & MNT_DETACH ? "detach" : "0");
  return 0;
}

/* A "detached tree": a new fd on what DFD/PATH names. */
static int
rec_open_tree (int dfd, const char *path, unsigned flags)
{
  char d[PATH_MAX];
  int fd = *path ? openat (dfd, path, O_PATH | O_CLOEXEC) : fcntl (dfd, F_DUPFD_CLOEXEC, 0);
  rec ("open_tree %s%s%s%s", *path ? path : show_fd (dfd, d), flags & OPEN_TREE_CLONE ? " clone" : "",
       flags & AT_RECURSIVE ? " rec" : "", "");
  return fd;
}

static int
rec_move_mount (int from_dfd, const char *from, int to_dfd, const char *to, unsigned flags)
{
  char f[PATH_MAX], t[PATH_MAX];
  if (*to == '/') /* an absolute target: the path alone */
    rec ("move_mount %s -> %s", show_fd (from_dfd, f), show (to, t));
  else
    rec ("move_mount %s%s%s -> %s%s%s", show_fd (from_dfd, f), *from ? "/" : "", from,
         show_fd (to_dfd, t), *to ? "/" : "", to);
  return 0;
}

static int
rec_mount_setattr (int dfd, const char *path, unsigned flags, sys_mount_attr *attr)
{
  char d[PATH_MAX];
  rec ("mount_setattr %s%s set=%#llx clr=%#llx%s", show_fd (dfd, d),
       flags & AT_RECURSIVE ? " rec" : "", (unsigned long long) attr->attr_set,
       (unsigned long long) attr->attr_clr, attr->userns_fd ? " idmap" : "");
  return 0;
}

static int
rec_fsopen (const char *fsname, unsigned flags)
{
  rec ("fsopen %s", fsname);
  snprintf (rec_fsname, sizeof rec_fsname, "%s", fsname);
  if (rec_refuse && strcmp (fsname, rec_refuse) == 0)
    {
      errno = rec_refuse_errno;
      return -1;
    }
  return memfd_create ("fs-context", MFD_CLOEXEC);
}

static int
rec_fsconfig (int fd, unsigned cmd, const char *key, const void *value, int aux)
{
  char b[PATH_MAX];
  if (cmd == FSCONFIG_SET_STRING)
    rec ("fsconfig %s=%s", key, show (value, b));
  else if (cmd == FSCONFIG_SET_FLAG)
    rec ("fsconfig %s", key);
  else
    rec ("fsconfig cmd %u", cmd);
  return 0;
}

static int
rec_fsmount (int fd, unsigned flags, unsigned attr_flags)
{
  rec ("fsmount attr=%#x", attr_flags);
  if (rec_tmpfs[0] && strcmp (rec_fsname, "tmpfs") == 0)
    return open (rec_tmpfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (strcmp (rec_fsname, "overlay") == 0) /* the overlay: the rootfs as it is */
    return open (rec_rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return memfd_create ("fsmount", MFD_CLOEXEC);
}

/* pivot_root (".", "."), as the test sees it: the cwd becomes "/" (a chroot), so that
   rootfs_finalize works in the rootfs as it does after the real one. */
static int
rec_pivot_root (const char *new_root, const char *put_old)
{
  char cwd[PATH_MAX], c[PATH_MAX];
  rec ("pivot_root %s %s (cwd %s)", new_root, put_old,
       show (getcwd (cwd, sizeof cwd) ? cwd : "?", c));
  return chroot (".");
}

/* EEXIST: make_node leaves an existing node alone (its chmod and chown need a real
   node, which only root can make). */
static int
rec_mknodat (int dirfd, const char *path, mode_t mode, dev_t dev)
{
  char d[PATH_MAX];
  char host[PATH_MAX], at[PATH_MAX];
  int fd;

  rec ("mknod %s/%s %c %u:%u %04o", show_fd (dirfd, d), path, S_ISCHR (mode) ? 'c' : S_ISBLK (mode) ? 'b' : 'p',
       major (dev), minor (dev), mode & 07777);
  /* The node is found there already (EEXIST), as the device asked for: the host's of
     that name bound on an empty file (the sequence has a mount namespace of its own) */
  snprintf (host, sizeof host, "/dev/%s", path);
  snprintf (at, sizeof at, "/proc/self/fd/%d/%s", dirfd, path);
  fd = openat (dirfd, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd >= 0)
    close (fd);
  mount (host, at, NULL, MS_BIND, NULL);
  errno = EEXIST;
  return -1;
}

static int
rec_setns (int fd, int nstype)
{
  char d[PATH_MAX];
  rec ("setns %s %#x", show_fd (fd, d), nstype);
  return 0;
}

static const sys_ops recorder = {
  .mount = rec_mount,
  .umount2 = rec_umount2,
  .open_tree = rec_open_tree,
  .move_mount = rec_move_mount,
  .mount_setattr = rec_mount_setattr,
  .fsopen = rec_fsopen,
  .fsconfig = rec_fsconfig,
  .fsmount = rec_fsmount,
  .pivot_root = rec_pivot_root,
  .mknodat = rec_mknodat,
  .setns = rec_setns,
  .fstatfs = rec_fstatfs,
};

/* Replaces libocisbx.a's &sys_real (syscalls_default.c is then not linked). */
const sys_ops *const sys = &recorder;

/* ---- running the sequence ---- */

/* Own mount namespace (nothing real can leak), and a user namespace when not root
   (for the chroot of rec_pivot_root): false when neither is possible here. */
static bool
enter_namespaces (void)
{
  uid_t uid = geteuid ();
  gid_t gid = getegid ();
  char map[64];

  if (uid == 0)
    return unshare (CLONE_NEWNS) == 0 && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
  if (unshare (CLONE_NEWUSER | CLONE_NEWNS) < 0)
    return false;
  put ("/proc/self", "setgroups", "deny");
  snprintf (map, sizeof map, "0 %u 1\n", (unsigned) uid);
  put ("/proc/self", "uid_map", map);
  snprintf (map, sizeof map, "0 %u 1\n", (unsigned) gid);
  put ("/proc/self", "gid_map", map);
  return geteuid () == 0;
}

/* The three steps for CONFIG_JSON on a scratch rootfs (files listed in FILES,
   NULL-terminated, made there first); the log of calls in rec_log.  Returns false
   (and sets a skip) when the namespaces cannot be made here. */
/* The overlay of the next run_sequence (rootfs_ctx.overlay, .overlay_dir). */
static rootfs_overlay_kind seq_overlay;
static const char *seq_overlay_dir;

static bool
run_sequence (const char *config_json, const char *const *files, bool userns)
{
  char *dir = mktree ();
  char *rootfs = xasprintf ("%s/rootfs", dir);
  int pipefd[2], status;
  oci_config *cfg = parse (config_json);
  pid_t pid;
  ssize_t n;

  rec_log[0] = '\0';
  CHECK (cfg != NULL && dir != NULL);
  if (cfg == NULL || dir == NULL)
    return false;
  mkdirs (dir, "rootfs");
  for (size_t i = 0; files && files[i]; i++)
    {
      char *rel = xasprintf ("rootfs%s", files[i]);
      if (rel[strlen (rel) - 1] == '/')
        mkdirs (dir, rel);
      else
        put (dir, rel, "");
      free (rel);
    }
  CHECK (pipe2 (pipefd, O_CLOEXEC) == 0);
  pid = fork ();
  if (pid == 0)
    {
      rootfs_pseudo pseudo = { 0 };
      rootfs_ctx ctx = { .cfg = cfg, .rootfs = rootfs, .bundle = dir, .userns = userns, .pseudo = &pseudo,
                         .overlay = seq_overlay, .overlay_dir = seq_overlay_dir,
                         .mount_opts = mounts_parse_options (cfg) };
      ocisbx_err *err = NULL;
      int rootfd = -1;

      char *null = xasprintf ("%s/dev/null", rootfs);

      if (!enter_namespaces ())
        _exit (77);
      /* Real mounts, in the child's own namespace: the rootfs a mount of its own (the
         mount a shared rootfsPropagation makes private), and its /dev/null the host's,
         since the masks check it is the null device (mknod is only recorded). */
      put (rootfs, "dev/null", "");
      if (mount (rootfs, rootfs, NULL, MS_BIND, NULL) < 0 || mount ("/dev/null", null, NULL, MS_BIND, NULL) < 0)
        _exit (78);
      rec_proc = open ("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
      rec_rootfs = rootfs;
      if (rootfs_setup (&ctx, &rootfd, &err) < 0 || rootfs_pivot (&ctx, rootfd, &err) < 0
          || rootfs_finalize (&ctx, &err) < 0)
        rec ("error: %s", err->msg);
      write_all (pipefd[1], rec_log, strlen (rec_log));
      _exit (0);
    }
  close (pipefd[1]);
  n = read_all (pipefd[0], rec_log, sizeof rec_log - 1);
  rec_log[n > 0 ? n : 0] = '\0';
  close (pipefd[0]);
  CHECK (waitpid (pid, &status, 0) == pid);
  oci_config_free (cfg);
  free (rootfs);
  rmtree (dir);
  if (WIFEXITED (status) && WEXITSTATUS (status) == 77)
    {
      UNIT_SKIP ("cannot make a mount namespace (nor a user namespace) here");
      return false;
    }
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  return true;
}

/* The log is exactly WANT (one call a line). */
#define CHECK_CALLS(want) CHECK_STR (rec_log, want)

#define CFG(root, mounts, linux)                                                                   \
  "{\"ociVersion\":\"1.0.2\",\"root\":" root ",\"mounts\":" mounts ",\"linux\":" linux "}"

/* The default config of `ocisbx spec` (read-only root, masked and read-only paths),
   without its cgroup mount, whose calls depend on the host's hierarchies (bats covers
   it).  A few of the masked and read-only paths exist in the rootfs (the procfs is not
   really mounted): the others are skipped. */
#define SPEC_MOUNTS                                                                                \
  "[{\"destination\":\"/proc\",\"type\":\"proc\",\"source\":\"proc\"},"                            \
  "{\"destination\":\"/dev\",\"type\":\"tmpfs\",\"source\":\"tmpfs\",\"options\":[\"nosuid\","     \
  "\"strictatime\",\"mode=755\",\"size=65536k\"]},"                                                \
  "{\"destination\":\"/dev/pts\",\"type\":\"devpts\",\"source\":\"devpts\",\"options\":["         \
  "\"nosuid\",\"noexec\",\"newinstance\",\"ptmxmode=0666\",\"mode=0620\",\"gid=5\"]},"              \
  "{\"destination\":\"/dev/shm\",\"type\":\"tmpfs\",\"source\":\"shm\",\"options\":[\"nosuid\","   \
  "\"noexec\",\"nodev\",\"mode=1777\",\"size=65536k\"]},"                                          \
  "{\"destination\":\"/dev/mqueue\",\"type\":\"mqueue\",\"source\":\"mqueue\",\"options\":["       \
  "\"nosuid\",\"noexec\",\"nodev\"]},"                                                             \
  "{\"destination\":\"/sys\",\"type\":\"sysfs\",\"source\":\"sysfs\",\"options\":[\"nosuid\","     \
  "\"noexec\",\"nodev\",\"ro\"]}]"
#define SPEC_PATHS                                                                                 \
  "\"maskedPaths\":[\"/proc/acpi\",\"/proc/asound\",\"/proc/kcore\",\"/proc/keys\","               \
  "\"/sys/firmware\"],\"readonlyPaths\":[\"/proc/bus\",\"/proc/sys\"]"
static const char *const spec_files[] = { "/proc/acpi/", "/proc/kcore", "/proc/sys/", "/sys/firmware/", NULL };

/* The calls, by step.  "R" is the rootfs; after pivot_root its paths have no "R" (the
   test's pivot_root is a chroot).  There the rootfs has no procfs at /proc (the proc
   mount was only recorded): the masks and read-only binds go through the fds with the
   new mount API, as they do in a container without /proc. */
#define CALLS_ROOT(first) first "mount R R - bind,rec -\n"
#define CALLS_SPEC_MOUNTS                                                                          \
  "mount proc R/proc proc 0 -\n"                                                                   \
  "mount tmpfs R/dev tmpfs nosuid,strictatime mode=755,size=65536k\n"                              \
  "mount devpts R/dev/pts devpts nosuid,noexec newinstance,ptmxmode=0666,mode=0620,gid=5\n"        \
  "mount shm R/dev/shm tmpfs nosuid,nodev,noexec mode=1777,size=65536k\n"                          \
  "mount mqueue R/dev/mqueue mqueue nosuid,nodev,noexec -\n"                                       \
  "mount sysfs R/sys sysfs ro,nosuid,nodev,noexec -\n"
#define CALLS_MKNOD                                                                                \
  "mknod R/dev/null c 1:3 0666\n"                                                                  \
  "mknod R/dev/zero c 1:5 0666\n"                                                                  \
  "mknod R/dev/full c 1:7 0666\n"                                                                  \
  "mknod R/dev/random c 1:8 0666\n"                                                                \
  "mknod R/dev/urandom c 1:9 0666\n"                                                               \
  "mknod R/dev/tty c 5:0 0666\n"
/* bound from the host in a user namespace: nosuid, noexec (0xa) */
#define CALLS_HOST_NODES                                                                           \
  "mount /dev/null R/dev/null - bind -\n"                                                          \
  "mount_setattr R/dev/null set=0xa clr=0\n"                                                       \
  "mount /dev/zero R/dev/zero - bind -\n"                                                          \
  "mount_setattr R/dev/zero set=0xa clr=0\n"                                                       \
  "mount /dev/full R/dev/full - bind -\n"                                                          \
  "mount_setattr R/dev/full set=0xa clr=0\n"                                                       \
  "mount /dev/random R/dev/random - bind -\n"                                                      \
  "mount_setattr R/dev/random set=0xa clr=0\n"                                                     \
  "mount /dev/urandom R/dev/urandom - bind -\n"                                                    \
  "mount_setattr R/dev/urandom set=0xa clr=0\n"                                                    \
  "mount /dev/tty R/dev/tty - bind -\n"                                                            \
  "mount_setattr R/dev/tty set=0xa clr=0\n"
#define CALLS_PIVOT                                                                                \
  "pivot_root . . (cwd R)\n"                                                                       \
  "mount - . - rec,slave -\n"                                                                      \
  "umount2 . detach\n"
/* readonlyPaths /proc/sys (/proc/bus is missing), then maskedPaths: a tmpfs on each
   directory, /dev/null on the file (the missing ones skipped). */
#define CALLS_SPEC_PATHS                                                                           \
  "open_tree /proc/sys clone rec\n"                                                                \
  "mount_setattr /proc/sys set=0x1 clr=0\n"                                                        \
  "move_mount /proc/sys -> /proc/sys\n"                                                            \
  "fsopen tmpfs\n"                                                                                 \
  "fsconfig mode=0755\n"                                                                           \
  "fsconfig cmd 6\n"                                                                               \
  "fsmount attr=0xf\n"                                                                             \
  "move_mount /memfd:fsmount (deleted) -> /proc/acpi\n"                                            \
  "open_tree /dev/null clone\n"                                                                    \
  "move_mount /dev/null -> /proc/kcore\n"                                                          \
  "fsopen tmpfs\n"                                                                                 \
  "fsconfig mode=0755\n"                                                                           \
  "fsconfig cmd 6\n"                                                                               \
  "fsmount attr=0xf\n"                                                                             \
  "move_mount /memfd:fsmount (deleted) -> /sys/firmware\n"
#define PRIVATE "mount - / - rec,private -\n"

static void
test_spec_default (void)
{
  if (!run_sequence (CFG ("{\"path\":\"rootfs\",\"readonly\":true}", SPEC_MOUNTS, "{" SPEC_PATHS "}"),
                     spec_files, false))
    return;
  /* root.readonly last of all */
  CHECK_CALLS (CALLS_ROOT (PRIVATE) CALLS_SPEC_MOUNTS CALLS_MKNOD CALLS_PIVOT CALLS_SPEC_PATHS
               "mount_setattr / set=0x1 clr=0\n");
}

/* A user namespace: the host's nodes bound instead of mknod; a writable root. */
static void
test_spec_userns (void)
{
  if (!run_sequence (CFG ("{\"path\":\"rootfs\"}", SPEC_MOUNTS, "{" SPEC_PATHS "}"), spec_files, true))
    return;
  CHECK_CALLS (CALLS_ROOT (PRIVATE) CALLS_SPEC_MOUNTS CALLS_HOST_NODES CALLS_PIVOT CALLS_SPEC_PATHS);
}

/* Binds with options: the bind, then its flags (mount_setattr), then its propagation
   (`ro` on an rbind: the top mount's flags alone, as runc). */
static void
test_bind_propagation (void)
{
  if (!run_sequence (CFG ("{\"path\":\"rootfs\"}",
                          "[{\"destination\":\"/data\",\"type\":\"bind\",\"source\":\"/tmp\","
                          "\"options\":[\"rbind\",\"ro\",\"nosuid\",\"rslave\"]},"
                          "{\"destination\":\"/etc/hosts\",\"type\":\"bind\",\"source\":\"/etc/hosts\","
                          "\"options\":[\"bind\",\"private\"]}]",
                          "{}"),
                     NULL, false))
    return;
  CHECK_CALLS (CALLS_ROOT (PRIVATE)
               "mount /tmp R/data - bind,rec -\n"
               "mount_setattr R/data set=0x3 clr=0\n"
               "mount - R/data - rec,slave -\n"
               "mount /etc/hosts R/etc/hosts - bind -\n"
               "mount - R/etc/hosts - private -\n" CALLS_MKNOD CALLS_PIVOT);
}

/* rootfsPropagation: "/" made private first (slave and shared kept), the value set
   last of all; with shared, the mount holding the rootfs made private (pivot_root
   refuses a shared parent). */
static void
test_rootfs_propagation (void)
{
  static const struct
  {
    const char *value, *first, *last;
  } cases[] = {
    { "rprivate", PRIVATE, "mount - / - rec,private -\n" },
    { "rslave", "mount - / - rec,slave -\n", "mount - / - rec,slave -\n" },
    { "shared", "mount - / - rec,shared -\nmount - R - private -\n", "mount - / - shared -\n" },
    { "runbindable", PRIVATE, "mount - / - rec,unbindable -\n" },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      char json[1024], want[2048];
      snprintf (json, sizeof json, CFG ("{\"path\":\"rootfs\"}", "[]", "{\"rootfsPropagation\":\"%s\"}"),
                cases[i].value);
      if (!run_sequence (json, NULL, false))
        return;
      snprintf (want, sizeof want, "%s" CALLS_ROOT ("") CALLS_MKNOD CALLS_PIVOT "%s", cases[i].first,
                cases[i].last);
      CHECK_CALLS (want);
    }
}

/* The rootfs as an overlay's lower layer (overlay.c), in place of the bind onto itself:
   the layers as fds.  Ephemeral: a tmpfs (here the directory T) mounted on the rootfs
   first, its upper/ and work/ made; the overlay on top of it; userxattr in a user
   namespace.  Kept: DIR/upper and DIR/work. */
#define CALLS_OVERLAY(upper, work, flags)                                                          \
  "fsopen overlay\n"                                                                               \
  "fsconfig lowerdir=R\n"                                                                          \
  "fsconfig upperdir=" upper "\n"                                                                  \
  "fsconfig workdir=" work "\n" flags "fsconfig cmd 6\n"                                           \
  "fsmount attr=0\n"                                                                               \
  "move_mount R -> R\n"
#define CALLS_TMPFS_UPPER                                                                          \
  "fsopen tmpfs\n"                                                                                 \
  "fsconfig mode=0700\n"                                                                           \
  "fsconfig cmd 6\n"                                                                               \
  "fsmount attr=0x6\n"                                                                             \
  "move_mount T -> R\n"

static void
test_overlay (void)
{
  char *kept = mktree ();

  snprintf (rec_tmpfs, sizeof rec_tmpfs, "%s", kept ? kept : "");
  mkdirs (kept, "tmpfs");
  strcat (rec_tmpfs, "/tmpfs");
  seq_overlay = ROOTFS_OVERLAY_EPHEMERAL;
  if (run_sequence (CFG ("{\"path\":\"rootfs\"}", "[]", "{}"), NULL, false))
    CHECK_CALLS (PRIVATE CALLS_TMPFS_UPPER CALLS_OVERLAY ("T/upper", "T/work", "") CALLS_MKNOD CALLS_PIVOT);
  rmtree (xasprintf ("%s", rec_tmpfs));
  mkdirs (kept, "tmpfs");
  if (run_sequence (CFG ("{\"path\":\"rootfs\"}", "[]", "{}"), NULL, true))
    CHECK_CALLS (PRIVATE CALLS_TMPFS_UPPER CALLS_OVERLAY ("T/upper", "T/work", "fsconfig userxattr\n")
                   CALLS_HOST_NODES CALLS_PIVOT);
  /* kept: DIR's upper/ and work/ */
  rmtree (xasprintf ("%s", rec_tmpfs));
  mkdirs (kept, "upper");
  mkdirs (kept, "work");
  snprintf (rec_tmpfs, sizeof rec_tmpfs, "%s", kept);
  seq_overlay = ROOTFS_OVERLAY_KEPT;
  seq_overlay_dir = kept;
  if (run_sequence (CFG ("{\"path\":\"rootfs\"}", "[]", "{}"), NULL, false))
    CHECK_CALLS (PRIVATE CALLS_OVERLAY ("T/upper", "T/work", "") CALLS_MKNOD CALLS_PIVOT);
  /* no overlayfs: the error says so, nothing is mounted */
  rec_refuse = "overlay";
  rec_refuse_errno = ENODEV;
  if (run_sequence (CFG ("{\"path\":\"rootfs\"}", "[]", "{}"), NULL, false))
    CHECK_CALLS (PRIVATE "fsopen overlay\n"
                 "error: rootfs: io.github.ocisbx.rootfs.overlay: the kernel has no overlayfs (modprobe "
                 "overlay): No such device\n");
  /* refused in a user namespace (before Linux 5.11): what is missing is named */
  rec_refuse_errno = EPERM;
  if (run_sequence (CFG ("{\"path\":\"rootfs\"}", "[]", "{}"), NULL, true))
    CHECK_CALLS (PRIVATE "fsopen overlay\n"
                 "error: rootfs: io.github.ocisbx.rootfs.overlay: the kernel refuses an overlayfs with userxattr "
                 "in a user namespace (needs Linux >= 5.11): Operation not permitted\n");
  rec_refuse = NULL;
  seq_overlay = ROOTFS_OVERLAY_NONE;
  seq_overlay_dir = NULL;
  rec_tmpfs[0] = '\0';
  rmtree (kept);
}

UNIT_MAIN (T (test_spec_default), T (test_spec_userns), T (test_bind_propagation), T (test_rootfs_propagation),
           T (test_overlay))
