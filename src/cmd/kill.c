#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_kill (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx kill\n"))
    return 0;
  fprintf (stderr, "ocisbx kill: not implemented\n");
  return 1;
}
