/* ocisbx-systemd: the runtime's bridge to systemd for --systemd-cgroup, over D-Bus with
 * libsystemd's sd-bus.  A program of its own because Debian ships libsystemd only as a
 * shared library while ocisbx itself is linked statically: the runtime runs it for the
 * few calls a systemd-managed container needs (src/core/cgroups/systemd.c).
 *
 *   ocisbx-systemd start UNIT   StartTransientUnit (UNIT, "replace", PROPERTIES), waits for
 *                               its job; a failed unit of that name is reset first
 *   ocisbx-systemd set UNIT     SetUnitProperties (UNIT, runtime, PROPERTIES)
 *   ocisbx-systemd stop UNIT    StopUnit (UNIT, "replace"), waits; a unit already gone is
 *                               no error; the unit's failed state is reset
 *
 * PROPERTIES come on stdin, one per line: NAME<TAB>TYPE<TAB>VALUE..., TYPE one of
 *   t  (VALUE a decimal uint64)   b  (yes/no)   s  (VALUE the rest of the line)
 *   au (values: uint32s)          ay (VALUE: hex bytes)   a(ss) (values: pairs)
 * The bus: the system bus, else systemd's private socket (root, no bus daemon).
 * Exit 0, or 1 with one line on stderr naming the call and systemd's error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-bus.h>

#define DEST "org.freedesktop.systemd1"
#define PATH "/org/freedesktop/systemd1"
#define MANAGER "org.freedesktop.systemd1.Manager"
#define JOB_TIMEOUT_USEC (60ULL * 1000000)

static const char *unit;

/* WHAT UNIT: the bus error E (else errno R) on stderr, which ocisbx makes its error's
   message; returns the exit status 1. */
static int
report_error (const char *what, int r, const sd_bus_error *e)
{
  if (e && sd_bus_error_is_set (e))
    fprintf (stderr, "%s %s: %s\n", what, unit, e->message ? e->message : e->name);
  else
    fprintf (stderr, "%s %s: %s\n", what, unit, strerror (r < 0 ? -r : r));
  return 1;
}

static int
bus_open (sd_bus **bus)
{
  int r = sd_bus_open_system (bus);
  if (r >= 0)
    return r;
  /* no bus daemon: systemd's own socket */
  if ((r = sd_bus_new (bus)) < 0)
    return r;
  if ((r = sd_bus_set_address (*bus, "unix:path=/run/systemd/private")) < 0 || (r = sd_bus_start (*bus)) < 0)
    {
      *bus = sd_bus_unref (*bus);
      return r;
    }
  return 0;
}

/* ---- properties from stdin ---- */

static char *
field (char **p)
{
  char *f = *p, *tab;
  if (f == NULL)
    return NULL;
  tab = strchr (f, '\t');
  if (tab)
    *tab = '\0';
  *p = tab ? tab + 1 : NULL;
  return f;
}

static int
append_value (sd_bus_message *m, const char *type, char *rest)
{
  int r;
  char *v;

  if (strcmp (type, "t") == 0)
    return sd_bus_message_append (m, "t", (uint64_t) strtoull (rest ? rest : "0", NULL, 10));
  if (strcmp (type, "b") == 0)
    return sd_bus_message_append (m, "b", rest && strcmp (rest, "yes") == 0);
  if (strcmp (type, "s") == 0)
    return sd_bus_message_append (m, "s", rest ? rest : "");
  if (strcmp (type, "au") == 0)
    {
      if ((r = sd_bus_message_open_container (m, 'a', "u")) < 0)
        return r;
      while ((v = field (&rest)))
        if ((r = sd_bus_message_append (m, "u", (uint32_t) strtoul (v, NULL, 10))) < 0)
          return r;
      return sd_bus_message_close_container (m);
    }
  if (strcmp (type, "ay") == 0)
    {
      uint8_t buf[512];
      size_t n = 0;
      for (const char *h = rest ? rest : ""; h[0] && h[1] && n < sizeof buf; h += 2)
        {
          char byte[3] = { h[0], h[1], 0 };
          buf[n++] = (uint8_t) strtoul (byte, NULL, 16);
        }
      return sd_bus_message_append_array (m, 'y', buf, n);
    }
  if (strcmp (type, "a(ss)") == 0)
    {
      char *a;
      if ((r = sd_bus_message_open_container (m, 'a', "(ss)")) < 0)
        return r;
      while ((a = field (&rest)) && (v = field (&rest)))
        if ((r = sd_bus_message_append (m, "(ss)", a, v)) < 0)
          return r;
      return sd_bus_message_close_container (m);
    }
  return -EINVAL;
}

