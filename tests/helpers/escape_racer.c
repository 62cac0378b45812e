/* escape_racer: stands in for another container writing the same rootfs while a
 * runtime sets a container up in it (tests/escape_rootfs.bats).  Built by the test with
 * `cc -static -O2`.  Prints "ready", runs until SIGTERM/SIGINT or SECONDS, then prints
 * what it did.
 *
 *   escape_racer exchange DIR A B SECONDS
 *       swaps DIR/A and DIR/B (renameat2 RENAME_EXCHANGE) in a loop, pausing a
 *       varying while after each swap: with A the rootfs's proc directory and B a
 *       symlink to a fake one, the procfs mounted on proc (it follows the directory)
 *       and the name /proc part ways.  Stops with both back in place; prints
 *       "swaps N".
 *   escape_racer node DIR NAME TARGET SECONDS
 *       leaves DIR/NAME free for a moment, swapping a device node made there
 *       meanwhile for a symlink to TARGET (a host file) at once, else puts the
 *       symlink there anyway, and holds it a while; over and over.  Prints
 *       "replaced N" (the nodes swapped out).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void
on_signal (int sig)
{
  (void) sig;
  stop = 1;
}

static int
exchange (int dir, const char *a, const char *b)
{
  return (int) syscall (SYS_renameat2, dir, a, dir, b, RENAME_EXCHANGE);
}

/* After each swap the racer holds still for a while, cycling through these pauses
   (microseconds): the runtime must meet the swapped name at one step (the masks) and
   the right one at the next (its own later uses of /proc), as a patient attacker
   arranges it. */
static const long dwell_us[] = { 0, 50, 200, 500, 1000, 2000, 4000 };

static int
race_exchange (int dir, const char *a, const char *b, time_t end)
{
  unsigned long swaps = 0;

  while (!stop && time (NULL) < end)
    {
      long us = dwell_us[(swaps / 2) % (sizeof dwell_us / sizeof dwell_us[0])];
      struct timespec ts = { 0, us * 1000 };

      if (exchange (dir, a, b) < 0)
        {
          perror ("renameat2");
          return 1;
        }
      swaps++;
      if (us)
        nanosleep (&ts, NULL);
    }
  if (swaps % 2 && exchange (dir, a, b) < 0) /* both back in place */
    {
      perror ("renameat2 (restore)");
      return 1;
    }
  printf ("swaps %lu\n", swaps);
  return 0;
}

static void
spin (int n)
{
  for (volatile int i = 0; i < n; i++)
    ;
}

/* Over and over: make room for a mknod at NAME for a moment, trying all along to swap a
   node made there for a symlink to TARGET (renameat2 RENAME_EXCHANGE: one call, as
   soon as the node is there), then a symlink there anyway, held a while (the
   runtime's next steps on the node it thinks it made).  The nodes swapped out are
   counted. */
static int
race_node (int dir, const char *name, const char *target, time_t end)
{
  unsigned long replaced = 0;
  const char *tmp = ".escape_racer_link";

  while (!stop && time (NULL) < end)
    {
      bool swapped = false;

      unlinkat (dir, tmp, 0);
      if (symlinkat (target, dir, tmp) < 0)
        {
          perror ("symlink");
          return 1;
        }
      unlinkat (dir, name, 0);
      for (int i = 0; i < 50 && !swapped; i++)
        swapped = exchange (dir, tmp, name) == 0;
      if (!swapped && syscall (SYS_renameat2, dir, tmp, dir, name, RENAME_NOREPLACE) < 0)
        swapped = errno == EEXIST && exchange (dir, tmp, name) == 0;
      replaced += swapped;
      spin (20000);
    }
  unlinkat (dir, tmp, 0);
  unlinkat (dir, name, 0);
  printf ("replaced %lu\n", replaced);
  return 0;
}

int
main (int argc, char **argv)
{
  struct sigaction sa = { .sa_handler = on_signal };
  time_t end;
  int dir;

  if (argc != 6 || (strcmp (argv[1], "exchange") != 0 && strcmp (argv[1], "node") != 0))
    {
      fprintf (stderr, "usage: %s exchange DIR A B SECONDS | node DIR NAME TARGET SECONDS\n", argv[0]);
      return 2;
    }
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  end = time (NULL) + atoi (argv[5]);
  dir = open (argv[2], O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0)
    {
      perror (argv[2]);
      return 1;
    }
  setvbuf (stdout, NULL, _IONBF, 0);
  printf ("ready\n"); /* the signals are handled from here on */
  if (strcmp (argv[1], "exchange") == 0)
    return race_exchange (dir, argv[3], argv[4], end);
  return race_node (dir, argv[3], argv[4], end);
}
