/* The -ENOSYS stub: see seccomp_enosys.h.  libseccomp cannot say "every number above N"
   (its rules are per syscall), so the stub is classic BPF of our own, put in front of the
   exported program by seccomp.c's compile; the child loads the whole as before.

   The stub (F: the first instruction of libseccomp's filter, E = F - 1):

     ld  [arch]
     jeq AUDIT_ARCH_a, <section a>        one per architecture
     ...
     ja  F                                 an architecture without a section
   section (x86_64, whose x32 calls set bit 30 of the number):
     ld  [nr]
     jset 0x40000000, <x32>, <native>
     native: jgt max, E, F        (ja F when the profile names nothing for it)
     x32:    jgt max_x32, E, F    (idem)
   section (any other):
     ld  [nr]
     jeq 0, E                      s390 and s390x only
     jgt max, E, F
   E: ret ERRNO(ENOSYS) */
#include <config.h>
#include "core/seccomp/seccomp_enosys.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>

#include "core/seccomp/seccomp.h"

#define X32_SYSCALL_BIT 0x40000000u

bool
sc_enosys_wanted (uint32_t def)
{
  switch (def & SECCOMP_RET_ACTION_FULL)
    {
    case SECCOMP_RET_ALLOW:
    case SECCOMP_RET_LOG:
    case SECCOMP_RET_TRACE:
      return false;
    case SECCOMP_RET_ERRNO:
      return (def & SECCOMP_RET_DATA) != ENOSYS;
    default:
      return true;
    }
}

/* The largest number of any name of SC on the libseccomp architecture TOKEN; 0: none. */
static uint32_t
largest_named (const oci_seccomp *sc, uint32_t token)
{
  uint32_t max = 0;
  for (size_t i = 0; i < sc->syscalls_len; i++)
    for (size_t j = 0; j < sc->syscalls[i].names_len; j++)
      {
        int nr = sc->syscalls[i].names[j] ? seccomp_syscall_resolve_name_arch (token, sc->syscalls[i].names[j])
                                          : __NR_SCMP_ERROR;
        if (nr > 0 && (uint32_t) nr > max)
          max = (uint32_t) nr;
      }
  return max;
}

/* Records the maxima of the libseccomp architecture TOKEN in OUT[0..*n). */
static void
add_arch (const oci_seccomp *sc, uint32_t token, sc_enosys_arch *out, size_t *n)
{
  uint32_t audit = token == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : token;
  size_t i;

  for (i = 0; i < *n && out[i].audit != audit; i++)
    ;
  if (i == *n)
    {
      if (*n == SC_ENOSYS_MAX_ARCHS)
        return;
      out[(*n)++] = (sc_enosys_arch){ .audit = audit };
    }
  if (token == SCMP_ARCH_X32)
    out[i].max_x32 = largest_named (sc, token);
  else
    out[i].max = largest_named (sc, token);
}

size_t
sc_enosys_arches (const oci_seccomp *sc, sc_enosys_arch *out)
{
  size_t n = 0, kept = 0;
  uint32_t token;

  /* libseccomp's filter always has the native architecture (runc adds it too: Docker's
     profiles leave it out on some machines) */
  add_arch (sc, seccomp_arch_native (), out, &n);
  for (size_t i = 0; i < sc->architectures_len; i++)
    if (seccomp_arch_value (sc->architectures[i], &token) == 0)
      add_arch (sc, token, out, &n);
  for (size_t i = 0; i < n; i++)
    if (out[i].max || out[i].max_x32)
      out[kept++] = out[i];
  return kept;
}

static size_t
section_len (const sc_enosys_arch *a)
{
  if (a->audit == AUDIT_ARCH_X86_64)
    return 4;
  return a->audit == AUDIT_ARCH_S390 || a->audit == AUDIT_ARCH_S390X ? 3 : 2;
}

/* A conditional jump's offset from the instruction at FROM to TO: the layout keeps it
   below 256 (at most SC_ENOSYS_MAX_INSNS instructions). */
static uint8_t
jump_off (size_t from, size_t to)
{
  return (uint8_t) (to - from - 1);
}

/* At PC: jgt MAX, E, F; or ja F when MAX is 0. */
static struct sock_filter
above_max (uint32_t max, size_t pc, size_t e)
{
  if (max == 0)
    return (struct sock_filter) BPF_STMT (BPF_JMP | BPF_JA | BPF_K, (uint32_t) (e + 1 - pc - 1));
  return (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JGT | BPF_K, max, jump_off (pc, e), jump_off (pc, e + 1));
}

size_t
sc_enosys_stub (const sc_enosys_arch *a, size_t n, struct sock_filter *out)
{
  size_t e, pc, sec;

  if (n == 0)
    return 0;
  if (n > SC_ENOSYS_MAX_ARCHS)
    n = SC_ENOSYS_MAX_ARCHS;
  e = n + 2;
  for (size_t i = 0; i < n; i++)
    e += section_len (&a[i]);

  out[0] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch));
  sec = n + 2; /* where the first section starts */
  for (size_t i = 0; i < n; i++)
    {
      out[1 + i] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, a[i].audit, jump_off (1 + i, sec), 0);
      sec += section_len (&a[i]);
    }
  out[n + 1] = (struct sock_filter) BPF_STMT (BPF_JMP | BPF_JA | BPF_K, (uint32_t) (e + 1 - (n + 1) - 1));

  pc = n + 2;
  for (size_t i = 0; i < n; i++)
    {
      out[pc++] = (struct sock_filter) BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr));
      if (a[i].audit == AUDIT_ARCH_X86_64)
        {
          out[pc] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, X32_SYSCALL_BIT, 1, 0);
          pc++;
          out[pc] = above_max (a[i].max, pc, e);
          pc++;
          out[pc] = above_max (a[i].max_x32, pc, e);
          pc++;
          continue;
        }
      if (a[i].audit == AUDIT_ARCH_S390 || a[i].audit == AUDIT_ARCH_S390X)
        {
          out[pc] = (struct sock_filter) BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, 0, jump_off (pc, e), 0);
          pc++;
        }
      out[pc] = above_max (a[i].max, pc, e);
      pc++;
    }
  out[pc++] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS);
  return pc;
}
