/* linux.intelRdt (core/intelrdt/) on a resctrl of the test's: a directory tree standing
   in for /sys/fs/resctrl through the resctrl seam (fake_resctrl.c), found through a
   mountinfo of the test's, with a state dir of its own for the record.  Each case runs
   the create's steps (prepare, setup, enter, commit) as create does, and on a failure
   the clean-up a failed create runs; delete is intelrdt_cleanup_at. */
#include <config.h>

#include "core/intelrdt/intelrdt.h"
#include "core/intelrdt/schema.h"
#include "unit.h"
#include "unit_files.h"

#define PID 4242
#define ID "ctr1"

typedef struct rdt_env
{
  char *d;      /* the scratch tree */
  char *rc;     /* d/resctrl, the fake mount */
  char *mi;     /* d/mountinfo */
  int statefd;  /* d/state */
} rdt_env;

/* A resctrl with L3 and MB (and monitoring unless NO_MON), its default CLOS's schemata
   as the kernel shows it. */
static void
env_open (rdt_env *e, bool no_mon)
{
  char *line;

  e->d = mktree ();
  e->rc = xasprintf ("%s/resctrl", e->d);
  e->mi = xasprintf ("%s/mountinfo", e->d);
  put (e->d, "resctrl/schemata", "    L3:0=fff;1=fff\n      MB:0=100;1=100\n");
  put (e->d, "resctrl/tasks", "");
  put (e->d, "resctrl/info/last_cmd_status", "ok\n");
  mkdirs (e->d, "resctrl/info/L3");
  mkdirs (e->d, "resctrl/info/MB");
  if (!no_mon)
    {
      mkdirs (e->d, "resctrl/info/L3_MON");
      mkdirs (e->d, "resctrl/mon_groups");
    }
  mkdirs (e->d, "state");
  line = xasprintf ("22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
                    "40 22 0:40 / %s rw,relatime shared:20 - resctrl resctrl rw\n",
                    e->rc);
  write_text (e->mi, line);
  free (line);
  e->statefd = open (xasprintf ("%s/state", e->d), O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static void
env_close (rdt_env *e)
{
  close (e->statefd);
  free (e->rc);
  free (e->mi);
  rmtree (e->d);
}

/* The create's steps for linux.intelRdt RDT_JSON on E (MOUNTINFO: E's unless given);
   NULL when they pass, else the error's message, after the failed create's clean-up. */
static char *
create_mi (rdt_env *e, const char *mountinfo, const char *rdt_json)
{
  char *json = xasprintf ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"intelRdt\": %s}}", rdt_json);
  oci_config *c = parse (json);
  intelrdt_plan plan;
  ocisbx_err *err = NULL;
  char *msg = NULL;

  free (json);
  if (c == NULL)
    return xstrdup ("(no parse)");
  if (intelrdt_prepare (c->linux_, ID, mountinfo ? mountinfo : e->mi, &plan, &err) < 0)
    {
      msg = xstrdup (err->msg);
      err_free (err);
      oci_config_free (c);
      return msg;
    }
  if (intelrdt_setup (&plan, e->statefd, &err) < 0 || intelrdt_enter (&plan, PID, &err) < 0
      || intelrdt_commit (&plan, e->statefd, &err) < 0)
    {
      ocisbx_err *e2 = NULL;
      msg = xstrdup (err->msg);
      err_free (err);
      if (intelrdt_cleanup_at (e->statefd, &e2) < 0)
        {
          fprintf (stderr, "  clean-up: %s\n", e2->msg);
          err_free (e2);
        }
    }
  intelrdt_plan_free (&plan);
  oci_config_free (c);
  return msg;
}

static char *
create (rdt_env *e, const char *rdt_json)
{
  return create_mi (e, NULL, rdt_json);
}

/* delete: 0, or -1 (the message printed) */
static int
delete (rdt_env *e)
{
  ocisbx_err *err = NULL;
  int r = intelrdt_cleanup_at (e->statefd, &err);
  if (r < 0)
    {
      fprintf (stderr, "  delete: %s\n", err->msg);
      err_free (err);
    }
  return r;
}

#define CHECK_OK(expr)                                                                             \
  do                                                                                               \
    {                                                                                              \
      char *_m = (expr);                                                                           \
      if (_m)                                                                                      \
        fprintf (stderr, "  %s\n", _m);                                                            \
      CHECK (_m == NULL);                                                                          \
      free (_m);                                                                                   \
    }                                                                                              \
  while (0)

/* EXPR fails with a message containing WANT. */
#define CHECK_FAILS(expr, want)                                                                    \
  do                                                                                               \
    {                                                                                              \
      char *_m = (expr);                                                                           \
      if (_m == NULL || strstr (_m, want) == NULL)                                                 \
        fprintf (stderr, "  want \"%s\"\n  got  \"%s\"\n", want, _m ? _m : "(passed)");           \
      CHECK (_m && strstr (_m, want));                                                             \
      free (_m);                                                                                   \
    }                                                                                              \
  while (0)

static void
test_schema_lines (void)
{
  char name[64];
  const char *kernel = "    L3:0=00f0;1=0fff\n      MB:0= 20;1=100\n";

  CHECK (rdt_schema_check ("L3:0=7f0;1=1f", name, sizeof name) == NULL);
  CHECK_STR (name, "L3");
  CHECK (rdt_schema_check ("MB:0=20;1=70", name, sizeof name) == NULL);
  CHECK (rdt_schema_check ("L3CODE:0=ff", name, sizeof name) == NULL);
  CHECK_STR (name, "L3CODE");
  CHECK (rdt_schema_check ("L3:0=xyz", name, sizeof name) != NULL);  /* not hex */
  CHECK (rdt_schema_check ("MB:0=ff", name, sizeof name) != NULL);   /* not decimal */
  CHECK (rdt_schema_check ("L3:", name, sizeof name) != NULL);       /* no domain */
  CHECK (rdt_schema_check ("L3:0=f;", name, sizeof name) != NULL);   /* an empty one */
  CHECK (rdt_schema_check ("L3", name, sizeof name) != NULL);        /* no colon */
  CHECK (rdt_schema_check (":0=f", name, sizeof name) != NULL);      /* no name */
  CHECK (rdt_schema_check ("L 3:0=f", name, sizeof name) != NULL);
  CHECK (rdt_schema_check ("L3:0=f\nMB:0=1", name, sizeof name) != NULL);
  CHECK (rdt_schema_check ("L3:a=f", name, sizeof name) != NULL);    /* the id */

  /* numbers, not text: padding and leading zeros do not count */
  CHECK (rdt_schema_matches ("L3:0=f0", kernel));
  CHECK (rdt_schema_matches ("L3:1=fff;0=0f0", kernel));
  CHECK (rdt_schema_matches ("MB:0=20", kernel));
  CHECK (!rdt_schema_matches ("L3:0=ff", kernel));
  CHECK (!rdt_schema_matches ("L3:2=f0", kernel));  /* no such domain */
  CHECK (!rdt_schema_matches ("L2:0=f0", kernel));  /* no such resource */
  CHECK (!rdt_schema_matches ("MB:1=10", kernel));
  CHECK (!rdt_schema_matches ("L3:0=f0", ""));
}

static void
test_no_resctrl (void)
{
  rdt_env e;

  env_open (&e, false);
  write_text (e.mi, "22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n");
  CHECK_FAILS (create (&e, "{\"closID\": \"g\"}"),
               "config.json: .linux.intelRdt: no resctrl file system is mounted in the runtime's mount "
               "namespace (/sys/fs/resctrl");
  CHECK_FAILS (create (&e, "{}"), ".linux.intelRdt: no resctrl file system is mounted");
  CHECK_FAILS (create_mi (&e, "/nonexistent/mountinfo", "{}"), ".linux.intelRdt: read `/nonexistent/mountinfo`");
  /* no intelRdt: nothing read, nothing for an exec */
  {
    intelrdt_plan plan;
    char *tasks = (char *) "x";
    CHECK (intelrdt_prepare (NULL, ID, "/nonexistent", &plan, NULL) == 0 && plan.rdt == NULL);
    CHECK (intelrdt_setup (&plan, e.statefd, NULL) == 0 && intelrdt_commit (&plan, e.statefd, NULL) == 0);
    CHECK (intelrdt_tasks_read (e.statefd, &tasks, NULL) == 0 && tasks == NULL);
  }
  env_close (&e);
}

/* No linux.intelRdt, with a resctrl mounted: a create's and a delete's steps touch
   nothing of it. */
static void
test_no_intelrdt (void)
{
  rdt_env e;
  oci_config *c = parse ("{\"ociVersion\": \"1.3.0\", \"linux\": {}}");
  intelrdt_plan plan;
  char *tasks = NULL;

  env_open (&e, false);
  CHECK (c && intelrdt_prepare (c->linux_, ID, e.mi, &plan, NULL) == 0 && plan.rdt == NULL);
  CHECK (intelrdt_setup (&plan, e.statefd, NULL) == 0 && intelrdt_enter (&plan, PID, NULL) == 0
         && intelrdt_commit (&plan, e.statefd, NULL) == 0);
  CHECK (intelrdt_tasks_read (e.statefd, &tasks, NULL) == 0 && tasks == NULL);
  CHECK (delete (&e) == 0);
  CHECK_FILE (e.rc, "tasks", "");
  CHECK_FILE (e.rc, "schemata", "    L3:0=fff;1=fff\n      MB:0=100;1=100\n");
  CHECK (!exists (e.rc, ID));
  CHECK (!exists (e.rc, "mon_groups/" ID));
  CHECK (!exists (e.d, "state/intelrdt"));
  intelrdt_plan_free (&plan);
  oci_config_free (c);
  env_close (&e);
}

/* Without closID: ROOT/<id> made, written l3CacheSchema, memBwSchema, schemata[] in
   that order, the init in its tasks; delete removes it. */
static void
test_clos_of_the_id (void)
{
  rdt_env e;

  env_open (&e, false);
  CHECK_OK (create (&e, "{\"l3CacheSchema\": \"L3:0=f\", \"memBwSchema\": \"MB:0=50\", "
                        "\"schemata\": [\"L3:1=3\", \"MB:1=70\"]}"));
  CHECK_FILE (e.rc, ID "/schemata", "L3:0=f\nMB:0=50\nL3:1=3\nMB:1=70\n");
  CHECK_FILE (e.rc, ID "/tasks", "4242\n");
  CHECK_FILE (e.rc, "tasks", "");
  CHECK_FILE (e.rc, "schemata", "    L3:0=fff;1=fff\n      MB:0=100;1=100\n"); /* the default CLOS untouched */
  CHECK (exists (e.d, "state/intelrdt"));
  CHECK (delete (&e) == 0);
  CHECK (!exists (e.rc, ID));
  CHECK (!exists (e.d, "state/intelrdt"));
  CHECK (delete (&e) == 0); /* again: nothing to do */

  /* either schema alone: that line alone */
  CHECK_OK (create (&e, "{\"memBwSchema\": \"MB:0=50\"}"));
  CHECK_FILE (e.rc, ID "/schemata", "MB:0=50\n");
  CHECK (delete (&e) == 0);
  CHECK_OK (create (&e, "{\"l3CacheSchema\": \"L3:0=f\"}"));
  CHECK_FILE (e.rc, ID "/schemata", "L3:0=f\n");
  CHECK (delete (&e) == 0);

  /* no schema at all: the CLOS made, no schemata written */
  CHECK_OK (create (&e, "{}"));
  CHECK_FILE (e.rc, ID "/schemata", "");
  CHECK_FILE (e.rc, ID "/tasks", "4242\n");
  CHECK (delete (&e) == 0);
  CHECK (!exists (e.rc, ID));
  env_close (&e);
}

/* closID named and absent: made and written; it stays when the container is deleted,
   but a failed create removes it. */
static void
test_clos_named (void)
{
  rdt_env e;

  env_open (&e, false);
  CHECK_OK (create (&e, "{\"closID\": \"guaranteed\", \"schemata\": [\"L3:0=7f0;1=1f\", \"MB:0=20;1=70\"]}"));
  CHECK_FILE (e.rc, "guaranteed/schemata", "L3:0=7f0;1=1f\nMB:0=20;1=70\n");
  CHECK_FILE (e.rc, "guaranteed/tasks", "4242\n");
  CHECK (!exists (e.d, "state/intelrdt")); /* nothing for delete to remove */
  CHECK (delete (&e) == 0);
  CHECK (exists (e.rc, "guaranteed/tasks"));

  /* a create killed after its set-up, before its end: delete removes what it made */
  {
    oci_config *c = parse ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"intelRdt\": {\"closID\": \"half\", "
                           "\"schemata\": [\"MB:0=10\"], \"enableMonitoring\": true}}}");
    intelrdt_plan plan;
    CHECK (c && intelrdt_prepare (c->linux_, ID, e.mi, &plan, NULL) == 0 && intelrdt_setup (&plan, e.statefd, NULL) == 0);
    CHECK (exists (e.rc, "half/mon_groups/" ID));
    intelrdt_plan_free (&plan);
    oci_config_free (c);
    CHECK (delete (&e) == 0);
    CHECK (!exists (e.rc, "half"));
    CHECK (!exists (e.d, "state/intelrdt"));
  }

  env_close (&e);

  /* made, then the create fails (no monitoring here): the CLOS goes with it */
  env_open (&e, true);
  CHECK_FAILS (create (&e, "{\"closID\": \"fresh\", \"l3CacheSchema\": \"L3:0=1\", \"enableMonitoring\": true}"),
               ".linux.intelRdt.enableMonitoring: make the MON group");
  CHECK (!exists (e.rc, "fresh"));
  CHECK (!exists (e.d, "state/intelrdt"));
  env_close (&e);
}

