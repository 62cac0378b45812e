/* linux.seccomp.syscalls as the rules handed to libseccomp, and what they cannot fit in.

   libseccomp takes time quadratic in the rules it is given (each addition snapshots
   all earlier ones): 8000 rules cost seconds, 100000 minutes.  So, before it sees any:
   - the rules are expanded (one per syscall name, comparisons of one argument split as
     runc does), and those that cannot change the filter dropped: repeats, and the rules
     with comparisons of a syscall that has a rule without (libseccomp keeps only that:
     db.c, db_rule_add; not for the calls it multiplexes, whose rules other names share);
   - a lower bound of the program's size is computed, and a filter that cannot fit in the
     kernel's BPF_MAXINSNS instructions is refused at once.

   The bound (arch_bound) counts only instructions every compilation must have, so a
   filter it refuses could never have loaded. */
#include <config.h>
#include "core/seccomp/seccomp_rules.h"

#include <errno.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "core/utils.h"

#define FIELD "config.json: .linux.seccomp"

static int
cmp_u64 (uint64_t a, uint64_t b)
{
  return a < b ? -1 : a > b;
}

/* Order of rules for finding repeats: syscall, action, comparisons; then first seen. */
static int
rule_order (const void *pa, const void *pb)
{
  const sc_rule *a = *(const sc_rule *const *) pa, *b = *(const sc_rule *const *) pb;
  int c;

  if ((c = (a->nr > b->nr) - (a->nr < b->nr)) || (c = (a->ncmp > 0) - (b->ncmp > 0)))
    return c;
  if ((c = cmp_u64 (a->act, b->act)) || (c = cmp_u64 (a->ncmp, b->ncmp)))
    return c;
  for (unsigned k = 0; k < a->ncmp; k++)
    if ((c = cmp_u64 (a->cmp[k].arg, b->cmp[k].arg)) || (c = cmp_u64 (a->cmp[k].op, b->cmp[k].op))
        || (c = cmp_u64 (a->cmp[k].datum_a, b->cmp[k].datum_a))
        || (c = cmp_u64 (a->cmp[k].datum_b, b->cmp[k].datum_b)))
      return c;
  return (a > b) - (a < b);
}

static bool
same_rule (const sc_rule *a, const sc_rule *b)
{
  if (a->nr != b->nr || a->act != b->act || a->ncmp != b->ncmp)
    return false;
  for (unsigned k = 0; k < a->ncmp; k++)
    if (a->cmp[k].arg != b->cmp[k].arg || a->cmp[k].op != b->cmp[k].op || a->cmp[k].datum_a != b->cmp[k].datum_a
        || a->cmp[k].datum_b != b->cmp[k].datum_b)
      return false;
  return true;
}

/* Whether R makes a comparison on every architecture: libseccomp leaves out those that
   cannot be false (a MASKED_EQ without mask bits: on 32-bit architectures, without low
   ones), and a rule left without any acts as one without comparisons. */
static bool
has_code (const sc_rule *r)
{
  for (unsigned k = 0; k < r->ncmp; k++)
    if (r->cmp[k].op != SCMP_CMP_MASKED_EQ || (uint32_t) r->cmp[k].datum_a != 0)
      return true;
  return false;
}

/* A socket or IPC call, or socketcall or ipc: on x86, s390, ppc and mips libseccomp
   turns their rules into rules of the multiplexer too (syscalls.c: abi_rule_add), which
   other names share.  On x86 their names resolve to its pseudo numbers, __PNR_socket
   (-101) to __PNR_shmctl (-224). */
static bool
multiplexed (const char *name)
{
  int nr = seccomp_syscall_resolve_name_arch (SCMP_ARCH_X86, name);
  return (nr <= -101 && nr >= -224) || strcmp (name, "socketcall") == 0 || strcmp (name, "ipc") == 0;
}

static void
push_sc_rule (sc_rule **r, size_t *n, size_t *cap, const sc_rule *x)
{
  if (*n == *cap)
    {
      *cap = *cap ? *cap * 2 : 64;
      *r = realloc (*r, *cap * sizeof **r);
      if (*r == NULL)
        abort ();
    }
  (*r)[(*n)++] = *x;
}

