/* linux.intelRdt (runtime-spec, config-linux.md "IntelRdt"): the container's class of
 * service (CLOS) in a resctrl file system, through the resctrl seam (resctrl_fs.h).
 *
 *   intelrdt_prepare   create_prepare, nothing touched: the resctrl mount of the
 *                      runtime's mount namespace (none: the spec's MUST error), the CLOS
 *                      directory (ROOT/closID; ROOT for closID "/", the default CLOS;
 *                      ROOT/<container id> without closID), the MON group
 *                      (CLOS/mon_groups/<container id>) with enableMonitoring, every schema
 *                      line checked (its syntax, its resource in ROOT/info/)
 *   intelrdt_setup     after the cgroups, before the clone: a CLOS that does not exist is
 *                      made and its schemata written (l3CacheSchema, memBwSchema, then
 *                      schemata[], a line per write); one that exists is compared with the
 *                      schema lines (a mismatch fails the create) and never written; with
 *                      closID but no schema line it must exist; the MON group is made;
 *                      INTELRDT_TASKS names the tasks files of the container's groups
 *   intelrdt_enter     the init's pid into the CLOS's tasks, then the MON group's
 *   intelrdt_commit    the create done: the record keeps what delete removes
 *   intelrdt_join      exec: its process into the groups INTELRDT_TASKS names (the
 *                      child, before it joins the namespaces)
 *   intelrdt_cleanup_at  delete, and a failed create: what the record names removed
 *
 * The record, <root>/<id>/intelrdt (INTELRDT_RECORD), names the directories to remove
 * (one path a line, in that order); it is written before each mkdir, so that a create
 * killed at any point leaves nothing `delete` cannot find.  During the create it names
 * every directory the create made; once done (intelrdt_commit) only the MON group and
 * a CLOS made without closID: the spec has a CLOS named by closID, or one that was
 * there, stay when the container is deleted.  Without closID, a ROOT/<id> that exists
 * already is taken as pre-existing (compared, joined, not removed). */
#ifndef OCISBX_INTELRDT_H
#define OCISBX_INTELRDT_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"
#include "ocispec.h"

#define INTELRDT_RECORD "intelrdt"
/* The tasks files an exec's process is written to (the CLOS's, then the MON group's),
   one a line, in the state dir. */
#define INTELRDT_TASKS "intelrdt-tasks"

typedef struct intelrdt_plan
{
  const oci_intel_rdt *rdt; /* NULL: no linux.intelRdt, resctrl is not touched */
  char *root;               /* the resctrl mount point */
  char *clos;               /* the CLOS directory */
  char *mon;                /* the MON group, or NULL */
  bool made_clos;           /* by this create */
  bool made_mon;
} intelrdt_plan;

/* LX's intelRdt planned for the container ID; MOUNTINFO: /proc/self/mountinfo (a test's
   file in the unit tests).  Errors name the field. */
int intelrdt_prepare (const oci_linux *lx, const char *id, const char *mountinfo, intelrdt_plan *plan,
                      ocisbx_err **err);
/* The CLOS and the MON group, recorded in the state dir STATE_DIRFD first. */
int intelrdt_setup (intelrdt_plan *plan, int state_dirfd, ocisbx_err **err);
int intelrdt_enter (const intelrdt_plan *plan, pid_t pid, ocisbx_err **err);
int intelrdt_commit (const intelrdt_plan *plan, int state_dirfd, ocisbx_err **err);
/* The text of the state dir's INTELRDT_TASKS into *TASKS (NULL: none, the container
   has no intelRdt). */
int intelrdt_tasks_read (int state_dirfd, char **tasks, ocisbx_err **err);
/* PID written to each tasks file TASKS names (intelrdt_tasks_read): no heap, for a
   child. */
int intelrdt_join (const char *tasks, pid_t pid, ocisbx_err **err);
/* The directories the record of STATE_DIRFD names removed, then the record (none: 0). */
int intelrdt_cleanup_at (int state_dirfd, ocisbx_err **err);
void intelrdt_plan_free (intelrdt_plan *plan);

#endif
