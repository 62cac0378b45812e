/* cgroups: making the container's cgroups — cgroup_setup (the creation plan written
   to the record, each level made, leftovers adopted, the resources written) and
   cgroup_enter (the init moved in; --systemd-cgroup: the scope started with it). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

/* mkdir -p of the container's cgroup in H, counting the components we created.
   Between levels: on v2 the parent's subtree_control, on v1 cpuset the parent's
   cpus and mems. */
static int
create_one (cgroup_manager *m, cg_hier *h, const oci_resources *res, ocisbx_err **err)
{
  /* Usually only the leaf is missing: one mkdir of H's dir (cg_set_dir).  v2 needs each level's
     subtree_control on the way down, and anything else (a missing parent, an
     error) takes the walk below, which reports it. */
  if (!(h->v2 && m->layout == CGROUP_LAYOUT_V2) && strcmp (h->path, "/") != 0 && h->path[0] != '\0')
    {
      if (m->fs->mkdir (h->dir, 0755) == 0)
        {
          h->created = 1;
          if (!h->v2 && cgroup_has_controller (h->controllers, "cpuset") && cg_v1_cpuset_init (m, h->dir, err) < 0)
            return -1;
          return 0;
        }
      if (errno == EEXIST)
        {
          /* someone else's cgroup (a pod's, the engine's): joinable once its cpuset
             has cpus and mems */
          h->created = 0;
          if (!h->v2 && cgroup_has_controller (h->controllers, "cpuset"))
            return cg_v1_cpuset_init (m, h->dir, err);
          return 0;
        }
    }
  for (int attempt = 0;; attempt++)
    {
      cleanup_free char *cur = h->name[0] ? xasprintf ("%s/%s", m->fs_root, h->name) : xstrdup (m->fs_root);
      cleanup_free char *copy = xstrdup (h->path);
      char *save = NULL;
      unsigned depth = 0, ncomp = 0;
      bool lost_race = false;

      h->created = 0;
      for (char *c = copy; *c; c++)
        ncomp += *c == '/' && c[1] != '\0';
      for (char *c = strtok_r (copy, "/", &save); c; c = strtok_r (NULL, "/", &save))
        {
          char *next = xasprintf ("%s/%s", cur, c);
          depth++;
          if (h->v2 && m->layout == CGROUP_LAYOUT_V2 && cg_v2_enable_level (m, cur, res, err) < 0)
            {
              free (next);
              return -1;
            }
          free (cur);
          cur = next;
          if (m->fs->mkdir (cur, 0755) == 0)
            {
              if (h->created == 0)
                h->created = ncomp - depth + 1;
              if (!h->v2 && cgroup_has_controller (h->controllers, "cpuset"))
                {
                  if (cg_v1_cpuset_init (m, cur, err) < 0)
                    return -1;
                  /* A level we made above the leaf: let the kernel give its new
                     children its cpus and mems at mkdir, which spares their copy
                     (cg_v1_cpuset_init finds them set).  Best effort. */
                  if ((unsigned) depth < ncomp)
                    cg_v1_clone_children (m, cur);
                }
              continue;
            }
          if (errno == EEXIST && h->created == 0)
            continue;
          if (errno == ENOENT && h->created == 0 && attempt < 5)
            {
              /* A parent shared with another container vanished under us. */
              lost_race = true;
              break;
            }
          return err_set (err, errno, "cgroups: mkdir `%s`", cur);
        }
      if (!lost_race)
        return 0;
    }
}

/* The creation plan: each hierarchy's CREATED is the number of trailing levels of its
   path that do not exist yet, which create_one will make.  Written down (cc->record)
   before the first mkdir, it lets a clean-up after a create killed at any point remove
   exactly those, and never a level that was there before: see
   container/cgroup_record.h.  A level another create makes between the plan and our
   mkdir is recorded as ours until the record is rewritten after create_one; two
   containers racing for one leaf is the only way that matters. */
static void
plan_created (cgroup_manager *m)
{
  for (size_t i = 0; i < m->n; i++)
    {
      cg_hier *h = &m->h[i];
      cleanup_free char *dir = xstrdup (h->dir);
      unsigned depth = 0;

      for (const char *c = h->path; *c; c++)
        depth += *c == '/' && c[1] != '\0';
      h->created = 0;
      while (h->created < depth && !cg_is_dir (dir))
        {
          h->created++;
          *strrchr (dir, '/') = '\0';
        }
    }
}

/* The processes of each hierarchy's cgroup (N[i]; SIZE_MAX: unreadable), for
   adopt_leftovers and warn_not_empty.  A cgroup this create made (created) is empty:
   not read, so a new container costs no read here. */
