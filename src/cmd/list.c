#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/container.h"
#include "core/utils.h"

static const char help[] =
  "Usage: ocisbx list [OPTIONS]\n\n"
  "List the containers.\n\n"
  "  -f, --format FMT   table (default) or json\n"
  "  -q, --quiet        ids only\n";

static void
print_table (const container_info *c, size_t n)
{
  size_t w = 2;
  for (size_t i = 0; i < n; i++)
    if (strlen (c[i].id) > w)
      w = strlen (c[i].id);
  printf ("%-*s   %-10s %-10s %-40s %-30s %s\n", (int) w, "ID", "PID", "STATUS", "BUNDLE", "CREATED", "OWNER");
  for (size_t i = 0; i < n; i++)
    printf ("%-*s   %-10d %-10s %-40s %-30s %s\n", (int) w, c[i].id, (int) c[i].pid,
            container_status_name (c[i].status), c[i].bundle ? c[i].bundle : "",
            c[i].created ? c[i].created : "", c[i].owner_name);
}

int
cmd_list (const ocisbx_globals *g, int argc, char **argv)
{
  static const struct option opts[] = {
    { "format", required_argument, NULL, 'f' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *format = "table";
  bool quiet = false;
  container_info *infos = NULL;
  size_t n = 0;
  ocisbx_err *err = NULL;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "f:qh", opts, NULL)) != -1)
    switch (c)
      {
      case 'f':
        format = optarg;
        break;
      case 'q':
        quiet = true;
        break;
      case 'h':
        fputs (help, stdout);
        return 0;
      default:
        return cmd_usage_error ("list", "unknown option %s", argv[optind - 1]);
      }
  if (optind != argc)
    return cmd_usage_error ("list", "no operands expected");
  if (strcmp (format, "table") != 0 && strcmp (format, "json") != 0)
    return cmd_usage_error ("list", "--format: \"%s\" is neither table nor json", format);
  if (container_list (g->root, &infos, &n, &err) < 0)
    return cmd_fail (err);
  if (quiet)
    for (size_t i = 0; i < n; i++)
      puts (infos[i].id);
  else if (strcmp (format, "json") == 0)
    {
      char *json = NULL;
      if (container_list_json (infos, n, &json, &err) < 0)
        {
          container_info_free (infos, n);
          return cmd_fail (err);
        }
      fputs (json, stdout);
      free (json);
    }
  else
    print_table (infos, n);
  container_info_free (infos, n);
  return 0;
}
