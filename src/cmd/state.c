#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_state (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx state\n"))
    return 0;
  fprintf (stderr, "ocisbx state: not implemented\n");
  return 1;
}
