/* The cgroup an exec joins (exec_cgroup.h): --cgroup's, one of its own below the
   container's (made, limited, removed), or the container's (its v2 leaf). */
#include <config.h>
#include "core/cgroups/exec_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroups/cgroups_internal.h"
#include "core/log.h"
#include "core/utils.h"

/* Hierarchies a manager may have (v1: one per controller and the named ones). */
#define EXEC_CG_MAX_HIER 32

struct exec_cgroup
{
  cgroup_manager *ctr;    /* the container's (not ours) */
  cgroup_manager *target; /* what the exec joins; NULL: ctr itself */
  exec_cgroup_limits lim;
  const char *usage_file;
  char *name;             /* own: its name below the container's cgroup */
};

/* Does hierarchy H of the container get an exec's cgroup of its own? */
static bool
own_hierarchy (const cgroup_manager *m, const cg_hier *h)
{
  static const char *const ctrls[] = { "memory", "pids", "cpu", "cpuacct" };

  if (h->v2)
    return m->layout == CGROUP_LAYOUT_V2;
  for (size_t i = 0; i < sizeof ctrls / sizeof ctrls[0]; i++)
    if (cgroup_has_controller (h->controllers, ctrls[i]))
      return true;
  return false;
}

static char *
path_below (const char *path, const char *sub)
{
  return strcmp (path, "/") == 0 ? xasprintf ("/%s", sub) : xasprintf ("%s/%s", path, sub);
}

/* The container's cgroups with SUBS[i] (NULL: none) below hierarchy i's. */
static int
load_below (const cgroup_manager *ctr, char *const *subs, cgroup_manager **out, ocisbx_err **err)
{
  cleanup_cgroup_state cgroup_state *s = cgroup_state_of (ctr);

  for (size_t i = 0; i < s->hierarchies_len; i++)
    {
      if (subs[i] == NULL)
        continue;
      char *p = path_below (s->hierarchies[i].path, subs[i]);
      free (s->hierarchies[i].path);
      s->hierarchies[i].path = p;
      s->hierarchies[i].created = 0; /* nobody destroys through this manager */
    }
  if (cgroup_load (ctr->fs_root, s, out, err) < 0)
    return -1;
  (*out)->fs = ctr->fs;
  return 0;
}

/* ---- --cgroup: an existing sub-cgroup ---- */

/* "a/b" with no "." or ".." component, no empty one at the end; a leading "/" dropped. */
static const char *
check_sub (const char *sub, const char *arg, ocisbx_err **err)
{
  cleanup_free char *copy = NULL;
  char *save = NULL;

  while (*sub == '/')
    sub++;
  copy = xstrdup (sub);
  if (*sub == '\0' || sub[strlen (sub) - 1] == '/')
    {
      err_setk (err, ERR_USAGE, 0, "exec --cgroup: %.64s is not a sub cgroup path", arg);
      return NULL;
    }
  for (char *t = strtok_r (copy, "/", &save); t; t = strtok_r (NULL, "/", &save))
    if (strcmp (t, ".") == 0 || strcmp (t, "..") == 0)
      {
        err_setk (err, ERR_USAGE, 0,
                  "exec --cgroup: %.64s is not a sub cgroup path (\".\" and \"..\" are not allowed)", arg);
        return NULL;
      }
  return sub;
}

/* Each --cgroup onto the hierarchies it names: "path" all of them, "ctrl,ctrl:path"
   (v1 only) those with one of the controllers; a later one wins. */
static int
assign_join (const cgroup_manager *ctr, const exec_cgroup_opts *o, char **subs, ocisbx_err **err)
{
  for (size_t j = 0; j < o->n_join; j++)
    {
      const char *arg = o->join[j], *colon = strchr (arg, ':'), *sub;
      cleanup_free char *ctrls = colon ? xasprintf ("%.*s", (int) (colon - arg), arg) : NULL;
      bool matched = false;

      if (colon && ctr->layout == CGROUP_LAYOUT_V2)
        return err_setk (err, ERR_USAGE, 0, "exec --cgroup \"%.64s\": only the path form on cgroup v2", arg);
      if ((sub = check_sub (colon ? colon + 1 : arg, arg, err)) == NULL)
        return -1;
      for (size_t i = 0; i < ctr->n; i++)
        {
          const cg_hier *h = &ctr->h[i];
          bool take = ctrls == NULL;
          char *save = NULL;
          cleanup_free char *list = ctrls ? xstrdup (ctrls) : NULL;
          for (char *t = list ? strtok_r (list, ",", &save) : NULL; t; t = strtok_r (NULL, ",", &save))
            take |= !h->v2 && cgroup_has_controller (h->controllers, t);
          if (!take)
            continue;
          free (subs[i]);
          subs[i] = xstrdup (sub);
          matched = true;
        }
      if (!matched)
        return err_setk (err, ERR_USAGE, 0, "exec --cgroup \"%.64s\": the container has no cgroup of %s", arg,
                         ctrls);
    }
  return 0;
}

