#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_start (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx start\n"))
    return 0;
  fprintf (stderr, "ocisbx start: not implemented\n");
  return 1;
}
