/* The child's half of the container process: a process_plan (process_plan.c) applied
   by create's init (container_init.c) or exec's child (exec_child.c), inside the
   container, after pivot_root or setns: rlimits, personality, ioPriority and scheduler
   (process_apply_early), oomScoreAdj, then process_setup (cwd, HOME, bounding set,
   groups/gid/uid, capability and ambient sets, umask, stdio on the terminal,
   no_new_privs, LSM exec label, fds CLOEXEC) and process_resolve (args[0] by PATH).
   The seccomp filter, the privilege drop it may need and execve are process_final.c's.

   It runs where the container's memory cgroup and file system are the ones in force:
   it reads no file with stdio or opendir (HOME comes from /etc/passwd through
   passwd_field's stack buffer; cloexec_fds_from walks /proc/self/fd only on a kernel
   without close_range) and logs nothing: every failure is an error returned to the
   caller, which reports it to the parent.
   process_set_oom_score_adj is the one step a parent may take for its child (the
   init's parent writes its /proc/PID/oom_score_adj: spawn.h). */
#include <config.h>
#include "core/process/process.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/ioprio.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/process/lsm.h"
#include "core/process/terminal.h"
#include "core/utils.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_RAISE 2
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

int
process_apply_early (const process_plan *plan, ocisbx_err **err)
{
  for (size_t i = 0; i < plan->n_rlimits; i++)
    if (setrlimit (plan->rlimits[i].resource, &plan->rlimits[i].lim) < 0)
      return err_set (err, errno, "setrlimit %s (soft %llu, hard %llu)", plan->rlimits[i].name,
                      (unsigned long long) plan->rlimits[i].lim.rlim_cur,
                      (unsigned long long) plan->rlimits[i].lim.rlim_max);
  if (plan->has_personality && personality (plan->personality) < 0)
    return err_set (err, errno, "personality");
  if (mempolicy_apply (&plan->mempolicy, err) < 0)
    return -1;
  if (plan->has_ioprio && syscall (SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, plan->ioprio) < 0)
    return err_set (err, errno, "ioprio_set (process.ioPriority)");
  if (plan->has_sched && syscall (SYS_sched_setattr, 0, &plan->sched, 0) < 0)
    {
      /* EPERM for a real-time policy as root: most often a new v1 cpu cgroup, whose
         real-time runtime is 0 under CONFIG_RT_GROUP_SCHED */
      bool rt = plan->sched.sched_policy == SCHED_FIFO || plan->sched.sched_policy == SCHED_RR;
      return err_set (err, errno, "sched_setattr (process.scheduler)%s",
                      errno == EPERM && rt ? ": a real-time policy needs CAP_SYS_NICE and, under cgroup v1 "
                                             "real-time group scheduling, a budget in the container's cpu "
                                             "cgroup (.linux.resources.cpu.realtimeRuntime)"
                                           : "");
    }
  return 0;
}

int
process_set_oom_score_adj (const process_plan *plan, pid_t pid, ocisbx_err **err)
{
  char path[64], val[16];

  if (!plan->has_oom_score_adj)
    return 0;
  if (pid == 0)
    snprintf (path, sizeof path, "/proc/self/oom_score_adj");
  else
    snprintf (path, sizeof path, "/proc/%d/oom_score_adj", (int) pid);
  snprintf (val, sizeof val, "%d", plan->oom_score_adj);
  if (write_proc_file (path, val, strlen (val), err) < 0)
    return err_wrap (err, "process.oomScoreAdj");
  return 0;
}

int
process_capset (uint64_t effective, uint64_t permitted, uint64_t inheritable)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2] = {
    { (uint32_t) effective, (uint32_t) permitted, (uint32_t) inheritable },
    { (uint32_t) (effective >> 32), (uint32_t) (permitted >> 32), (uint32_t) (inheritable >> 32) },
  };
  return (int) syscall (SYS_capset, &h, d);
}

/* Loading a seccomp filter without no_new_privs needs CAP_SYS_ADMIN: a process that
   is not to have it keeps it until the filter is loaded (process_final.c).  Without
   process.capabilities a uid 0 keeps what it has, any other uid ends with nothing. */
