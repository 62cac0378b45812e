/* exec: the process built from config.json or a process.json with the flags over it
   (exec_spec.c), and the plan process_prepare makes of it. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/container/exec_internal.h"
#include "unit.h"
#include "unit_files.h"

static const char config_json[]
    = "{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},"
      "\"process\":{\"terminal\":true,\"user\":{\"uid\":5,\"gid\":6,\"additionalGids\":[7]},"
      "\"args\":[\"sleep\",\"100\"],\"env\":[\"PATH=/bin\",\"A=1\",\"B=2\"],\"cwd\":\"/\","
      "\"capabilities\":{\"bounding\":[\"CAP_KILL\"],\"effective\":[\"CAP_KILL\"],"
      "\"permitted\":[\"CAP_KILL\"]},"
      "\"rlimits\":[{\"type\":\"RLIMIT_NOFILE\",\"hard\":1024,\"soft\":512}],"
      "\"noNewPrivileges\":true,\"apparmorProfile\":\"cfg-profile\"}}";

static char dir[64];
static char config_path[96];

static void
setup (void)
{
  if (dir[0])
    return;
  strcpy (dir, "/tmp/ocisbx-test-exec.XXXXXX");
  if (mkdtemp (dir) == NULL)
    abort ();
  snprintf (config_path, sizeof config_path, "%s/config.json", dir);
  put (dir, "config.json", config_json);
}

static exec_opts
opts (char **args, size_t n)
{
  exec_opts o;
  memset (&o, 0, sizeof o);
  o.id = "c";
  o.args = args;
  o.n_args = n;
  o.no_new_privs = -1;
  return o;
}

static container_state
state (void)
{
  container_state st;
  memset (&st, 0, sizeof st);
  st.bundle = dir;
  st.config = config_path;
  return st;
}

static bool
has (char **v, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (v[i], s) == 0)
      return true;
  return false;
}

static void
test_config_process_with_args (void)
{
  char *args[] = { "echo", "hi" };
  exec_opts o = opts (args, 2);
  container_state st;
  exec_spec s;
  ocisbx_err *err = NULL;

  setup ();
  st = state ();
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  CHECK (s.eff.args_len == 2);
  CHECK_STR (s.eff.args[0], "echo");
  /* terminal only with -t, whatever config.json says */
  CHECK (!s.eff.terminal);
  CHECK (s.eff.user.uid == 5 && s.eff.user.gid == 6);
  CHECK (s.eff.env_len == 3);
  CHECK (s.eff.rlimits_len == 1);
  CHECK (s.eff.no_new_privileges);
  CHECK_STR (s.doc, "config.json");
  exec_spec_free (&s);
}

static void
test_env_merge (void)
{
  char *args[] = { "env" };
  char *env[] = { "B=new", "C=3", "A=", "C=4" };
  exec_opts o = opts (args, 1);
  container_state st;
  exec_spec s;
  ocisbx_err *err = NULL;

  setup ();
  st = state ();
  o.env = env;
  o.n_env = 4;
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  /* replaced in place, appended once, later wins */
  CHECK (s.eff.env_len == 4);
  CHECK_STR (s.eff.env[0], "PATH=/bin");
  CHECK_STR (s.eff.env[1], "A=");
  CHECK_STR (s.eff.env[2], "B=new");
  CHECK_STR (s.eff.env[3], "C=4");
  exec_spec_free (&s);

  char *bad[] = { "NOEQUALS" };
  o.env = bad;
  o.n_env = 1;
  CHECK (exec_spec_build (&o, &st, &s, &err) < 0);
  CHECK (err && strstr (err->msg, "NOEQUALS"));
  err_freep (&err);
  exec_spec_free (&s);
}

