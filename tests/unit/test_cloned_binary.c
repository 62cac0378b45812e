/* cloned_binary_copy: the sealed copy holds exactly the mapped part of an ELF file (and
   still runs), the whole of anything else, and refuses every write. */
#include <config.h>
#include "unit.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/process/cloned_binary.h"
#include "core/utils.h"

#define PROBE_ENV "OCISBX_UNIT_CLONED_PROBE"
#define PROBE_STATUS 42

/* Run from the copy (see test_elf_copy_runs): prove it got this far, before main. */
__attribute__ ((constructor)) static void
probe (void)
{
  if (getenv (PROBE_ENV) != NULL)
    _exit (PROBE_STATUS);
}

static off_t
size_of (int fd)
{
  struct stat st;
  return fstat (fd, &st) == 0 ? st.st_size : -1;
}

/* fexecve FD in a child with ENV (NULL-terminated); its exit status, or -1. */
static int
run_fd (int fd, char **env)
{
  char *argv[] = { "copy", NULL };
  int status;
  pid_t pid = fork ();

  if (pid == 0)
    {
      fexecve (fd, argv, env);
      _exit (127);
    }
  if (pid < 0 || waitpid (pid, &status, 0) != pid || !WIFEXITED (status))
    return -1;
  return WEXITSTATUS (status);
}

static void
test_elf_copy_is_the_mapped_prefix (void)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int copy = cloned_binary_copy (exe, &err);
  Elf64_Ehdr eh, ceh;
  Elf64_Phdr ph;
  off_t end = 0;
  char a[4096], b[4096];

  CHECK (copy >= 0);
  if (copy < 0)
    return;
  CHECK (cloned_binary_fd_is_sealed (copy));
  CHECK (pread (exe, &eh, sizeof eh, 0) == (ssize_t) sizeof eh);
  for (int i = 0; i < eh.e_phnum; i++)
    {
      CHECK (pread (exe, &ph, sizeof ph, eh.e_phoff + i * sizeof ph) == (ssize_t) sizeof ph);
      if ((off_t) (ph.p_offset + ph.p_filesz) > end)
        end = ph.p_offset + ph.p_filesz;
    }
  /* Built with -g (or at least a symbol table): there is something after the segments. */
  CHECK (end < size_of (exe));
  CHECK (size_of (copy) == end);
  /* The section headers are gone, and the header says so. */
  CHECK (pread (copy, &ceh, sizeof ceh, 0) == (ssize_t) sizeof ceh);
  CHECK (ceh.e_shoff == 0 && ceh.e_shnum == 0 && ceh.e_shstrndx == SHN_UNDEF);
  CHECK (ceh.e_phoff == eh.e_phoff && ceh.e_phnum == eh.e_phnum && ceh.e_entry == eh.e_entry);
  /* Past the ELF header, the bytes are the file's. */
  CHECK (pread (exe, a, sizeof a, 0) == (ssize_t) sizeof a);
  CHECK (pread (copy, b, sizeof b, 0) == (ssize_t) sizeof b);
  CHECK (memcmp (a + sizeof eh, b + sizeof eh, sizeof a - sizeof eh) == 0);
  CHECK (pread (exe, a, sizeof a, end - (off_t) sizeof a) == (ssize_t) sizeof a);
  CHECK (pread (copy, b, sizeof b, end - (off_t) sizeof b) == (ssize_t) sizeof b);
  CHECK (memcmp (a, b, sizeof a) == 0);
}

static void
test_elf_copy_runs (void)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int copy = cloned_binary_copy (exe, &err);
  char *env[] = { PROBE_ENV "=1", NULL };

  CHECK (copy >= 0);
  if (copy >= 0)
    CHECK (run_fd (copy, env) == PROBE_STATUS);
}

static void
test_other_files_are_copied_whole (void)
{
  static const char script[] = "#!/bin/sh\nexit 7\n"; /* not ELF */
  cleanup_close int src = memfd_create ("script", MFD_CLOEXEC);
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int copy = -1;
  char back[sizeof script];

  CHECK (src >= 0 && write (src, script, sizeof script - 1) == (ssize_t) sizeof script - 1);
  CHECK (lseek (src, 0, SEEK_SET) == 0);
  copy = cloned_binary_copy (src, &err);
  CHECK (copy >= 0);
  if (copy < 0)
    return;
  CHECK (size_of (copy) == (off_t) sizeof script - 1);
  CHECK (pread (copy, back, sizeof back, 0) == (ssize_t) sizeof script - 1);
  CHECK (memcmp (back, script, sizeof script - 1) == 0);
  CHECK (cloned_binary_fd_is_sealed (copy));
}

static void
test_copy_refuses_writes (void)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int copy = cloned_binary_copy (exe, &err);
  cleanup_close int w = -1;
  char path[64];
  struct stat st;

  CHECK (copy >= 0);
  if (copy < 0)
    return;
  CHECK (fstat (copy, &st) == 0 && (st.st_mode & 0777) == 0555);
  CHECK (pwrite (copy, "x", 1, 0) < 0);
  CHECK (ftruncate (copy, 0) < 0);
  if (fcntl (copy, F_GET_SEALS) & 0x0020) /* F_SEAL_EXEC, Linux >= 6.3 */
    CHECK (fchmod (copy, 0444) < 0);
  snprintf (path, sizeof path, "/proc/self/fd/%d", copy);
  w = open (path, O_WRONLY | O_CLOEXEC);
  CHECK (w < 0 || write (w, "x", 1) < 0);
}

UNIT_MAIN (T (test_elf_copy_is_the_mapped_prefix), T (test_elf_copy_runs),
           T (test_other_files_are_copied_whole), T (test_copy_refuses_writes))
