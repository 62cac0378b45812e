#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>

#include "core/container/container.h"

static const char help[] =
  "Usage: ocisbx delete [OPTIONS] CONTAINER-ID\n\n"
  "Delete a stopped (or created) container: its cgroups and state; runs poststop hooks.\n\n"
  "  -f, --force   kill a running container first\n";

int
cmd_delete (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "force", no_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  ocisbx_err *err = NULL;
  bool force = false;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "fh", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        force = true;
        break;
      case 'h':
        fputs (help, stdout);
        return 0;
      default:
        return cmd_usage_error ("delete", "unknown option %s", argv[optind - 1]);
      }
  if (argc - optind != 1)
    return cmd_usage_error ("delete", "exactly one container id is required");
  if (container_delete (g->root, argv[optind], force, &err) < 0)
    return cmd_fail (err);
  return 0;
}
