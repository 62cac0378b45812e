#include <config.h>
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/container.h"

int
cmd_state (const ocisbx_globals *g, int argc, char **argv)
{
  ocisbx_err *err = NULL;
  char *json = NULL;

  if (cmd_wants_help (argc, argv, "Usage: ocisbx state CONTAINER-ID\n\n"
                                  "Print the state of a container (runtime-spec state JSON).\n"))
    return 0;
  if (argc != 2 || argv[1][0] == '-')
    return cmd_usage_error ("state", "exactly one container id is required");
  if (container_state_json (g->root, argv[1], &json, &err) < 0)
    return cmd_fail (err);
  fputs (json, stdout);
  if (json[0] && json[strlen (json) - 1] != '\n')
    putchar ('\n');
  free (json);
  return 0;
}
