/* exec: the process to run, as runc builds it.
 *
 * Without --process: config.json's process (of the bundle recorded in the state),
 * args from the command line, terminal only with -t, and the flags over it:
 * --cwd replaces, -e K=V replaces K or is appended, -u UID[:GID] replaces, -g adds,
 * -c adds a capability to the bounding, effective and permitted sets (never to the
 * inheritable or ambient ones, which would pass it on across execve: CVE-2022-29162),
 * --no-new-privs, --apparmor and --process-label replace.
 * With --process: that document; what it leaves out (capabilities, rlimits, the
 * LSM labels) comes from config.json, as runc does; the flags still apply.
 */
#include <config.h>
#include "core/container/exec_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/utils.h"

static void *
own (exec_spec *s, size_t size)
{
  void *p = xmalloc0 (size);
  if (s->n_owned == sizeof s->owned / sizeof s->owned[0])
    abort (); /* a fixed number of arrays is ever made */
  s->owned[s->n_owned++] = p;
  return p;
}

static int
merge_env (exec_spec *s, const exec_opts *o, ocisbx_err **err)
{
  oci_process *p = &s->eff;
  char **env;
  size_t n = p->env_len;

  if (o->n_env == 0)
    return 0;
  env = own (s, (p->env_len + o->n_env) * sizeof (char *));
  memcpy (env, p->env, p->env_len * sizeof (char *));
  for (size_t i = 0; i < o->n_env; i++)
    {
      const char *eq = strchr (o->env[i], '=');
      size_t kl, j;

      if (eq == NULL || eq == o->env[i])
        return err_setk (err, ERR_USAGE, 0, "--env \"%s\": not KEY=VALUE", o->env[i]);
      kl = eq - o->env[i] + 1; /* with the '=' */
      for (j = 0; j < n; j++)
        if (strncmp (env[j], o->env[i], kl) == 0)
          break;
      env[j] = o->env[i];
      if (j == n)
        n++;
    }
  p->env = env;
  p->env_len = n;
  return 0;
}

static bool
has_name (char **v, size_t n, const char *name)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (v[i], name) == 0)
      return true;
  return false;
}

/* V (N entries) plus the caps not in it yet, in a new array. */
static char **
add_caps (exec_spec *s, char **v, size_t *n, char **caps, size_t n_caps)
{
  char **out = own (s, (*n + n_caps) * sizeof (char *));
  size_t k = *n;

  if (*n)
    memcpy (out, v, *n * sizeof (char *));
  for (size_t i = 0; i < n_caps; i++)
    if (!has_name (out, k, caps[i]))
      out[k++] = caps[i];
  *n = k;
  return out;
}

/* An unknown name is a warning and left out, as in process.capabilities (runtime-spec
   config.md: logged, SHOULD NOT fail; runc and crun take it too); one this kernel or
   the runtime's bounding set lacks is left out by process_prepare, with its warning. */
static void
merge_caps (exec_spec *s, const exec_opts *o)
{
  oci_capabilities *c;
  char **known;
  size_t n = 0;

  if (o->n_caps == 0)
    return;
  known = own (s, o->n_caps * sizeof (char *));
  for (size_t i = 0; i < o->n_caps; i++)
    {
      if (capability_from_name (o->caps[i]) >= 0)
        known[n++] = o->caps[i];
      else
        log_warning ("--cap: ignoring unknown capability \"%.64s\"", o->caps[i]);
    }
  if (n == 0)
    return;
  c = own (s, sizeof *c);
  if (s->eff.capabilities)
    *c = *s->eff.capabilities;
  c->bounding = add_caps (s, c->bounding, &c->bounding_len, known, n);
  c->effective = add_caps (s, c->effective, &c->effective_len, known, n);
  c->permitted = add_caps (s, c->permitted, &c->permitted_len, known, n);
  s->eff.capabilities = c;
}

