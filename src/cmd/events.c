#include <config.h>
#include "cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/container.h"

static const char events_help[]
    = "Usage: ocisbx events [--stats] [--interval DURATION] CONTAINER-ID\n"
      "\n"
      "Print container events as JSON lines, as runc does: {\"type\":\"stats\",\"id\":...,\"data\":{...}}\n"
      "every interval (cpu, cpuset, memory, pids, blkio, hugetlb in runc's shape) and\n"
      "{\"type\":\"oom\",\"id\":...} when the kernel OOM-kills in the container, until it exits.\n"
      "\n"
      "      --stats              print one stats event and exit\n"
      "      --interval DURATION  between stats events (default 5s; 500ms, 2s, 1m)\n";

/* Go-style durations as runc takes them: 500ms, 5s, 1m, 1h, 1m30s. */
static int
parse_duration (const char *s, long *ms)
{
  double total = 0;
  const char *p = s;
  while (*p)
    {
      char *end;
      double v = strtod (p, &end);
      if (end == p || v < 0)
        return -1;
      p = end;
      if (strncmp (p, "ms", 2) == 0)
        total += v, p += 2;
      else if (*p == 's')
        total += v * 1000, p++;
      else if (*p == 'm')
        total += v * 60000, p++;
      else if (*p == 'h')
        total += v * 3600000, p++;
      else if (*p == '\0' && p == end && s != p)
        total += v * 1000; /* a bare number: seconds */
      else
        return -1;
    }
  if (total < 1)
    return -1;
  *ms = (long) total;
  return 0;
}

int
cmd_events (const ocisbx_globals *g, int argc, char **argv)
{
  enum
  {
    OPT_STATS = 256,
    OPT_INTERVAL,
  };
  static const struct option opts[] = {
    { "stats", no_argument, NULL, OPT_STATS },
    { "interval", required_argument, NULL, OPT_INTERVAL },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  bool stats_only = false;
  long interval = 5000;
  ocisbx_err *err = NULL;
  const char *id;
  int ch;

  opterr = 0;
  while ((ch = getopt_long (argc, argv, "+:h", opts, NULL)) != -1)
    switch (ch)
      {
      case OPT_STATS:
        stats_only = true;
        break;
      case OPT_INTERVAL:
        if (parse_duration (optarg, &interval) < 0)
          return cmd_usage_error ("events", "--interval: invalid duration \"%s\"", optarg);
        break;
      case 'h':
        fputs (events_help, stdout);
        return 0;
      case ':':
        return cmd_usage_error ("events", "option \"%s\" needs an argument", argv[optind - 1]);
      default:
        return cmd_usage_error ("events", "unknown option \"%s\"", argv[optind - 1]);
      }
  if (optind >= argc)
    return cmd_usage_error ("events", "a container id is required");
  if (optind + 1 < argc)
    return cmd_usage_error ("events", "unexpected argument \"%s\"", argv[optind + 1]);
  id = argv[optind];

  if (container_events (g->root, id, stats_only, interval, cmd_print, NULL, &err) < 0)
    return cmd_fail (err);
  return 0;
}
