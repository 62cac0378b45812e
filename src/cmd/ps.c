#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/container.h"
#include "core/utils.h"

static const char ps_help[]
    = "Usage: ocisbx ps [--format table|json] CONTAINER-ID [PS-ARGS...]\n"
      "\n"
      "List the processes of a container: with table (the default) the lines of\n"
      "`ps PS-ARGS` (default -ef) that belong to it, with json the pids as an array.\n"
      "\n"
      "  -f, --format FMT   table or json\n";

int
cmd_ps (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = "table";
  ocisbx_err *err = NULL;
  const char *id;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+:f:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        format = optarg;
        break;
      case 'h':
        fputs (ps_help, stdout);
        return 0;
      case ':':
        return cmd_usage_error ("ps", "option \"%s\" needs an argument", argv[optind - 1]);
      default:
        return cmd_usage_error ("ps", "unknown option \"%s\"", argv[optind - 1]);
      }
  if (strcmp (format, "table") != 0 && strcmp (format, "json") != 0)
    return cmd_usage_error ("ps", "--format: unknown format \"%s\" (table or json)", format);
  if (optind >= argc)
    return cmd_usage_error ("ps", "a container id is required");
  id = argv[optind++];
  if (strcmp (format, "json") == 0)
    {
      cleanup_free char *json = NULL;
      if (container_ps_json (g->root, id, &json, &err) < 0)
        return cmd_fail (err);
      if (optind < argc)
        return cmd_usage_error ("ps", "ps arguments are not allowed with --format json");
      fputs (json, stdout);
      return 0;
    }
  if (optind < argc && strcmp (argv[optind], "--") == 0)
    optind++;
  if (container_ps (g->root, id, argv + optind, argc - optind, cmd_print, NULL, &err) < 0)
    return cmd_fail (err);
  return 0;
}
