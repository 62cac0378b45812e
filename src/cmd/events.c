#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_events (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx events\n"))
    return 0;
  fprintf (stderr, "ocisbx events: not implemented\n");
  return 1;
}
