/* events: a container's stats and OOM kills as runc's JSON lines, until it exits. */
#include <config.h>
#include "core/container/container.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/cgroups/stats.h"
#include "core/container/handle.h"
#include "core/log.h"
#include "core/utils.h"

/* {"type":"oom","id":ID} */
static int
emit_oom (const char *id, container_out_fn emit, void *arg, ocisbx_err **err)
{
  cleanup_free char *line = NULL;

  if (cgroup_event_json ("oom", id, NULL, &line, err) < 0)
    return -1;
  emit (line, arg);
  return 0;
}

static int
emit_stats (cgroup_manager *m, const char *id, container_out_fn emit, void *arg, ocisbx_err **err)
{
  cleanup_free char *line = NULL;
  cgroup_stats s;
  int r;

  if (cgroup_stats_read (m, &s, err) < 0)
    return -1;
  r = cgroup_event_json ("stats", id, &s, &line, err);
  cgroup_stats_free (&s);
  if (r < 0)
    return -1;
  emit (line, arg);
  return 0;
}

/* Stats every INTERVAL ms and OOM kills, until the init exits or its cgroups go. */
static int
watch (container_handle *h, cgroup_manager *m, long interval, container_out_fn emit, void *arg, ocisbx_err **err)
{
  cleanup_close int oom_fd = cgroup_oom_fd (m, err);
  long long next = monotonic_ms ();

  if (oom_fd < 0)
    {
      log_warning ("events: no OOM notifications: %s", (*err)->msg);
      err_freep (err);
    }
  while (state_init_alive (h->st))
    {
      struct pollfd p = { .fd = oom_fd, .events = POLLIN };
      long long wait = next - monotonic_ms ();
      /* wake up at least every second to notice that the container is gone */
      int r = poll (oom_fd >= 0 ? &p : NULL, oom_fd >= 0, wait < 0 ? 0 : wait > 1000 ? 1000 : wait);

      if (r < 0 && errno != EINTR)
        return err_set (err, errno, "events: poll");
      if (r > 0 && (p.revents & POLLIN))
        {
          int o = cgroup_oom_ack (m, oom_fd, err);
          if (o < 0 || (o > 0 && emit_oom (h->id, emit, arg, err) < 0))
            return -1;
        }
      if (monotonic_ms () >= next)
        {
          if (emit_stats (m, h->id, emit, arg, err) < 0)
            {
              /* the cgroup went away with the container */
              err_freep (err);
              return 0;
            }
          next += interval;
        }
    }
  return 0;
}

int
container_events (const char *root, const char *id, bool stats_only, long interval_ms, container_out_fn emit,
                  void *arg, ocisbx_err **err)
{
  cleanup_container container_handle h;
  cgroup_manager *m;

  if (container_open_cgroups (root, id, 0, &h, &m, err) < 0)
    return -1;
  if (container_status_now (&h) == STATUS_STOPPED)
    return err_setk (err, ERR_NOT_RUNNING, 0, "container `%s` is not running", id);
  if (stats_only)
    return emit_stats (m, id, emit, arg, err);
  return watch (&h, m, interval_ms, emit, arg, err);
}
