#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_features (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx features\n"))
    return 0;
  fprintf (stderr, "ocisbx features: not implemented\n");
  return 1;
}
