#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_ps (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx ps\n"))
    return 0;
  fprintf (stderr, "ocisbx ps: not implemented\n");
  return 1;
}
