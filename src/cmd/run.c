#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_run (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx run\n"))
    return 0;
  fprintf (stderr, "ocisbx run: not implemented\n");
  return 1;
}