/* a(sv) from stdin */
static int
append_properties (sd_bus_message *m)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int r;

  if ((r = sd_bus_message_open_container (m, 'a', "(sv)")) < 0)
    return r;
  while ((len = getline (&line, &cap, stdin)) > 0)
    {
      char *p = line, *name, *type;
      if (line[len - 1] == '\n')
        line[len - 1] = '\0';
      name = field (&p);
      type = field (&p);
      if (name == NULL || type == NULL || name[0] == '\0')
        continue;
      if ((r = sd_bus_message_open_container (m, 'r', "sv")) < 0 || (r = sd_bus_message_append (m, "s", name)) < 0
          || (r = sd_bus_message_open_container (m, 'v', type)) < 0 || (r = append_value (m, type, p)) < 0
          || (r = sd_bus_message_close_container (m)) < 0 || (r = sd_bus_message_close_container (m)) < 0)
        {
          fprintf (stderr, "property %s (%s): %s\n", name, type, strerror (-r));
          free (line);
          return r;
        }
    }
  free (line);
  return sd_bus_message_close_container (m);
}

/* ---- jobs ---- */

typedef struct
{
  const char *job; /* the job we wait for, once known */
  char *removed[64];
  char *results[64];
  size_t n;
} job_wait;

static int
on_job_removed (sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
  job_wait *w = userdata;
  const char *path, *u, *result;
  uint32_t id;

  (void) ret_error;
  if (sd_bus_message_read (m, "uoss", &id, &path, &u, &result) < 0 || w->n >= 64)
    return 0;
  w->removed[w->n] = strdup (path);
  w->results[w->n++] = strdup (result);
  return 0;
}

/* The result of job JOB ("done", "failed", ...), waiting for its JobRemoved signal. */
static const char *
job_result (sd_bus *bus, job_wait *w, const char *job)
{
  uint64_t deadline;
  struct timespec now;

  clock_gettime (CLOCK_MONOTONIC, &now);
  deadline = now.tv_sec * 1000000ULL + now.tv_nsec / 1000 + JOB_TIMEOUT_USEC;
  for (;;)
    {
      uint64_t t;
      for (size_t i = 0; i < w->n; i++)
        if (w->removed[i] && strcmp (w->removed[i], job) == 0)
          return w->results[i];
      if (sd_bus_process (bus, NULL) > 0)
        continue;
      clock_gettime (CLOCK_MONOTONIC, &now);
      t = now.tv_sec * 1000000ULL + now.tv_nsec / 1000;
      if (t >= deadline)
        return "timeout";
      if (sd_bus_wait (bus, deadline - t) < 0)
        return "connection lost";
    }
}

/* CALL (StartTransientUnit or StopUnit) returned a job: wait for it to finish. */
static int
wait_job (sd_bus *bus, job_wait *w, sd_bus_message *reply, const char *what)
{
  const char *job, *result;
  int r = sd_bus_message_read (reply, "o", &job);
  if (r < 0)
    return report_error (what, r, NULL);
  result = job_result (bus, w, job);
  if (strcmp (result, "done") != 0)
    {
      fprintf (stderr, "%s %s: the job ended with \"%s\"\n", what, unit, result);
      return 1;
    }
  return 0;
}