/* A CLOS that exists: compared, not written; a mismatch fails the create and touches
   nothing. */
static void
test_clos_existing (void)
{
  rdt_env e;
  const char *kernel = "    L3:0=00f0;1=0fff\n      MB:0= 20;1=100\n";

  env_open (&e, false);
  put (e.d, "resctrl/shared/schemata", kernel);
  put (e.d, "resctrl/shared/tasks", "");
  CHECK_OK (create (&e, "{\"closID\": \"shared\", \"l3CacheSchema\": \"L3:0=f0\", \"memBwSchema\": \"MB:0=20\"}"));
  CHECK_FILE (e.rc, "shared/schemata", kernel);
  CHECK_FILE (e.rc, "shared/tasks", "4242\n");
  CHECK (delete (&e) == 0);
  CHECK (exists (e.rc, "shared/schemata"));

  CHECK_FAILS (create (&e, "{\"closID\": \"shared\", \"l3CacheSchema\": \"L3:0=ff\"}"),
               "config.json: .linux.intelRdt.l3CacheSchema: `L3:0=ff` does not match the schemata of the existing "
               "CLOS `");
  CHECK_FAILS (create (&e, "{\"closID\": \"shared\", \"schemata\": [\"MB:0=20\", \"MB:1=50\"]}"),
               ".linux.intelRdt.schemata[1]: `MB:1=50` does not match the schemata of the existing CLOS");
  CHECK_FAILS (create (&e, "{\"closID\": \"shared\", \"schemata\": [\"MB:1=50\"]}"),
               "(L3:0=00f0;1=0fff; MB:0= 20;1=100)");
  CHECK_FILE (e.rc, "shared/schemata", kernel);
  CHECK_FILE (e.rc, "shared/tasks", "4242\n");
  CHECK (!exists (e.d, "state/intelrdt"));

  /* closID with no schema line: joined if it exists, an error if not */
  CHECK_OK (create (&e, "{\"closID\": \"shared\"}"));
  CHECK_FILE (e.rc, "shared/tasks", "4242\n4242\n");
  CHECK_FAILS (create (&e, "{\"closID\": \"absent\"}"),
               "config.json: .linux.intelRdt.closID: `absent`: with no schema line the CLOS must exist already");
  CHECK (!exists (e.rc, "absent"));

  /* without closID, a ROOT/<id> that is there is not this create's: kept */
  put (e.d, "resctrl/" ID "/schemata", kernel);
  put (e.d, "resctrl/" ID "/tasks", "");
  CHECK_OK (create (&e, "{\"l3CacheSchema\": \"L3:1=fff\"}"));
  CHECK (delete (&e) == 0);
  CHECK_FILE (e.rc, ID "/tasks", "4242\n");
  env_close (&e);
}

