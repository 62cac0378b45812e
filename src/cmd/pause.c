#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>

#include "core/container/container.h"

static const char pause_help[]
    = "Usage: ocisbx pause CONTAINER-ID\n"
      "\n"
      "Suspend every process of a running container (cgroup freezer).\n";

/* Shared by pause and resume: one operand, no options. */
int
cmd_pause_resume (const ocisbx_globals *g, int argc, char **argv, bool pause, const char *help)
{
  static const struct option opts[] = {
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *name = pause ? "pause" : "resume";
  ocisbx_err *err = NULL;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+h", opts, NULL)) != -1)
    switch (c)
      {
      case 'h':
        fputs (help, stdout);
        return 0;
      default:
        return cmd_usage_error (name, "unknown option \"%s\"", argv[optind - 1]);
      }
  if (optind >= argc)
    return cmd_usage_error (name, "a container id is required");
  if (optind + 1 < argc)
    return cmd_usage_error (name, "unexpected argument \"%s\"", argv[optind + 1]);
  if (container_pause (g->root, argv[optind], pause, &err) < 0)
    return cmd_fail (err);
  return 0;
}

int
cmd_pause (const ocisbx_globals *g, int argc, char **argv)
{
  return cmd_pause_resume (g, argc, argv, true, pause_help);
}
