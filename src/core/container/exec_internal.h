/* Shared by exec_parent.c (parent), exec_child.c and exec_spec.c. */
#ifndef OCISBX_EXEC_INTERNAL_H
#define OCISBX_EXEC_INTERNAL_H

#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "core/cgroups/join.h"
#include "core/cgroups/cgroups.h"
#include "core/container/exec.h"
#include "core/container/handle.h"
#include "core/container/spawn.h"
#include "core/process/cloned_binary.h"
#include "core/process/process.h"
#include "core/seccomp/seccomp.h"
#include "core/container/state_store.h"
#include "core/process/terminal.h"

/* Exit codes of a failed exec, as a shell's. */
#define EXEC_EXIT_FAILED 255

/* The effective process: the base document's fields with the flags over them.  The
   struct is a shallow copy: strings belong to cfg / the process.json, the arrays
   made here are in `owned`. */
typedef struct exec_spec
{
  oci_config *cfg;       /* the container's config.json */
  oci_process *file;     /* --process, or NULL */
  oci_process eff;       /* what process_prepare reads */
  void *owned[16];       /* arrays allocated for eff */
  size_t n_owned;
  const char *doc;       /* "process.json" / "config.json", for errors */
} exec_spec;

/* exec_spec.c */
int exec_spec_build (const exec_opts *o, const container_state *st, exec_spec *s, ocisbx_err **err);
void exec_spec_free (exec_spec *s);

/* What exec's child is given: prepared by the parent (exec_parent.c), read by the
   child only through a const pointer (exec_child), like create's init_plan.  What the
   child learns on the way is its own (process_run). */
typedef struct exec_plan
{
  child_plan child;   /* what every container child is given (spawn.h) */
  process_plan proc;
  cgroup_join cgj;    /* the child joins its cgroups itself, when usable (cgroups/join.h) */
  bool has_cgroup;    /* the container has cgroups (the parent joins the child to them
                         when cgj is not usable: exec_parent_enters_cgroup) */
  char *rdt_tasks;    /* linux.intelRdt: the tasks files the process goes in (NULL:
                         none; intelrdt.h) */
  int self_pidfd;     /* ours, for a foreground tree's reaper (src/dmz/tree.h) */
  int procfd;         /* /proc/<init> */
  int pidfd;          /* of the init */
  pid_t init_pid;
  int init_root;      /* /proc/<init>/root, O_PATH */
  int ns_flags;       /* namespaces of the init that differ from ours, without pid */
  bool join_pid;      /* the init's pid namespace is not ours */
} exec_plan;

/* One exec: the parent's resources, and the child's plan. */
typedef struct exec_ctx
{
  const exec_opts *o;
  container_handle h; /* --root, the state dir (LOCK_SH while the process is set up), the
                        state, the cgroups */
  exec_spec spec;
  seccomp_prog *seccomp;
  exec_cgroup *ecg;          /* the cgroup the process joins (cgroups/exec_cgroup.h) */
  bool paused;               /* --ignore-paused on a paused container */
  bool tree;                 /* --kill-tree or the container's annotation (exec.h) */
  pid_t middle;  /* with join_pid, the child that vforked the process (exec_parent.c) */

  caller_signals caller;  /* the caller's mask, restored in the process, and what it
                             ignored (for a re-exec: cloned_binary.h) */

  spawn_ctx sp; /* the process: sync channel, console socket, pid, pidfd, relayed pty (spawn.h) */
  exec_plan plan; /* the child's */
} exec_ctx;

/* No fast join (cgroups/join.h: none prepared, or the clone refused it): the parent
   puts the process in its cgroups (cgroup_enter), then sends SYNC_GO. */
static inline bool
exec_parent_enters_cgroup (const exec_plan *p)
{
  return p->has_cgroup && !p->cgj.usable;
}

/* exec_child.c: never returns. */
_Noreturn void exec_child (const exec_plan *c);

#endif
