/* seccomp_rules.c: the rules dropped before libseccomp never change the program, the
   size bound never exceeds a real compilation, and what cannot fit is refused early. */
#include <config.h>
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/seccomp/seccomp.h"
#include "core/seccomp/seccomp_rules.h"
#include "core/utils.h"

static bool dump_round;

/* The program libseccomp makes of the N rules R (as seccomp.c compiles), or NULL. */
static struct sock_filter *
compile_rules (const oci_seccomp *sc, uint32_t def, const sc_rule *r, size_t n, size_t *len)
{
  scmp_filter_ctx ctx = seccomp_init (def);
  struct sock_filter *insns = NULL;
  struct stat st;
  int fd = memfd_create ("test", MFD_CLOEXEC);
  bool ok = ctx != NULL && fd >= 0;

  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
  for (size_t i = 0; ok && i < sc->architectures_len; i++)
    {
      uint32_t a;
      int e;
      seccomp_arch_value (sc->architectures[i], &a);
      e = seccomp_arch_add (ctx, a);
      ok = e == 0 || e == -EEXIST;
    }
  for (size_t i = 0; ok && i < n; i++)
    {
      int e = seccomp_rule_add_array (ctx, r[i].act, r[i].nr, r[i].ncmp, r[i].cmp);
      ok = e == 0;
      if (!ok && dump_round)
        fprintf (stderr, "add %zu (%s src %zu): %d\n", i, r[i].name, r[i].src, e);
    }
  if (ok && seccomp_export_bpf (ctx, fd) == 0 && fstat (fd, &st) == 0 && st.st_size > 0)
    {
      insns = xmalloc0 (st.st_size);
      if (pread (fd, insns, st.st_size, 0) != st.st_size)
        abort ();
      *len = st.st_size / sizeof *insns;
    }
  if (ctx)
    seccomp_release (ctx);
  if (fd >= 0)
    close (fd);
  return insns;
}

/* ---- random profiles ---- */

static uint32_t seed;

static uint32_t
rnd (uint32_t n)
{
  seed = seed * 1103515245u + 12345u;
  return (seed >> 8) % n;
}

static char *names_pool[] = { "read", "write", "openat", "close", "socket", "connect", "mmap", "ioctl",
                              "fcntl", "socketcall", "ipc", "getpid", "clone", "personality", "kill" };
static char *actions_pool[] = { "SCMP_ACT_ALLOW", "SCMP_ACT_ERRNO", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP",
                                "SCMP_ACT_LOG" };
static char *ops_pool[] = { "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ",
                            "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ" };
static const uint64_t values_pool[] = { 0, 1, 2, 5, 7, 0xff, 0xffffffff, 0x100000000ULL, 0x100000005ULL,
                                        ~0ULL, 0xffffffff00000000ULL };
static char *archs_pool[] = { "SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32" };
static uint32_t errnos[] = { 1, 2, 38 };

#define N_OF(a) (sizeof (a) / sizeof ((a)[0]))

/* A profile of up to MAX rules; its arrays live in the caller's buffers. */
static void
random_profile (oci_seccomp *sc, oci_syscall *sys, oci_seccomp_arg (*args)[3], char *(*names)[3], char **archs,
                size_t max)
{
  memset (sc, 0, sizeof *sc);
  sc->default_action = actions_pool[rnd (2)]; /* ALLOW or ERRNO */
  sc->architectures = archs;
  sc->architectures_len = rnd (4);
  for (size_t i = 0; i < sc->architectures_len; i++)
    archs[i] = archs_pool[(i + rnd (2)) % 3];
  sc->syscalls = sys;
  sc->syscalls_len = 1 + rnd (max);
  for (size_t i = 0; i < sc->syscalls_len; i++)
    {
      oci_syscall *s = &sys[i];
      memset (s, 0, sizeof *s);
      s->names = names[i];
      s->names_len = 1 + rnd (3);
      for (size_t k = 0; k < s->names_len; k++)
        names[i][k] = names_pool[rnd (N_OF (names_pool))];
      s->action = actions_pool[rnd (N_OF (actions_pool))];
      s->errno_ret = &errnos[rnd (3)];
      s->args = args[i];
      s->args_len = rnd (4) == 0 ? 0 : rnd (4);
      for (size_t j = 0; j < s->args_len; j++)
        args[i][j] = (oci_seccomp_arg){ .index = rnd (3), .op = ops_pool[rnd (N_OF (ops_pool))],
                                        .value = values_pool[rnd (N_OF (values_pool))],
                                        .value_two = values_pool[rnd (N_OF (values_pool))] };
    }
}

