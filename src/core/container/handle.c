/* The container handle (handle.h). */
#include <config.h>
#include "core/container/handle.h"

#include <errno.h>
#include <unistd.h>

#include "core/utils.h"

int
container_open (const char *root, const char *id, int lock, container_handle *h, ocisbx_err **err)
{
  int rootfd;
  int r;

  *h = (container_handle){ .id = id, .rootfd = -1, .dirfd = -1, .status = STATUS_STOPPED };
  if (state_validate_id (id, err) < 0)
    return -1;
  rootfd = state_root_open (root, false, err);
  if (rootfd < 0)
    {
      if ((*err)->errnum == ENOENT)
        {
          err_freep (err);
          return err_takek (err, ERR_NOT_FOUND, ENOENT, xasprintf ("container \"%s\" does not exist", id));
        }
      return -1;
    }
  r = container_open_in (rootfd, id, lock, h, err);
  h->owns_root = true;
  return r;
}

int
container_open_in (int rootfd, const char *id, int lock, container_handle *h, ocisbx_err **err)
{
  *h = (container_handle){ .id = id, .rootfd = rootfd, .dirfd = -1, .status = STATUS_STOPPED };
  h->dirfd = state_dir_open (rootfd, id, lock, err);
  if (h->dirfd < 0)
    return -1;
  return state_read (h->dirfd, id, &h->st, err);
}

void
container_close (container_handle *h)
{
  if (h->dirfd >= 0)
    close (h->dirfd);
  if (h->rootfd >= 0 && h->owns_root)
    close (h->rootfd);
  h->dirfd = h->rootfd = -1;
  container_state_free (h->st);
  h->st = NULL;
  cgroup_manager_free (h->cg);
  h->cg = NULL;
}

container_status
container_status_now (container_handle *h)
{
  h->status = state_status (h->dirfd, h->st);
  return h->status;
}

int
container_cgroups (container_handle *h, cgroup_manager **m, ocisbx_err **err)
{
  *m = NULL;
  if (h->cg == NULL)
    {
      if (h->st->cgroups == NULL)
        return err_set (err, ENOENT, "no cgroup recorded");
      if (cgroup_load (CGROUP_FS_ROOT, h->st->cgroups, &h->cg, err) < 0)
        return -1;
    }
  *m = h->cg;
  return 0;
}
