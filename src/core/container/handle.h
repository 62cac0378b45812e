/* One open container: what every command on an existing container (start, kill, delete,
 * state, pause, resume, ps, update, events, exec) works on.
 *
 *   container_open ()      validates the id, opens --root and <root>/<id> (flock'ed with
 *                          LOCK_EX, LOCK_SH or 0: state_store.h) and reads state.json
 *   container_open_in ()   the same in a root already open (`list`, without a lock)
 *   container_status_now () the status, from the init's /proc entry, the fifo and the freezer
 *   container_cgroups ()   the cgroup manager of state.json's "cgroup", loaded on first use
 *
 * Closing it (cleanup_container) releases the lock and frees all of it.
 */
#ifndef OCISBX_CONTAINER_HANDLE_H
#define OCISBX_CONTAINER_HANDLE_H

#include "core/cgroups/cgroups.h"
#include "core/container/state_store.h"
#include "core/error.h"

typedef struct container_handle
{
  const char *id;
  int rootfd;
  bool owns_root;       /* container_close closes ROOTFD: container_open opened it */
  int dirfd;            /* <root>/<id>, holding the lock container_open took */
  container_state *st;  /* NULL when state.json could not be read */
  container_status status; /* as of the last container_status_now () */
  cgroup_manager *cg;   /* container_cgroups () */
} container_handle;

/* Open container ID under ROOT (NULL: the default).  A missing root or directory is
   ENOENT "container \"ID\" does not exist".  On an error after the directory opened,
   H->dirfd stays open (and H->st NULL) for delete's recovery. */
int container_open (const char *root, const char *id, int lock, container_handle *h, ocisbx_err **err);
/* The same in the state root ROOTFD, which H borrows: container_close leaves it open.
   The id is checked (state_validate_id) before anything is opened. */
int container_open_in (int rootfd, const char *id, int lock, container_handle *h, ocisbx_err **err);
void container_close (container_handle *h);
#define cleanup_container __attribute__ ((cleanup (container_close)))

/* The status now (also kept in H->status). */
container_status container_status_now (container_handle *h);

/* The container's cgroups, loaded once ("no cgroup recorded", ENOENT, when state.json
   names none). */
int container_cgroups (container_handle *h, cgroup_manager **m, ocisbx_err **err);

/* container_open, then its cgroups, which must exist: "container `ID` has no cgroups"
   (ENOENT), or none writable when it was created rootless (container_cgroups.c). */
int container_open_cgroups (const char *root, const char *id, int lock, container_handle *h, cgroup_manager **m,
                            ocisbx_err **err);

#endif