/* Whether programs A and B answer alike every call of the pool's syscalls, on x86_64,
   i386 and x32, with the pool's values in the first three arguments. */
static bool
same_answers (const struct sock_filter *a, size_t la, const struct sock_filter *b, size_t lb)
{
  static const struct
  {
    uint32_t arch, audit, bit;
  } archs[] = { { SCMP_ARCH_X86_64, AUDIT_ARCH_X86_64, 0 },
                { SCMP_ARCH_X86, AUDIT_ARCH_I386, 0 },
                { SCMP_ARCH_X32, AUDIT_ARCH_X86_64, 0x40000000 } };
  struct seccomp_data d = { 0 };
  size_t nv = N_OF (values_pool);

  for (size_t i = 0; i < N_OF (archs); i++)
    for (size_t k = 0; k <= N_OF (names_pool); k++)
      {
        int nr = k < N_OF (names_pool) ? seccomp_syscall_resolve_name_arch (archs[i].arch, names_pool[k]) : 999;
        if (nr < 0)
          continue;
        d.arch = archs[i].audit;
        d.nr = nr | (int) archs[i].bit;
        for (size_t v = 0; v < nv * nv * nv; v++)
          {
            d.args[0] = values_pool[v % nv];
            d.args[1] = values_pool[v / nv % nv];
            d.args[2] = values_pool[v / nv / nv];
            if (seccomp_bpf_run (a, la, &d) != seccomp_bpf_run (b, lb, &d))
              return false;
          }
      }
  return true;
}

/* Over many random profiles (SECCOMP_ROUNDS, default 1500; DUMP_ROUND=N prints the
   rules of round N): without the rules dropped libseccomp makes the same program (or,
   rarely, one laid out differently that answers every call alike), and the bound is
   never above the program's length. */
static void
test_random_profiles (void)
{
  enum { MAXR = 40 };
  oci_syscall sys[MAXR];
  oci_seccomp_arg args[MAXR][3];
  char *names[MAXR][3];
  char *archs[3];
  size_t compared = 0, dropped = 0, tightest = 0, relaid = 0;
  int rounds = getenv ("SECCOMP_ROUNDS") ? atoi (getenv ("SECCOMP_ROUNDS")) : 1500;

  seed = 17;
  for (int round = 0; round < rounds; round++)
    {
      oci_seccomp sc;
      cleanup_free sc_rule *r = NULL;
      cleanup_free sc_rule *kept = NULL;
      cleanup_free struct sock_filter *a = NULL;
      cleanup_free struct sock_filter *b = NULL;
      size_t n, nk, la = 0, lb = 0, min;
      uint32_t def;

      random_profile (&sc, sys, args, names, archs, round % 3 ? 8 : MAXR);
      dump_round = getenv ("DUMP_ROUND") && atoi (getenv ("DUMP_ROUND")) == round;
      seccomp_action_value (sc.default_action, sc.default_errno_ret, &def);
      n = sc_rules_expand (&sc, def, &r);
      kept = xmalloc0 ((n ? n : 1) * sizeof *kept);
      if (n)
        memcpy (kept, r, n * sizeof *r);
      nk = sc_rules_drop_inert (kept, n);
      a = compile_rules (&sc, def, r, n, &la);
      if (a == NULL)
        continue; /* libseccomp refused the rules (a conflict): nothing to compare */
      b = compile_rules (&sc, def, kept, nk, &lb);
      /* libseccomp lays out the same filter differently when rules it would drop are
         left out (its node counts differ): the answers must not differ */
      if (b == NULL || la != lb || memcmp (a, b, la * sizeof *a) != 0)
        {
          CHECK (b != NULL && same_answers (a, la, b, lb));
          relaid++;
        }
      min = sc_rules_min_insns (&sc, r, n);
      CHECK (min <= la);
      CHECK (sc_rules_min_insns (&sc, kept, nk) == min);
      for (size_t i = 0; dump_round && i < n; i++)
        {
          fprintf (stderr, "rule %zu: %s nr %d act %x syscalls[%zu]:", i, r[i].name, r[i].nr, r[i].act, r[i].src);
          for (unsigned k = 0; k < r[i].ncmp; k++)
            fprintf (stderr, " a%u op%d %llx %llx", r[i].cmp[k].arg, r[i].cmp[k].op,
                     (unsigned long long) r[i].cmp[k].datum_a, (unsigned long long) r[i].cmp[k].datum_b);
          fputc ('\n', stderr);
        }
      if (min > la || b == NULL)
        fprintf (stderr, "  round %d: %zu rules (%zu kept): %zu instructions, %zu kept, bound %zu\n", round, n,
                 nk, la, lb, min);
      compared++;
      dropped += n - nk;
      if (min * 100 / la > tightest)
        tightest = min * 100 / la;
    }
  printf ("# %zu random profiles compiled both ways (%zu laid out differently, with the same answers), %zu "
          "rules dropped; bound up to %zu%% of the length\n",
          compared, relaid, dropped, tightest);
  CHECK (compared > 500);
  CHECK (dropped > 0);
}

