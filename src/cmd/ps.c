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

#include "../core/cgroups/ops.h"
#include "../core/utils.h"

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

/* Run ps with ARGS, print its header and the lines whose PID column is ours. */
static int
ps_table (char **args, size_t nargs, const pid_t *pids, size_t n)
{
  cleanup_strv char **argv = xmalloc0 ((nargs + 3) * sizeof (char *));
  cleanup_fclose FILE *out = NULL;
  posix_spawn_file_actions_t fa;
  int fds[2], status = 0, pid_col = -1, rc = 0;
  char *line = NULL;
  size_t cap = 0;
  bool header = true;
  pid_t child;

  argv[0] = xstrdup ("ps");
  if (nargs == 0)
    argv[1] = xstrdup ("-ef");
  for (size_t i = 0; i < nargs; i++)
    argv[1 + i] = xstrdup (args[i]);
  if (pipe2 (fds, O_CLOEXEC) < 0)
    return perror ("ocisbx ps: pipe"), 1;
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], STDOUT_FILENO);
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
              fprintf (stderr, "ocisbx ps: no PID column in the output of ps\n");
              rc = 1;
              break;
            }
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
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (rc == 0 && !(WIFEXITED (status) && WEXITSTATUS (status) == 0))
    {
      fprintf (stderr, "ocisbx ps: ps failed\n");
      rc = 1;
    }
  return rc;
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
