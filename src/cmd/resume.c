#include <config.h>
#include "cmd.h"

#include <stdio.h>

int
cmd_resume (const ocisbx_globals *g, int argc, char **argv)
{
  if (cmd_wants_help (argc, argv, "Usage: ocisbx resume\n"))
    return 0;
  fprintf (stderr, "ocisbx resume: not implemented\n");
  return 1;
}