/* The rules of syscalls[I] (action ACT), appended. */
static void
expand (const oci_syscall *s, size_t i, uint32_t act, sc_rule **r, size_t *n, size_t *cap)
{
  sc_rule x = { .act = act, .src = i };
  unsigned per_index[6] = { 0 };
  bool split = false;

  for (size_t j = 0; j < s->args_len; j++)
    {
      int op = 0;
      seccomp_operator_value (s->args[j].op, &op);
      /* MASKED_EQ: value is the mask, valueTwo the datum (as libseccomp's datum_a/b). */
      x.cmp[j] = (struct scmp_arg_cmp) { .arg = s->args[j].index, .op = op, .datum_a = s->args[j].value,
                                         .datum_b = s->args[j].value_two };
      split |= ++per_index[s->args[j].index] > 1;
    }
  for (size_t k = 0; k < s->names_len; k++)
    {
      x.name = s->names[k];
      x.nr = seccomp_syscall_resolve_name (x.name);
      if (x.nr == __NR_SCMP_ERROR)
        {
          log_debug ("seccomp: unknown syscall \"%s\" (syscalls[%zu]) skipped", x.name, i);
          continue;
        }
      if (!split)
        {
          x.ncmp = s->args_len;
          push_sc_rule (r, n, cap, &x);
          continue;
        }
      /* libseccomp cannot AND two comparisons of one argument: like runc, each
         comparison becomes a rule of its own (so they are ORed). */
      for (size_t j = 0; j < s->args_len; j++)
        {
          sc_rule one = x;
          one.ncmp = 1;
          one.cmp[0] = x.cmp[j];
          push_sc_rule (r, n, cap, &one);
        }
    }
}

size_t
sc_rules_expand (const oci_seccomp *sc, uint32_t def, sc_rule **out)
{
  sc_rule *r = NULL;
  size_t n = 0, cap = 0;

  for (size_t i = 0; i < sc->syscalls_len; i++)
    {
      const oci_syscall *s = &sc->syscalls[i];
      uint32_t act;
      seccomp_action_value (s->action, s->errno_ret, &act);
      if (act == def) /* libseccomp refuses rules that do what the default does */
        {
          log_debug ("seccomp: syscalls[%zu] has the default action: skipped", i);
          continue;
        }
      expand (s, i, act, &r, &n, &cap);
    }
  *out = r;
  return n;
}

size_t
sc_rules_drop_inert (sc_rule *r, size_t n)
{
  cleanup_free sc_rule **order = xmalloc0 ((n ? n : 1) * sizeof *order);
  size_t kept = 0;

  /* Mark (src = SIZE_MAX) what cannot change the filter, then close the gaps. */
  for (size_t i = 0; i < n; i++)
    order[i] = &r[i];
  qsort (order, n, sizeof *order, rule_order);
  for (size_t i = 0, j; i < n; i = j)
    {
      /* one syscall: [i, j); a rule without comparisons sorts first */
      bool bare = order[i]->ncmp == 0 && !multiplexed (order[i]->name);
      for (j = i + 1; j < n && order[j]->nr == order[i]->nr; j++)
        if ((bare && has_code (order[j])) || same_rule (order[j], order[j - 1]))
          order[j]->src = SIZE_MAX;
    }
  for (size_t i = 0; i < n; i++)
    if (r[i].src != SIZE_MAX)
      r[kept++] = r[i];
  if (kept < n)
    log_debug ("seccomp: %zu of %zu rules cannot change the filter: dropped", n - kept, n);
  return kept;
}

/* ---- the size bound ---- */

/* A comparison as its instruction compares, on the low 32 bits (all an architecture of
   32 bits compares; a 64-bit one compares them too): libseccomp's normalized operator
   (NE as EQ, LT as GE, LE as GT, MASKED_EQ with a full mask as EQ), mask, datum. */
typedef struct key
{
  uint8_t op;
  uint32_t mask;
  uint32_t datum;
} key;

typedef struct arch_rule
{
  int nr;
  unsigned nkeys; /* comparisons that make code on every architecture */
  key k[6];
} arch_rule;

static int
key_order (const void *pa, const void *pb)
{
  const key *a = pa, *b = pb;
  int c;
  if ((c = cmp_u64 (a->op, b->op)) || (c = cmp_u64 (a->mask, b->mask)))
    return c;
  return cmp_u64 (a->datum, b->datum);
}

static int
arch_rule_order (const void *pa, const void *pb)
{
  const arch_rule *a = pa, *b = pb;
  int c = (a->nr > b->nr) - (a->nr < b->nr);
  return c ? c : cmp_u64 (a->nkeys, b->nkeys);
}

