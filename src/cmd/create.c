#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_create (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx create\n"))
    return 0;
  fprintf (stderr, "ocisbx create: not implemented\n");
  return 1;
}
