/* linux.intelRdt applied (intelrdt.h): the CLOS and the MON group made and recorded, the
   schemata written or compared, the init's pid added, and what the record names
   removed by delete or a failed create.  Every change to resctrl goes through the seam
   (resctrl_fs.h). */
#include <config.h>
#include "core/intelrdt/intelrdt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/intelrdt/resctrl_fs.h"
#include "core/intelrdt/schema.h"
#include "core/utils.h"

#define FIELD "config.json: .linux.intelRdt"

/* The record: the paths A and B (either NULL), one a line; none: no record. */
static int
record_write (int dirfd, const char *a, const char *b, ocisbx_err **err)
{
  cleanup_free char *text = xasprintf ("%s%s%s%s", a ? a : "", a ? "\n" : "", b ? b : "", b ? "\n" : "");

  if (text[0] == '\0')
    {
      if (unlinkat (dirfd, INTELRDT_RECORD, 0) < 0 && errno != ENOENT)
        return err_set (err, errno, "remove the intelRdt record");
      return 0;
    }
  if (write_file_atomic_at (dirfd, INTELRDT_RECORD, text, strlen (text), 0600, err) < 0)
    return err_wrap (err, "intelRdt record");
  return 0;
}

static bool
is_dir (const char *path)
{
  struct stat st;
  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

/* What the kernel said of the last failed write (ROOT/info/last_cmd_status), or "". */
static char *
last_status (const char *root)
{
  cleanup_free char *path = xasprintf ("%s/info/last_cmd_status", root);
  cleanup_err ocisbx_err *e = NULL;
  char *text = NULL;
  size_t len = 0;

  if (read_file_at (AT_FDCWD, path, &text, &len, &e) < 0)
    return xstrdup ("");
  while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
    text[--len] = '\0';
  return text;
}

/* VALUE and a newline in one write to the file NAME of the group DIR of the resctrl
   mount ROOT (whose word on a refused write is taken into the error). */
static int
write_line (const char *root, const char *dir, const char *name, const char *value, ocisbx_err **err)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, name);
  cleanup_free char *line = xasprintf ("%s\n", value);
  cleanup_close int fd = rdt_fs->open_file (path, err);

  if (fd < 0)
    return -1;
  if (write_all (fd, line, strlen (line)) < 0)
    {
      int e = errno;
      cleanup_free char *why = last_status (root);
      return err_set (err, e, "write `%s` to `%s`%s%s%s", value, path, why[0] ? " (resctrl: " : "", why,
                      why[0] ? ")" : "");
    }
  return 0;
}

static int
write_schema (const char *field, const char *line, void *arg, ocisbx_err **err)
{
  const intelrdt_plan *plan = arg;

  if (write_line (plan->root, plan->clos, "schemata", line, err) < 0)
    return err_wrap (err, FIELD "%s", field);
  return 0;
}

typedef struct compare_ctx
{
  const intelrdt_plan *plan;
  const char *schemata;
} compare_ctx;

static int
compare_schema (const char *field, const char *line, void *arg, ocisbx_err **err)
{
  const compare_ctx *c = arg;
  cleanup_free char *have = xmalloc0 (strlen (c->schemata) * 2 + 1);
  char *out = have;
  bool start = true;

  if (rdt_schema_matches (line, c->schemata))
    return 0;
  /* the file's lines on one line, "; " between them, their padding cut */
  for (const char *p = c->schemata; *p; p++)
    if (*p == '\n')
      start = true;
    else if (!(start && (*p == ' ' || *p == '\t')))
      {
        if (start && out != have)
          out = stpcpy (out, "; ");
        *out++ = *p;
        start = false;
      }
  return err_setk (err, ERR_INVALID_CONFIG, 0,
                   FIELD "%s: `%s` does not match the schemata of the existing CLOS `%s` (%s)", field, line,
                   c->plan->clos, have);
}

/* A CLOS that exists: its schemata compared with the config's lines, never written. */
static int
compare_clos (const intelrdt_plan *plan, ocisbx_err **err)
{
  cleanup_free char *path = xasprintf ("%s/schemata", plan->clos);
  cleanup_free char *text = NULL;
  compare_ctx c = { plan, NULL };

  if (!rdt_schema_any (plan->rdt))
    return 0;
  if (read_file_at (AT_FDCWD, path, &text, NULL, err) < 0)
    return err_wrap (err, FIELD ": the existing CLOS `%s`", plan->clos);
  c.schemata = text;
  return rdt_schema_each (plan->rdt, compare_schema, &c, err);
}

static int
make_clos (intelrdt_plan *plan, int dirfd, bool *exists, ocisbx_err **err)
{
  const oci_intel_rdt *r = plan->rdt;
  int e;

  if (r->clos_id && !rdt_schema_any (r))
    return err_setk (err, ERR_INVALID_CONFIG, ENOENT,
                     FIELD ".closID: `%s`: with no schema line the CLOS must exist already: `%s`", r->clos_id,
                     plan->clos);
  if (record_write (dirfd, plan->clos, NULL, err) < 0)
    return -1;
  if (rdt_fs->mkdir (plan->clos, 0755) == 0)
    {
      plan->made_clos = true;
      return 0;
    }
  e = errno;
  if (record_write (dirfd, NULL, NULL, err) < 0)
    return -1;
  if (e == EEXIST) /* made meanwhile by someone else: theirs */
    {
      *exists = true;
      return 0;
    }
  return err_set (err, e, FIELD "%s: make the CLOS `%s`", r->clos_id ? ".closID" : "", plan->clos);
}

static int
mon_error (const intelrdt_plan *plan, int e, ocisbx_err **err)
{
  return err_set (err, e, FIELD ".enableMonitoring: make the MON group `%s`%s", plan->mon,
                  e == ENOENT    ? " (no monitoring in this resctrl: no mon_groups)"
                  : e == ENOSPC  ? " (no MON group left)"
                  : e == EEXIST  ? " (it is not this container's)"
                                 : "");
}

