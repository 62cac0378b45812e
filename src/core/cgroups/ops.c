/* cgroups: the operations on a container's existing cgroups — listing and signalling
   its processes, freezing and thawing, updating the resources, removing what create
   made. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

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
      if (m->fs->rmdir (dir) < 0)
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
     that was there before and frozen by someone else (refuse_frozen, setup.c). */
  if (fr && (fr->created > 0 || m->unit) && cgroup_is_frozen (m, &frozen, &e0) == 0 && frozen)
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
      if (cgroup_has_controller (m->h[i].controllers, "cpu"))
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

/* Is the freezer cgroup FROZEN_DIR (v1: freezer.state; cgroup2: cgroup.events) frozen
   or freezing? */
static bool
freezer_holds (const char *dir, bool v2)
{
  cleanup_free char *p = xasprintf ("%s/%s", dir, v2 ? "cgroup.events" : "freezer.state");
  cleanup_free char *s = NULL;
  cleanup_err ocisbx_err *e = NULL;

  if (read_file_at (AT_FDCWD, p, &s, NULL, &e) < 0)
    return false;
  if (v2)
    return strstr (s, "\nfrozen 1") != NULL || strncmp (s, "frozen 1", 8) == 0;
  return strncmp (s, "THAWED", 6) != 0;
}

/* Is the cgroup path P TOP or below it? */
static bool
path_within (const char *p, const char *top)
{
  size_t n = strlen (top);
  if (strcmp (top, "/") == 0)
    return true;
  return strncmp (p, top, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

char *
cgroup_frozen_elsewhere (const cgroup_manager *m, pid_t pid)
{
  cleanup_free char *file = xasprintf ("/proc/%d/cgroup", (int) pid);
  const char *fs_root = m ? m->fs_root : CGROUP_FS_ROOT;
  cgroup_layout layout = m ? m->layout : cgroup_detect_layout (fs_root);
  cleanup_err ocisbx_err *e = NULL;
  cg_own *own = NULL;
  size_t n = 0;
  char *found = NULL;

  if (cg_read_own (file, &own, &n, &e) < 0)
    return NULL;
  for (size_t i = 0; i < n && found == NULL; i++)
    {
      bool v2 = own[i].controllers[0] == '\0';
      const cg_hier *h = NULL;
      cleanup_free char *dir = NULL;

      if (v2 && layout != CGROUP_LAYOUT_V1)
        {
          h = m ? cg_unified (m) : NULL;
          dir = xasprintf ("%s%s%s", fs_root, layout == CGROUP_LAYOUT_HYBRID ? "/unified" : "", own[i].path);
        }
      else if (!v2 && cgroup_has_controller (own[i].controllers, "freezer"))
        {
          cleanup_free char *name = cg_v1_dirname (own[i].controllers);
          h = m ? cg_find (m, "freezer") : NULL;
          dir = xasprintf ("%s/%s%s", fs_root, name, own[i].path);
        }
      else
        continue;
      if (h && path_within (own[i].path, h->path))
        continue; /* the container's own (or below it: an exec's, the v2 leaf): delete thaws it */
      if (freezer_holds (dir, v2))
        found = steal_ptr (&dir);
    }
  cg_own_free (own, n);
  return found;
}

int
cgroup_update (cgroup_manager *m, const oci_resources *res, ocisbx_err **err)
{
  if (cg_check_unified (m, res, err) < 0)
    return -1;
  if (m->unit && cg_systemd_update (m, res, err) < 0)
    return -1;
  return cg_apply_resources (m, res, true, err);
}
