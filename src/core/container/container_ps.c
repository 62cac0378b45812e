/* ps: the processes of a container, as a pid list or as the lines of the host's `ps`
   that belong to it. */
#include <config.h>
#include "core/container/container.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/utils.h"

extern char **environ;

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
  if (n == 0 || pid <= 0 || pid != (long) key)
    return false;
  return bsearch (&key, pids, n, sizeof *pids, pid_cmp) != NULL;
}

/* The index of the column named PID in ps's HEADER line, -1 when there is none. */
static int
pid_column (const char *header)
{
  cleanup_free char *copy = xstrdup (header);
  char *tok, *save = NULL;
  int col = 0;

  for (tok = strtok_r (copy, " \t\n", &save); tok; tok = strtok_r (NULL, " \t\n", &save), col++)
    if (strcmp (tok, "PID") == 0)
      return col;
  return -1;
}

/* The number in column COL of LINE, -1 when there is none. */
static long
column_pid (const char *line, int col)
{
  cleanup_free char *copy = xstrdup (line);
  char *tok, *save = NULL;

  for (tok = strtok_r (copy, " \t\n", &save); tok; tok = strtok_r (NULL, " \t\n", &save), col--)
    if (col == 0)
      return strtol (tok, NULL, 10);
  return -1;
}

/* Start ps with ARGV, its stdout a pipe (*OUT); with QUIET its stderr to /dev/null. */
static int
ps_spawn (char **argv, bool quiet, pid_t *child, FILE **out, ocisbx_err **err)
{
  posix_spawn_file_actions_t fa;
  int fds[2], r;

  if (pipe2 (fds, O_CLOEXEC) < 0)
    return err_set (err, errno, "ps: pipe");
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, fds[1], STDOUT_FILENO);
  if (quiet)
    posix_spawn_file_actions_addopen (&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  r = posix_spawnp (child, "ps", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy (&fa);
  close (fds[1]);
  if (r != 0)
    {
      close (fds[0]);
      return err_set (err, r, "ps: cannot run ps");
    }
  *out = fdopen (fds[0], "r");
  return 0;
}

/* Run ps with ARGV, pass on its header (unless HEADER_DONE) and the lines whose PID
   column is ours.  With QUICK (ps -q, which may be missing: busybox, old procps) a ps
   that printed no header is not an error: *HEADER_SEEN false and nothing passed on, for
   the caller to fall back on; a header and no process (all gone meanwhile: ps -q exits
   1) is ps -ef's empty table. */
static int
ps_run (char **argv, const pid_t *pids, size_t n, bool quick, bool header_done, bool *header_seen,
        container_out_fn emit, void *arg, ocisbx_err **err)
{
  cleanup_free char *line = NULL;
  FILE *out = NULL;
  int status = 0, pid_col = -1, rc = 0;
  size_t cap = 0;
  pid_t child;

  *header_seen = false;
  if (ps_spawn (argv, quick, &child, &out, err) < 0)
    return -1;
  while (out && getline (&line, &cap, out) > 0)
    {
      if (pid_col >= 0)
        {
          if (has_pid (pids, n, column_pid (line, pid_col)))
            emit (line, arg);
          continue;
        }
      pid_col = pid_column (line);
      if (pid_col < 0)
        {
          if (!quick) /* with quick: not the table we asked for, the caller falls back */
            rc = err_set (err, 0, "ps: no PID column in the output of ps");
          break;
        }
      *header_seen = true;
      if (!header_done)
        emit (line, arg);
    }
  if (out)
    fclose (out); /* a ps still writing gets EPIPE rather than blocking us */
  while (waitpid (child, &status, 0) < 0 && errno == EINTR)
    ;
  if (rc != 0 || (quick && !*header_seen))
    return rc;
  if (!(WIFEXITED (status) && (WEXITSTATUS (status) == 0 || (quick && WEXITSTATUS (status) == 1))))
    return err_set (err, 0, "ps: ps failed");
  return 0;
}

/* The most pids given to one ps -q: procps-ng's library selects at most 255 processes
   at once (FILL_ID_MAX; more: "fatal library error, reap" and exit 1). */
#define PS_QUICK_MAX 255

/* `ps ARGS` (default -ef) filtered to the container's PIDS (sorted).  Without ARGS, ps -f
   -q PIDS, once per PS_QUICK_MAX pids in ascending order, prints the same lines as ps -ef
   but reads only the container's processes, not every process of the host; a ps without
   -q gets the -ef run. */
static int
ps_table (char *const *args, size_t nargs, const pid_t *pids, size_t n, container_out_fn emit, void *arg,
          ocisbx_err **err)
{
  /* "ps", then ARGS or -f -q PIDS, then the NULL that ends it */
  cleanup_strv char **argv = xmalloc0 ((1 + (nargs > 3 ? nargs : 3) + 1) * sizeof (char *));
  bool seen = false;

  argv[0] = xstrdup ("ps");
  if (nargs == 0 && n > 0)
    {
      argv[1] = xstrdup ("-f");
      argv[2] = xstrdup ("-q");
      for (size_t at = 0; at < n; at += PS_QUICK_MAX)
        {
          size_t k = n - at < PS_QUICK_MAX ? n - at : PS_QUICK_MAX;
          char *p;

          free (argv[3]);
          argv[3] = p = xmalloc0 (k * 12 + 1);
          for (size_t i = 0; i < k; i++)
            p += sprintf (p, "%s%d", i ? "," : "", (int) pids[at + i]);
          if (ps_run (argv, pids + at, k, true, at > 0, &seen, emit, arg, err) < 0)
            return -1;
          if (!seen && at > 0)
            return err_set (err, 0, "ps: ps -q failed");
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
  return ps_run (argv, pids, n, false, false, &seen, emit, arg, err);
}

int
container_ps (const char *root, const char *id, char *const *ps_args, size_t nargs, container_out_fn emit, void *arg,
              ocisbx_err **err)
{
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;

  if (container_pids (root, id, &pids, &n, err) < 0)
    return -1;
  if (n > 1)
    qsort (pids, n, sizeof *pids, pid_cmp);
  return ps_table (ps_args, nargs, pids, n, emit, arg, err);
}

typedef struct pid_list
{
  uint32_t *pids;
  size_t pids_len;
} pid_list;

int
container_ps_json (const char *root, const char *id, char **json, ocisbx_err **err)
{
  static const ocispec_field field
      = { "", OCISPEC_UINT32ARR, 0, offsetof (pid_list, pids), offsetof (pid_list, pids_len), NULL, NULL, NULL };
  cleanup_free pid_t *pids = NULL;
  cleanup_free uint32_t *list = NULL;
  char *msg = NULL;
  size_t n = 0;

  if (container_pids (root, id, &pids, &n, err) < 0)
    return -1;
  list = xmalloc0 ((n ? n : 1) * sizeof *list);
  for (size_t i = 0; i < n; i++)
    list[i] = (uint32_t) pids[i];
  if (ocispec_generate_value (&field, &(pid_list){ list, n }, false, json, NULL, &msg) < 0)
    return err_take (err, 0, msg);
  return 0;
}
