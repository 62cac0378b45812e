#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_spec (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx spec\n"))
    return 0;
  fprintf (stderr, "ocisbx spec: not implemented\n");
  return 1;
}