/* The sub-cgroups must exist: we neither make nor remove them (as runc). */
static int
check_join_exists (const cgroup_manager *t, ocisbx_err **err)
{
  for (size_t i = 0; i < t->n; i++)
    if (!cg_is_dir (t->h[i].dir))
      return err_setk (err, ERR_SYSTEM, ENOENT, "exec --cgroup: no cgroup `%s`", t->h[i].dir);
  return 0;
}

/* ---- v2: the container's processes in a leaf, the controllers for the children ---- */

static bool
word_in (const char *list, const char *w)
{
  size_t n = strlen (w);
  for (const char *p = list; (p = strstr (p, w)); p += n)
    if ((p == list || p[-1] == ' ' || p[-1] == '\n') && (p[n] == '\0' || p[n] == ' ' || p[n] == '\n'))
      return true;
  return false;
}

/* Move the processes of H's own cgroup (not its children's) into the leaf; a pid
   already moved is not moved again (MOVED, *N). */
static int
move_to_leaf (const cgroup_manager *m, const cg_hier *h, const char *leaf_procs, pid_t **moved, size_t *nmoved,
              bool *any, ocisbx_err **err)
{
  cleanup_free pid_t *pids = NULL;
  size_t n = 0;
  char buf[32];

  *any = false;
  if (cg_read_pids (h->dir, false, &pids, &n, err) < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    {
      bool seen = false;
      cleanup_err ocisbx_err *e = NULL;
      for (size_t k = 0; k < *nmoved && !seen; k++)
        seen = (*moved)[k] == pids[i];
      if (seen)
        continue;
      snprintf (buf, sizeof buf, "%d", (int) pids[i]);
      if (cg_write_file (m, leaf_procs, buf, &e) < 0 && e->errnum != ESRCH)
        {
          *err = steal_ptr (&e);
          return err_wrap (err, "exec: move the container's process %d into its leaf", (int) pids[i]);
        }
      *moved = realloc (*moved, (*nmoved + 1) * sizeof **moved);
      if (*moved == NULL)
        abort ();
      (*moved)[(*nmoved)++] = pids[i];
      *any = true;
    }
  return 0;
}

static int
enable_for_children (const cgroup_manager *m, const cg_hier *h, ocisbx_err **err)
{
  static const char *const ctrls[] = { "cpu", "memory", "pids" };
  cleanup_free char *avail = NULL, *enabled = NULL;
  cleanup_free char *leaf = NULL, *leaf_procs = NULL, *subtree = cg_file (h, "cgroup.subtree_control");
  cleanup_free pid_t *moved = NULL;
  size_t nmoved = 0;

  if (cg_read_h (h, "cgroup.controllers", &avail, err) < 0 || cg_read_h (h, "cgroup.subtree_control", &enabled, err) < 0)
    return err_wrap (err, "exec: the container's cgroup");
  for (size_t i = 0; i < sizeof ctrls / sizeof ctrls[0]; i++)
    {
      cleanup_free char *plus = xasprintf ("+%s", ctrls[i]);
      if (!word_in (avail, ctrls[i]) || word_in (enabled, ctrls[i]))
        continue;
      if (leaf == NULL)
        {
          leaf = xasprintf ("%s/%s", h->dir, EXEC_CGROUP_LEAF);
          leaf_procs = xasprintf ("%s/cgroup.procs", leaf);
          if (m->fs->mkdir (leaf, 0755) < 0 && errno != EEXIST)
            return err_set (err, errno, "exec: mkdir `%s`", leaf);
        }
      /* a process forked meanwhile makes the kernel refuse (EBUSY): move it too */
      for (int tries = 0;; tries++)
        {
          cleanup_err ocisbx_err *e = NULL;
          bool any = false;
          if (move_to_leaf (m, h, leaf_procs, &moved, &nmoved, &any, err) < 0)
            return -1;
          if (cg_write_file (m, subtree, plus, &e) == 0)
            break;
          if (e->errnum != EBUSY || tries == 5)
            {
              *err = steal_ptr (&e);
              return err_wrap (err, "exec: enable %s for the execs' cgroups", ctrls[i]);
            }
        }
    }
  return 0;
}

/* A plain exec on v2 after a split: the container's own processes are in the leaf. */
static int
open_leaf (cgroup_manager *ctr, exec_cgroup *e, ocisbx_err **err)
{
  cg_hier *h = cg_unified (ctr);
  cleanup_free char *leaf = NULL;
  char *subs[EXEC_CG_MAX_HIER] = { NULL };

  if (ctr->layout != CGROUP_LAYOUT_V2 || h == NULL || ctr->n > EXEC_CG_MAX_HIER)
    return 0;
  leaf = xasprintf ("%s/%s", h->dir, EXEC_CGROUP_LEAF);
  if (!cg_is_dir (leaf))
    return 0;
  subs[h - ctr->h] = (char *) EXEC_CGROUP_LEAF;
  return load_below (ctr, subs, &e->target, err);
}

/* ---- a cgroup of its own ---- */

/* Leftovers of execs whose runtime is gone (a detached exec, a runtime killed):
   removed once empty.  Best effort. */
static void
sweep (const cgroup_manager *ctr)
{
  for (size_t i = 0; i < ctr->n; i++)
    {
      const cg_hier *h = &ctr->h[i];
      cleanup_dir DIR *d = NULL;
      struct dirent *de;

      if (!own_hierarchy (ctr, h) || (d = opendir (h->dir)) == NULL)
        continue;
      while ((de = readdir (d)))
        {
          cleanup_free char *dir = NULL;
          cleanup_free pid_t *pids = NULL;
          cleanup_err ocisbx_err *e = NULL;
          size_t n = 0;
          long pid;

          if (de->d_type != DT_DIR || strncmp (de->d_name, EXEC_CGROUP_PREFIX, strlen (EXEC_CGROUP_PREFIX)) != 0)
            continue;
          pid = strtol (de->d_name + strlen (EXEC_CGROUP_PREFIX), NULL, 10);
          if (pid <= 0 || pid == (long) getpid () || kill ((pid_t) pid, 0) == 0 || errno == EPERM)
            continue; /* its runtime still runs: it removes it */
          dir = xasprintf ("%s/%s", h->dir, de->d_name);
          if (cg_read_pids (dir, true, &pids, &n, &e) < 0 || n > 0)
            continue;
          if (ctr->fs->rmdir (dir) == 0)
            log_debug ("exec: removed the leftover cgroup `%s`", dir);
        }
    }
}

static int
write_limit (const cgroup_manager *m, const cg_hier *h, const char *file, const char *value, const char *flag,
             ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;

  if (cg_write_h (m, h, file, value, &e) == 0)
    return 0;
  if (e->errnum == ENOENT)
    return err_setk (err, ERR_UNSUPPORTED, ENOENT, "exec %s: no `%s` in the exec's cgroup `%s`", flag, file, h->dir);
  *err = steal_ptr (&e);
  return err_wrap (err, "exec %s: set %s to \"%s\"", flag, file, value);
}

/* T's hierarchy of controller C, a cgroup of the exec's own; else an error naming FLAG. */
static cg_hier *
own_of (const exec_cgroup *e, const char *c, const char *flag, ocisbx_err **err)
{
  cg_hier *h = cg_find (e->target, c);

  /* v2: a controller the container's cgroup lacks shows as its files missing */
  if (h == NULL || strstr (h->path, e->name) == NULL)
    {
      err_setk (err, ERR_UNSUPPORTED, 0, "exec %s: the container has no %s cgroup%s", flag, c,
                e->ctr->rootless ? " (rootless: not delegated to this user)" : "");
      return NULL;
    }
  return h;
}

static int
apply_limits (exec_cgroup *e, ocisbx_err **err)
{
  const exec_cgroup_limits *l = &e->lim;
  const cgroup_manager *t = e->target;
  bool v2 = t->layout == CGROUP_LAYOUT_V2;
  cleanup_err ocisbx_err *ign = NULL;
  char buf[64];
  cg_hier *h;

  if (l->memory > 0)
    {
      if ((h = own_of (e, "memory", "--memory", err)) == NULL)
        return -1;
      snprintf (buf, sizeof buf, "%" PRId64, l->memory);
      if (write_limit (t, h, v2 ? "memory.max" : "memory.limit_in_bytes", buf, "--memory", err) < 0)
        return -1;
      /* no swap beyond it: the limit is the process's memory (best effort: the kernel's
         swap accounting may be off) */
      if (v2)
        cg_write_h (t, h, "memory.swap.max", "0", &ign);
      else
        cg_write_h (t, h, "memory.memsw.limit_in_bytes", buf, &ign);
    }
  if (l->pids > 0)
    {
      if ((h = own_of (e, "pids", "--pids-limit", err)) == NULL)
        return -1;
      snprintf (buf, sizeof buf, "%" PRId64, l->pids);
      if (write_limit (t, h, "pids.max", buf, "--pids-limit", err) < 0)
        return -1;
    }
  if (l->cpu_quota_us > 0)
    {
      if ((h = own_of (e, "cpu", "--cpus", err)) == NULL)
        return -1;
      if (v2)
        {
          snprintf (buf, sizeof buf, "%" PRIu64 " %d", l->cpu_quota_us, EXEC_CPU_PERIOD_US);
          return write_limit (t, h, "cpu.max", buf, "--cpus", err);
        }
      snprintf (buf, sizeof buf, "%d", EXEC_CPU_PERIOD_US);
      if (write_limit (t, h, "cpu.cfs_period_us", buf, "--cpus", err) < 0)
        return -1;
      snprintf (buf, sizeof buf, "%" PRIu64, l->cpu_quota_us);
      return write_limit (t, h, "cpu.cfs_quota_us", buf, "--cpus", err);
    }
  return 0;
}

/* Remove the own cgroups made so far (KILL_LEFT: killing what is left). */
static void
remove_own (exec_cgroup *e, bool kill_left)
{
  if (e->target == NULL || e->name == NULL)
    return;
  for (size_t i = 0; i < e->target->n; i++)
    {
      cg_hier *h = &e->target->h[i];
      cleanup_err ocisbx_err *err = NULL;
      if (strstr (h->path, e->name) == NULL)
        continue;
      if (kill_left ? cg_remove_tree (e->target, h->dir, &err) == 0 : (e->target->fs->rmdir (h->dir) == 0 || errno == ENOENT))
        continue;
      log_debug ("exec: cgroup `%s` kept (%s): removed once empty by a later exec or delete", h->dir,
                 err ? err->msg : strerror (errno));
    }
}

static int
make_own (exec_cgroup *e, ocisbx_err **err)
{
  cgroup_manager *ctr = e->ctr;
  char *subs[EXEC_CG_MAX_HIER] = { NULL };
  cg_hier *u = cg_unified (ctr);

  if (ctr->n == 0 || ctr->n > EXEC_CG_MAX_HIER)
    return err_setk (err, ERR_UNSUPPORTED, 0, "exec: a cgroup of its own (--memory, --pids-limit, --cpus, "
                                              "--usage-file): the container has no cgroup%s",
                     ctr->rootless ? " (rootless: not delegated to this user)" : "");
  sweep (ctr);
  if (ctr->layout == CGROUP_LAYOUT_V2 && u && enable_for_children (ctr, u, err) < 0)
    return -1;
  for (unsigned n = 0;; n++)
    {
      size_t made = 0, at = 0, i;
      int errnum = 0;

      free (e->name);
      e->name = xasprintf (EXEC_CGROUP_PREFIX "%d-%u", (int) getpid (), n);
      for (i = 0; i < ctr->n; i++)
        subs[i] = own_hierarchy (ctr, &ctr->h[i]) ? e->name : NULL;
      cgroup_manager_free (e->target);
      e->target = NULL;
      if (load_below (ctr, subs, &e->target, err) < 0)
        return -1;
      for (i = 0; i < e->target->n && errnum == 0; i++)
        if (subs[i] && e->target->fs->mkdir (e->target->h[i].dir, 0755) < 0)
          {
            errnum = errno;
            at = i;
          }
        else if (subs[i])
          made = i + 1;
      if (errnum == 0)
        break;
      /* undo this attempt: the ones made before the failure */
      for (i = 0; i < made; i++)
        if (subs[i])
          e->target->fs->rmdir (e->target->h[i].dir);
      if (errnum != EEXIST || n == 99)
        {
          err_setk (err, ERR_SYSTEM, errnum, "exec: make its cgroup `%s`%s", e->target->h[at].dir,
                    ctr->rootless ? " (rootless: the container's cgroup is not delegated to this user)" : "");
          free (e->name); /* nothing of this name is ours to remove */
          e->name = NULL;
          return -1;
        }
    }
  if (apply_limits (e, err) < 0)
    {
      remove_own (e, false);
      return -1;
    }
  return 0;
}

int
exec_cgroup_open (cgroup_manager *ctr, const exec_cgroup_opts *o, const struct ocispec_map *annotations,
                  exec_cgroup **out, ocisbx_err **err)
{
  exec_cgroup *e = xmalloc0 (sizeof *e);
  int r;

  e->ctr = ctr;
  e->usage_file = o->usage_file;
  r = exec_cgroup_limits_get (o, annotations, &e->lim, err);
  if (r == 0 && o->n_join && e->lim.own)
    r = err_setk (err, ERR_USAGE, 0, "exec --cgroup: not with a cgroup of its own (--memory, --pids-limit, "
                                     "--cpus, --usage-file or the container's io.github.ocisbx.exec.* annotations)");
  if (r == 0 && o->n_join)
    {
      char *subs[EXEC_CG_MAX_HIER] = { NULL };
      if (ctr->n > EXEC_CG_MAX_HIER)
        r = err_set (err, 0, "exec --cgroup: too many hierarchies");
      else
        r = assign_join (ctr, o, subs, err);
      if (r == 0)
        r = load_below (ctr, subs, &e->target, err);
      if (r == 0)
        r = check_join_exists (e->target, err);
      for (size_t i = 0; i < EXEC_CG_MAX_HIER; i++)
        free (subs[i]);
    }
  else if (r == 0 && e->lim.own)
    r = make_own (e, err);
  else if (r == 0)
    r = open_leaf (ctr, e, err);
  if (r < 0)
    {
      exec_cgroup_free (e);
      return -1;
    }
  *out = e;
  return 0;
}

cgroup_manager *
exec_cgroup_target (exec_cgroup *e)
{
  return e->target ? e->target : e->ctr;
}

bool
exec_cgroup_own (const exec_cgroup *e)
{
  return e->name != NULL && e->target != NULL;
}

int
exec_cgroup_end (exec_cgroup *e, int exit_code, bool kill_left, ocisbx_err **err)
{
  cleanup_free char *json = NULL;
  exec_cgroup_usage u;
  int r = 0;

  if (!exec_cgroup_own (e))
    return 0;
  if (exec_cgroup_usage_read (e, &u, err) < 0)
    r = -1;
  else
    {
      u.exit_code = exit_code;
      json = exec_cgroup_usage_json (&u, err);
      exec_cgroup_usage_clear (&u);
      if (json == NULL)
        r = -1;
    }
  if (json)
    {
      /* with --log (an engine's JSON lines): an info line; never on the caller's stderr */
      if (log_fd () >= 0)
        log_info ("exec usage: %s", json);
      if (e->usage_file
          && write_file_atomic_at (AT_FDCWD, e->usage_file, json, strlen (json), 0644, err) < 0)
        r = err_wrap (err, "exec --usage-file");
    }
  remove_own (e, kill_left);
  free (e->name);
  e->name = NULL;
  return r;
}

int
exec_cgroup_usage_read (exec_cgroup *e, exec_cgroup_usage *u, ocisbx_err **err)
{
  memset (u, 0, sizeof *u);
  u->memory_limit = e->lim.memory;
  u->pids_limit = e->lim.pids;
  u->cpu_quota_us = e->lim.cpu_quota_us;
  if (!exec_cgroup_own (e))
    return 0;
  return cg_exec_usage (e->target, e->name, u, err);
}

int
exec_cgroup_none (const exec_cgroup_opts *o, const struct ocispec_map *annotations, ocisbx_err **err)
{
  exec_cgroup_limits l;

  if (exec_cgroup_limits_get (o, annotations, &l, err) < 0)
    return -1;
  if (l.own || o->n_join)
    return err_setk (err, ERR_UNSUPPORTED, 0,
                     "exec %s: the container has no cgroup (a rootless one has one only where its user was "
                     "delegated a cgroup)",
                     o->n_join ? "--cgroup" : "with a cgroup of its own (--memory, --pids-limit, --cpus, --usage-file)");
  return 0;
}

void
exec_cgroup_free (exec_cgroup *e)
{
  if (e == NULL)
    return;
  /* a failed exec's, or a detached one's whose process is gone already (else kept) */
  remove_own (e, false);
  cgroup_manager_free (e->target);
  free (e->name);
  free (e);
}