static void
test_flags (void)
{
  char *args[] = { "id" };
  char *caps[] = { "CAP_SYS_ADMIN", "CAP_KILL" };
  gid_t gids[] = { 10, 20 };
  exec_opts o = opts (args, 1);
  container_state st;
  exec_spec s;
  process_plan plan;
  ocisbx_err *err = NULL;
  const oci_capabilities *c;

  setup ();
  st = state ();
  o.caps = caps;
  o.n_caps = 2;
  o.add_gids = gids;
  o.n_add_gids = 2;
  o.has_uid = true;
  o.uid = 1000;
  o.cwd = "/tmp";
  o.tty = true;
  o.no_new_privs = 0;
  o.apparmor = "flag-profile";
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  c = s.eff.capabilities;
  /* bounding, effective and permitted, CAP_KILL not twice; never inheritable or ambient */
  CHECK (c->bounding_len == 2 && has (c->bounding, 2, "CAP_SYS_ADMIN") && has (c->bounding, 2, "CAP_KILL"));
  CHECK (c->effective_len == 2 && c->permitted_len == 2 && has (c->permitted, 2, "CAP_SYS_ADMIN"));
  CHECK (c->inheritable_len == 0 && c->ambient_len == 0);
  CHECK (s.eff.user.uid == 1000 && s.eff.user.gid == 6);
  CHECK (s.eff.user.additional_gids_len == 3 && s.eff.user.additional_gids[2] == 20);
  CHECK_STR (s.eff.cwd, "/tmp");
  CHECK (s.eff.terminal);
  CHECK (!s.eff.no_new_privileges);
  CHECK_STR (s.eff.apparmor_profile, "flag-profile");
  /* the config itself is untouched */
  CHECK (s.cfg->process->capabilities->bounding_len == 1);
  CHECK (s.cfg->process->user.additional_gids_len == 1);

  CHECK (process_prepare (&s.eff, s.doc, ".process", NULL, &plan, &err) == 0);
  CHECK (plan.cap_bounding == ((1ULL << 21) | (1ULL << 5)));
  CHECK (plan.n_groups == 3);
  process_plan_free (&plan);
  exec_spec_free (&s);

  /* an unknown name is a warning and left out, as in process.capabilities */
  char *unknown[] = { "CAP_NOPE", "CAP_KILL" };
  o.caps = unknown;
  o.n_caps = 2;
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  c = s.eff.capabilities;
  CHECK (c && c->bounding_len == 1 && strcmp (c->bounding[0], "CAP_KILL") == 0);
  err_freep (&err);
  exec_spec_free (&s);
}

static void
test_process_json (void)
{
  char path[128];
  exec_opts o = opts (NULL, 0);
  container_state st;
  exec_spec s;
  ocisbx_err *err = NULL;

  setup ();
  st = state ();
  snprintf (path, sizeof path, "%s/process.json", dir);
  put (dir, "process.json", "{\"terminal\":false,\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"ls\"],"
                    "\"env\":[\"PATH=/usr/bin\"],\"cwd\":\"/etc\"}");
  o.process_file = path;
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  CHECK_STR (s.eff.args[0], "ls");
  CHECK_STR (s.eff.cwd, "/etc");
  CHECK_STR (s.doc, "process.json");
  /* what the document leaves out comes from config.json */
  CHECK (s.eff.capabilities && s.eff.capabilities->bounding_len == 1);
  CHECK (s.eff.rlimits_len == 1);
  CHECK_STR (s.eff.apparmor_profile, "cfg-profile");
  CHECK (!s.eff.no_new_privileges); /* a bool: the document's */
  exec_spec_free (&s);

  /* --tty with --process (conmon passes both) */
  o.tty = true;
  CHECK (exec_spec_build (&o, &st, &s, &err) == 0);
  CHECK (s.eff.terminal);
  exec_spec_free (&s);

  o.process_file = "/nonexistent/process.json";
  CHECK (exec_spec_build (&o, &st, &s, &err) < 0);
  CHECK (err && strstr (err->msg, "--process"));
  err_freep (&err);
  exec_spec_free (&s);
}

static void
test_missing_config (void)
{
  char *args[] = { "true" };
  exec_opts o = opts (args, 1);
  container_state st = state ();
  exec_spec s;
  ocisbx_err *err = NULL;

  st.config = "/nonexistent/config.json";
  CHECK (exec_spec_build (&o, &st, &s, &err) < 0);
  CHECK (err && strstr (err->msg, "/nonexistent/config.json"));
  err_freep (&err);
  exec_spec_free (&s);
}

__attribute__ ((destructor)) static void
cleanup (void)
{
  char path[128];
  if (dir[0] == '\0')
    return;
  snprintf (path, sizeof path, "%s/process.json", dir);
  unlink (path);
  unlink (config_path);
  rmdir (dir);
}

UNIT_MAIN (T (test_config_process_with_args), T (test_env_merge), T (test_flags), T (test_process_json),
           T (test_missing_config))
