/* The CLI: global options and one entry point per subcommand (src/cmd/NAME.c).
   Command files parse flags and print; the work is one call into src/core. */
#ifndef OCISBX_CMD_H
#define OCISBX_CMD_H

#include <stdbool.h>

#include "core/log.h"

typedef struct ocisbx_globals
{
  const char *root;     /* --root, default /run/ocisbx */
  const char *log;      /* --log */
  log_format log_fmt;   /* --log-format */
  bool debug;           /* --debug */
  bool systemd_cgroup;  /* --systemd-cgroup */
  const char *rootless; /* --rootless auto|true|false */
} ocisbx_globals;

typedef int (*cmd_fn) (const ocisbx_globals *g, int argc, char **argv);

typedef struct ocisbx_command
{
  const char *name;
  cmd_fn fn;
  const char *summary;
} ocisbx_command;

/* Exit status for usage errors (runc uses 1 too). */
#define EXIT_USAGE 1

/* Helpers for command files (src/cmd/common.c). */
int cmd_usage_error (const char *cmd, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Print an error chain and return the exit status 1. */
int cmd_fail (ocisbx_err *err);
/* Print TEXT on stdout at once (what core's ps and events hand over: container_out_fn). */
void cmd_print (const char *text, void *unused);
/* Returns true (and prints HELP) when argv asks for --help/-h before any operand. */
bool cmd_wants_help (int argc, char **argv, const char *help);

int cmd_create (const ocisbx_globals *g, int argc, char **argv);
int cmd_start (const ocisbx_globals *g, int argc, char **argv);
int cmd_state (const ocisbx_globals *g, int argc, char **argv);
int cmd_kill (const ocisbx_globals *g, int argc, char **argv);
int cmd_delete (const ocisbx_globals *g, int argc, char **argv);
int cmd_run (const ocisbx_globals *g, int argc, char **argv);
int cmd_exec (const ocisbx_globals *g, int argc, char **argv);
int cmd_list (const ocisbx_globals *g, int argc, char **argv);
int cmd_ps (const ocisbx_globals *g, int argc, char **argv);
int cmd_spec (const ocisbx_globals *g, int argc, char **argv);
int cmd_features (const ocisbx_globals *g, int argc, char **argv);
int cmd_pause (const ocisbx_globals *g, int argc, char **argv);
int cmd_resume (const ocisbx_globals *g, int argc, char **argv);
int cmd_update (const ocisbx_globals *g, int argc, char **argv);
int cmd_events (const ocisbx_globals *g, int argc, char **argv);

#endif
