/* exec: a new process inside a running container.
 *
 * parent (exec_parent.c)                              child (exec_child.c)
 *   state: the init is alive (start time), running, not paused (unless asked)
 *   the process: config.json's process (from the bundle of the state) with the
 *     flags over it, or --process FILE (exec_spec.c); the container's seccomp
 *     filter, compiled or from the cache
 *   /proc/PID + pidfd of the init, checked against the recorded start time;
 *     which of its namespaces differ from ours; its root (/proc/PID/root)
 *   setns(pidfd, CLONE_NEWPID), clone3 (CLONE_INTO_CGROUP when there is a v2
 *     cgroup): the child is born in the container's pid namespace, as our child
 *     (--kill-tree: it executes the stub as the tree's reaper, which forks the
 *     process and kills its whole tree when it ends: src/dmz/tree.h)
 *                                              spawn_child_enter (spawn.h): v1
 *                                              cgroups ("0" > tasks), setsid ...
 *                                              rlimits, oomScoreAdj (still outside
 *                                              the user namespace)
 *                                              setns(pidfd, user first + the rest)
 *                                              chroot to the init's root, pty
 *                                              caps / user / cwd / nnp / label
 *                                              seccomp, cloexec, execve
 *   <- nothing but end-of-file on success (the channel is O_CLOEXEC); an error
 *      message and exit 126/127/255 otherwise.  With a relayed pty its master
 *      comes first, with a seccomp listener its fd number.
 *   foreground: wait, forward signals, relay the pty; exit code or 128+signal
 *   detached: --pid-file (atomically) and return; the process is reparented to
 *     our subreaper (conmon) or to init when we exit.
 * No round trip in the common case: the child reports only failures.
 */
#ifndef OCISBX_EXEC_H
#define OCISBX_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "core/cgroups/exec_cgroup.h"
#include "core/error.h"

typedef struct exec_opts
{
  const char *root;           /* --root; NULL: STATE_ROOT_DEFAULT */
  const char *id;
  const char *process_file;   /* --process: a process.json; else config.json's process */
  char **args;                /* COMMAND ARGS (not with --process) */
  size_t n_args;
  bool tty;                   /* -t */
  const char *console_socket; /* --console-socket */
  bool detach;                /* -d */
  const char *pid_file;       /* --pid-file */
  const char *cwd;            /* --cwd */
  char **env;                 /* -e K=V, in order: later wins, over the base env */
  size_t n_env;
  bool has_uid, has_gid;      /* -u UID[:GID] */
  uid_t uid;
  gid_t gid;
  gid_t *add_gids;            /* -g */
  size_t n_add_gids;
  char **caps;                /* -c: added to every capability set */
  size_t n_caps;
  int no_new_privs;           /* --no-new-privs: -1 unset, 0, 1 */
  int preserve_fds;           /* --preserve-fds */
  const char *process_label;  /* --process-label */
  const char *apparmor;       /* --apparmor */
  bool ignore_paused;         /* --ignore-paused */
  int kill_tree;              /* --kill-tree: -1 unset (the container's annotation), 0, 1 */
  exec_cgroup_opts cg;        /* --memory, --pids-limit, --cpus, --cgroup, --usage-file */
} exec_opts;

/* The annotation (config.json, read from the state at each exec) that runs every exec
   into the container as --kill-tree does; "true" or "false" (the default). */
#define EXEC_KILL_TREE_ANNOTATION "io.github.ocisbx.exec.kill-tree"

struct ocispec_map;
/* Its value in ANNOTATIONS: *ON is 1 for "true", 0 for "false" or none; -1 with *err
   naming the annotation for any other value. */
int exec_kill_tree_annotation (const struct ocispec_map *annotations, int *on, ocisbx_err **err);

/* Run the process.  Foreground: *EXIT_CODE is its exit code or 128+signal.  On
   failure (-1, *err set), *EXIT_CODE is 127 for an executable that was not found,
   126 for one that cannot be run, else 255 (as runc). */
int container_exec (const exec_opts *o, int *exit_code, ocisbx_err **err);

#endif