/* closID "/": the default CLOS, the resctrl root. */
static void
test_default_clos (void)
{
  rdt_env e;

  env_open (&e, false);
  CHECK_OK (create (&e, "{\"closID\": \"/\", \"l3CacheSchema\": \"L3:0=fff\", \"enableMonitoring\": true}"));
  CHECK_FILE (e.rc, "tasks", "4242\n");
  CHECK_FILE (e.rc, "mon_groups/" ID "/tasks", "4242\n");
  {
    char *tasks = NULL, *want = xasprintf ("%s/tasks\n%s/mon_groups/" ID "/tasks\n", e.rc, e.rc);
    CHECK (intelrdt_tasks_read (e.statefd, &tasks, NULL) == 0);
    CHECK_STR (tasks, want);
    free (tasks);
    free (want);
  }
  CHECK_FILE (e.rc, "schemata", "    L3:0=fff;1=fff\n      MB:0=100;1=100\n");
  CHECK (delete (&e) == 0);
  CHECK (!exists (e.rc, "mon_groups/" ID));
  CHECK (exists (e.rc, "schemata"));
  CHECK_FAILS (create (&e, "{\"closID\": \"/\", \"memBwSchema\": \"MB:0=10\"}"),
               ".linux.intelRdt.memBwSchema: `MB:0=10` does not match the schemata of the existing CLOS");
  env_close (&e);
}

