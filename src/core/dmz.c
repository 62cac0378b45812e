/* The sealed exec stub and the choice between it and the re-exec fallback: see dmz.h. */
#include <config.h>
#include "dmz.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cloned_binary.h"
#include "log.h"
#include "utils.h"

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

bool
dmz_usable (const seccomp_prog *seccomp, int dmz_fd, const char *selinux_label, const char *apparmor_profile)
{
#if defined(HAVE_DMZ) && defined(DMZ_AUDIT_ARCH)
  if ((selinux_label && *selinux_label) || (apparmor_profile && *apparmor_profile))
    return false;
  /* Both extremes of the values we cannot know here (pointers, instruction pointer):
     a filter that looks at them must allow the call either way. */
  for (int pass = 0; pass < 2; pass++)
    {
      uint64_t any = pass ? UINT64_MAX : 0;
      struct seccomp_data d = {
        .nr = SYS_execveat,
        .arch = DMZ_AUDIT_ARCH,
        .instruction_pointer = any,
        .args = { (uint64_t) (int64_t) dmz_fd, any, any, any, AT_EMPTY_PATH, pass ? (uint64_t) -1 : 0 },
      };
      if (!seccomp_prog_allows (seccomp, &d))
        return false;
    }
  return true;
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
  for (int pass = 0; pass < 2; pass++)
    {
      uint64_t any = pass ? UINT64_MAX : 0, fd = pass ? UINT32_MAX : 0;
      struct seccomp_data w = {
        .nr = SYS_write,
        .arch = DMZ_AUDIT_ARCH,
        .instruction_pointer = any,
        .args = { fd, any, 1, any, any, any },
      };
      struct seccomp_data c = {
        .nr = SYS_close,
        .arch = DMZ_AUDIT_ARCH,
        .instruction_pointer = any,
        .args = { fd, any, any, any, any, any },
      };
      if (!seccomp_prog_allows (seccomp, &w) || !seccomp_prog_allows (seccomp, &c))
        return false;
    }
  return true;
#else
  (void) seccomp;
  return false;
#endif
}

char **
dmz_argv (int memcg_fd, const char *path, char *const argv[], char fdnum[DMZ_FDNUM_SIZE])
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
dmz_fallback_reexec (const sigset_t *mask, ocisbx_err **err)
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
  if (mask)
    sigprocmask (SIG_SETMASK, mask, NULL);
  return ensure_cloned_binary ((int) argc, argv, environ, err);
}

int
dmz_prepare (process_plan *plan, const seccomp_prog *seccomp, const sigset_t *reexec_mask, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  cleanup_close int fd = dmz_memfd (&e);

  if (fd >= 0 && dmz_usable (seccomp, fd, plan->selinux_label, plan->apparmor_profile))
    {
      plan->via_dmz = true;
      plan->dmz_memcg = dmz_memcg_usable (seccomp);
      plan->dmz_fd = steal_fd (&fd);
      return 0;
    }
  log_debug ("%s: the sealed copy of the runtime instead", e ? e->msg : "dmz: not usable for this process");
  return dmz_fallback_reexec (reexec_mask, err);
}
