/* /proc/self/exe protection (CVE-2019-5736): the commands that enter containers run
   from a read-only view of the binary (a private read-only bind of the file) or a sealed,
   anonymous copy, so a container process that reaches /proc/<runtime>/exe can neither
   write nor replace the host's ocisbx. */
#ifndef OCISBX_CLONED_BINARY_H
#define OCISBX_CLONED_BINARY_H

#include <signal.h>
#include <stdbool.h>

#include "core/error.h"

/* Set (to "1") across the re-exec, removed again on arrival: a loop guard. */
#define OCISBX_CLONED_ENV "_OCISBX_CLONED"

/* What a re-executed image starts with: the caller's signal mask, and the signals the
   caller ignored, which a foreground command stopped ignoring (foreground_block) and
   must ignore again across the exec (ignored stays ignored across execve; a handler or
   the default would not know). */
typedef struct caller_signals
{
  sigset_t mask;
  sigset_t ignored;
} caller_signals;

/* When /proc/self/exe can still be written (cloned_binary_exe_is_safe): execute the
   binary again with ARGV/ENVP from a read-only view of it (a private read-only bind of
   the file, where we may mount), else from a sealed memfd copy (does not return on
   success), starting with CALLER's signals (may be NULL: ours).  Returns 0 when already
   running from either (nothing changed), -1 with *err otherwise. */
int ensure_cloned_binary (int argc, char **argv, char **envp, const caller_signals *caller, ocisbx_err **err);

/* A sealed, read-only, executable memfd copy of the executable EXE: only the part of
   the file the kernel and ld.so map (headers and segments) when EXE is ELF64, the whole
   file otherwise.  Returns the new fd (O_CLOEXEC), or -1 with *err. */
int cloned_binary_copy (int exe, ocisbx_err **err);

/* True when FD is a memfd carrying every seal the protection needs. */
bool cloned_binary_fd_is_sealed (int fd);
/* True when the executable FD cannot be written through any path: a sealed memfd, or a
   file on a read-only mount (the read-only view above, or an installation on one). */
bool cloned_binary_exe_is_safe (int fd);

#endif
