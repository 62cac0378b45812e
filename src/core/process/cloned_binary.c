/* /proc/self/exe protection: see cloned_binary.h. */
#include <config.h>
#include "core/process/cloned_binary.h"

#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/syscalls.h"
#include "core/utils.h"

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
#endif

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: executable memfd even under vm.memfd_noexec=1 */
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020 /* Linux 6.3: the mode bits cannot change */
#endif

#define REQUIRED_SEALS (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE)

bool
cloned_binary_fd_is_sealed (int fd)
{
  int seals = fcntl (fd, F_GET_SEALS);
  return seals >= 0 && (seals & REQUIRED_SEALS) == REQUIRED_SEALS;
}

bool
cloned_binary_exe_is_safe (int fd)
{
  struct statvfs st;

  if (cloned_binary_fd_is_sealed (fd))
    return true;
  return fstatvfs (fd, &st) == 0 && (st.f_flag & ST_RDONLY);
}

/* The executable EXE_PATH seen through a private, detached, read-only bind of the file
   itself (open_tree OPEN_TREE_CLONE, then mount_setattr): executed from it, a process's
   /proc/PID/exe is that file on that mount, so reopening it for writing fails (EROFS);
   once the fd is gone (O_CLOEXEC: at the execve) the mount belongs to no namespace, and
   nobody can make it writable again.  Nothing is copied: the pages are the page cache's.
   -1 (errno set) where we may not make mounts (no CAP_SYS_ADMIN over our mount
   namespace): the memfd copy serves then. */
static int
readonly_view (const char *exe_path)
{
  sys_mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
  cleanup_close int fd = sys->open_tree (AT_FDCWD, exe_path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);

  if (fd < 0 || sys->mount_setattr (fd, "", AT_EMPTY_PATH, &attr) < 0)
    return -1;
  return steal_fd (&fd);
}

