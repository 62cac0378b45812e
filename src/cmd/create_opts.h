/* Flags shared by `create` and `run` (create.c). */
#ifndef OCISBX_CMD_CREATE_OPTS_H
#define OCISBX_CMD_CREATE_OPTS_H

#include "core/container/container.h"
#include "cmd.h"

#define CMD_HELP_SHOWN (-1)

/* Parse argv of create (RUN false) or run; the id is the one operand.  Returns 0,
   CMD_HELP_SHOWN when --help was printed, or EXIT_USAGE after a message. */
int cmd_parse_create_opts (const ocisbx_globals *g, int argc, char **argv, bool run, container_opts *o);

#endif
