#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_update (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx update\n"))
    return 0;
  fprintf (stderr, "ocisbx update: not implemented\n");
  return 1;
}