static int
make_memfd (ocisbx_err **err)
{
  int fd = memfd_create ("ocisbx", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
  if (fd < 0 && errno == EINVAL) /* kernel < 6.3 */
    fd = memfd_create ("ocisbx", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (fd < 0)
    return err_set (err, errno, "cloned binary: memfd_create");
  return fd;
}

static int
copy_all (int from, int to, off_t size, ocisbx_err **err)
{
  off_t done = 0;
  char buf[8192]; /* the fallback only: a large frame would be probed page by page */

  while (done < size)
    {
      ssize_t r = sendfile (to, from, NULL, size - done);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0 && (errno == EINVAL || errno == ENOSYS) && done == 0)
        break; /* no sendfile between these two: plain copy below */
      if (r < 0)
        return err_set (err, errno, "cloned binary: copy /proc/self/exe");
      if (r == 0)
        return err_set (err, EIO, "cloned binary: /proc/self/exe shrank while copied");
      done += r;
    }
  while (done < size)
    {
      size_t want = size - done < (off_t) sizeof buf ? (size_t) (size - done) : sizeof buf;
      ssize_t r = read (from, buf, want);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return err_set (err, r < 0 ? errno : EIO, "cloned binary: read /proc/self/exe");
      if (write_all (to, buf, r) < 0)
        return err_set (err, errno, "cloned binary: write the copy");
      done += r;
    }
  return 0;
}

/* How many leading bytes of the executable EXE (SIZE bytes long) the kernel and ld.so
   need: the ELF header, the program headers and every segment's file contents.  What
   follows (debug info, symbol tables, section headers: most of an unstripped build) is
   never mapped, so the copy leaves it out.  *SHDR_GONE is set when the section header
   table falls outside that prefix.  Anything unexpected: SIZE (copy it all).  */
static off_t
image_extent (int exe, off_t size, bool *shdr_gone)
{
  Elf64_Ehdr eh;
  Elf64_Phdr ph[64];
  off_t end;

  *shdr_gone = false;
  if (pread (exe, &eh, sizeof eh, 0) != (ssize_t) sizeof eh
      || memcmp (eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64
      || eh.e_phentsize != sizeof ph[0] || eh.e_phnum == 0
      || eh.e_phnum > sizeof ph / sizeof ph[0])
    return size;
  if (pread (exe, ph, eh.e_phnum * sizeof ph[0], eh.e_phoff)
      != (ssize_t) (eh.e_phnum * sizeof ph[0]))
    return size;
  end = eh.e_phoff + eh.e_phnum * sizeof ph[0];
  for (size_t i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type != PT_NULL && (off_t) (ph[i].p_offset + ph[i].p_filesz) > end)
      end = ph[i].p_offset + ph[i].p_filesz;
  if (end <= 0 || end >= size)
    return size;
  *shdr_gone = eh.e_shoff != 0 && (off_t) eh.e_shoff + eh.e_shnum * eh.e_shentsize > end;
  return end;
}

/* The copy no longer has the section header table: say so in its ELF header, so that
   tools reading /proc/PID/exe see a valid (stripped) file rather than dangling offsets. */
static int
drop_section_headers (int fd, ocisbx_err **err)
{
  Elf64_Ehdr eh;

  if (pread (fd, &eh, sizeof eh, 0) != (ssize_t) sizeof eh)
    return err_set (err, errno ? errno : EIO, "cloned binary: read back the ELF header");
  eh.e_shoff = 0;
  eh.e_shnum = 0;
  eh.e_shstrndx = SHN_UNDEF;
  if (pwrite (fd, &eh, sizeof eh, 0) != (ssize_t) sizeof eh)
    return err_set (err, errno ? errno : EIO, "cloned binary: write the ELF header");
  return 0;
}

int
cloned_binary_copy (int exe, ocisbx_err **err)
{
  cleanup_close int fd = make_memfd (err);
  struct stat st;
  bool shdr_gone;
  off_t len;

  if (fd < 0)
    return -1;
  if (fstat (exe, &st) < 0)
    return err_set (err, errno, "cloned binary: stat /proc/self/exe");
  len = image_extent (exe, st.st_size, &shdr_gone);
  if (copy_all (exe, fd, len, err) < 0)
    return -1;
  if (shdr_gone && drop_section_headers (fd, err) < 0)
    return -1;
  if (fchmod (fd, 0555) < 0)
    return err_set (err, errno, "cloned binary: chmod the copy");
  if (fcntl (fd, F_ADD_SEALS, REQUIRED_SEALS | F_SEAL_EXEC) < 0
      && (errno != EINVAL || fcntl (fd, F_ADD_SEALS, REQUIRED_SEALS) < 0))
    return err_set (err, errno, "cloned binary: seal the copy");
  return steal_fd (&fd);
}

/* CALLER's signals for the exec (ENTER; OLD: our mask), or ours back after it failed. */
static void
signals_for_exec (const caller_signals *caller, sigset_t *old, bool enter)
{
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember (&caller->ignored, sig) == 1)
      signal (sig, enter ? SIG_IGN : SIG_DFL);
  sigprocmask (SIG_SETMASK, enter ? &caller->mask : old, enter ? old : NULL);
}

int
ensure_cloned_binary (int argc, char **argv, char **envp, const caller_signals *caller, ocisbx_err **err)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_close int copy = -1;
  sigset_t old;
  int saved;
  cleanup_free char **env = NULL;
  size_t n = 0;

  (void) argc;
  if (exe < 0)
    return err_set (err, errno, "cloned binary: open /proc/self/exe");
  if (cloned_binary_exe_is_safe (exe))
    {
      unsetenv (OCISBX_CLONED_ENV);
      return 0;
    }
  if (getenv (OCISBX_CLONED_ENV) != NULL)
    return err_set (err, 0, "cloned binary: re-executed, but /proc/self/exe is still writable");

  copy = readonly_view ("/proc/self/exe");
  if (copy < 0)
    copy = cloned_binary_copy (exe, err);
  if (copy < 0)
    return -1;
  while (envp && envp[n])
    n++;
  env = xmalloc0 ((n + 2) * sizeof *env);
  if (n)
    memcpy (env, envp, n * sizeof *env);
  env[n] = (char *) OCISBX_CLONED_ENV "=1";
  if (caller)
    signals_for_exec (caller, &old, true);
  syscall (SYS_execveat, copy, "", argv, env, AT_EMPTY_PATH);
  saved = errno;
  if (caller)
    signals_for_exec (caller, &old, false);
  return err_set (err, saved, "cloned binary: execute the sealed copy");
}
