#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_delete (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx delete\n"))
    return 0;
  fprintf (stderr, "ocisbx delete: not implemented\n");
  return 1;
}
