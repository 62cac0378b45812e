/* /proc/self/exe protection (CVE-2019-5736): the commands that enter containers run
   from a sealed, anonymous copy of the binary, so a container process that reaches
   /proc/<runtime>/exe can neither write nor replace the host's ocisbx. */
#ifndef OCISBX_CLONED_BINARY_H
#define OCISBX_CLONED_BINARY_H

#include <stdbool.h>

#include "core/error.h"

/* Set (to "1") across the re-exec, removed again on arrival: a loop guard. */
#define OCISBX_CLONED_ENV "_OCISBX_CLONED"

/* When /proc/self/exe is not yet a sealed memfd: copy the binary into one, seal it and
   fexecve it with ARGV/ENVP (does not return on success).  Returns 0 when already
   running from the sealed copy, -1 with *err otherwise. */
int ensure_cloned_binary (int argc, char **argv, char **envp, ocisbx_err **err);

/* A sealed, read-only, executable memfd copy of the executable EXE: only the part of
   the file the kernel and ld.so map (headers and segments) when EXE is ELF64, the whole
   file otherwise.  Returns the new fd (O_CLOEXEC), or -1 with *err. */
int cloned_binary_copy (int exe, ocisbx_err **err);

/* True when FD is a memfd carrying every seal the protection needs. */
bool cloned_binary_fd_is_sealed (int fd);

#endif
