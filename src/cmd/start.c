#include <config.h>
#include "cmd.h"

#include "core/container/container.h"

int
cmd_start (const ocisbx_globals *g, int argc, char **argv)
{
  ocisbx_err *err = NULL;

  if (cmd_wants_help (argc, argv, "Usage: ocisbx start CONTAINER-ID\n\n"
                                  "Start the process of a created container.\n"))
    return 0;
  if (argc != 2 || argv[1][0] == '-')
    return cmd_usage_error ("start", "exactly one container id is required");
  if (container_start (g->root, argv[1], &err) < 0)
    return cmd_fail (err);
  return 0;
}
