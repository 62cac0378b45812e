/* What an overlay run adds to the mounts of `run`, measured alone (startup.sh's ovlsys
   phase): N times, in a private mount namespace, the rootfs mounted on itself as a plain
   run does it (open_tree clone + move_mount), then as `run --ephemeral` does it (a tmpfs
   with upper/ and work/, the overlay with the rootfs as its lower layer through
   /proc/self/fd paths, fsmount, move_mount), each undone (umount2 MNT_DETACH, not
   counted: a run leaves that to its mount namespace's end) before the next.  Prints, per
   mount, the CPU time (user + system, getrusage: what a busy machine does not blur) and
   the wall time, in µs:

     ovlcost ROOTFS N  ->  "bind CPU_US WALL_US\noverlay CPU_US WALL_US\n"

   Compiled on the fly by contrib/bench/startup.sh.  */

#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/mount.h>

static void
die (const char *what)
{
  perror (what);
  exit (1);
}

static long long
cpu_us (void)
{
  struct rusage r;
  getrusage (RUSAGE_SELF, &r);
  return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1000000LL + r.ru_utime.tv_usec + r.ru_stime.tv_usec;
}

static long long
wall_us (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int
fs_new (const char *type)
{
  int fd = syscall (SYS_fsopen, type, FSOPEN_CLOEXEC);
  if (fd < 0)
    die (type);
  return fd;
}

static void
attach (int mnt, const char *target)
{
  if (syscall (SYS_move_mount, mnt, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    die ("move_mount");
  close (mnt);
}

/* the time of the mounts alone, summed */
static long long cpu_sum, wall_sum, cpu0, wall0;

static void
start (void)
{
  cpu0 = cpu_us ();
  wall0 = wall_us ();
}

static void
stop (void)
{
  cpu_sum += cpu_us () - cpu0;
  wall_sum += wall_us () - wall0;
}

static void
bind_once (const char *rootfs)
{
  start ();
  int t = syscall (SYS_open_tree, AT_FDCWD, rootfs, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
  if (t < 0)
    die ("open_tree");
  attach (t, rootfs);
  stop ();
  if (umount2 (rootfs, MNT_DETACH) < 0)
    die ("umount2");
}

static void
overlay_once (const char *rootfs)
{
  char l[32], u[32], w[32];
  int lower, fs, tmp, upper, work, mnt;

  start ();
  lower = open (rootfs, O_PATH | O_DIRECTORY | O_CLOEXEC);
  fs = fs_new ("tmpfs");

  if (syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0700", 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    die ("fsconfig tmpfs");
  tmp = syscall (SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NODEV | MOUNT_ATTR_NOSUID);
  close (fs);
  if (tmp < 0 || syscall (SYS_move_mount, tmp, "", AT_FDCWD, rootfs, MOVE_MOUNT_F_EMPTY_PATH) < 0)
    die ("tmpfs");
  if (mkdirat (tmp, "upper", 0755) < 0 || mkdirat (tmp, "work", 0700) < 0)
    die ("mkdirat");
  upper = openat (tmp, "upper", O_PATH | O_DIRECTORY | O_CLOEXEC);
  work = openat (tmp, "work", O_PATH | O_DIRECTORY | O_CLOEXEC);
  snprintf (l, sizeof l, "/proc/self/fd/%d", lower);
  snprintf (u, sizeof u, "/proc/self/fd/%d", upper);
  snprintf (w, sizeof w, "/proc/self/fd/%d", work);
  fs = fs_new ("overlay");
  if (syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", l, 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "upperdir", u, 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_SET_STRING, "workdir", w, 0) < 0
      || syscall (SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
    die ("fsconfig overlay");
  mnt = syscall (SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0);
  if (mnt < 0)
    die ("fsmount overlay");
  close (fs);
  attach (mnt, rootfs);
  stop ();
  close (tmp);
  close (upper);
  close (work);
  close (lower);
  /* the overlay, then the tmpfs under it */
  if (umount2 (rootfs, MNT_DETACH) < 0 || umount2 (rootfs, MNT_DETACH) < 0)
    die ("umount2");
}

int
main (int argc, char **argv)
{
  int n;

  if (argc != 3 || (n = atoi (argv[2])) <= 0)
    {
      fprintf (stderr, "usage: ovlcost ROOTFS N\n");
      return 2;
    }
  if (unshare (CLONE_NEWNS) < 0 || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
    die ("private mount namespace");
  for (int i = 0; i < n; i++)
    bind_once (argv[1]);
  printf ("bind %lld %lld\n", cpu_sum / n, wall_sum / n);
  cpu_sum = wall_sum = 0;
  for (int i = 0; i < n; i++)
    overlay_once (argv[1]);
  printf ("overlay %lld %lld\n", cpu_sum / n, wall_sum / n);
  return 0;
}
