/* The start-up "floor" of the benchmark: what any runtime must at least do to start a
   container with the namespaces of `runc spec` (mount, pid, uts, ipc, net): unshare them,
   fork the pid-namespace init, make / private, mount /proc, chroot into the rootfs, exec.

     floor ROOTFS CMD [ARGS...]

   Compiled on the fly by contrib/bench/startup.sh; exits with CMD's status.  */

#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

static void
die (const char *what)
{
  perror (what);
  _exit (127);
}

int
main (int argc, char **argv)
{
  char proc[4096];
  int status;
  pid_t pid;

  if (argc < 3)
    {
      fprintf (stderr, "usage: floor ROOTFS CMD [ARGS...]\n");
      return 2;
    }
  if (snprintf (proc, sizeof proc, "%s/proc", argv[1]) >= (int) sizeof proc)
    return 2;
  if (unshare (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWNET) < 0)
    die ("unshare");
  pid = fork ();
  if (pid < 0)
    die ("fork");
  if (pid == 0)
    {
      if (mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        die ("mount /");
      if (mount ("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
        die ("mount proc");
      if (chroot (argv[1]) < 0 || chdir ("/") < 0)
        die ("chroot");
      execv (argv[2], argv + 2);
      die ("execv");
    }
  if (waitpid (pid, &status, 0) < 0)
    die ("waitpid");
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
