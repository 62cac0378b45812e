#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/cgroups/ops.h"
#include "core/cgroups/stats.h"
#include "core/utils.h"

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

static int
emit_stats (cgops_container *c, const char *id, ocisbx_err **err)
{
  cgroup_stats s;
  cleanup_free char *line = NULL;
  if (cgroup_stats_read (cgops_manager (c), &s, err) < 0)
    return -1;
  line = cgroup_stats_event_json (id, &s);
  cgroup_stats_free (&s);
  puts (line);
  fflush (stdout);
  return 0;
}

static long
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000 + t.tv_nsec / 1000000;
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
  long interval = 5000, next;
  cgops_container *c = NULL;
  ocisbx_err *err = NULL;
  const char *id;
  int oom_fd, ch, rc = 0;

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

  if (cgops_open (g->root, id, &c, &err) < 0)
    return cmd_fail (err);
  if (stats_only)
    {
      if (emit_stats (c, id, &err) < 0)
        rc = cmd_fail (err);
      cgops_close (c);
      return rc;
    }

  oom_fd = cgroup_oom_fd (cgops_manager (c), &err);
  if (oom_fd < 0)
    {
      log_warning ("events: no OOM notifications: %s", err->msg);
      err_freep (&err);
    }
  next = now_ms ();
  while (cgops_alive (c))
    {
      struct pollfd p = { .fd = oom_fd, .events = POLLIN };
      long wait = next - now_ms ();
      /* wake up at least every second to notice that the container is gone */
      int r = poll (oom_fd >= 0 ? &p : NULL, oom_fd >= 0, wait < 0 ? 0 : wait > 1000 ? 1000 : wait);
      if (r < 0 && errno != EINTR)
        {
          perror ("ocisbx events: poll");
          rc = 1;
          break;
        }
      if (r > 0 && (p.revents & POLLIN))
        {
          int o = cgroup_oom_ack (cgops_manager (c), oom_fd, &err);
          if (o < 0)
            {
              rc = cmd_fail (err);
              err = NULL;
              break;
            }
          if (o > 0)
            {
              cleanup_free char *eid = json_escape (id);
              printf ("{\"type\":\"oom\",\"id\":\"%s\"}\n", eid);
              fflush (stdout);
            }
        }
      if (now_ms () >= next)
        {
          if (emit_stats (c, id, &err) < 0)
            {
              /* the cgroup went away with the container */
              err_freep (&err);
              break;
            }
          next += interval;
        }
    }
  if (oom_fd >= 0)
    close (oom_fd);
  cgops_close (c);
  return rc;
}
