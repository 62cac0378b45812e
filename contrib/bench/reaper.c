/* Run CMD as a child subreaper, so the containers that `create`/`start` orphan are reaped
   here (this machine's pid 1 does not reap orphans: they would stay zombies).

     reaper CMD [ARGS...]

   Exits with CMD's status once CMD has exited.  SIGINT, SIGTERM and SIGHUP are passed on
   to CMD as SIGTERM: a bash script that is waiting for a foreground command which itself
   handles SIGINT would skip its own SIGINT trap, but never a SIGTERM trap.
   Compiled on the fly by contrib/bench/startup.sh.  */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;

static void
forward (int sig)
{
  (void) sig;
  if (child > 0)
    kill (child, SIGTERM);
}

int
main (int argc, char **argv)
{
  struct sigaction sa = { .sa_handler = forward };
  int status = 0;
  pid_t pid;

  if (argc < 2)
    {
      fprintf (stderr, "usage: reaper CMD [ARGS...]\n");
      return 2;
    }
  if (prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
    perror ("prctl PR_SET_CHILD_SUBREAPER");
  child = fork ();
  if (child < 0)
    {
      perror ("fork");
      return 127;
    }
  if (child == 0)
    {
      execvp (argv[1], argv + 1);
      perror (argv[1]);
      _exit (127);
    }
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);
  for (;;)
    {
      int st;
      pid = waitpid (-1, &st, 0);
      if (pid < 0 && errno == EINTR)
        continue;
      if (pid < 0)
        break;
      if (pid == child)
        {
          status = st;
          break;
        }
    }
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}
