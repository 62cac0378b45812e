/* cgroups v1: the real-time budget of the levels above a container.
 *
 * With CONFIG_RT_GROUP_SCHED a cgroup's real-time share (cpu.rt_runtime_us per
 * cpu.rt_period_us) must fit in its parent's: the shares of a level's children add up
 * to at most its own (the kernel's to_ratio, runtime << 20 / period).  A new cgroup has
 * a runtime of 0, so a container asking for realtimeRuntime under /ocisbx/<id> needs
 * /ocisbx to have that budget first.  The levels the runtime owns above a container
 * (those it created, and its default parent /ocisbx) are raised to what their children
 * need when a container asks for more (create or update), top down; and lowered to
 * what their remaining children need when a container goes (bottom up), so that the
 * budget taken from the host's returns to it.  Levels the runtime does not own (a
 * user's cgroupsPath parent, a pod's) are never changed: their owner gives the budget.
 */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

#define RT_RUNTIME "cpu.rt_runtime_us"
#define RT_PERIOD "cpu.rt_period_us"
#define BW_SHIFT 20

/* The levels directly above H's cgroup that the runtime owns. */
static unsigned
owned_parents (const cg_hier *h)
{
  unsigned n = h->created > 1 ? h->created - 1 : 0;
  const char *p = h->path;
  if (n == 0 && strncmp (p, "/ocisbx/", 8) == 0 && p[8] != '\0' && strchr (p + 8, '/') == NULL)
    n = 1;
  return n;
}

static int
read_i64 (const char *dir, const char *file, int64_t *out)
{
  cleanup_free char *p = xasprintf ("%s/%s", dir, file);
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *end;

  if (read_file_at (AT_FDCWD, p, &s, NULL, &e) < 0)
    return -1;
  errno = 0;
  *out = strtoll (s, &end, 10);
  return errno || end == s ? -1 : 0;
}

/* The kernel's to_ratio () of a runtime (-1: unlimited) and a period. */
uint64_t
cg_rt_ratio (int64_t runtime, uint64_t period)
{
  if (runtime < 0)
    return 1ULL << BW_SHIFT;
  if (period == 0)
    return 0;
  return ((uint64_t) runtime << BW_SHIFT) / period;
}

/* The smallest runtime with a share of at least RATIO in PERIOD. */
uint64_t
cg_rt_runtime_for (uint64_t ratio, uint64_t period)
{
  return (ratio * period + (1ULL << BW_SHIFT) - 1) >> BW_SHIFT;
}

/* The share of DIR's cgroup (and its PERIOD when asked), or -1 when it has no
   real-time files. */
static int
share_of (const char *dir, uint64_t *ratio, uint64_t *period)
{
  int64_t rt, pe;
  if (read_i64 (dir, RT_RUNTIME, &rt) < 0)
    return -1;
  *ratio = 0;
  if (rt == 0 && period == NULL)
    return 0;
  if (read_i64 (dir, RT_PERIOD, &pe) < 0 || pe <= 0)
    return -1;
  *ratio = cg_rt_ratio (rt, (uint64_t) pe);
  if (period)
    *period = (uint64_t) pe;
  return 0;
}

/* The shares of DIR's children, but SKIP. */
static uint64_t
children_shares (const char *dir, const char *skip)
{
  cleanup_dir DIR *d = opendir (dir);
  struct dirent *de;
  uint64_t sum = 0;

  while (d && (de = readdir (d)))
    {
      cleanup_free char *sub = NULL;
      uint64_t r;
      if (de->d_type != DT_DIR || de->d_name[0] == '.' || (skip && strcmp (de->d_name, skip) == 0))
        continue;
      sub = xasprintf ("%s/%s", dir, de->d_name);
      if (share_of (sub, &r, NULL) == 0)
        sum += r;
    }
  return sum;
}

static int
write_runtime (const cgroup_manager *m, const char *dir, uint64_t runtime, ocisbx_err **err)
{
  cleanup_free char *p = xasprintf ("%s/%s", dir, RT_RUNTIME);
  char buf[32];
  snprintf (buf, sizeof buf, "%" PRIu64, runtime);
  return cg_write_file (m, p, buf, err);
}

int
cg_v1_rt_make_room (const cgroup_manager *m, const cg_hier *h, int64_t runtime, uint64_t period,
                    ocisbx_err **err)
{
  unsigned owned = owned_parents (h);
  cleanup_free char *dir = xstrdup (h->dir);
  uint64_t need = cg_rt_ratio (runtime, period);
  uint64_t target[8];
  char *levels[8];
  unsigned n = 0;
  int ret = 0;

  if (owned > 8)
    owned = 8;
  /* bottom up: what each owned level needs, until one has enough */
  for (unsigned i = 0; i < owned; i++)
    {
      char *slash = strrchr (dir, '/');
      uint64_t have, pe;
      if (slash == NULL)
        break;
      *slash = '\0';
      if (share_of (dir, &have, &pe) < 0)
        break; /* no real-time group scheduling: the leaf's write says so */
      need += children_shares (dir, slash + 1);
      if (have >= need)
        break;
      levels[n] = xstrdup (dir);
      target[n] = cg_rt_runtime_for (need, pe);
      need = cg_rt_ratio ((int64_t) target[n], pe);
      n++;
    }
  /* top down */
  while (n > 0)
    {
      n--;
      if (ret == 0 && write_runtime (m, levels[n], target[n], err) < 0)
        {
          err_wrap (err, "real-time budget: `%s` would need cpu.rt_runtime_us %" PRIu64 ", more than its parent has",
                    levels[n], target[n]);
          ret = -1;
        }
      free (levels[n]);
    }
  return ret;
}

void
cg_v1_rt_release (const cgroup_manager *m, const cg_hier *h)
{
  unsigned owned = owned_parents (h);
  cleanup_free char *dir = xstrdup (h->dir);
  uint64_t have;

  /* The leaf's share first: the kernel keeps counting a removed cgroup's share until it
     has gone offline, some time after rmdir. */
  if (h->created > 0 && share_of (dir, &have, NULL) == 0 && have > 0)
    {
      cleanup_err ocisbx_err *e = NULL;
      if (write_runtime (m, dir, 0, &e) < 0)
        {
          log_debug ("cgroups: give back the real-time budget of `%s`: %s", dir, e->msg);
          return;
        }
    }
  for (unsigned i = 0; i < owned; i++)
    {
      char *slash = strrchr (dir, '/');
      cleanup_err ocisbx_err *e = NULL;
      uint64_t pe, need;
      if (slash == NULL)
        return;
      *slash = '\0';
      if (share_of (dir, &have, NULL) < 0 || have == 0 || share_of (dir, &have, &pe) < 0)
        return;
      need = children_shares (dir, NULL);
      if (have > need && write_runtime (m, dir, cg_rt_runtime_for (need, pe), &e) < 0)
        {
          log_debug ("cgroups: lower the real-time budget of `%s`: %s", dir, e->msg);
          return;
        }
    }
}
