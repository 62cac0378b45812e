/* The -ENOSYS stub put in front of the compiled filter (seccomp_enosys.c): a profile
   written before a syscall existed makes that syscall fail with ENOSYS, not with the
   profile's default action, so that libc falls back (clone3 -> clone, faccessat2 ->
   faccessat...), as runc does. */
#ifndef OCISBX_SECCOMP_ENOSYS_H
#define OCISBX_SECCOMP_ENOSYS_H

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ocispec.h"

/* One architecture the kernel reports (AUDIT_ARCH_*), with the largest syscall number
   the profile names for it; 0: none (no check for that ABI: the filter decides). */
typedef struct sc_enosys_arch
{
  uint32_t audit;
  uint32_t max;     /* the native ABI (on x86_64: the calls without bit 30) */
  uint32_t max_x32; /* x86_64 only: the x32 ABI, bit 30 included */
} sc_enosys_arch;

/* More than libseccomp knows; the stub's jumps stay below 256 with these. */
#define SC_ENOSYS_MAX_ARCHS 32
#define SC_ENOSYS_MAX_INSNS (3 + 5 * SC_ENOSYS_MAX_ARCHS)

/* Whether a filter of default action DEF (SCMP_ACT_*) gets the stub: not when DEF runs
   the call (ALLOW, LOG; TRACE: the tracer handles new calls) nor when it is already
   ERRNO(ENOSYS). */
bool sc_enosys_wanted (uint32_t def);
/* The architectures of SC (and the native one, always in the filter) with the largest
   number of any name of .syscalls (every rule, whatever its action; names unknown on an
   architecture and libseccomp's pseudo numbers ignored); those where the profile names
   nothing are left out.  Returns their number (at most SC_ENOSYS_MAX_ARCHS). */
size_t sc_enosys_arches (const oci_seccomp *sc, sc_enosys_arch *out);
/* The stub for the N architectures A into OUT (SC_ENOSYS_MAX_INSNS room): a call of one
   of them above its maximum returns ERRNO(ENOSYS) (on s390 and s390x also syscall 0, the
   kernel's multiplexer of unknown numbers); any other call goes on to the instruction
   that follows the stub.  Returns its length (0 when N is 0). */
size_t sc_enosys_stub (const sc_enosys_arch *a, size_t n, struct sock_filter *out);

#endif
