#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_exec (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx exec\n"))
    return 0;
  fprintf (stderr, "ocisbx exec: not implemented\n");
  return 1;
}
