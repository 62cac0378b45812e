/* cgroups: the manager — its hierarchies (found from the runtime's own cgroups at
   create, or rebuilt from the saved cgroup_state by cgroup_load) and the accessors
   over them.  Making the container's cgroups: setup.c; the operations on them
   (kill, freeze, update, destroy): ops.c. */
#include <config.h>

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

static void
hier_free (cg_hier *h)
{
  free (h->name);
  free (h->controllers);
  free (h->path);
  free (h->dir);
  free (h->own);
}

void
cgroup_manager_free (cgroup_manager *m)
{
  if (m == NULL)
    return;
  for (size_t i = 0; i < m->n; i++)
    hier_free (&m->h[i]);
  free (m->h);
  free (m->fs_root);
  free (m->path);
  free (m->denied);
  free (m->unit);
  free (m->slice);
  free (m->sd_id);
  free (m);
}

void
cg_manager_freep (cgroup_manager **m)
{
  cgroup_manager_free (*m);
}

cgroup_layout
cgroup_manager_layout (const cgroup_manager *m)
{
  return m->layout;
}

const char *
cgroup_path (const cgroup_manager *m)
{
  return m->path;
}

const char *
cgroup_path_in (const cgroup_manager *m, const char *hierarchy)
{
  for (size_t i = 0; i < m->n; i++)
    {
      const cg_hier *h = &m->h[i];
      if (hierarchy == NULL || hierarchy[0] == '\0' ? h->v2 : strcmp (h->name, hierarchy) == 0)
        return h->path;
    }
  return NULL;
}

size_t
cgroup_hierarchy_count (const cgroup_manager *m)
{
  return m->n;
}

cgroup_hierarchy
cgroup_hierarchy_at (const cgroup_manager *m, size_t i)
{
  const cg_hier *h = &m->h[i];
  return (cgroup_hierarchy) { .controllers = h->controllers, .path = h->path, .dir = h->dir, .v2 = h->v2 };
}

bool
cgroup_enter_only (const cgroup_manager *m)
{
  return m->rootless || m->unit != NULL;
}

cg_hier *
cg_unified (const cgroup_manager *m)
{
  for (size_t i = 0; i < m->n; i++)
    if (m->h[i].v2)
      return &m->h[i];
  return NULL;
}

cg_hier *
cg_find (const cgroup_manager *m, const char *c)
{
  if (m->layout == CGROUP_LAYOUT_V2)
    return cg_unified (m);
  for (size_t i = 0; i < m->n; i++)
    if (!m->h[i].v2 && cgroup_has_controller (m->h[i].controllers, c))
      return &m->h[i];
  return NULL;
}

cg_hier *
cg_main (const cgroup_manager *m)
{
  static const char *const pref[] = { "freezer", "pids", "memory", "cpu", "name=systemd" };
  cg_hier *h = cg_unified (m);
  if (h)
    return h;
  for (size_t i = 0; i < sizeof pref / sizeof pref[0]; i++)
    if ((h = cg_find (m, pref[i])))
      return h;
  return m->n ? &m->h[0] : NULL;
}

static cg_hier *
add_hier (cgroup_manager *m, const char *name, const char *controllers, bool v2)
{
  cg_hier *h;
  m->h = realloc (m->h, (m->n + 1) * sizeof *m->h);
  if (m->h == NULL)
    abort ();
  h = &m->h[m->n++];
  memset (h, 0, sizeof *h);
  h->name = xstrdup (name);
  h->controllers = xstrdup (controllers);
  h->v2 = v2;
  return h;
}

void
cg_set_dir (const cgroup_manager *m, cg_hier *h)
{
  free (h->dir);
  if (strcmp (h->path, "/") == 0)
    h->dir = h->name[0] ? xasprintf ("%s/%s", m->fs_root, h->name) : xstrdup (m->fs_root);
  else
    h->dir = h->name[0] ? xasprintf ("%s/%s%s", m->fs_root, h->name, h->path)
                        : xasprintf ("%s%s", m->fs_root, h->path);
}

bool
cg_is_dir (const char *p)
{
  struct stat st;
  return stat (p, &st) == 0 && S_ISDIR (st.st_mode);
}

/* The hierarchies the container joins: on v1 every mounted one from our own
   /proc/self/cgroup (including named ones such as name=systemd), on hybrid also
   the unified one, on v2 the single cgroup2 tree. */