static bool
keeps_admin (const process_plan *plan)
{
  const uint64_t admin = 1ULL << CAP_SYS_ADMIN;

  if (plan->seccomp == NULL || plan->no_new_privs)
    return false;
  if (plan->has_caps)
    return (plan->cap_effective & plan->cap_permitted & admin) == 0;
  return plan->uid != 0;
}

static int
apply_caps (const process_plan *plan, process_run *run, int last, bool keep_admin, ocisbx_err **err)
{
  const uint64_t known = last >= 63 ? UINT64_MAX : (1ULL << (last + 1)) - 1;
  const uint64_t admin = keep_admin ? 1ULL << CAP_SYS_ADMIN : 0;
  uint64_t e = 0, p = 0, i = 0, ambient;

  if (plan->has_caps)
    {
      e = plan->cap_effective & known;
      p = plan->cap_permitted & known;
      i = plan->cap_inheritable & known;
    }
  if (process_capset (e | admin, p | admin, i) < 0)
    return err_set (err, errno, "set capabilities (process.capabilities)");
  if (keep_admin)
    {
      run->admin_kept = true;
      run->caps_after_filter[0] = e;
      run->caps_after_filter[1] = p;
      run->caps_after_filter[2] = i;
    }
  if (!plan->has_caps)
    return 0;
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return err_set (err, errno, "clear the ambient capabilities");
  /* A capability missing from the permitted or inheritable set cannot be ambient:
     skipped silently, as runc does (its default config asks for exactly that). */
  ambient = plan->cap_ambient & p & i;
  for (int c = 0; c <= last; c++)
    if ((ambient & (1ULL << c)) && prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0 && errno != EPERM)
      return err_set (err, errno, "raise ambient capability %s", capability_name (c));
  return 0;
}

/* HOME of UID from the container's /etc/passwd, or "/". */
static char *
home_of (uid_t uid)
{
  cleanup_free char *home = passwd_field ("/etc/passwd", uid, 5);
  return xasprintf ("HOME=%s", home ? home : "/");
}

/* The process's stdio becomes its user's (as runc and crun do), so that a process that
   is not root may reopen it (/dev/stdout, /proc/self/fd/1: a pipe of the caller's is
   0600 root).  Not terminals nor device nodes (/dev/null: the host's); a failure that
   says the ids or the inode's owner are not mapped here, or a read-only file system,
   leaves the fd as it is: the process deals with it as it would with any fd. */
static int
chown_stdio (const process_plan *plan, ocisbx_err **err)
{
  for (int fd = 0; fd < 3; fd++)
    {
      struct stat st;
      if (fstat (fd, &st) < 0)
        {
          if (errno == EBADF)
            continue;
          return err_set (err, errno, "fstat of stdio fd %d", fd);
        }
      if (S_ISCHR (st.st_mode) || S_ISBLK (st.st_mode) || (st.st_uid == plan->uid && st.st_gid == plan->gid))
        continue;
      if (fchown (fd, plan->uid, plan->gid) < 0 && errno != EINVAL && errno != EPERM && errno != EROFS)
        return err_set (err, errno, "chown stdio fd %d to %u:%u (process.user)", fd, (unsigned) plan->uid,
                        (unsigned) plan->gid);
    }
  return 0;
}

/* The plan's environment with HOME added: the child's own copy (it ends in execve). */
static char **
env_with_home (const process_plan *plan)
{
  size_t n = 0;
  char **envp;

  while (plan->envp[n])
    n++;
  envp = xmalloc ((n + 2) * sizeof *envp);
  memcpy (envp, plan->envp, n * sizeof *envp);
  envp[n] = home_of (plan->uid);
  envp[n + 1] = NULL;
  return envp;
}

