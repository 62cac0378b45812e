#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_pause (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx pause\n"))
    return 0;
  fprintf (stderr, "ocisbx pause: not implemented\n");
  return 1;
}
