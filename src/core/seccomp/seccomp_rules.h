/* linux.seccomp.syscalls as libseccomp rules, without those that cannot change the
   filter, and a lower bound of the filter's size (seccomp_rules.c). */
#ifndef OCISBX_SECCOMP_RULES_H
#define OCISBX_SECCOMP_RULES_H

#include "core/seccomp/seccomp.h"

typedef struct sc_rule
{
  const char *name; /* the syscall's name (the config's string) */
  int nr;           /* seccomp_syscall_resolve_name: native, or libseccomp's pseudo number */
  uint32_t act;
  unsigned ncmp;
  struct scmp_arg_cmp cmp[6];
  size_t src; /* index in .linux.seccomp.syscalls */
} sc_rule;

/* The rules for every syscall name of SC (not those whose action is DEF, nor unknown
   names), in the config's order.  *OUT is malloc'd; returns their number. */
size_t sc_rules_expand (const oci_seccomp *sc, uint32_t def, sc_rule **out);
/* Leaves out of R, keeping the order, the rules that cannot change the filter (and on
   which libseccomp would spend time): repeats of an earlier rule, and the rules with
   comparisons of a syscall that has one without.  Returns how many are left. */
size_t sc_rules_drop_inert (sc_rule *r, size_t n);
/* A lower bound of the BPF instructions the N rules R compile to, with SC's architectures. */
size_t sc_rules_min_insns (const oci_seccomp *sc, const sc_rule *r, size_t n);
/* An error naming .linux.seccomp.syscalls and BPF_MAXINSNS when that bound exceeds it. */
int sc_rules_check_size (const oci_seccomp *sc, const sc_rule *r, size_t n, ocisbx_err **err);

#endif
