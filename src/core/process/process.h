/* The container process: everything from process.* of the config, turned by the
 * parent into a plan (process_plan.c: names to numbers, checked, errors naming the
 * field), then applied by the child in a fixed order (process.c, process_final.c).  The
 * child only reads the plan; what its steps learn (HOME, the memory cgroup hand-off, the
 * capabilities kept for the filter) is its process_run.
 * Create's init (container_init.c) and exec's child (exec_child.c) call the same
 * three steps:
 *
 *   process_apply_early     rlimits, personality, memory policy, ioPriority, scheduler
 *                           (still privileged; where each child calls it: spawn.h)
 *   process_apply           (process_final.c) process_setup: cwd (as root; again as the
 *                           user if that failed), HOME, the bounding set, groups/gid/uid,
 *                           capability sets, ambient set, umask, stdio on the terminal
 *                           (its controlling one: the session is spawn_child_enter's),
 *                           no_new_privs, LSM exec label, fds beyond stdio and the
 *                           preserved ones CLOEXEC; process_resolve: args[0] by PATH of
 *                           process.env, as the final user; the seccomp filter only when
 *                           the plan says filter_early
 *   (create: sync_ready, exec fifo, startContainer hooks)
 *   process_finish_and_exec final CPU affinity, signal mask, exec stub's arguments and
 *                           memory cgroup hand-off; THEN the seccomp filter (unless
 *                           filter_early), the one capset it may need, execve
 *                           (process_final.c)
 *
 * The filter is loaded by one function (process_final.c), at the one of the two places
 * the parent chose before the clone (filter_early).
 */
#ifndef OCISBX_PROCESS_H
#define OCISBX_PROCESS_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "core/error.h"
#include "core/process/mempolicy.h"
#include "ocispec.h"

typedef struct process_rlimit
{
  int resource;
  const char *name; /* "RLIMIT_NOFILE" */
  struct rlimit lim;
} process_rlimit;

/* struct sched_attr of sched_setattr(2). */
typedef struct process_sched_attr
{
  uint32_t size;
  uint32_t sched_policy;
  uint64_t sched_flags;
  int32_t sched_nice;
  uint32_t sched_priority;
  uint64_t sched_runtime;
  uint64_t sched_deadline;
  uint64_t sched_period;
} process_sched_attr;

typedef struct process_plan
{
  char **argv; /* NULL-terminated; strings owned by the config */
  char **envp; /* NULL-terminated; malloc'd array, strings owned by the config or malloc'd in extra */
  char **env_extra; /* strings the plan added (freed with it) */
  size_t n_env_extra;
  const char *cwd;
  uid_t uid;
  gid_t gid;
  gid_t *groups;
  size_t n_groups;
  bool has_umask;
  mode_t umask;
  bool has_caps;
  uint64_t cap_bounding, cap_effective, cap_inheritable, cap_permitted, cap_ambient;
  process_rlimit *rlimits;
  size_t n_rlimits;
  bool no_new_privs;
  bool has_personality;
  unsigned long personality;
  mempolicy_plan mempolicy; /* linux.memoryPolicy: the init's (create only) */
  bool has_ioprio;
  int ioprio;
  bool has_sched;
  process_sched_attr sched;
  cpu_set_t *cpu_initial, *cpu_final; /* NULL when not given */
  size_t cpuset_size;
  bool has_oom_score_adj;
  int oom_score_adj;
  const char *apparmor_profile;
  const char *selinux_label;
  bool need_home; /* no HOME in env: the child adds it from the container's /etc/passwd
                     (process_run.envp) */
  bool terminal;
  /* the pty's first size: process.consoleSize, or the caller's terminal's when the
     runtime relays the pty (terminal_caller_size) */
  bool has_tty_size;
  struct winsize tty_size;
  sigset_t sigmask; /* restored just before execve */
  bool via_dmz;     /* execve through the sealed stub at dmz_fd (dmz_stub.h); else directly */
  int dmz_fd;       /* owned by the plan when via_dmz */
  bool dmz_memcg;   /* the stub may rejoin a memory cgroup: its write and close pass the
                       seccomp filter (dmz_prepare) */
  /* linux.seccomp (not owned; NULL: none), loaded in process_final.c only */
  const struct seccomp_prog *seccomp;
  /* Decided by the parent: the filter is loaded at the end of process_apply instead of
     in process_finish_and_exec.  Create's, when the filter has a listener: its fd goes
     through the parent, which is there only until SYNC_READY (process_final.c). */
  bool filter_early;
  int pdeathsig; /* PR_SET_PDEATHSIG (a signal, 0: none) again after the uid change
                    cleared it: SIGKILL for a foreground run's init, DMZ_TREE_RUNTIME_GONE
                    for a foreground exec tree's reaper */
  /* exec --kill-tree: the stub is the reaper of the process's tree (src/dmz/tree.h);
     only through the stub (via_dmz).  Every signal stays blocked across the exec; the
     leader gets SIGMASK.  The leader, not the reaper, takes the pty as its controlling
     terminal. */
  bool tree;
  int tree_nfds;  /* the leader's fds (stdio, --preserve-fds): the reaper closes them */
  int tree_pidfd; /* the foreground runtime's pidfd (not owned, kept across the exec),
                     or -1 when detached */
  /* exec into a pid namespace: process_apply is followed by the fork of the process
     into it (exec_child.c), which takes the pty as its controlling terminal itself */
  bool forked_after_apply;
} process_plan;