static int
setup_user (const process_plan *plan, process_run *run, ocisbx_err **err)
{
  bool keep_admin = keeps_admin (plan);
  bool set_caps = plan->has_caps || keep_admin;
  int last = set_caps ? process_last_cap () : 0;

  if (plan->need_home)
    run->envp = env_with_home (plan);
  if (plan->has_caps)
    for (int c = 0; c <= last; c++)
      if (!(plan->cap_bounding & (1ULL << c)) && prctl (PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
        return err_set (err, errno, "drop %s from the bounding set", capability_name (c));
  if (set_caps && prctl (PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
    return err_set (err, errno, "prctl PR_SET_KEEPCAPS");
  if (setgroups (plan->n_groups, plan->groups) < 0)
    {
      /* setgroups is denied in a user namespace whose maps were written unprivileged */
      if (errno != EPERM || plan->n_groups)
        return err_set (err, errno, "setgroups (process.user.additionalGids)");
    }
  if (setresgid (plan->gid, plan->gid, plan->gid) < 0)
    return err_set (err, errno, "setresgid %u (process.user.gid)", (unsigned) plan->gid);
  if (setresuid (plan->uid, plan->uid, plan->uid) < 0)
    return err_set (err, errno, "setresuid %u (process.user.uid)", (unsigned) plan->uid);
  if (set_caps)
    {
      if (prctl (PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
        return err_set (err, errno, "prctl PR_SET_KEEPCAPS");
      if (apply_caps (plan, run, last, keep_admin, err) < 0)
        return -1;
    }
  umask (plan->has_umask ? plan->umask : 022);
  return 0;
}

static int
change_dir (const process_plan *plan, ocisbx_err **err)
{
  char buf[4096];

  if (chdir (plan->cwd) < 0)
    return err_set (err, errno, "chdir to cwd (\"%s\") set in config.json", plan->cwd);
  /* After pivot_root ".." cannot leave the root; a cwd reached through an fd from
     outside would show as "(unreachable)/..." or fail. */
  if (getcwd (buf, sizeof buf) == NULL || buf[0] != '/')
    return err_set (err, 0, "cwd \"%s\" is outside the container's root", plan->cwd);
  return 0;
}

void
process_run_init (process_run *run, const process_plan *plan)
{
  *run = (process_run) { .envp = plan->envp, .memcg_home = -1, .memcg = -1 };
}

int
process_setup (const process_plan *plan, process_run *run, int tty_slave, int keep_fds, ocisbx_err **err)
{
  cleanup_err ocisbx_err *cwd_err = NULL;

  /* As root first: the runtime may reach a cwd the user cannot.  If that fails, again
     as the user once the uid has changed (a cwd only the user may enter, e.g. owned by
     an unmapped uid in a user namespace).  Both before the filter: CAP_SYS_ADMIN kept
     for a filter without no_new_privs is no DAC capability, so the second try sees
     what the process will. */
  change_dir (plan, &cwd_err);
  if (tty_slave < 0 && chown_stdio (plan, err) < 0)
    return -1;
  if (setup_user (plan, run, err) < 0)
    return -1;
  if (plan->pdeathsig)
    prctl (PR_SET_PDEATHSIG, plan->pdeathsig); /* cleared by the uid change */
  if (cwd_err && change_dir (plan, err) < 0)
    return -1;
  if (tty_slave >= 0)
    {
      if (terminal_make_stdio (tty_slave, !plan->tree && !plan->forked_after_apply, err) < 0)
        return -1;
      if (tty_slave > 2)
        close (tty_slave);
    }
  if (plan->no_new_privs && prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
    return err_set (err, errno, "prctl PR_SET_NO_NEW_PRIVS");
  if (lsm_apply_exec_label (plan->apparmor_profile, plan->selinux_label, err) < 0)
    return -1;
  /* Only stdio, --preserve-fds and LISTEN_FDS reach the process; an exec tree's reaper
     gets the runtime's pidfd too. */
  if (cloexec_fds_from (keep_fds, err) < 0)
    return -1;
  if (plan->tree && plan->tree_pidfd >= 0 && fcntl (plan->tree_pidfd, F_SETFD, 0) < 0)
    return err_set (err, errno, "exec --kill-tree: pass the runtime's pidfd on");
  return 0;
}

static const char *
env_get (char *const *envp, const char *key)
{
  size_t kl = strlen (key);
  for (size_t i = 0; envp[i]; i++)
    if (strncmp (envp[i], key, kl) == 0 && envp[i][kl] == '=')
      return envp[i] + kl + 1;
  return NULL;
}

int
process_resolve (const process_plan *plan, char **path, ocisbx_err **err)
{
  if (plan->argv[0] == NULL) /* process_prepare_none */
    {
      *path = NULL;
      return 0;
    }
  return path_lookup (plan->argv[0], env_get (plan->envp, "PATH"), path, err);
}