static void
merge_user (exec_spec *s, const exec_opts *o)
{
  oci_user *u = &s->eff.user;

  if (o->has_uid)
    u->uid = o->uid;
  if (o->has_gid)
    u->gid = o->gid;
  if (o->n_add_gids)
    {
      uint32_t *g = own (s, (u->additional_gids_len + o->n_add_gids) * sizeof (uint32_t));
      if (u->additional_gids_len)
        memcpy (g, u->additional_gids, u->additional_gids_len * sizeof (uint32_t));
      for (size_t i = 0; i < o->n_add_gids; i++)
        g[u->additional_gids_len + i] = o->add_gids[i];
      u->additional_gids = g;
      u->additional_gids_len += o->n_add_gids;
    }
}

static int
read_config (const container_state *st, exec_spec *s, ocisbx_err **err)
{
  cleanup_free char *path = NULL;
  char *msg = NULL;

  path = st->config ? xstrdup (st->config) : xasprintf ("%s/config.json", st->bundle ? st->bundle : ".");
  if (oci_config_parse_file (path, &s->cfg, &msg) < 0)
    {
      err_takek (err, ERR_INVALID_CONFIG, 0, msg ? msg : xstrdup ("cannot parse"));
      return err_wrap (err, "the container's config `%s`", path);
    }
  return 0;
}

int
exec_spec_build (const exec_opts *o, const container_state *st, exec_spec *s, ocisbx_err **err)
{
  const oci_process *cp;

  memset (s, 0, sizeof *s);
  if (read_config (st, s, err) < 0)
    return -1;
  cp = s->cfg->process;
  if (o->process_file)
    {
      char *msg = NULL;
      if (oci_process_parse_file (o->process_file, &s->file, &msg) < 0)
        {
          err_takek (err, ERR_INVALID_CONFIG, 0, msg ? msg : xstrdup ("cannot parse"));
          return err_wrap (err, "--process `%s`", o->process_file);
        }
      s->doc = "process.json";
      s->eff = *s->file;
      if (o->tty)
        s->eff.terminal = true;
      if (cp && s->eff.capabilities == NULL)
        s->eff.capabilities = cp->capabilities;
      if (cp && s->eff.rlimits_len == 0)
        {
          s->eff.rlimits = cp->rlimits;
          s->eff.rlimits_len = cp->rlimits_len;
        }
      if (cp && s->eff.apparmor_profile == NULL)
        s->eff.apparmor_profile = cp->apparmor_profile;
      if (cp && s->eff.selinux_label == NULL)
        s->eff.selinux_label = cp->selinux_label;
    }
  else
    {
      if (cp == NULL)
        return err_set (err, 0, "the container's config.json has no process to start from");
      s->doc = "config.json";
      s->eff = *cp;
      s->eff.args = o->args;
      s->eff.args_len = o->n_args;
      s->eff.terminal = o->tty;
    }
  if (s->eff.args_len == 0)
    return err_set (err, 0, "exec: no command given");
  if (o->cwd)
    s->eff.cwd = (char *) o->cwd;
  merge_caps (s, o);
  if (merge_env (s, o, err) < 0)
    return -1;
  merge_user (s, o);
  if (o->no_new_privs >= 0)
    s->eff.no_new_privileges = o->no_new_privs;
  if (o->apparmor)
    s->eff.apparmor_profile = (char *) o->apparmor;
  if (o->process_label)
    s->eff.selinux_label = (char *) o->process_label;
  return 0;
}

void
exec_spec_free (exec_spec *s)
{
  for (size_t i = 0; i < s->n_owned; i++)
    free (s->owned[i]);
  if (s->file)
    oci_process_free (s->file);
  if (s->cfg)
    oci_config_free (s->cfg);
  memset (s, 0, sizeof *s);
}

int
exec_kill_tree_annotation (const struct ocispec_map *annotations, int *on, ocisbx_err **err)
{
  *on = 0;
  for (size_t i = 0; annotations && i < annotations->len; i++)
    {
      const char *v = annotations->values[i];
      if (strcmp (annotations->keys[i], EXEC_KILL_TREE_ANNOTATION) != 0)
        continue;
      if (strcmp (v, "true") == 0)
        *on = 1;
      else if (strcmp (v, "false") != 0)
        return err_set (err, 0, "config.json: .annotations[\"%s\"]: \"%.64s\" is not true or false",
                        EXEC_KILL_TREE_ANNOTATION, v);
    }
  return 0;
}
