#include <config.h>
#include "create_opts.h"

int
cmd_run (const ocisbx_globals *g, int argc, char **argv)
{
  container_opts o;
  ocisbx_err *err = NULL;
  int code = 1;
  int r = cmd_parse_create_opts (g, argc, argv, true, &o);

  if (r != 0)
    return r == CMD_HELP_SHOWN ? 0 : r;
  if (container_run (&o, &code, &err) < 0)
    {
      cmd_fail (err);
      return code ? code : 1;
    }
  return code;
}
