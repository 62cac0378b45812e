#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_list (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx list\n"))
    return 0;
  fprintf (stderr, "ocisbx list: not implemented\n");
  return 1;
}