static void
count_procs (cgroup_manager *m, size_t *n)
{
  for (size_t i = 0; i < m->n; i++)
    {
      cleanup_free char *procs = NULL;
      cleanup_err ocisbx_err *e = NULL;

      n[i] = 0;
      if (m->h[i].created != 0)
        continue;
      if (cg_read_h (&m->h[i], "cgroup.procs", &procs, &e) < 0)
        {
          n[i] = SIZE_MAX;
          continue;
        }
      for (const char *p = procs; *p; p++)
        n[i] += *p == '\n' || (p[1] == '\0' && *p != '\n');
    }
}

/* /ocisbx/<id> is the runtime's own name for the container with ID: one that exists
   already, empty (no process, no sub-cgroup), is a leftover of an earlier container
   of that id (a create killed by an older version, a state dir removed by hand), and
   becomes this one's, removed with it instead of kept as someone else's. */
static void
adopt_leftovers (cgroup_manager *m, const size_t *procs)
{
  for (size_t i = 0; i < m->n; i++)
    {
      cg_hier *h = &m->h[i];
      cleanup_dir DIR *d = NULL;
      struct dirent *de;
      bool empty;

      if (h->created != 0 || procs[i] != 0 || (d = opendir (h->dir)) == NULL)
        continue;
      empty = true;
      while (empty && (de = readdir (d)))
        empty = de->d_type != DT_DIR || de->d_name[0] == '.';
      if (empty)
        h->created = 1;
    }
}

/* A cgroup that already holds processes is shared with them: kill --all, pause and
   delete of this container reach them too.  Allowed (as runc), said in runc's words. */
static void
warn_not_empty (const cgroup_manager *m, const size_t *procs)
{
  size_t most = 0;

  for (size_t i = 0; i < m->n; i++)
    if (procs[i] != SIZE_MAX && procs[i] > most)
      most = procs[i];
  if (most > 0)
    log_warning ("container's cgroup is not empty: %zu process(es) found", most);
}

/* A cgroup frozen before the container exists (left so, or under a frozen parent)
   would stop the init as it joins, and create would hang: refuse it at once. */
static int
refuse_frozen (cgroup_manager *m, ocisbx_err **err)
{
  cg_hier *h = m->layout == CGROUP_LAYOUT_V2 ? cg_unified (m) : cg_find (m, "freezer");
  cleanup_err ocisbx_err *e = NULL;
  cleanup_free char *s = NULL;
  uint64_t frozen = 0;

  if (h == NULL)
    return 0;
  if (h->v2)
    {
      if (cg_read_keyed (h, "cgroup.events", "frozen", &frozen, &e) != 0 || frozen == 0)
        return 0;
    }
  else if (cg_read_h (h, "freezer.state", &s, &e) < 0
           || (strncmp (s, "FROZEN", 6) != 0 && strncmp (s, "FREEZING", 8) != 0))
    return 0;
  return err_set (err, EBUSY, "container's cgroup unexpectedly frozen: `%s` (thaw it first)", h->dir);
}

/* --systemd-cgroup: nothing is made before the init exists (systemd starts the scope
   with it: cgroup_enter); the record names the unit, so that a create killed from now
   on leaves nothing delete cannot stop. */
static int
plan_systemd (cgroup_manager *m, const cgroup_config *cc, ocisbx_err **err)
{
  size_t ul;

  if (m->rootless)
    return err_setk (err, ERR_UNSUPPORTED, ENOTSUP,
                     "--systemd-cgroup: rootless containers (systemd's user manager) are not supported");
  if (cg_systemd_names (cc, &m->slice, &m->unit, err) < 0)
    return -1;
  ul = strlen (m->unit);
  if (ul < 6 || strcmp (m->unit + ul - 6, ".scope") != 0)
    return err_set (err, 0, ".linux.cgroupsPath: \"%s\": the unit must be a scope (a name not ending in .slice)",
                    cc->cgroups_path);
  m->unit_pending = true;
  m->sd_id = xstrdup (cc->id ? cc->id : "");
  m->pending_res = cc->resources;
  m->record = cc->record;
  m->record_arg = cc->record_arg;
  if (cc->record)
    {
      cleanup_free char *plan = cgroup_serialize (m);
      if (cc->record (cc->record_arg, plan, err) < 0)
        return -1;
    }
  return 0;
}

/* The scope started with PID: systemd made its cgroups; we make the others (recorded
   first), move PID into all and write the resources, as without systemd. */
