#include <config.h>
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int
cmd_usage_error (const char *cmd, const char *fmt, ...)
{
  va_list ap;
  fprintf (stderr, "ocisbx %s: ", cmd);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fprintf (stderr, "\nTry 'ocisbx %s --help'.\n", cmd);
  return EXIT_USAGE;
}

int
cmd_fail (ocisbx_err *err)
{
  log_err (err);
  err_free (err);
  return 1;
}

void
cmd_print (const char *text, void *unused)
{
  (void) unused;
  fputs (text, stdout);
  fflush (stdout);
}

bool
cmd_wants_help (int argc, char **argv, const char *help)
{
  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--") == 0 || argv[i][0] != '-')
        return false;
      if (strcmp (argv[i], "--help") == 0 || strcmp (argv[i], "-h") == 0)
        {
          fputs (help, stdout);
          return true;
        }
    }
  return false;
}
