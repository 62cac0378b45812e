/* cgroups: the manager — which hierarchies, creating and removing the container's
   cgroups, joining them, and the serialized form kept in the container's state. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/internal.h"

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

static void
manager_freep (cgroup_manager **m)
{
  cgroup_manager_free (*m);
}
#define cleanup_manager __attribute__ ((cleanup (manager_freep)))

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
  return m->fake || m->rootless || m->unit != NULL;
}

/* A root other than the host's that is no cgroup2 mount stands in for the hierarchies
   (unit tests; a real cgroup v1 is only ever used at CGROUP_FS_ROOT). */
static bool
plain_tree (const char *fs_root)
{
  struct statfs sfs;
  return strcmp (fs_root, CGROUP_FS_ROOT) != 0 && !(statfs (fs_root, &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC);
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

static void
set_dir (const cgroup_manager *m, cg_hier *h)
{
  free (h->dir);
  if (strcmp (h->path, "/") == 0)
    h->dir = h->name[0] ? xasprintf ("%s/%s", m->fs_root, h->name) : xstrdup (m->fs_root);
  else
    h->dir = h->name[0] ? xasprintf ("%s/%s%s", m->fs_root, h->name, h->path)
                        : xasprintf ("%s%s", m->fs_root, h->path);
}

static bool
is_dir (const char *p)
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
      if (dup || !is_dir (mnt))
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

static int
find_hierarchies (cgroup_manager *m, const cgroup_config *cc, ocisbx_err **err)
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

/* Unit-test trees: a new cgroup gets (empty) control files named as its parent's,
   as the kernel would create them. */
static void
fake_populate (const char *dir)
{
  cleanup_free char *parent = xstrdup (dir);
  cleanup_dir DIR *d = NULL;
  struct dirent *de;
  char *slash = strrchr (parent, '/');

  if (slash == NULL)
    return;
  *slash = '\0';
  d = opendir (parent);
  while (d && (de = readdir (d)))
    {
      cleanup_free char *f = NULL;
      int fd;
      if (de->d_type != DT_REG)
        continue;
      f = xasprintf ("%s/%s", dir, de->d_name);
      fd = open (f, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
      if (fd >= 0)
        close (fd);
    }
}

/* mkdir -p of the container's cgroup in H, counting the components we created.
   Between levels: on v2 the parent's subtree_control, on v1 cpuset the parent's
   cpus and mems. */
static int
create_one (cgroup_manager *m, cg_hier *h, const oci_resources *res, ocisbx_err **err)
{
  /* Usually only the leaf is missing: one mkdir of H's dir (set_dir).  v2 needs each level's
     subtree_control on the way down, and anything else (a missing parent, an
     error) takes the walk below, which reports it. */
  if (!(h->v2 && m->layout == CGROUP_LAYOUT_V2) && strcmp (h->path, "/") != 0 && h->path[0] != '\0')
    {
      if (mkdir (h->dir, 0755) == 0)
        {
          if (m->fake)
            fake_populate (h->dir);
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
          if (mkdir (cur, 0755) == 0)
            {
              if (m->fake)
                fake_populate (cur);
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
      while (h->created < depth && !is_dir (dir))
        {
          h->created++;
          *strrchr (dir, '/') = '\0';
        }
    }
}

/* /ocisbx/<id> is the runtime's own name for the container with ID: one that exists
   already, empty (no process, no sub-cgroup), is a leftover of an earlier container
   of that id (a create killed by an older version, a state dir removed by hand), and
   becomes this one's, removed with it instead of kept as someone else's. */
static void
adopt_leftovers (cgroup_manager *m)
{
  for (size_t i = 0; i < m->n; i++)
    {
      cg_hier *h = &m->h[i];
      cleanup_free char *procs = NULL;
      cleanup_err ocisbx_err *e = NULL;
      cleanup_dir DIR *d = NULL;
      struct dirent *de;
      bool empty;

      if (h->created != 0 || cg_read_h (h, "cgroup.procs", &procs, &e) < 0 || procs[0] != '\0'
          || (d = opendir (h->dir)) == NULL)
        continue;
      empty = true;
      while (empty && (de = readdir (d)))
        empty = de->d_type != DT_DIR || de->d_name[0] == '.';
      if (empty)
        h->created = 1;
    }
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

static int
apply_resources (cgroup_manager *m, const oci_resources *res, bool update, ocisbx_err **err)
{
  cleanup_free cg_dev_rule *rules = NULL;
  size_t nrules = 0;
  static const oci_resources empty;

  if (res == NULL)
    res = &empty;
  if (m->layout == CGROUP_LAYOUT_V2)
    {
      if (cg_apply_v2 (m, res, update, err) < 0)
        return -1;
    }
  else if (cg_apply_v1 (m, res, update, err) < 0)
    return -1;
  if (res->unified.len > 0 && cg_apply_unified (m, res, err) < 0)
    return -1;

  /* Devices: at create always (deny all, the rules, the default allow list); on
     update only when the update carries rules. */
  if ((update && res->devices_len == 0) || m->rootless)
    return 0;
  if (cg_dev_rules (res, true, &rules, &nrules, err) < 0)
    return -1;
  if (m->layout == CGROUP_LAYOUT_V2)
    {
      cg_hier *u = cg_unified (m);
      if (m->fake)
        return 0;
      if (cg_ebpf_attach (u->dir, rules, nrules, err) < 0)
        return err_wrap (err, ".linux.resources.devices");
      return 0;
    }
  if (cg_find (m, "devices") == NULL)
    {
      if (res->devices_len == 0)
        return 0;
      return err_set (err, 0, ".linux.resources.devices: the devices cgroup controller is not mounted");
    }
  return update ? cg_devices_v1_update (m, rules, nrules, err) : cg_devices_v1 (m, rules, nrules, err);
}

static void
pick_path (cgroup_manager *m)
{
  cg_hier *h = cg_main (m);
  free (m->path);
  m->path = xstrdup (h ? h->path : "/");
}

/* linux.resources.unified names cgroup2 files: on v1 and on hybrid (v1 controllers,
   whatever the unified hierarchy carries) an error, in runc's words. */
static int
check_unified (const cgroup_manager *m, const oci_resources *res, ocisbx_err **err)
{
  if (m->layout == CGROUP_LAYOUT_V2 || res == NULL || res->unified.len == 0)
    return 0;
  return err_set (err, 0, "invalid configuration: .linux.resources.unified: cannot use unified on cgroup v1 (this "
                          "host has the %s layout)",
                  cgroup_layout_name (m->layout));
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
  return apply_resources (m, m->pending_res, false, err);
}

/* cgroup_setup's making part: every planned level made (rootless: a hierarchy it may
   not write is left out), the record updated if what was made differs from the plan,
   the resources written.  On failure the caller removes what was made. */
static int
create_and_apply (cgroup_manager *m, const cgroup_config *cc, const char *plan, ocisbx_err **err)
{
  cg_rootless_storage rs;

  for (size_t i = 0; i < m->n; i++)
    if (create_one (m, &m->h[i], cc->resources, err) < 0)
      {
        int e = (*err)->errnum;
        if (!m->rootless || (e != EACCES && e != EPERM && e != EROFS))
          return -1;
        /* Rootless: live without this hierarchy; the limits that need it are
           dropped with a warning (rootless.c). */
        cg_rootless_drop (m, i, (*err)->msg);
        err_freep (err);
        i--;
      }
  pick_path (m);
  if (!cc->systemd && (cc->cgroups_path == NULL || cc->cgroups_path[0] == '\0'))
    adopt_leftovers (m);
  if (refuse_frozen (m, err) < 0)
    return -1;
  if (plan)
    {
      cleanup_free char *made = cgroup_serialize (m);
      if (strcmp (made, plan) != 0 && cc->record (cc->record_arg, made, err) < 0)
        return -1;
    }
  return apply_resources (m, cg_rootless_resources (m, cc->resources, &rs), false, err);
}

int
cgroup_setup (const cgroup_config *cc, cgroup_manager **out, ocisbx_err **err)
{
  cleanup_manager cgroup_manager *m = xmalloc0 (sizeof *m);
  cleanup_free char *plan = NULL;

  m->fs_root = xstrdup (cc->fs_root ? cc->fs_root : CGROUP_FS_ROOT);
  m->layout = cc->layout != CGROUP_LAYOUT_AUTO ? cc->layout : cgroup_detect_layout (m->fs_root);
  m->fake = plain_tree (m->fs_root);
  m->rootless = cc->rootless;

  if (check_unified (m, cc->resources, err) < 0)
    return -1;
  if (cc->systemd && !m->fake && cg_systemd_check (err) < 0)
    return -1;
  if (find_hierarchies (m, cc, err) < 0)
    return -1;
  if (m->n == 0)
    return err_set (err, ENOENT, "cgroups: no cgroup hierarchy mounted under `%s`", m->fs_root);
  for (size_t i = 0; i < m->n; i++)
    set_dir (m, &m->h[i]);
  pick_path (m);
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

bool
cgroup_manager_empty (const cgroup_manager *m)
{
  return m->rootless && m->n == 0;
}

int
cgroup_load (const char *fs_root, const cgroup_state *s, cgroup_manager **out, ocisbx_err **err)
{
  cleanup_manager cgroup_manager *m = xmalloc0 (sizeof *m);
  const char *l = s->layout ? s->layout : "";

  m->fs_root = xstrdup (fs_root ? fs_root : CGROUP_FS_ROOT);
  m->fake = plain_tree (m->fs_root);
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
      set_dir (m, h);
    }
  if (m->layout == CGROUP_LAYOUT_AUTO || (m->n == 0 && !m->rootless))
    return err_set (err, EINVAL, "cgroups: incomplete serialized state");
  pick_path (m);
  *out = steal_ptr (&m);
  return 0;
}

int
cg_remove_hier (cgroup_manager *m, cg_hier *h, ocisbx_err **err)
{
  cleanup_free char *dir = NULL;

  if (h->created == 0)
    return 0;
  if (cg_remove_tree (m, h->dir, err) < 0)
    return -1;
  /* The parents we created, as long as nobody else uses them. */
  dir = xstrdup (h->dir);
  for (unsigned k = 1; k < h->created; k++)
    {
      char *slash = strrchr (dir, '/');
      if (slash == NULL)
        break;
      *slash = '\0';
      if (m->fake)
        cg_fake_clear (dir);
      if (rmdir (dir) < 0)
        break;
    }
  return 0;
}

int
cgroup_destroy (cgroup_manager *m, ocisbx_err **err)
{
  int ret = 0;
  cg_hier *u = cg_unified (m);
  cg_hier *fr = m->layout == CGROUP_LAYOUT_V2 ? u : cg_find (m, "freezer");
  cleanup_err ocisbx_err *e0 = NULL;
  bool frozen = false;

  /* A paused container: kill and thaw first, or its tasks never leave.  Not a cgroup
     that was there before and frozen by someone else (refuse_frozen). */
  if (!m->fake && fr && (fr->created > 0 || m->unit) && cgroup_is_frozen (m, &frozen, &e0) == 0 && frozen)
    cgroup_kill_all (m, SIGKILL, &e0);
  err_freep (&e0);
  /* systemd's scope: stopping it removes the cgroups systemd made; we remove ours */
  if (m->unit && !m->unit_pending && cg_systemd_stop (m, err) < 0)
    ret = -1;
  /* cgroup2 first: cgroup.kill empties the cgroup in one write. */
  if (u && cg_remove_hier (m, u, err) < 0)
    ret = -1;
  for (size_t i = 0; i < m->n; i++)
    {
      cleanup_err ocisbx_err *e = NULL;
      if (&m->h[i] == u)
        continue;
      if (!m->fake && cgroup_has_controller (m->h[i].controllers, "cpu"))
        cg_v1_rt_release (m, &m->h[i]);
      if (cg_remove_hier (m, &m->h[i], ret == 0 ? err : &e) < 0)
        ret = -1;
    }
  return ret;
}

int
cgroup_pids (cgroup_manager *m, pid_t **pids, size_t *n, ocisbx_err **err)
{
  cg_hier *h = cg_main (m);
  if (h == NULL)
    {
      *pids = NULL;
      *n = 0;
      return 0;
    }
  if (cg_read_pids (h->dir, true, pids, n, err) < 0)
    return err_wrap (err, "cgroups: list processes");
  return 0;
}

/* v1 freezer: frozen tasks do not die until thawed, so a SIGKILL to a paused
   container thaws it afterwards; other signals wait for resume. */
int
cgroup_kill_all (cgroup_manager *m, int sig, ocisbx_err **err)
{
  cg_hier *u = cg_unified (m);
  cg_hier *fr = m->layout == CGROUP_LAYOUT_V2 ? NULL : cg_find (m, "freezer");
  cleanup_free pid_t *pids = NULL;
  cleanup_err ocisbx_err *e = NULL;
  bool was_frozen = false, froze = false;
  size_t n = 0;

  if (m->n == 0) /* rootless without any cgroup: the caller signals what it knows */
    return err_set (err, ENOENT, "cgroups: the container has no cgroup to list its processes");
  if (fr && cgroup_is_frozen (m, &was_frozen, &e) < 0)
    err_freep (&e);
  if (u && sig == SIGKILL)
    {
      cleanup_free char *kf = cg_file (u, "cgroup.kill");
      if (access (kf, F_OK) == 0)
        {
          if (cg_write_file (m, kf, "1", err) < 0)
            return -1;
          if (was_frozen)
            cg_v1_freeze (m, fr, false, &e);
          return 0;
        }
    }
  /* v1: freeze so that nothing forks between listing and signalling. */
  if (fr && !was_frozen)
    froze = cg_v1_freeze (m, fr, true, &e) == 0;
  err_freep (&e);
  if (cgroup_pids (m, &pids, &n, err) < 0)
    {
      if (froze)
        cg_v1_freeze (m, fr, false, &e);
      return -1;
    }
  for (size_t i = 0; i < n; i++)
    if (kill (pids[i], sig) < 0 && errno != ESRCH)
      log_warning ("cgroups: kill %d: %s", (int) pids[i], strerror (errno));
  if (froze || (was_frozen && sig == SIGKILL))
    cg_v1_freeze (m, fr, false, &e);
  return 0;
}

int
cgroup_freeze (cgroup_manager *m, bool freeze, ocisbx_err **err)
{
  cg_hier *h = m->layout == CGROUP_LAYOUT_V2 ? NULL : cg_find (m, "freezer");
  if (h)
    return cg_v1_freeze (m, h, freeze, err);
  if ((h = cg_unified (m)))
    return cg_v2_freeze (m, h, freeze, err);
  return err_setk (err, ERR_UNSUPPORTED, ENOTSUP, "cgroups: no freezer (neither the v1 freezer nor cgroup2 is mounted)");
}

int
cgroup_is_frozen (cgroup_manager *m, bool *frozen, ocisbx_err **err)
{
  cg_hier *h = m->layout == CGROUP_LAYOUT_V2 ? NULL : cg_find (m, "freezer");
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;

  *frozen = false;
  if (h)
    {
      if (cg_read_h (h, "freezer.state", &s, &e) < 0)
        return e->errnum == ENOENT ? 0 : (*err = steal_ptr (&e), -1);
      *frozen = strncmp (s, "FROZEN", 6) == 0;
      return 0;
    }
  if ((h = cg_unified (m)))
    {
      if (cg_read_h (h, "cgroup.freeze", &s, &e) < 0)
        return e->errnum == ENOENT ? 0 : (*err = steal_ptr (&e), -1);
      *frozen = s[0] == '1';
    }
  return 0;
}

int
cgroup_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err)
{
  if (check_unified (m, res, err) < 0)
    return -1;
  if (m->unit && cg_systemd_update (m, res, err) < 0)
    return -1;
  return apply_resources (m, res, true, err);
}