static int
make_mon (intelrdt_plan *plan, int dirfd, ocisbx_err **err)
{
  const char *made = plan->made_clos ? plan->clos : NULL;
  int e;

  /* someone else's: never recorded (mkdir's EEXIST below is a race's) */
  if (is_dir (plan->mon))
    return mon_error (plan, EEXIST, err);
  if (record_write (dirfd, plan->mon, made, err) < 0)
    return -1;
  if (rdt_fs->mkdir (plan->mon, 0755) == 0)
    {
      plan->made_mon = true;
      return 0;
    }
  e = errno;
  if (record_write (dirfd, made, NULL, err) < 0)
    return -1;
  return mon_error (plan, e, err);
}

int
intelrdt_setup (intelrdt_plan *plan, int state_dirfd, ocisbx_err **err)
{
  cleanup_free char *tasks = NULL;
  bool exists;

  if (plan->rdt == NULL)
    return 0;
  exists = is_dir (plan->clos);
  if (!exists && make_clos (plan, state_dirfd, &exists, err) < 0)
    return -1;
  if (plan->made_clos && rdt_schema_each (plan->rdt, write_schema, plan, err) < 0)
    return -1;
  if (exists && compare_clos (plan, err) < 0)
    return -1;
  if (plan->mon && make_mon (plan, state_dirfd, err) < 0)
    return -1;
  tasks = xasprintf ("%s/tasks\n%s%s", plan->clos, plan->mon ? plan->mon : "", plan->mon ? "/tasks\n" : "");
  if (write_file_atomic_at (state_dirfd, INTELRDT_TASKS, tasks, strlen (tasks), 0600, err) < 0)
    return err_wrap (err, "intelRdt");
  return 0;
}

int
intelrdt_enter (const intelrdt_plan *plan, pid_t pid, ocisbx_err **err)
{
  char value[32];

  if (plan->rdt == NULL)
    return 0;
  snprintf (value, sizeof value, "%d", (int) pid);
  if (write_line (plan->root, plan->clos, "tasks", value, err) < 0)
    return err_wrap (err, FIELD ": the container's init into the CLOS");
  if (plan->mon && write_line (plan->root, plan->mon, "tasks", value, err) < 0)
    return err_wrap (err, FIELD ".enableMonitoring: the container's init into the MON group");
  return 0;
}

int
intelrdt_commit (const intelrdt_plan *plan, int state_dirfd, ocisbx_err **err)
{
  if (plan->rdt == NULL)
    return 0;
  /* a CLOS named by closID stays (config-linux.md), as one that was there */
  return record_write (state_dirfd, plan->made_mon ? plan->mon : NULL,
                       plan->made_clos && plan->rdt->clos_id == NULL ? plan->clos : NULL, err);
}

int
intelrdt_tasks_read (int state_dirfd, char **tasks, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  size_t len = 0;

  *tasks = NULL;
  if (read_file_at (state_dirfd, INTELRDT_TASKS, tasks, &len, &e) < 0)
    {
      *tasks = NULL;
      return e->errnum == ENOENT ? 0 : err_set (err, e->errnum, "intelRdt: %s", e->msg);
    }
  return 0;
}

int
intelrdt_join (const char *tasks, pid_t pid, ocisbx_err **err)
{
  char path[PATH_MAX], value[32];
  int n = snprintf (value, sizeof value, "%d\n", (int) pid);

  for (const char *l = tasks; l && *l;)
    {
      const char *nl = strchr (l, '\n');
      size_t len = nl ? (size_t) (nl - l) : strlen (l);
      int fd;
      if (len >= sizeof path)
        return err_set (err, ENAMETOOLONG, "intelRdt: a tasks file's path");
      memcpy (path, l, len);
      path[len] = '\0';
      if ((fd = rdt_fs->open_file (path, err)) < 0)
        return err_wrap (err, "intelRdt");
      if (write_all (fd, value, (size_t) n) < 0)
        {
          int e = errno;
          close (fd);
          return err_set (err, e, "intelRdt: write %d to `%s`", (int) pid, path);
        }
      close (fd);
      l = nl ? nl + 1 : NULL;
    }
  return 0;
}

/* A path of the record: absolute, no "..". */
static bool
record_path_ok (const char *p)
{
  size_t n = strlen (p);
  return p[0] == '/' && strstr (p, "/../") == NULL && !(n >= 3 && strcmp (p + n - 3, "/..") == 0);
}

int
intelrdt_cleanup_at (int state_dirfd, ocisbx_err **err)
{
  cleanup_free char *text = NULL;
  cleanup_err ocisbx_err *e = NULL;
  char *save = NULL;
  size_t len = 0;

  if (read_file_at (state_dirfd, INTELRDT_RECORD, &text, &len, &e) < 0)
    return e->errnum == ENOENT ? 0 : err_set (err, e->errnum, "%s", e->msg);
  if (len == 0 || text[len - 1] != '\n')
    return err_set (err, EINVAL, "the intelRdt record is cut");
  for (char *p = strtok_r (text, "\n", &save); p; p = strtok_r (NULL, "\n", &save))
    {
      if (!record_path_ok (p))
        return err_set (err, EINVAL, "intelRdt record: `%s` is not a resctrl group's path", p);
      if (rdt_fs->rmdir (p) < 0 && errno != ENOENT)
        return err_set (err, errno, "intelRdt: remove `%s`", p);
    }
  if (unlinkat (state_dirfd, INTELRDT_RECORD, 0) < 0 && errno != ENOENT)
    return err_set (err, errno, "remove the intelRdt record");
  return 0;
}