/* enableMonitoring: mon_groups/<id> in the CLOS, the init in it after the CLOS;
   removed by delete, also from a CLOS that stays. */
static void
test_monitoring (void)
{
  rdt_env e;
  char *rec;

  env_open (&e, false);
  CHECK_OK (create (&e, "{\"enableMonitoring\": true}"));
  CHECK_FILE (e.rc, ID "/tasks", "4242\n");
  CHECK_FILE (e.rc, ID "/mon_groups/" ID "/tasks", "4242\n");
  rec = xasprintf ("%s/" ID "/mon_groups/" ID "\n%s/" ID "\n", e.rc, e.rc);
  CHECK_FILE (e.d, "state/intelrdt", rec);
  free (rec);
  /* exec: its process into the CLOS, then the MON group */
  {
    char *tasks = NULL, *want = xasprintf ("%s/" ID "/tasks\n%s/" ID "/mon_groups/" ID "/tasks\n", e.rc, e.rc);
    CHECK (intelrdt_tasks_read (e.statefd, &tasks, NULL) == 0);
    CHECK_STR (tasks, want);
    CHECK (tasks && intelrdt_join (tasks, 77, NULL) == 0);
    CHECK_FILE (e.rc, ID "/tasks", "4242\n77\n");
    CHECK_FILE (e.rc, ID "/mon_groups/" ID "/tasks", "4242\n77\n");
    free (tasks);
    free (want);
  }
  CHECK (delete (&e) == 0);
  CHECK (!exists (e.rc, ID));

  put (e.d, "resctrl/shared/schemata", "L3:0=f\n");
  put (e.d, "resctrl/shared/tasks", "");
  mkdirs (e.d, "resctrl/shared/mon_groups");
  CHECK_OK (create (&e, "{\"closID\": \"shared\", \"enableMonitoring\": true}"));
  CHECK (exists (e.rc, "shared/mon_groups/" ID "/tasks"));
  CHECK (delete (&e) == 0);
  CHECK (!exists (e.rc, "shared/mon_groups/" ID));
  CHECK (exists (e.rc, "shared/tasks"));

  /* a MON group of that name is someone else's: an error, and it stays */
  put (e.d, "resctrl/shared/mon_groups/" ID "/tasks", "1\n");
  CHECK_FAILS (create (&e, "{\"closID\": \"shared\", \"enableMonitoring\": true}"),
               ".linux.intelRdt.enableMonitoring: make the MON group `");
  CHECK_FAILS (create (&e, "{\"closID\": \"shared\", \"enableMonitoring\": true}"),
               "(it is not this container's): File exists");
  CHECK_FILE (e.rc, "shared/mon_groups/" ID "/tasks", "1\n");
  CHECK (!exists (e.d, "state/intelrdt"));
  env_close (&e);

  /* no MON group left: the error; a CLOS made by an earlier create stays */

  env_open (&e, false);
  CHECK_OK (create (&e, "{\"closID\": \"g\", \"l3CacheSchema\": \"L3:0=1\"}")); /* made, kept */
  put (e.d, "resctrl/g/mon_groups/.enospc", "");
  CHECK_FAILS (create (&e, "{\"closID\": \"g\", \"enableMonitoring\": true}"), "(no MON group left)");
  CHECK (exists (e.rc, "g/tasks"));
  CHECK (!exists (e.d, "state/intelrdt"));
  env_close (&e);

  /* a resctrl without monitoring */
  env_open (&e, true);
  CHECK_FAILS (create (&e, "{\"schemata\": [\"L3:0=1\"], \"enableMonitoring\": true}"),
               "config.json: .linux.intelRdt.enableMonitoring: make the MON group");
  CHECK (!exists (e.rc, ID)); /* the CLOS it made removed */
  CHECK (!exists (e.d, "state/intelrdt"));
  env_close (&e);
}

