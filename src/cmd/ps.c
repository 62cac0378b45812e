#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/cgroups/ops.h"
#include "core/utils.h"

extern char **environ;

static const char ps_help[]
    = "Usage: ocisbx ps [--format table|json] CONTAINER-ID [PS-ARGS...]\n"
      "\n"
      "List the processes of a container: with table (the default) the lines of\n"
      "`ps PS-ARGS` (default -ef) that belong to it, with json the pids as an array.\n"
      "\n"
      "  -f, --format FMT   table or json\n";

static int
pid_cmp (const void *a, const void *b)
{
  pid_t x = *(const pid_t *) a, y = *(const pid_t *) b;
  return (x > y) - (x < y);
}

/* PIDS sorted: ps prints every process of the host, so each line's lookup must not
   grow with the container's processes. */
static bool
has_pid (const pid_t *pids, size_t n, long pid)
{
  pid_t key = (pid_t) pid;
  if (pid <= 0 || pid != (long) key)
    return false;
  return bsearch (&key, pids, n, sizeof *pids, pid_cmp) != NULL;
}

/* Run ps with ARGV, print its header (unless HEADER_DONE) and the lines whose PID column
   is ours.  With QUICK (ps -q, which may be missing: busybox, old procps) a ps that
   printed no header is not an error: *HEADER_SEEN false and nothing printed, for the
   caller to fall back on; a header and no process (all gone meanwhile: ps -q exits 1)
   is ps -ef's empty table. */
static int
ps_run (char **argv, const pid_t *pids, size_t n, bool quick, bool header_done, bool *header_seen)
{
  cleanup_fclose FILE *out = NULL;
  posix_spawn_file_actions_t fa;
  int fds[2], status = 0, pid_col = -1, rc = 0;
  char *line = NULL;
  size_t cap = 0;
  bool header = true;
  pid_t child;

  *header_seen = false;
  if (pipe2 (fds, O_CLOEXEC) < 0)
    return perror ("ocisbx ps: pipe"), 1;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], STDOUT_FILENO);
  if (quick)
    posix_spawn_file_actions_addopen (&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  errno = posix_spawnp (&child, "ps", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&fa);
  close (fds[1]);
  if (errno != 0)
    {
      close (fds[0]);
      fprintf (stderr, "ocisbx ps: cannot run ps: %s\n", strerror (errno));
      return 1;
    }
  out = fdopen (fds[0], "r");
  while (out && getline (&line, &cap, out) > 0)
    {
      char *copy, *tok, *save = NULL;
      int col = 0;
      long pid = -1;

      if (header)
        {
          header = false;
          copy = xstrdup (line);
          for (tok = strtok_r (copy, " \t\n", &save); tok; tok = strtok_r (NULL, " \t\n", &save), col++)
            if (strcmp (tok, "PID") == 0)
              pid_col = col;
          free (copy);
          if (pid_col < 0)
            {
              if (quick)
                break; /* not the table we asked for: the caller falls back */
              fprintf (stderr, "ocisbx ps: no PID column in the output of ps\n");
              rc = 1;
              break;
            }
          *header_seen = true;
          if (!header_done)
            fputs (line, stdout);
          continue;
        }
      copy = xstrdup (line);
      for (tok = strtok_r (copy, " \t\n", &save); tok; tok = strtok_r (NULL, " \t\n", &save), col++)
        if (col == pid_col)
          {
            pid = strtol (tok, NULL, 10);
            break;
          }
      free (copy);
      if (has_pid (pids, n, pid))
        fputs (line, stdout);
    }
  free (line);
  if (out)
    {
      fclose (out); /* a ps still writing gets EPIPE rather than blocking us */
      out = NULL;
    }
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (rc != 0 || (quick && !*header_seen))
    return rc;
  if (!(WIFEXITED (status) && (WEXITSTATUS (status) == 0 || (quick && WEXITSTATUS (status) == 1))))
    {
      fprintf (stderr, "ocisbx ps: ps failed\n");
      rc = 1;
    }
  return rc;
}

/* The most pids given to one ps -q: procps-ng's library selects at most 255 processes
   at once (FILL_ID_MAX; more: "fatal library error, reap" and exit 1). */
#define PS_QUICK_MAX 255

/* `ps ARGS` (default -ef) filtered to the container's PIDS (sorted).  Without ARGS, ps -f
   -q PIDS, once per PS_QUICK_MAX pids in ascending order, prints the same lines as ps -ef
   but reads only the container's processes, not every process of the host; a ps without
   -q gets the -ef run. */
static int
ps_table (char **args, size_t nargs, const pid_t *pids, size_t n)
{
  cleanup_strv char **argv = xmalloc0 ((nargs + 4) * sizeof (char *));
  bool seen;

  argv[0] = xstrdup ("ps");
  if (nargs == 0 && n > 0)
    {
      argv[1] = xstrdup ("-f");
      argv[2] = xstrdup ("-q");
      for (size_t at = 0; at < n; at += PS_QUICK_MAX)
        {
          size_t k = n - at < PS_QUICK_MAX ? n - at : PS_QUICK_MAX;
          char *p;
          int rc;

          free (argv[3]);
          argv[3] = p = xmalloc0 (k * 12 + 1);
          for (size_t i = 0; i < k; i++)
            p += sprintf (p, "%s%d", i ? "," : "", (int) pids[at + i]);
          rc = ps_run (argv, pids + at, k, true, at > 0, &seen);
          if (rc != 0)
            return rc;
          if (!seen && at > 0)
            {
              fprintf (stderr, "ocisbx ps: ps -q failed\n");
              return 1;
            }
          if (!seen)
            break; /* no ps -q: ps -ef below */
        }
      if (seen)
        return 0;
      for (int i = 1; i < 4; i++)
        {
          free (argv[i]);
          argv[i] = NULL;
        }
    }
  if (nargs == 0)
    argv[1] = xstrdup ("-ef");
  for (size_t i = 0; i < nargs; i++)
    argv[1 + i] = xstrdup (args[i]);
  return ps_run (argv, pids, n, false, false, &seen);
}

int
cmd_ps (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = "table";
  cleanup_free pid_t *pids = NULL;
  ocisbx_err *err = NULL;
  size_t n = 0;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+:f:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        format = optarg;
        break;
      case 'h':
        fputs (ps_help, stdout);
        return 0;
      case ':':
        return cmd_usage_error ("ps", "option \"%s\" needs an argument", argv[optind - 1]);
      default:
        return cmd_usage_error ("ps", "unknown option \"%s\"", argv[optind - 1]);
      }
  if (strcmp (format, "table") != 0 && strcmp (format, "json") != 0)
    return cmd_usage_error ("ps", "--format: unknown format \"%s\" (table or json)", format);
  if (optind >= argc)
    return cmd_usage_error ("ps", "a container id is required");
  if (cgops_pids (g->root, argv[optind], &pids, &n, &err) < 0)
    return cmd_fail (err);
  if (strcmp (format, "json") == 0)
    {
      if (optind + 1 < argc)
        return cmd_usage_error ("ps", "ps arguments are not allowed with --format json");
      putchar ('[');
      for (size_t i = 0; i < n; i++)
        printf ("%s%d", i ? "," : "", (int) pids[i]);
      puts ("]");
      return 0;
    }
  optind++;
  if (optind < argc && strcmp (argv[optind], "--") == 0)
    optind++;
  if (n > 1)
    qsort (pids, n, sizeof *pids, pid_cmp);
  return ps_table (argv + optind, argc - optind, pids, n);
}
