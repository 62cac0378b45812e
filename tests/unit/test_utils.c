/* utils.h: run_program (a helper program, its output captured), opendir_at and lines_each. */
#include <config.h>
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.h"
#include "core/utils.h"
#include "unit_files.h"

/* sh -c SCRIPT with stdin IN; its wait status, its output in OUT. */
static int
sh (const char *script, int in, char *out, size_t len)
{
  char *const argv[] = { "sh", "-c", (char *) script, NULL };
  cleanup_err ocisbx_err *err = NULL;
  int status = run_program ("/bin/sh", argv, in, out, len, &err);

  CHECK (status >= 0);
  return status;
}

static void
test_output_and_status (void)
{
  char out[64];
  int status;

  status = sh ("echo to-out; echo to-err >&2; exit 3", -1, out, sizeof out);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 3);
  CHECK_STR (out, "to-out\nto-err"); /* trailing newline cut */
  status = sh ("kill -TERM $$", -1, out, sizeof out);
  CHECK (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
  CHECK_STR (out, "");
}

/* A longer output is read to its end (the helper does not block on a full pipe) and
   cut to what fits. */
static void
test_long_output_cut (void)
{
  char out[8];
  int status = sh ("head -c 200000 /dev/zero | tr '\\0' x", -1, out, sizeof out);

  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  CHECK_STR (out, "xxxxxxx");
}

/* stdin from IN, else /dev/null; no fd of ours but stdio (not even one without
   O_CLOEXEC); no signal blocked. */
static void
test_stdin_fds_signals (void)
{
  char out[256];
  int p[2], stray;
  sigset_t block, old;

  CHECK (pipe (p) == 0);
  CHECK (write (p[1], "from-in", 7) == 7);
  close (p[1]);
  sh ("cat", p[0], out, sizeof out);
  CHECK_STR (out, "from-in");
  close (p[0]);
  sh ("cat", -1, out, sizeof out);
  CHECK_STR (out, "");

  stray = open ("/dev/null", O_RDONLY); /* inherited by exec, were it not closed */
  CHECK (stray >= 0);
  sigemptyset (&block);
  sigaddset (&block, SIGTERM);
  sigprocmask (SIG_BLOCK, &block, &old);
  sh ("ls /proc/self/fd | sort -n | tr '\\n' ' '; grep SigBlk /proc/self/status", -1, out, sizeof out);
  CHECK_STR (out, "0 1 2 3 SigBlk:\t0000000000000000"); /* 3: ls's own directory */
  sigprocmask (SIG_SETMASK, &old, NULL);
  close (stray);
}

static void
test_exec_failure (void)
{
  char *const argv[] = { "nothing", NULL };
  cleanup_err ocisbx_err *err = NULL;
  char out[128];
  int status = run_program ("/nonexistent/helper", argv, -1, out, sizeof out, &err);

  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 127);
  CHECK_STR (out, "exec `/nonexistent/helper`: No such file or directory");
}

static void
test_opendir_at (void)
{
  cleanup_close int root = open ("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
  cleanup_dir DIR *d = NULL;
  bool proc = false;
  struct dirent *de;

  d = opendir_at (root, "."); /* an O_PATH fd will do */
  CHECK (d != NULL);
  while (d && (de = readdir (d)))
    proc |= strcmp (de->d_name, "proc") == 0;
  CHECK (proc);
  CHECK (d == NULL || (fcntl (dirfd (d), F_GETFD) & FD_CLOEXEC));
  CHECK (opendir_at (root, "nonexistent-dir") == NULL && errno == ENOENT);
  CHECK (opendir_at (root, "etc/passwd") == NULL && errno == ENOTDIR);
}

/* lines_each's record of what it was given: the lines joined with '|', a too long
   one as "<long>"; it stops at the line STOP. */
typedef struct seen
{
  char text[256];
  const char *stop;
} seen;

static int
note_line (char *line, void *arg)
{
  seen *s = arg;
  size_t n = strlen (s->text);
  snprintf (s->text + n, sizeof s->text - n, "%s%s", n ? "|" : "", line ? line : "<long>");
  return line && s->stop && strcmp (line, s->stop) == 0 ? 7 : 0;
}

static void
test_lines_each (void)
{
  char *dir = mktree ();
  cleanup_free char *path = xasprintf ("%s/f", dir);
  cleanup_free char *text = NULL;
  char long_line[40], buf[17], big[64];
  seen s = { "" };

  memset (long_line, 'x', sizeof long_line - 1);
  long_line[sizeof long_line - 1] = '\0';
  text = xasprintf ("a\n\nbb\n%s\nccc\nlast", long_line);
  write_text (path, text);
  /* lines across reads of 16 bytes, an empty one, a long one, a last without newline */
  CHECK (lines_each (path, buf, sizeof buf, note_line, &s) == 0);
  CHECK_STR (s.text, "a||bb|<long>|ccc|last");
  s = (seen){ "", "bb" };
  CHECK (lines_each (path, buf, sizeof buf, note_line, &s) == 7);
  CHECK_STR (s.text, "a||bb");
  s = (seen){ "" };
  CHECK (lines_each (path, big, sizeof big, note_line, &s) == 0); /* the long line fits */
  CHECK_STR (s.text, "a||bb|xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx|ccc|last");
  write_text (path, "");
  s = (seen){ "" };
  CHECK (lines_each (path, buf, sizeof buf, note_line, &s) == 0 && s.text[0] == '\0');
  CHECK (lines_each ("/nonexistent/f", buf, sizeof buf, note_line, &s) == -1 && errno == ENOENT);
  rmtree (dir);
}

UNIT_MAIN (T (test_output_and_status), T (test_long_output_cut), T (test_stdin_fds_signals),
           T (test_exec_failure), T (test_opendir_at), T (test_lines_each))
