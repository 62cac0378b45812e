/* The commands on a container's cgroups: pause, resume, the pids of ps, update. */
#include <config.h>
#include "core/container/container.h"

#include <errno.h>
#include <string.h>
#include <sys/file.h>

#include "core/container/handle.h"
#include "core/utils.h"

int
container_open_cgroups (const char *root, const char *id, int lock, container_handle *h, cgroup_manager **m,
                        ocisbx_err **err)
{
  if (container_open (root, id, lock, h, err) < 0)
    return -1;
  if (h->st->cgroups == NULL)
    return err_set (err, ENOENT, "container `%s` has no cgroups", id);
  if (container_cgroups (h, m, err) < 0)
    return err_wrap (err, "container `%s`", id);
  if (cgroup_manager_empty (*m))
    return err_set (err, 0,
                    "container `%s` has no cgroup: it was created rootless, and no cgroup was writable by its "
                    "user (delegate a subtree to it and set linux.cgroupsPath there)",
                    id);
  return 0;
}

int
container_pause (const char *root, const char *id, bool pause, ocisbx_err **err)
{
  cleanup_container container_handle h;
  cgroup_manager *m;
  container_status s;

  if (container_open_cgroups (root, id, LOCK_EX, &h, &m, err) < 0)
    return -1;
  s = container_status_now (&h);
  if (pause && s != STATUS_RUNNING)
    return err_setk (err, ERR_NOT_RUNNING, 0, "container `%s` is %s, not running", id, container_status_name (s));
  if (!pause && s != STATUS_PAUSED)
    return err_set (err, 0, "container `%s` is %s, not paused", id, container_status_name (s));
  return cgroup_freeze (m, pause, err);
}

int
container_pids (const char *root, const char *id, pid_t **pids, size_t *n, ocisbx_err **err)
{
  cleanup_container container_handle h;
  cgroup_manager *m;

  if (container_open_cgroups (root, id, 0, &h, &m, err) < 0)
    return -1;
  if (cgroup_pids (m, pids, n, err) == 0)
    return 0;
  /* A stopped container has what is left in its cgroups (without a pid namespace of its
     own children outlive the init), or nothing once they are gone: no error, as runc. */
  if (container_status_now (&h) == STATUS_STOPPED && (*err)->errnum == ENOENT)
    {
      err_freep (err);
      *pids = NULL;
      *n = 0;
      return 0;
    }
  return -1;
}

int
container_update (const char *root, const char *id, const oci_resources *res, ocisbx_err **err)
{
  cleanup_container container_handle h;
  cgroup_manager *m;

  if (container_open_cgroups (root, id, LOCK_EX, &h, &m, err) < 0)
    return -1;
  if (container_status_now (&h) == STATUS_STOPPED)
    return err_setk (err, ERR_NOT_RUNNING, 0, "container `%s` is stopped", id);
  return cgroup_update (m, res, err);
}

int
container_resources_parse (const char *json, size_t len, oci_resources **out, ocisbx_err **err)
{
  char *msg = NULL;
  size_t skip = 0;

  while (skip < len && strchr (" \t\r\n", json[skip]))
    skip++;
  if (skip == len || json[skip] != '{')
    return err_setk (err, ERR_INVALID_CONFIG, 0, "resources: expected a JSON object");
  if (oci_resources_parse_data (json, len, out, &msg) < 0)
    return err_takek (err, ERR_INVALID_CONFIG, 0, msg);
  return 0;
}
