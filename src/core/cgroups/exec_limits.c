/* The limits of an exec's cgroup of its own (exec_cgroup.h): exec's flags, or the
   container's annotations; the values in podman's forms. */
#include <config.h>
#include "core/cgroups/exec_cgroup.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ocispec.h"

int
exec_cgroup_parse_memory (const char *s, int64_t *out)
{
  static const char units[] = "bkmgt";
  char *end;
  unsigned long long v;
  const char *u;
  int shift;

  if (strcmp (s, "-1") == 0)
    {
      *out = -1;
      return 0;
    }
  if (!isdigit ((unsigned char) s[0]))
    return -1;
  errno = 0;
  v = strtoull (s, &end, 10);
  if (errno)
    return -1;
  shift = 0;
  if (*end)
    {
      u = strchr (units, tolower ((unsigned char) *end));
      if (u == NULL)
        return -1;
      shift = 10 * (int) (u - units);
      end++;
      /* "8m", "8mb", "8MiB"; "8b" alone */
      if (shift && (strcasecmp (end, "b") == 0 || strcasecmp (end, "ib") == 0))
        end += strlen (end);
      if (*end)
        return -1;
    }
  if (v == 0 || v > ((unsigned long long) INT64_MAX >> shift))
    return -1;
  *out = (int64_t) (v << shift);
  return 0;
}

int
exec_cgroup_parse_cpus (const char *s, uint64_t *quota_us)
{
  uint64_t whole = 0, frac = 0, scale = EXEC_CPU_PERIOD_US;
  const char *p = s;

  if (!isdigit ((unsigned char) *p))
    return -1;
  for (; isdigit ((unsigned char) *p); p++)
    {
      whole = whole * 10 + (uint64_t) (*p - '0');
      if (whole > 1024 * 1024)
        return -1;
    }
  if (*p == '.')
    {
      p++;
      if (!isdigit ((unsigned char) *p))
        return -1;
      for (; isdigit ((unsigned char) *p); p++)
        if (scale >= 10)
          {
            scale /= 10;
            frac += scale * (uint64_t) (*p - '0');
          }
    }
  if (*p)
    return -1;
  *quota_us = whole * EXEC_CPU_PERIOD_US + frac;
  /* the kernel's smallest quota is 1 ms */
  if (*quota_us != 0 && *quota_us < 1000)
    return -1;
  return 0;
}

static const char *
annotation (const struct ocispec_map *a, const char *key)
{
  for (size_t i = 0; a && i < a->len; i++)
    if (strcmp (a->keys[i], key) == 0)
      return a->values[i];
  return NULL;
}

/* FLAG's value, or the annotation KEY's: *WHAT names the one taken for errors. */
static const char *
pick (const char *flag, const char *flag_name, const struct ocispec_map *a, const char *key,
      const char **what, bool *annotated)
{
  const char *v = flag;

  *what = flag_name;
  *annotated = false;
  if (v == NULL && (v = annotation (a, key)) != NULL)
    {
      *what = key;
      *annotated = true;
    }
  return v;
}

static int
bad_value (const char *what, bool annotated, const char *v, const char *expected, ocisbx_err **err)
{
  if (annotated)
    return err_setk (err, ERR_INVALID_CONFIG, 0, "config.json: .annotations[\"%s\"]: \"%.64s\" is not %s", what,
                     v, expected);
  return err_setk (err, ERR_INVALID_CONFIG, 0, "exec %s: \"%.64s\" is not %s", what, v, expected);
}

int
exec_cgroup_limits_get (const exec_cgroup_opts *o, const struct ocispec_map *a, exec_cgroup_limits *l,
                        ocisbx_err **err)
{
  const char *v, *what;
  bool ann;
  char *end;
  long long n;

  *l = (exec_cgroup_limits){ .memory = -1, .pids = -1 };
  l->own = o->usage_file != NULL;
  if ((v = pick (o->memory, "--memory", a, EXEC_MEMORY_ANNOTATION, &what, &ann)))
    {
      l->own = true;
      if (exec_cgroup_parse_memory (v, &l->memory) < 0)
        return bad_value (what, ann, v, "a size in bytes (with a k, m or g suffix) or -1", err);
    }
  if ((v = pick (o->pids_limit, "--pids-limit", a, EXEC_PIDS_ANNOTATION, &what, &ann)))
    {
      l->own = true;
      errno = 0;
      n = strtoll (v, &end, 10);
      if (*v == '\0' || *end || errno || n < -1 || n > INT32_MAX)
        return bad_value (what, ann, v, "a number of processes (-1 or 0: no limit)", err);
      l->pids = n <= 0 ? -1 : n;
    }
  if ((v = pick (o->cpus, "--cpus", a, EXEC_CPUS_ANNOTATION, &what, &ann)))
    {
      l->own = true;
      if (exec_cgroup_parse_cpus (v, &l->cpu_quota_us) < 0)
        return bad_value (what, ann, v, "a number of CPUs (a decimal, at least 0.01; 0: no limit)", err);
    }
  return 0;
}
