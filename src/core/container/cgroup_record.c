/* The creation record of a container's cgroups (container/cgroup_record.h). */
#include <config.h>
#include "core/container/cgroup_record.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "core/cgroups/cgroups.h"
#include "core/log.h"
#include "core/container/state_store.h"
#include "core/utils.h"

int
cgroup_record_write (void *dirfd, const char *serialized, ocisbx_err **err)
{
  if (write_file_atomic_at (*(int *) dirfd, STATE_CGROUPS, serialized, strlen (serialized), 0600, err) < 0)
    return err_wrap (err, "cgroups: record what is created");
  return 0;
}

int
container_cgroups_cleanup_at (int dirfd, ocisbx_err **err)
{
  cleanup_free char *rec = NULL;
  cleanup_err ocisbx_err *e = NULL;
  cgroup_state *saved = NULL;
  cgroup_manager *m = NULL;
  int r;

  if (read_file_at (dirfd, STATE_CGROUPS, &rec, NULL, &e) < 0)
    {
      if (e->errnum == ENOENT)
        return 0;
      *err = steal_ptr (&e);
      return err_wrap (err, "cgroups record");
    }
  /* JSON, or an older ocisbx's text (cgroup_state_parse) */
  if (cgroup_state_parse (rec, &saved, err) < 0)
    return err_wrap (err, "cgroups record");
  r = cgroup_load (CGROUP_FS_ROOT, saved, &m, err);
  cgroup_state_free (saved);
  if (r < 0)
    return err_wrap (err, "cgroups record");
  /* No state.json: the create died before it started the init (the first state is
     written before the clone), so nothing of the container runs, and what runs in a
     cgroup that was there before is someone else's.  With one, however unreadable,
     whatever runs in the container's cgroups is the container's. */
  if (faccessat (dirfd, STATE_FILE, F_OK, 0) == 0 && cgroup_kill_all (m, SIGKILL, &e) < 0)
    {
      log_debug ("cgroups record: kill: %s", e->msg);
      err_freep (&e);
    }
  r = cgroup_destroy (m, err);
  cgroup_manager_free (m);
  return r;
}

int
container_cgroups_cleanup (const char *root, const char *id, ocisbx_err **err)
{
  cleanup_close int rootfd = -1;
  cleanup_close int dirfd = -1;

  if (state_validate_id (id, err) < 0)
    return -1;
  rootfd = state_root_open (root, false, err);
  if (rootfd < 0)
    return -1;
  dirfd = state_dir_open (rootfd, id, 0, err);
  if (dirfd < 0)
    return -1;
  return container_cgroups_cleanup_at (dirfd, err);
}