/* ---- real and hostile profiles ---- */

/* A config whose linux.seccomp is the JSON object SECCOMP. */
static oci_config *
config_with (const char *seccomp)
{
  cleanup_free char *doc = xasprintf ("{\"ociVersion\":\"1.0.2\",\"root\":{\"path\":\"rootfs\"},"
                                      "\"linux\":{\"seccomp\":%s}}",
                                      seccomp);
  cleanup_free char *msg = NULL;
  oci_config *cfg = NULL;

  if (oci_config_parse_data (doc, strlen (doc), &cfg, &msg) < 0)
    fprintf (stderr, "  parse: %s\n", msg);
  return cfg;
}

/* podman's default profile (as Docker's, the moby format) compiles, within the bound. */
static void
test_podman_profile (void)
{
  cleanup_free char *src = unit_srcdir ();
  cleanup_free char *path = xasprintf ("%s/contrib/seccomp/podman-default.json", src);
  cleanup_free char *json = NULL;
  cleanup_err ocisbx_err *err = NULL;
  cleanup_seccomp_prog seccomp_prog *p = NULL;
  cleanup_free sc_rule *r = NULL;
  oci_config *cfg;
  size_t len = 0, n, min;
  uint32_t def;

  CHECK (read_file_at (AT_FDCWD, path, &json, &len, &err) == 0);
  if (json == NULL)
    return;
  cfg = config_with (json);
  CHECK (cfg != NULL);
  if (cfg == NULL)
    return;
  CHECK (seccomp_prepare (cfg->linux_->seccomp, NULL, &p, &err) == 0);
  seccomp_action_value (cfg->linux_->seccomp->default_action, cfg->linux_->seccomp->default_errno_ret, &def);
  n = sc_rules_drop_inert (r, sc_rules_expand (cfg->linux_->seccomp, def, &r));
  min = sc_rules_min_insns (cfg->linux_->seccomp, r, n);
  printf ("# podman's profile: %zu rules, %zu instructions, bound %zu\n", n, seccomp_prog_len (p), min);
  CHECK (p != NULL && min <= seccomp_prog_len (p));
  oci_config_free (cfg);
}

