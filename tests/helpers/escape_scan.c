/* escape_scan: an attacker inside a container, for tests/escape_proc.bats.
 *
 *   escape_scan HOST_FILE STOP_FILE OUT_FILE
 *
 * Until STOP_FILE exists (polled between rounds) it loops over every other process of
 * its pid namespace, as fast as it can, and tries what a process of the container with
 * CAP_SYS_PTRACE can try on a runtime process that is visible there:
 *   ROOT   /proc/PID/root/HOST_FILE opens: the process's root is the host's
 *   CWD    /proc/PID/cwd/HOST_FILE's name opens: its cwd is the host file's dir
 *   FD     /proc/PID/fd/N (N > 2) is a directory or a regular file other than a
 *          memfd: something of the host's file system is within reach
 *   PTRACE /proc/PID/mem opens for writing (what ptrace may attach to: code injection)
 *          and the process holds a capability we lack
 *   EXE    /proc/PID/exe opened; kept, and at the end reopened for writing through
 *          /proc/self/fd: WRITABLE when its first byte can be written back (the
 *          runtime's binary could be overwritten)
 * Every finding is one line in OUT_FILE (appended by the end); then "done N" with the
 * number of rounds.  The runtime's own busybox processes are ordinary targets too: they
 * hold nothing, so they report nothing.  Static, no allocation beyond the stack. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_EXE 256

static FILE *out;
static int exe_fds[MAX_EXE];
static int n_exe;
static char seen[1 << 16][1];

static unsigned long long
cap_eff (const char *status_path)
{
  char line[256];
  unsigned long long v = 0;
  FILE *f = fopen (status_path, "re");

  if (f == NULL)
    return 0;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "CapEff:", 7) == 0)
      v = strtoull (line + 7, NULL, 16);
  fclose (f);
  return v;
}

static void
report (const char *what, int pid, const char *detail)
{
  char exe[PATH_MAX] = "", p[64];
  ssize_t n;

  snprintf (p, sizeof p, "/proc/%d/exe", pid);
  n = readlink (p, exe, sizeof exe - 1);
  if (n > 0)
    exe[n] = 0;
  fprintf (out, "%s pid=%d exe=%s %s\n", what, pid, exe, detail);
  fflush (out);
}

static void
scan_fds (int pid)
{
  char dir[64], p[128], target[PATH_MAX];
  DIR *d;
  struct dirent *e;

  snprintf (dir, sizeof dir, "/proc/%d/fd", pid);
  d = opendir (dir);
  if (d == NULL)
    return;
  while ((e = readdir (d)))
    {
      struct stat st;
      int n = atoi (e->d_name), fd;
      ssize_t len;

      if (e->d_name[0] == '.' || n <= 2)
        continue;
      snprintf (p, sizeof p, "%s/%s", dir, e->d_name);
      fd = open (p, O_PATH | O_CLOEXEC);
      if (fd < 0)
        continue;
      len = readlink (p, target, sizeof target - 1);
      target[len > 0 ? len : 0] = 0;
      if (len > 0 && fstat (fd, &st) == 0 && (S_ISDIR (st.st_mode) || S_ISREG (st.st_mode))
          && strncmp (target, "/memfd:", 7) != 0)
        {
          char detail[PATH_MAX + 32];
          snprintf (detail, sizeof detail, "fd=%d -> %s", n, target);
          report ("FD", pid, detail);
        }
      close (fd);
    }
  closedir (d);
}

static void
scan (int pid, const char *host_file, unsigned long long my_caps)
{
  char p[PATH_MAX + 64];
  const char *base = strrchr (host_file, '/');
  int fd;

  snprintf (p, sizeof p, "/proc/%d/root%s", pid, host_file);
  fd = open (p, O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      report ("ROOT", pid, host_file);
      close (fd);
    }
  snprintf (p, sizeof p, "/proc/%d/cwd/%s", pid, base ? base + 1 : host_file);
  fd = open (p, O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      report ("CWD", pid, host_file);
      close (fd);
    }
  scan_fds (pid);
  if (n_exe < MAX_EXE && !seen[pid & 0xffff][0])
    {
      snprintf (p, sizeof p, "/proc/%d/exe", pid);
      fd = open (p, O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          exe_fds[n_exe++] = fd;
          seen[pid & 0xffff][0] = 1;
        }
    }
  /* /proc/PID/mem opens for what ptrace may attach to (code injection, as ptrace) */
  snprintf (p, sizeof p, "/proc/%d/mem", pid);
  fd = open (p, O_RDWR | O_CLOEXEC);
  if (fd >= 0)
    {
      unsigned long long caps;
      close (fd);
      snprintf (p, sizeof p, "/proc/%d/status", pid);
      caps = cap_eff (p);
      if (caps & ~my_caps)
        {
          char detail[64];
          snprintf (detail, sizeof detail, "CapEff=%llx ours=%llx", caps, my_caps);
          report ("PTRACE", pid, detail);
        }
    }
}

int
main (int argc, char **argv)
{
  unsigned long rounds = 0;
  unsigned long long my_caps;
  int self = getpid ();

  if (argc != 4)
    {
      fprintf (stderr, "usage: escape_scan HOST_FILE STOP_FILE OUT_FILE\n");
      return 2;
    }
  out = fopen (argv[3], "ae");
  if (out == NULL)
    return 2;
  my_caps = cap_eff ("/proc/self/status");
  fprintf (out, "started pid=%d caps=%llx\n", self, my_caps);
  fflush (out);
  while (access (argv[2], F_OK) != 0)
    {
      DIR *d = opendir ("/proc");
      struct dirent *e;
      if (d == NULL)
        return 2;
      while ((e = readdir (d)))
        {
          int pid = atoi (e->d_name);
          if (pid > 0 && pid != self)
            scan (pid, argv[1], my_caps);
        }
      closedir (d);
      rounds++;
    }
  /* every runtime process is gone now: can what we kept be written? */
  for (int i = 0; i < n_exe; i++)
    {
      char p[64], target[PATH_MAX];
      ssize_t len;
      int fd;
      snprintf (p, sizeof p, "/proc/self/fd/%d", exe_fds[i]);
      len = readlink (p, target, sizeof target - 1);
      target[len > 0 ? len : 0] = 0;
      /* a sealed memfd opens for writing, but refuses the write: write its first
         byte back as it is */
      fd = open (p, O_RDWR | O_CLOEXEC);
      if (fd >= 0)
        {
          char c;
          if (pread (fd, &c, 1, 0) == 1 && pwrite (fd, &c, 1, 0) == 1)
            fprintf (out, "WRITABLE exe=%s\n", target);
          close (fd);
        }
    }
  fprintf (out, "done %lu exes=%d\n", rounds, n_exe);
  fclose (out);
  return 0;
}
