#include <config.h>
#include "cmd.h"

static const char resume_help[]
    = "Usage: ocisbx resume CONTAINER-ID\n"
      "\n"
      "Resume every process of a paused container.\n";

int cmd_pause_resume (const ocisbx_globals *g, int argc, char **argv, bool pause, const char *help);

int
cmd_resume (const ocisbx_globals *g, int argc, char **argv)
{
  return cmd_pause_resume (g, argc, argv, false, resume_help);
}