static int
enter_systemd (cgroup_manager *m, pid_t pid, ocisbx_err **err)
{
  cleanup_free char *plan = NULL;
  cleanup_free char *made = NULL;

  if (cg_systemd_start (m, pid, err) < 0)
    return -1;
  m->unit_pending = false;
  plan_created (m);
  plan = cgroup_serialize (m);
  if (m->record && m->record (m->record_arg, plan, err) < 0)
    return -1;
  for (size_t i = 0; i < m->n; i++)
    if (create_one (m, &m->h[i], m->pending_res, err) < 0)
      return -1;
  made = cgroup_serialize (m);
  if (m->record && strcmp (made, plan) != 0 && m->record (m->record_arg, made, err) < 0)
    return -1;
  if (cgroup_enter (m, pid, err) < 0)
    return -1;
  return cg_apply_resources (m, m->pending_res, false, err);
}

/* cgroup_setup's making part: every planned level made (rootless: a hierarchy it may
   not write is left out), the record updated if what was made differs from the plan,
   the resources written.  On failure the caller removes what was made. */
static int
create_and_apply (cgroup_manager *m, const cgroup_config *cc, const char *plan, ocisbx_err **err)
{
  cg_rootless_storage rs;
  cleanup_free size_t *procs = NULL;

  for (size_t i = 0; i < m->n; i++)
    if (create_one (m, &m->h[i], cc->resources, err) < 0)
      {
        int e = (*err)->errnum;
        if (!m->rootless || (e != EACCES && e != EPERM && e != EROFS))
          return -1;
        /* Rootless: live without this hierarchy; the limits that need it are
           dropped with a warning (unprivileged.c). */
        cg_rootless_drop (m, i, (*err)->msg);
        err_freep (err);
        i--;
      }
  cg_pick_path (m);
  procs = xmalloc ((m->n + 1) * sizeof *procs);
  count_procs (m, procs);
  warn_not_empty (m, procs);
  if (!cc->systemd && (cc->cgroups_path == NULL || cc->cgroups_path[0] == '\0'))
    adopt_leftovers (m, procs);
  if (refuse_frozen (m, err) < 0)
    return -1;
  if (plan)
    {
      cleanup_free char *made = cgroup_serialize (m);
      if (strcmp (made, plan) != 0 && cc->record (cc->record_arg, made, err) < 0)
        return -1;
    }
  return cg_apply_resources (m, cg_rootless_resources (m, cc->resources, &rs), false, err);
}

int
cgroup_setup (const cgroup_config *cc, cgroup_manager **out, ocisbx_err **err)
{
  cleanup_cg_manager cgroup_manager *m = xmalloc0 (sizeof *m);
  cleanup_free char *plan = NULL;

  m->fs_root = xstrdup (cc->fs_root ? cc->fs_root : CGROUP_FS_ROOT);
  m->layout = cc->layout != CGROUP_LAYOUT_AUTO ? cc->layout : cgroup_detect_layout (m->fs_root);
  m->fs = cg_fs;
  m->rootless = cc->rootless;

  if (cg_check_unified (m, cc->resources, err) < 0)
    return -1;
  if (cc->systemd && cg_systemd_check (err) < 0)
    return -1;
  if (cg_find_hierarchies (m, cc, err) < 0)
    return -1;
  if (m->n == 0)
    return err_set (err, ENOENT, "cgroups: no cgroup hierarchy mounted under `%s`", m->fs_root);
  for (size_t i = 0; i < m->n; i++)
    cg_set_dir (m, &m->h[i]);
  cg_pick_path (m);
  if (cc->systemd)
    {
      if (plan_systemd (m, cc, err) < 0)
        return -1;
      *out = steal_ptr (&m);
      return 0;
    }
  if (cc->record)
    {
      plan_created (m);
      plan = cgroup_serialize (m);
      if (cc->record (cc->record_arg, plan, err) < 0)
        return -1;
    }

  if (create_and_apply (m, cc, plan, err) < 0)
    {
      /* What was made goes again; the caller sees the first error. */
      cleanup_err ocisbx_err *e2 = NULL;
      cgroup_destroy (m, &e2);
      return -1;
    }
  log_debug ("cgroups: %s layout, cgroup %s", cgroup_layout_name (m->layout), m->path);
  *out = steal_ptr (&m);
  return 0;
}

int
cgroup_enter (cgroup_manager *m, pid_t pid, ocisbx_err **err)
{
  char buf[32];
  if (m->unit_pending)
    return enter_systemd (m, pid, err);
  snprintf (buf, sizeof buf, "%d", (int) pid);
  for (size_t i = 0; i < m->n; i++)
    if (cg_write_h (m, &m->h[i], "cgroup.procs", buf, err) < 0)
      {
        err_wrap (err, "cgroups: join %s", m->h[i].name[0] ? m->h[i].name : "cgroup2");
        if (cg_rootless_enter (m, i, err) < 0)
          return -1;
        i--;
      }
  return 0;
}