/* N rules "read" with arg0 == i (distinct), on ARCHS (a JSON array). */
static char *
distinct_rules (size_t n, const char *archs)
{
  size_t cap = n * 160 + 256, off = 0;
  char *s = xmalloc0 (cap);
  off += snprintf (s + off, cap - off, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"architectures\":%s,\"syscalls\":[",
                   archs);
  for (size_t i = 0; i < n; i++)
    off += snprintf (s + off, cap - off,
                     "%s{\"names\":[\"read\"],\"action\":\"SCMP_ACT_ALLOW\",\"args\":[{\"index\":0,\"value\":%zu,"
                     "\"op\":\"SCMP_CMP_EQ\"}]}",
                     i ? "," : "", i);
  snprintf (s + off, cap - off, "]}");
  return s;
}

static char *
prepare_error (const char *seccomp)
{
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p = NULL;
  oci_config *cfg = config_with (seccomp);
  char *msg = NULL;

  if (cfg == NULL)
    return xstrdup ("(no config)");
  if (seccomp_prepare (cfg->linux_->seccomp, NULL, &p, &err) < 0)
    msg = xstrdup (err->msg);
  seccomp_prog_free (p);
  oci_config_free (cfg);
  return msg;
}

/* What cannot fit is refused by the bound (its message), before libseccomp compiles it;
   just under the limit still compiles. */
static void
test_too_big_refused_early (void)
{
  cleanup_free char *huge = distinct_rules (100000, "[]");
  cleanup_free char *three = distinct_rules (1500, "[\"SCMP_ARCH_X86_64\",\"SCMP_ARCH_X86\",\"SCMP_ARCH_X32\"]");
  cleanup_free char *fits = distinct_rules (1000, "[]");
  cleanup_free char *e1 = prepare_error (huge);
  cleanup_free char *e2 = prepare_error (three);
  cleanup_free char *e3 = prepare_error (fits);

  CHECK_STR (e1, "config.json: .linux.seccomp.syscalls: 100000 rules need at least 100003 BPF instructions, more "
                 "than the kernel's limit of 4096 (BPF_MAXINSNS): Argument list too long");
  CHECK (e2 != NULL && strstr (e2, ".linux.seccomp.syscalls: 1500 rules need at least") != NULL);
  CHECK (e3 == NULL);
  if (e3)
    fprintf (stderr, "  %s\n", e3);
}

/* 20000 repeats of a few rules compile as the few do. */
static void
test_repeats_dropped (void)
{
  size_t n = 20000, cap = n * 80 + 256, off = 0;
  cleanup_free char *s = xmalloc0 (cap);
  cleanup_free char *one = xstrdup ("{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[{\"names\":[\"read\",\"write\"],"
                                    "\"action\":\"SCMP_ACT_ALLOW\"}]}");
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p1 = NULL, *p2 = NULL;
  oci_config *c1, *c2;

  off += snprintf (s + off, cap - off, "{\"defaultAction\":\"SCMP_ACT_ERRNO\",\"syscalls\":[");
  for (size_t i = 0; i < n; i++)
    off += snprintf (s + off, cap - off, "%s{\"names\":[\"%s\"],\"action\":\"SCMP_ACT_ALLOW\"}", i ? "," : "",
                     i % 2 ? "read" : "write");
  snprintf (s + off, cap - off, "]}");
  c1 = config_with (s);
  c2 = config_with (one);
  CHECK (c1 && c2);
  if (c1 && c2)
    {
      CHECK (seccomp_prepare (c1->linux_->seccomp, NULL, &p1, &err) == 0);
      CHECK (seccomp_prepare (c2->linux_->seccomp, NULL, &p2, &err) == 0);
      CHECK (seccomp_prog_len (p1) == seccomp_prog_len (p2)
             && memcmp (seccomp_prog_insns (p1), seccomp_prog_insns (p2),
                        seccomp_prog_len (p1) * sizeof (struct sock_filter))
                    == 0);
    }
  seccomp_prog_free (p1);
  seccomp_prog_free (p2);
  oci_config_free (c1);
  oci_config_free (c2);
}

UNIT_MAIN (T (test_random_profiles), T (test_podman_profile), T (test_too_big_refused_early),
           T (test_repeats_dropped))
