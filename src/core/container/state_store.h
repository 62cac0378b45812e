/* The runtime's record of its containers: one directory per container under --root,
 *
 *   <root>/<id>/            created with mkdir (EEXIST: the id is taken), flock'ed by
 *                           commands that change the container
 *   <root>/<id>/state.json  container_state below, written by create (atomically): first
 *                           before the clone (pid 0, "creating"), then complete
 *   <root>/<id>/init        the init record: a symlink whose target is "PID START_TIME",
 *                           made right after the clone.  Written apart from state.json
 *                           (one symlinkat), so that a lost or corrupt state.json, or a
 *                           create killed before its last write, still leads delete to
 *                           the init; state_read checks state.json's init against it
 *                           (a pid neither it nor a startTime proves is refused)
 *   <root>/<id>/exec.fifo   while the init waits for `start`
 *   <root>/<id>/cgroups     the cgroups create makes, recorded before it makes them
 *                           (container/cgroup_record.h)
 *
 * and the status of a container, derived from the init's /proc entry (start time
 * against pid reuse), the fifo and the freezer.
 */
#ifndef OCISBX_STATE_H
#define OCISBX_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/cgroups/cgroups.h"
#include "core/error.h"
#include "ocispec.h"

#define STATE_ROOT_DEFAULT "/run/ocisbx"
#define STATE_FILE "state.json"
#define STATE_FIFO "exec.fifo"
#define STATE_CGROUPS "cgroups"
#define STATE_INIT "init"
/* and "snapshot": an ephemeral run's btrfs snapshot (ROOTFS_SNAPSHOT_RECORD, rootfs.h) */
#define STATE_ID_MAX 1024

typedef enum container_status
{
  STATUS_CREATING,
  STATUS_CREATED,
  STATUS_RUNNING,
  STATUS_PAUSED,
  STATUS_STOPPED,
} container_status;

/* What create records for the later commands. */
typedef struct container_state
{
  char *oci_version; /* of the config */
  char *id;
  int32_t pid;         /* the init, in the runtime's pid namespace */
  uint64_t start_time; /* field 22 of /proc/<pid>/stat: tells a reused pid apart */
  char *bundle;        /* absolute */
  char *config;        /* absolute path of config.json */
  char *rootfs;        /* absolute */
  char *created;       /* RFC 3339, UTC, nanoseconds */
  uint32_t owner;      /* uid of the creator */
  cgroup_state *cgroups; /* "cgroups": the container's cgroups (cgroups.h), NULL: none */
  char *cgroup; /* "cgroup": the text an older ocisbx kept instead, read only (state_read
                   turns it into CGROUPS, so that an upgrade does not lose its containers) */
  bool systemd_cgroup;
  bool rootless;
  bool userns; /* the container has its own user namespace */
  bool no_process; /* config.json has no process: `start` refuses (runtime-spec) */
  struct ocispec_map annotations;
  oci_hook *poststart; /* run by start */
  size_t poststart_len;
  oci_hook *poststop; /* run by delete */
  size_t poststop_len;
} container_state;

/* state.json for the libocispec engine (state_doc.c). */
extern const ocispec_type container_state_type;

/* Container ids: [A-Za-z0-9][A-Za-z0-9_.+-]*, at most STATE_ID_MAX bytes (runc accepts
   the same set), so an id is always one plain path component. */
int state_validate_id (const char *id, ocisbx_err **err);
/* The --root directory (ROOT NULL: the default); with CREATE made if missing (0700). */
int state_root_open (const char *root, bool create, ocisbx_err **err);

/* Claim ID: mkdir <root>/<id> (EEXIST: "container ... already exists") and return its fd,
   flock'ed exclusively. */
int state_dir_create (int rootfd, const char *id, ocisbx_err **err);
/* Open an existing container's directory ("container ... does not exist"); LOCK is
   LOCK_EX, LOCK_SH or 0. */
int state_dir_open (int rootfd, const char *id, int lock, ocisbx_err **err);
/* rm -rf <root>/<id>. */
int state_dir_remove (int rootfd, const char *id, ocisbx_err **err);

int state_write (int dirfd, const container_state *st, ocisbx_err **err);
/* Errors name the file by its full path: "container \"ID\": `/run/ocisbx/ID/state.json`:
   invalid JSON: ..."; a missing file is ENOENT "container \"ID\" does not exist". */
int state_read (int dirfd, const char *id, container_state **out, ocisbx_err **err);

/* The init record (see above). */
int state_init_record_write (int dirfd, pid_t pid, uint64_t start_time, ocisbx_err **err);
/* 1 with *PID and *START_TIME, 0 when there is none, -1 when it is unreadable. */
int state_init_record_read (int dirfd, pid_t *pid, uint64_t *start_time, ocisbx_err **err);
/* "/run/ocisbx/ID/NAME" for messages (NAME "": the directory): the path of the state dir
   DIRFD, malloc'd. */
char *state_dir_file_path (int dirfd, const char *name);
void container_state_free (container_state *st);
void container_state_freep (container_state **st);
#define cleanup_state __attribute__ ((cleanup (container_state_freep)))

/* Start time (field 22) and state letter of /proc/PID/stat; -1 when PID is gone. */
int proc_stat_start_time (pid_t pid, uint64_t *start_time, char *state);
/* True when the init recorded in ST is still that process and not a zombie. */
bool state_init_alive (const container_state *st);
/* The status of the container in DIRFD. */
container_status state_status (int dirfd, const container_state *st);
const char *container_status_name (container_status s);
/* The init's pid as `state` and `list` show it: 0 once the container stopped, as runc. */
int32_t state_shown_pid (const container_state *st, container_status status);

/* The current time as RFC 3339 with nanoseconds ("2024-05-01T10:00:00.123456789Z"). */
char *state_timestamp_now (void);

#endif
