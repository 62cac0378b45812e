/* Container-level cgroup operations for the CLI (see ops.h). */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "core/container/state.h"
#include "core/utils.h"
#include "core/cgroups/internal.h"
#include "core/cgroups/ops.h"

struct cgops_container
{
  int dirfd;
  container_state *st;
  cgroup_manager *m;
};

void
cgops_close (cgops_container *c)
{
  if (c == NULL)
    return;
  if (c->dirfd >= 0)
    close (c->dirfd);
  container_state_free (c->st);
  cgroup_manager_free (c->m);
  free (c);
}

static void
ccg_freep (cgops_container **c)
{
  cgops_close (*c);
}
#define cleanup_ccg __attribute__ ((cleanup (ccg_freep)))

static int
open_container (const char *root, const char *id, int lock, cgops_container **out, ocisbx_err **err)
{
  cleanup_ccg cgops_container *c = xmalloc0 (sizeof *c);
  cleanup_close int rootfd = -1;

  c->dirfd = -1;
  if (state_validate_id (id, err) < 0)
    return -1;
  rootfd = state_root_open (root, false, err);
  if (rootfd < 0)
    return -1;
  c->dirfd = state_dir_open (rootfd, id, lock, err);
  if (c->dirfd < 0)
    return -1;
  if (state_read (c->dirfd, id, &c->st, err) < 0)
    return -1;
  if (c->st->cgroup == NULL || c->st->cgroup[0] == '\0')
    return err_set (err, ENOENT, "container `%s` has no cgroups", id);
  if (cgroup_load (NULL, c->st->cgroup, &c->m, err) < 0)
    return err_wrap (err, "container `%s`", id);
  if (c->m->rootless && c->m->n == 0)
    return err_set (err, 0,
                    "container `%s` has no cgroup: it was created rootless, and no cgroup was writable by its "
                    "user (delegate a subtree to it and set linux.cgroupsPath there)",
                    id);
  *out = steal_ptr (&c);
  return 0;
}

int
cgops_open (const char *root, const char *id, cgops_container **out, ocisbx_err **err)
{
  cleanup_ccg cgops_container *c = NULL;
  if (open_container (root, id, 0, &c, err) < 0)
    return -1;
  if (state_status (c->dirfd, c->st) == STATUS_STOPPED)
    return err_set (err, 0, "container `%s` is not running", id);
  *out = steal_ptr (&c);
  return 0;
}

cgroup_manager *
cgops_manager (cgops_container *c)
{
  return c->m;
}

bool
cgops_alive (cgops_container *c)
{
  return state_init_alive (c->st);
}

int
cgops_pause (const char *root, const char *id, bool pause, ocisbx_err **err)
{
  cleanup_ccg cgops_container *c = NULL;
  container_status s;

  if (open_container (root, id, LOCK_EX, &c, err) < 0)
    return -1;
  s = state_status (c->dirfd, c->st);
  if (pause && s != STATUS_RUNNING)
    return err_set (err, 0, "container `%s` is %s, not running", id, container_status_name (s));
  if (!pause && s != STATUS_PAUSED)
    return err_set (err, 0, "container `%s` is %s, not paused", id, container_status_name (s));
  return cgroup_freeze (c->m, pause, err);
}

int
cgops_pids (const char *root, const char *id, pid_t **pids, size_t *n, ocisbx_err **err)
{
  cleanup_ccg cgops_container *c = NULL;

  if (open_container (root, id, 0, &c, err) < 0)
    return -1;
  if (cgroup_pids (c->m, pids, n, err) == 0)
    return 0;
  /* A stopped container has what is left in its cgroups (without a pid namespace of its
     own children outlive the init), or nothing once they are gone: no error, as runc. */
  if (state_status (c->dirfd, c->st) == STATUS_STOPPED && (*err)->errnum == ENOENT)
    {
      err_freep (err);
      *pids = NULL;
      *n = 0;
      return 0;
    }
  return -1;
}

int
cgops_update (const char *root, const char *id, const oci_resources *res, ocisbx_err **err)
{
  cleanup_ccg cgops_container *c = NULL;

  if (open_container (root, id, LOCK_EX, &c, err) < 0)
    return -1;
  if (state_status (c->dirfd, c->st) == STATUS_STOPPED)
    return err_set (err, 0, "container `%s` is stopped", id);
  return cgroup_update (c->m, res, err);
}

/* The resources object is parsed as the linux.resources of a minimal config, so the
   field table (and its errors) is libocispec's. */
int
cgops_resources_parse (const char *json, size_t len, oci_resources **out, void **owner, ocisbx_err **err)
{
  cleanup_free char *doc = NULL;
  char *perr = NULL;
  oci_config *c = NULL;
  size_t skip = 0;

  while (skip < len && strchr (" \t\r\n", json[skip]))
    skip++;
  if (skip == len || json[skip] != '{')
    return err_set (err, 0, "resources: expected a JSON object");
  doc = xasprintf ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":%.*s}}", (int) (len - skip), json + skip);
  if (ocispec_parse (&oci_config_type, "resources", doc, strlen (doc), (void **) &c, &perr) < 0)
    return err_take (err, 0, perr);
  if (c->linux_ == NULL || c->linux_->resources == NULL)
    {
      ocispec_free (&oci_config_type, c);
      return err_set (err, 0, "resources: expected a JSON object");
    }
  *out = c->linux_->resources;
  *owner = c;
  return 0;
}

void
cgops_resources_free (void *owner)
{
  if (owner)
    ocispec_free (&oci_config_type, owner);
}