static int
add_hierarchies (cgroup_manager *m, const cgroup_config *cc, const cg_own *own, size_t nown,
                 ocisbx_err **err)
{
  const char *own_v2 = "/";

  for (size_t i = 0; i < nown; i++)
    if (own[i].controllers[0] == '\0')
      own_v2 = own[i].path;

  if (m->layout == CGROUP_LAYOUT_V2)
    {
      cg_hier *h = add_hier (m, "", "", true);
      h->path = cg_resolve_path (cc, own_v2, err);
      return h->path == NULL ? -1 : 0;
    }
  for (size_t i = 0; i < nown; i++)
    {
      cleanup_free char *name = NULL;
      cleanup_free char *mnt = NULL;
      cg_hier *h;
      bool dup = false;

      if (own[i].controllers[0] == '\0')
        continue;
      name = cg_v1_dirname (own[i].controllers);
      for (size_t j = 0; j < m->n; j++)
        dup |= strcmp (m->h[j].name, name) == 0;
      mnt = xasprintf ("%s/%s", m->fs_root, name);
      if (dup || !cg_is_dir (mnt))
        {
          log_debug ("cgroups: hierarchy %s not mounted at `%s`, skipped", own[i].controllers, mnt);
          continue;
        }
      h = add_hier (m, name, own[i].controllers, false);
      h->own = xstrdup (own[i].path);
      h->path = cg_resolve_path (cc, own[i].path, err);
      if (h->path == NULL)
        return -1;
    }
  if (m->layout == CGROUP_LAYOUT_HYBRID)
    {
      cg_hier *h = add_hier (m, "unified", "", true);
      h->path = cg_resolve_path (cc, own_v2, err);
      if (h->path == NULL)
        return -1;
    }
  return 0;
}

int
cg_find_hierarchies (cgroup_manager *m, const cgroup_config *cc, ocisbx_err **err)
{
  cg_own *own = NULL;
  size_t nown = 0;
  bool need_own = m->layout != CGROUP_LAYOUT_V2
                  || (!cc->systemd && cc->cgroups_path && cc->cgroups_path[0] && cc->cgroups_path[0] != '/');
  int ret;

  if (need_own && cg_read_own (cc->proc_cgroup ? cc->proc_cgroup : "/proc/self/cgroup", &own, &nown, err) < 0)
    return -1;
  ret = add_hierarchies (m, cc, own, nown, err);
  cg_own_free (own, nown);
  return ret;
}

void
cg_pick_path (cgroup_manager *m)
{
  cg_hier *h = cg_main (m);
  free (m->path);
  m->path = xstrdup (h ? h->path : "/");
}

char *
cgroup_own_tasks_v1 (const cgroup_manager *m, const char *controller)
{
  for (size_t i = 0; i < m->n; i++)
    {
      const cg_hier *h = &m->h[i];
      if (!h->v2 && h->own && cgroup_has_controller (h->controllers, controller) && strcmp (h->own, h->path) != 0)
        return strcmp (h->own, "/") == 0 ? xasprintf ("%s/%s/tasks", m->fs_root, h->name)
                                         : xasprintf ("%s/%s%s/tasks", m->fs_root, h->name, h->own);
    }
  return NULL;
}

bool
cgroup_manager_empty (const cgroup_manager *m)
{
  return m->rootless && m->n == 0;
}

int
cgroup_load (const char *fs_root, const cgroup_state *s, cgroup_manager **out, ocisbx_err **err)
{
  cleanup_cg_manager cgroup_manager *m = xmalloc0 (sizeof *m);
  const char *l = s->layout ? s->layout : "";

  m->fs_root = xstrdup (fs_root ? fs_root : CGROUP_FS_ROOT);
  m->fs = cg_fs;
  m->layout = strcmp (l, "v1") == 0       ? CGROUP_LAYOUT_V1
              : strcmp (l, "hybrid") == 0 ? CGROUP_LAYOUT_HYBRID
              : strcmp (l, "v2") == 0     ? CGROUP_LAYOUT_V2
                                          : CGROUP_LAYOUT_AUTO;
  m->rootless = s->rootless;
  if (s->systemd_unit)
    {
      m->unit = xstrdup (s->systemd_unit);
      m->slice = xstrdup (s->systemd_slice ? s->systemd_slice : "");
    }
  for (size_t i = 0; i < s->hierarchies_len; i++)
    {
      const cgroup_state_hierarchy *sh = &s->hierarchies[i];
      cg_hier *h = add_hier (m, sh->name, sh->controllers, sh->v2);
      h->created = sh->created;
      h->path = xstrdup (sh->path);
      cg_set_dir (m, h);
    }
  if (m->layout == CGROUP_LAYOUT_AUTO || (m->n == 0 && !m->rootless))
    return err_set (err, EINVAL, "cgroups: incomplete serialized state");
  cg_pick_path (m);
  *out = steal_ptr (&m);
  return 0;
}
