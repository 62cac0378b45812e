/* The sealed exec stub and the choice between it and the re-exec fallback: see dmz_stub.h. */
#include <config.h>
#include "core/process/dmz_stub.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/process/cloned_binary.h"
#include "core/log.h"
#include "core/utils.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

#ifdef HAVE_DMZ
extern const unsigned char dmz_blob[];
extern const unsigned long dmz_blob_len;
#endif

#if defined(__x86_64__)
#define DMZ_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define DMZ_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

int
dmz_memfd (ocisbx_err **err)
{
#ifdef HAVE_DMZ
  cleanup_close int fd = memfd_create ("ocisbx-dmz", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  const int seals = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;

  if (fd < 0 && errno == EINVAL) /* kernel < 6.3 */
    fd = memfd_create ("ocisbx-dmz", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return err_set (err, errno, "dmz: memfd_create");
  if (write_all (fd, dmz_blob, dmz_blob_len) < 0)
    return err_set (err, errno, "dmz: write the stub");
  if (fcntl (fd, F_ADD_SEALS, seals | F_SEAL_EXEC) < 0 && (errno != EINVAL || fcntl (fd, F_ADD_SEALS, seals) < 0))
    return err_set (err, errno, "dmz: seal the stub");
  return steal_fd (&fd);
#else
  return err_set (err, ENOSYS, "dmz: not built for this architecture");
#endif
}

#ifdef DMZ_AUDIT_ARCH
/* Whether SECCOMP lets system call NR through with arguments LO, and with HI: the two
   extremes of the values we cannot know here (pointers, fds, the instruction pointer),
   so that a filter looking at them allows the call either way. */
static bool
call_allowed (const seccomp_prog *seccomp, int nr, const uint64_t lo[6], const uint64_t hi[6])
{
  for (int pass = 0; pass < 2; pass++)
    {
      struct seccomp_data d = {
        .nr = nr,
        .arch = DMZ_AUDIT_ARCH,
        .instruction_pointer = pass ? UINT64_MAX : 0,
      };
      memcpy (d.args, pass ? hi : lo, sizeof d.args);
      if (!seccomp_prog_allows (seccomp, &d))
        return false;
    }
  return true;
}
#endif

bool
dmz_usable (const seccomp_prog *seccomp, int dmz_fd, const char *selinux_label, const char *apparmor_profile)
{
#if defined(HAVE_DMZ) && defined(DMZ_AUDIT_ARCH)
  const uint64_t any = UINT64_MAX, fd = (uint64_t) (int64_t) dmz_fd;
  const uint64_t lo[6] = { fd, 0, 0, 0, AT_EMPTY_PATH, 0 }, hi[6] = { fd, any, any, any, AT_EMPTY_PATH, any };

  if ((selinux_label && *selinux_label) || (apparmor_profile && *apparmor_profile))
    return false;
  return call_allowed (seccomp, SYS_execveat, lo, hi);
#else
  (void) seccomp;
  (void) dmz_fd;
  (void) selinux_label;
  (void) apparmor_profile;
  return false;
#endif
}

bool
dmz_memcg_usable (const seccomp_prog *seccomp)
{
#ifdef DMZ_AUDIT_ARCH
  const uint64_t any = UINT64_MAX;
  const uint64_t wlo[6] = { 0, 0, 1, 0, 0, 0 }, whi[6] = { UINT32_MAX, any, 1, any, any, any };
  const uint64_t clo[6] = { 0 }, chi[6] = { UINT32_MAX, any, any, any, any, any };

  return call_allowed (seccomp, SYS_write, wlo, whi) && call_allowed (seccomp, SYS_close, clo, chi);
#else
  (void) seccomp;
  return false;
#endif
}

int
dmz_tree_check (const seccomp_prog *seccomp, bool tty, bool foreground, ocisbx_err **err)
{
#ifdef DMZ_AUDIT_ARCH
  /* what src/dmz/tree.h calls, with its arguments (between LO and HI: pointers, fds, pids) */
  const uint64_t any = UINT64_MAX, fd = UINT32_MAX;
  static const struct
  {
    const char *name;
    int nr;
    bool tty, foreground;
    uint64_t lo[6], hi[6];
  } calls[] = {
    { "rt_sigprocmask", SYS_rt_sigprocmask, 0, 0, { 0, 0, 0, 8 }, { 2, any, 0, 8 } },
    { "prctl (PR_SET_PDEATHSIG)", SYS_prctl, 0, 1, { PR_SET_PDEATHSIG, DMZ_TREE_RUNTIME_GONE },
      { PR_SET_PDEATHSIG, DMZ_TREE_RUNTIME_GONE } },
    { "ppoll", SYS_ppoll, 0, 1, { 0, 1, 0, 0, 8 }, { any, 1, any, 0, 8 } },
    { "prctl (PR_SET_CHILD_SUBREAPER)", SYS_prctl, 0, 0, { PR_SET_CHILD_SUBREAPER, 1 },
      { PR_SET_CHILD_SUBREAPER, 1 } },
    { "clone (a plain fork)", SYS_clone, 0, 0, { SIGCHLD }, { SIGCHLD } },
    { "setsid", SYS_setsid, 0, 0, { 0 }, { any, any, any, any, any, any } },
    { "ioctl (TIOCSCTTY)", SYS_ioctl, 1, 0, { 0, TIOCSCTTY, 0 }, { 0, TIOCSCTTY, 0, any, any, any } },
    { "close", SYS_close, 0, 0, { 0 }, { fd, any, any, any, any, any } },
    { "rt_sigtimedwait", SYS_rt_sigtimedwait, 0, 0, { 0, 0, 0, 8 }, { any, any, 0, 8 } },
    { "wait4", SYS_wait4, 0, 0, { 0, 0, 0, 0 }, { any, any, WNOHANG | __WALL, 0 } },
    { "kill", SYS_kill, 0, 0, { 0, 1 }, { any, 64 } },
    { "openat (/proc/thread-self/children)", SYS_openat, 0, 0, { (uint64_t) (int64_t) AT_FDCWD, 0, O_CLOEXEC },
      { any, any, O_CLOEXEC, any, any, any } },
    { "read", SYS_read, 0, 0, { 0, 0, 4096 }, { fd, any, 4096, any, any, any } },
    { "exit_group", SYS_exit_group, 0, 0, { 0 }, { 255, any, any, any, any, any } },
  };

  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
    if ((!calls[i].tty || tty) && (!calls[i].foreground || foreground)
        && !call_allowed (seccomp, calls[i].nr, calls[i].lo, calls[i].hi))
      return err_set (err, 0, "exec --kill-tree: the container's seccomp filter refuses %s, which the exec "
                              "tree's reaper (ocisbx-dmz) needs", calls[i].name);
  return 0;
#else
  (void) seccomp;
  (void) tty;
  (void) foreground;
  return err_set (err, ENOSYS, "exec --kill-tree: this build has no exec stub (ocisbx-dmz) to be the reaper");
#endif
}

const char *
dmz_tree_opts (const sigset_t *mask, int nfds, int pidfd, bool tty, char buf[DMZ_TREE_OPTS_SIZE])
{
  char fd[16] = "-";
  unsigned long bits = 0;

  for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
    if (sigismember (mask, sig) == 1)
      bits |= 1UL << (sig - 1);
  if (pidfd >= 0)
    snprintf (fd, sizeof fd, "%d", pidfd);
  snprintf (buf, DMZ_TREE_OPTS_SIZE, "%lx:%d:%s:%d", bits, nfds, fd, tty ? 1 : 0);
  return buf;
}

char **
dmz_argv (int memcg_fd, const char *tree_opts, const char *path, char *const argv[], char fdnum[DMZ_FDNUM_SIZE])
{
  size_t n = 0, k = 0;
  char **a;

  while (argv[n])
    n++;
  a = xmalloc ((n + 4) * sizeof *a);
  if (memcg_fd >= 0)
    {
      snprintf (fdnum, DMZ_FDNUM_SIZE, "%d", memcg_fd);
      a[k++] = (char *) DMZ_ARGV0_MEMCG;
      a[k++] = fdnum;
    }
  else if (tree_opts)
    {
      a[k++] = (char *) DMZ_ARGV0_TREE;
      a[k++] = (char *) tree_opts;
    }
  else
    a[k++] = (char *) DMZ_ARGV0;
  a[k++] = (char *) path;
  memcpy (a + k, argv, (n + 1) * sizeof *a);
  return a;
}

int
dmz_execveat (int dmz_fd, char *const argv[], char *const envp[])
{
  return (int) syscall (SYS_execveat, dmz_fd, "", argv, envp, AT_EMPTY_PATH);
}

int
dmz_fallback_reexec (const caller_signals *caller, ocisbx_err **err)
{
  cleanup_free char *cmdline = NULL;
  cleanup_free char **argv = NULL;
  size_t len = 0, argc = 0;
  extern char **environ;

  if (read_file_at (AT_FDCWD, "/proc/self/cmdline", &cmdline, &len, err) < 0)
    return -1;
  for (size_t i = 0; i < len; i++)
    argc += cmdline[i] == '\0';
  argv = xmalloc0 ((argc + 1) * sizeof *argv);
  for (size_t i = 0, k = 0; i < len && k < argc; k++)
    {
      argv[k] = cmdline + i;
      i += strlen (cmdline + i) + 1;
    }
  return ensure_cloned_binary ((int) argc, argv, environ, caller, err);
}

int
dmz_prepare (process_plan *plan, const seccomp_prog *seccomp, bool sealed, const caller_signals *caller,
             ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  cleanup_close int fd = -1;

  /* first: the new image starts the command again */
  if (sealed && dmz_fallback_reexec (caller, err) < 0)
    return -1;
  fd = dmz_memfd (&e);

  if (fd >= 0 && dmz_usable (seccomp, fd, plan->selinux_label, plan->apparmor_profile))
    {
      plan->via_dmz = true;
      plan->dmz_memcg = dmz_memcg_usable (seccomp);
      plan->dmz_fd = steal_fd (&fd);
      return 0;
    }
  log_debug ("%s: the sealed copy of the runtime instead", e ? e->msg : "dmz: not usable for this process");
  return dmz_fallback_reexec (caller, err);
}