static unsigned
rule_keys (const sc_rule *r, key *k)
{
  unsigned n = 0;
  for (unsigned i = 0; i < r->ncmp; i++)
    {
      const struct scmp_arg_cmp *c = &r->cmp[i];
      uint32_t mask = c->op == SCMP_CMP_MASKED_EQ ? (uint32_t) c->datum_a : UINT32_MAX;
      uint32_t datum = (uint32_t) (c->op == SCMP_CMP_MASKED_EQ ? c->datum_b : c->datum_a);
      if (mask == 0) /* a MASKED_EQ without low bits: no code on 32-bit architectures */
        continue;
      k[n].op = c->op == SCMP_CMP_NE ? SCMP_CMP_EQ
                : c->op == SCMP_CMP_LT ? SCMP_CMP_GE
                : c->op == SCMP_CMP_LE ? SCMP_CMP_GT
                : c->op == SCMP_CMP_MASKED_EQ && mask == UINT32_MAX ? SCMP_CMP_EQ
                                                                    : c->op;
      k[n].mask = mask;
      k[n].datum = datum & mask;
      n++;
    }
  return n;
}

/* At least this many instructions for ARCH's rules: one per syscall (its number
   compared), and one per distinct comparison of the rules libseccomp cannot drop.  A
   syscall with a rule without comparisons has no others (db.c: db_rule_add); of the
   others, a rule may be shortened by one whose comparisons are a subset of its own, so
   only the rules with the fewest comparisons of their syscall count.  Distinct
   comparisons differ in their immediate; shared ones (several syscalls, several
   arguments) may be one block of code, so each counts once. */
static size_t
arch_bound (uint32_t arch, bool native, const sc_rule *r, size_t n, arch_rule *ar, key *keys)
{
  /* Where socket and IPC calls are multiplexed (x86, s390, ppc, mips), their rules also
     become rules of socketcall and ipc, with a comparison of the call: those two
     syscalls count, their comparisons do not. */
  int mux[2] = { seccomp_syscall_resolve_name_arch (arch, "socketcall"),
                 seccomp_syscall_resolve_name_arch (arch, "ipc") };
  size_t m = 0, count = 0, nkeys = 0;

  for (size_t i = 0; i < n; i++)
    {
      int nr = native ? r[i].nr : seccomp_syscall_resolve_name_arch (arch, r[i].name);
      if (nr < 0) /* not a syscall of ARCH (or one libseccomp rewrites) */
        continue;
      ar[m].nr = nr;
      ar[m].nkeys = nr == mux[0] || nr == mux[1] ? 0 : rule_keys (&r[i], ar[m].k);
      m++;
    }
  qsort (ar, m, sizeof *ar, arch_rule_order);
  for (size_t i = 0, fewest = 0; i < m; i++)
    {
      if (i == 0 || ar[i].nr != ar[i - 1].nr)
        {
          count++;
          fewest = ar[i].nkeys; /* 0: a rule without comparisons, the syscall has no others */
        }
      if (ar[i].nkeys == fewest)
        for (unsigned k = 0; k < ar[i].nkeys; k++)
          keys[nkeys++] = ar[i].k[k];
    }
  qsort (keys, nkeys, sizeof *keys, key_order);
  for (size_t i = 0; i < nkeys; i++)
    if (i == 0 || key_order (&keys[i], &keys[i - 1]) != 0)
      count++;
  return count;
}

size_t
sc_rules_min_insns (const oci_seccomp *sc, const sc_rule *r, size_t n)
{
  cleanup_free arch_rule *ar = xmalloc0 ((n ? n : 1) * sizeof *ar);
  cleanup_free key *keys = xmalloc0 ((n ? n : 1) * 6 * sizeof *keys);
  uint32_t native = seccomp_arch_native (), a;
  size_t total = 1; /* the default action */

  /* every architecture (seccomp_init's native one and those listed): its check, its rules */
  total += 1 + arch_bound (native, true, r, n, ar, keys);
  for (size_t i = 0; i < sc->architectures_len; i++)
    {
      bool seen = false;
      if (seccomp_arch_value (sc->architectures[i], &a) < 0 || a == native)
        continue;
      for (size_t j = 0; j < i; j++)
        {
          uint32_t b;
          seen |= seccomp_arch_value (sc->architectures[j], &b) == 0 && b == a;
        }
      if (!seen)
        total += 1 + arch_bound (a, false, r, n, ar, keys);
    }
  return total;
}

int
sc_rules_check_size (const oci_seccomp *sc, const sc_rule *r, size_t n, ocisbx_err **err)
{
  size_t min = sc_rules_min_insns (sc, r, n);

  if (min > BPF_MAXINSNS)
    return err_set (err, E2BIG,
                    FIELD ".syscalls: %zu rules need at least %zu BPF instructions, more than the kernel's "
                          "limit of %d (BPF_MAXINSNS)",
                    n, min, BPF_MAXINSNS);
  return 0;
}