/* Every config error names its field and touches nothing. */
static void
test_config_errors (void)
{
  rdt_env e;

  env_open (&e, false);
  CHECK_FAILS (create (&e, "{\"closID\": \"a/b\"}"), "config.json: .linux.intelRdt.closID: `a/b` is not a CLOS name");
  CHECK_FAILS (create (&e, "{\"closID\": \"..\"}"), ".linux.intelRdt.closID: `..` is a name resctrl keeps");
  CHECK_FAILS (create (&e, "{\"closID\": \"info\"}"), ".linux.intelRdt.closID: `info` is a name resctrl keeps");
  CHECK_FAILS (create (&e, "{\"closID\": \"\"}"), ".linux.intelRdt.closID: `` is not a CLOS name");
  CHECK_FAILS (create (&e, "{\"l3CacheSchema\": \"L3:0=xyz\"}"),
               "config.json: .linux.intelRdt.l3CacheSchema: `L3:0=xyz`: want ID=BITMASK");
  CHECK_FAILS (create (&e, "{\"l3CacheSchema\": \"\"}"), ".linux.intelRdt.l3CacheSchema: ``: not a schema line");
  CHECK_FAILS (create (&e, "{\"memBwSchema\": \"MB:0=lots\"}"), ".linux.intelRdt.memBwSchema: `MB:0=lots`: want ID=VALUE");
  CHECK_FAILS (create (&e, "{\"schemata\": [\"L3:0=f\", \"L2:0=f\"]}"),
               "config.json: .linux.intelRdt.schemata[1]: `L2:0=f`: the resctrl file system at `");
  CHECK_FAILS (create (&e, "{\"schemata\": [\"L3:0=f\\nMB:0=1\"]}"),
               ".linux.intelRdt.schemata[0]: `L3:0=f\nMB:0=1`: a schema line has no newline");
  CHECK (!exists (e.rc, ID));
  CHECK (!exists (e.d, "state/intelrdt"));

  /* what the kernel refuses: the field, and its last_cmd_status */
  put (e.d, "resctrl/info/last_cmd_status", "bitmask is not contiguous\n");
  put (e.d, "resctrl/g/.reject", "");
  put (e.d, "resctrl/g/schemata", "L3:0=ff\n");
  put (e.d, "resctrl/g/tasks", "");
  CHECK_FAILS (create (&e, "{\"closID\": \"g\"}"), "config.json: .linux.intelRdt: the container's init into the CLOS: write `4242` to `");
  CHECK (exists (e.rc, "g/tasks"));
  put (e.d, "resctrl/.reject", "");
  CHECK_FAILS (create (&e, "{\"l3CacheSchema\": \"L3:0=f\"}"),
               "config.json: .linux.intelRdt.l3CacheSchema: write `L3:0=f` to `");
  CHECK_FAILS (create (&e, "{\"l3CacheSchema\": \"L3:0=f\"}"), "/schemata` (resctrl: bitmask is not contiguous): ");
  CHECK (!exists (e.rc, ID));
  CHECK (!exists (e.d, "state/intelrdt"));
  env_close (&e);
}

UNIT_MAIN (T (test_schema_lines), T (test_no_resctrl), T (test_no_intelrdt), T (test_clos_of_the_id),
           T (test_clos_named), T (test_clos_existing), T (test_default_clos), T (test_monitoring), T (test_config_errors))