/* What the child's steps learn on the way, its own: the plan (prepared by the parent)
   is only read in the child (process_run_init, then the steps below). */
typedef struct process_run
{
  char **envp; /* the plan's, or a copy with HOME added (process_setup: need_home) */
  /* Set once in the cgroups (spawn_child_enter, cgroups/join.h): the process leaves the
     container's v1 memory cgroup through memcg_home for the stub's exec, the stub
     rejoins memcg.  Not owned; -1 when there is no hand-off. */
  int memcg_home, memcg;
  /* Without no_new_privs loading the filter needs CAP_SYS_ADMIN: a process that is not
     to have it holds it until then (process_setup), these are its sets after. */
  bool admin_kept;
  uint64_t caps_after_filter[3]; /* effective, permitted, inheritable */
} process_run;

void process_run_init (process_run *run, const process_plan *plan);

/* Parent: DOC and FIELD name the source in errors ("config.json", ".process").
   EXTRA_ENV (may be NULL) are appended "K=V" strings (LISTEN_FDS ...). */
int process_prepare (const oci_process *p, const char *doc, const char *field, char *const *extra_env,
                     process_plan *plan, ocisbx_err **err);
/* linux.personality, for the container's init. */
int process_prepare_personality (const oci_personality *pers, process_plan *plan, ocisbx_err **err);
/* A plan with nothing to run, for a config without process (create; `start` refuses):
   its steps keep the init's credentials, cwd "/", and process_resolve gives NULL. */
void process_prepare_none (process_plan *plan);
void process_plan_free (process_plan *plan);

/* Whether a process of PLAN, or of the process P of a config (NULL: the container has
   none), may hold CAP_SYS_PTRACE: its bounding set has it, or no capabilities are set
   (it keeps root's).  Such a process may look into ours (/proc/PID/exe, fd, root,
   mem) whatever dumpable says, unless a user namespace is between us (spawn.h). */
bool process_may_ptrace (const process_plan *plan);
bool process_config_may_ptrace (const oci_process *p);

/* The highest capability number the kernel knows (PR_CAPBSET_READ): the plan's masks
   and the child's bounding-set drop both stop there. */
int process_last_cap (void);

/* Child steps, in order (see above): process.c. */
int process_apply_early (const process_plan *plan, ocisbx_err **err);
/* process.oomScoreAdj, written for the process PID (0: the caller itself).  Lowering it
   needs CAP_SYS_RESOURCE of the host: the writer is whoever is still outside the
   container's user namespace (spawn.h: exec's child itself, the init's parent). */
int process_set_oom_score_adj (const process_plan *plan, pid_t pid, ocisbx_err **err);
/* TTY_SLAVE (or -1) becomes stdio and is closed; fds from KEEP_FDS on become CLOEXEC. */
int process_setup (const process_plan *plan, process_run *run, int tty_slave, int keep_fds, ocisbx_err **err);
/* The executable's path for args[0], into a malloc'd *PATH. */
int process_resolve (const process_plan *plan, char **path, ocisbx_err **err);

/* process_final.c.  A filter with a listener hands its fd's number to the parent over
   SYNC_SOCK (sync_send_listener, sync.h). */
/* process_setup (TTY_SLAVE, KEEP_FDS), process_resolve (*PATH), then the filter when
   plan->filter_early. */
int process_apply (const process_plan *plan, process_run *run, int tty_slave, int keep_fds, int sync_sock, char **path,
                   ocisbx_err **err);
/* The last steps: what can be done before the filter, the filter (unless
   plan->filter_early), the capset that drops CAP_SYS_ADMIN kept for it, execve of
   PATH.  Returns only on failure. */
int process_finish_and_exec (const process_plan *plan, const process_run *run, const char *path, int sync_sock,
                             ocisbx_err **err);
/* capset(2) of three capability masks: no allocation, usable under the filter. */
int process_capset (uint64_t effective, uint64_t permitted, uint64_t inheritable);

/* ---- name tables (unit-tested) ---- */

/* "KILL", "SIGKILL", "kill", "9", "RTMIN+2": the signal number, or -1.  "0" is 0 (kill's
   check that the process exists). */
int signal_parse (const char *s);
/* "CAP_CHOWN" -> 0 ... "CAP_CHECKPOINT_RESTORE" -> 40; -1 when unknown. */
int capability_from_name (const char *name);
const char *capability_name (int cap);
#define CAPABILITY_MAX 40
/* "RLIMIT_NOFILE" -> RLIMIT_NOFILE; -1 when unknown. */
int rlimit_from_name (const char *name);
/* "0-3,7" -> a CPU set (CPU_ALLOC'd); -1 on syntax errors. */
int cpuset_parse (const char *s, cpu_set_t **out, size_t *size);
/* Find FILE (no '/') in the colon-separated PATH_ENV like execvp: the first regular,
   executable file.  Errors as Go's exec.LookPath words them:
   exec: "foo": executable file not found in $PATH
   exec: "/x": stat /x: no such file or directory
   exec: "/etc/passwd": permission denied */
int path_lookup (const char *file, const char *path_env, char **out, ocisbx_err **err);

#endif