static void
reset_failed (sd_bus *bus)
{
  sd_bus_error e = SD_BUS_ERROR_NULL;
  sd_bus_call_method (bus, DEST, PATH, MANAGER, "ResetFailedUnit", &e, NULL, "s", unit);
  sd_bus_error_free (&e);
}

int
main (int argc, char **argv)
{
  sd_bus *bus = NULL;
  sd_bus_message *m = NULL, *reply = NULL;
  sd_bus_error e = SD_BUS_ERROR_NULL;
  job_wait w = { 0 };
  const char *cmd;
  int r, rc = 0;

  if (argc != 3)
    {
      fprintf (stderr, "usage: ocisbx-systemd start|set|stop UNIT (properties on stdin)\n");
      return 2;
    }
  cmd = argv[1];
  unit = argv[2];
  if ((r = bus_open (&bus)) < 0)
    return report_error ("connect to systemd for", r, NULL);
  if (strcmp (cmd, "start") == 0 || strcmp (cmd, "stop") == 0)
    {
      /* the JobRemoved signals: matched before the call, enabled by Subscribe */
      if ((r = sd_bus_match_signal (bus, NULL, NULL, PATH, MANAGER, "JobRemoved", on_job_removed, &w)) < 0)
        return report_error ("watch the jobs of", r, NULL);
      if ((r = sd_bus_call_method (bus, DEST, PATH, MANAGER, "Subscribe", &e, NULL, "")) < 0
          && !sd_bus_error_has_name (&e, "org.freedesktop.systemd1.AlreadySubscribed"))
        return report_error ("Subscribe for", r, &e);
      sd_bus_error_free (&e);
    }
  if (strcmp (cmd, "start") == 0)
    {
      reset_failed (bus);
      if ((r = sd_bus_message_new_method_call (bus, &m, DEST, PATH, MANAGER, "StartTransientUnit")) < 0
          || (r = sd_bus_message_append (m, "ss", unit, "replace")) < 0 || (r = append_properties (m)) < 0
          || (r = sd_bus_message_append (m, "a(sa(sv))", 0)) < 0)
        return report_error ("StartTransientUnit", r, NULL);
      if ((r = sd_bus_call (bus, m, 0, &e, &reply)) < 0)
        rc = report_error ("StartTransientUnit", r, &e);
      else
        rc = wait_job (bus, &w, reply, "StartTransientUnit");
    }
  else if (strcmp (cmd, "set") == 0)
    {
      if ((r = sd_bus_message_new_method_call (bus, &m, DEST, PATH, MANAGER, "SetUnitProperties")) < 0
          || (r = sd_bus_message_append (m, "sb", unit, 1)) < 0 || (r = append_properties (m)) < 0)
        return report_error ("SetUnitProperties", r, NULL);
      if ((r = sd_bus_call (bus, m, 0, &e, &reply)) < 0)
        rc = report_error ("SetUnitProperties", r, &e);
    }
  else if (strcmp (cmd, "stop") == 0)
    {
      r = sd_bus_call_method (bus, DEST, PATH, MANAGER, "StopUnit", &e, &reply, "ss", unit, "replace");
      if (r < 0 && !sd_bus_error_has_name (&e, "org.freedesktop.systemd1.NoSuchUnit"))
        rc = report_error ("StopUnit", r, &e);
      else if (r >= 0)
        rc = wait_job (bus, &w, reply, "StopUnit");
      reset_failed (bus);
    }
  else
    {
      fprintf (stderr, "ocisbx-systemd: unknown command \"%s\"\n", cmd);
      rc = 2;
    }
  sd_bus_error_free (&e);
  sd_bus_message_unref (m);
  sd_bus_message_unref (reply);
  sd_bus_flush_close_unref (bus);
  for (size_t i = 0; i < w.n; i++)
    free (w.removed[i]), free (w.results[i]);
  return rc;
}
