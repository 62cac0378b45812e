#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>

#include "core/container/container.h"
#include "core/process/process.h"

static const char help[] =
  "Usage: ocisbx kill [OPTIONS] CONTAINER-ID [SIGNAL]\n\n"
  "Send SIGNAL (default SIGTERM; a name with or without SIG, or a number) to the\n"
  "container's init.\n\n"
  "  -a, --all   signal every process of the container\n";

int
cmd_kill (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "all", no_argument, NULL, 'a' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  ocisbx_err *err = NULL;
  bool all = false;
  int c, sig = SIGTERM;

  opterr = 0;
  /* "+": a signal like -9 after the id is not an option */
  while ((c = getopt_long (argc, argv, "+ah", opts, NULL)) != -1)
    switch (c)
      {
      case 'a':
        all = true;
        break;
      case 'h':
        fputs (help, stdout);
        return 0;
      default:
        return cmd_usage_error ("kill", "unknown option %s", argv[optind - 1]);
      }
  if (optind >= argc || argc - optind > 2)
    return cmd_usage_error ("kill", "usage: kill [--all] CONTAINER-ID [SIGNAL]");
  if (argc - optind == 2)
    {
      sig = signal_parse (argv[optind + 1]);
      if (sig < 0)
        {
          fprintf (stderr, "ocisbx: kill: unknown signal \"%s\"\n", argv[optind + 1]);
          return 1;
        }
    }
  if (container_kill (g->root, argv[optind], sig, all, &err) < 0)
    return cmd_fail (err);
  return 0;
}
