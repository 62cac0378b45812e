/* seccomp_enosys.c: the stub's answers per architecture (x86_64 with x32, i386, s390x,
   an architecture it does not know), when it is put in front, and a whole compiled
   profile: named calls keep their actions, older unnamed ones the default, newer ones
   ENOSYS. */
#include <config.h>
#include "unit.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>

#include "core/seccomp/seccomp.h"
#include "core/seccomp/seccomp_enosys.h"
#include "core/utils.h"

#define STRS(...) ((char *[]){ __VA_ARGS__ })
#define NSTRS(...) (sizeof ((char *[]){ __VA_ARGS__ }) / sizeof (char *))
#define NAMES(...) .names = STRS (__VA_ARGS__), .names_len = NSTRS (__VA_ARGS__)

#define X32 0x40000000u
#define RET_ENOSYS (SECCOMP_RET_ERRNO | ENOSYS)
#define RET_EPERM (SECCOMP_RET_ERRNO | EPERM)
/* what the test's "filter" after the stub answers */
#define RET_TAIL (SECCOMP_RET_ERRNO | 4095)

static uint32_t
answer (const struct sock_filter *f, size_t n, uint32_t arch, uint32_t nr)
{
  struct seccomp_data d = { .nr = (int) nr, .arch = arch };
  return seccomp_bpf_run (f, n, &d);
}

/* The stub of A followed by one instruction returning RET_TAIL; its length in *N. */
static size_t
stub_and_tail (const sc_enosys_arch *a, size_t na, struct sock_filter *f)
{
  size_t n = sc_enosys_stub (a, na, f);
  f[n] = (struct sock_filter) BPF_STMT (BPF_RET | BPF_K, RET_TAIL);
  return n + 1;
}

static void
test_wanted (void)
{
  CHECK (!sc_enosys_wanted (SCMP_ACT_ALLOW));
  CHECK (!sc_enosys_wanted (SCMP_ACT_LOG));
  CHECK (!sc_enosys_wanted (SCMP_ACT_TRACE (1)));
  CHECK (!sc_enosys_wanted (SCMP_ACT_ERRNO (ENOSYS)));
  CHECK (sc_enosys_wanted (SCMP_ACT_ERRNO (EPERM)));
  CHECK (sc_enosys_wanted (SCMP_ACT_ERRNO (ENXIO)));
  CHECK (sc_enosys_wanted (SCMP_ACT_KILL_PROCESS));
  CHECK (sc_enosys_wanted (SCMP_ACT_KILL_THREAD));
  CHECK (sc_enosys_wanted (SCMP_ACT_TRAP));
}

static void
test_stub_answers (void)
{
  struct sock_filter f[SC_ENOSYS_MAX_INSNS + 1];
  sc_enosys_arch a[] = {
    { .audit = AUDIT_ARCH_X86_64, .max = 334, .max_x32 = X32 | 547 },
    { .audit = AUDIT_ARCH_I386, .max = 386 },
    { .audit = AUDIT_ARCH_S390X, .max = 300 },
  };
  size_t n;

  CHECK (sc_enosys_stub (a, 0, f) == 0);
  n = stub_and_tail (a, 3, f);
  CHECK (n <= SC_ENOSYS_MAX_INSNS + 1);
  /* x86_64: up to its maximum the filter, above ENOSYS */
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 0) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 334) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 335) == RET_ENOSYS);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 1000) == RET_ENOSYS);
  /* x32 (bit 30) against its own maximum */
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 547) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 335) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 548) == RET_ENOSYS);
  /* i386 */
  CHECK (answer (f, n, AUDIT_ARCH_I386, 386) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_I386, 387) == RET_ENOSYS);
  /* s390x: also 0, the multiplexer of the numbers the kernel does not know */
  CHECK (answer (f, n, AUDIT_ARCH_S390X, 0) == RET_ENOSYS);
  CHECK (answer (f, n, AUDIT_ARCH_S390X, 1) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_S390X, 301) == RET_ENOSYS);
  /* another architecture: the filter decides (its bad-arch action) */
  CHECK (answer (f, n, AUDIT_ARCH_AARCH64, 1000) == RET_TAIL);
}

static void
test_stub_x86_64_without_x32 (void)
{
  struct sock_filter f[SC_ENOSYS_MAX_INSNS + 1];
  sc_enosys_arch native_only = { .audit = AUDIT_ARCH_X86_64, .max = 334 };
  sc_enosys_arch x32_only = { .audit = AUDIT_ARCH_X86_64, .max_x32 = X32 | 334 };
  size_t n;

  /* x32 calls are the filter's when the profile has no x32 maximum */
  n = stub_and_tail (&native_only, 1, f);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 1000) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 1000) == RET_ENOSYS);
  n = stub_and_tail (&x32_only, 1, f);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, 1000) == RET_TAIL);
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 1000) == RET_ENOSYS);
}

static void
test_stub_many_arches (void)
{
  struct sock_filter f[SC_ENOSYS_MAX_INSNS + 1];
  sc_enosys_arch a[SC_ENOSYS_MAX_ARCHS];
  size_t n;

  /* the longest stub: every jump still lands where it must */
  for (size_t i = 0; i < SC_ENOSYS_MAX_ARCHS; i++)
    a[i] = (sc_enosys_arch){ .audit = i == 0 ? AUDIT_ARCH_X86_64 : 0x1000 + (uint32_t) i, .max = 100 + (uint32_t) i,
                             .max_x32 = i == 0 ? X32 | 100 : 0 };
  n = stub_and_tail (a, SC_ENOSYS_MAX_ARCHS, f);
  CHECK (n <= SC_ENOSYS_MAX_INSNS + 1);
  for (size_t i = 0; i < SC_ENOSYS_MAX_ARCHS; i++)
    {
      CHECK (answer (f, n, a[i].audit, a[i].max) == RET_TAIL);
      CHECK (answer (f, n, a[i].audit, a[i].max + 1) == RET_ENOSYS);
    }
  CHECK (answer (f, n, AUDIT_ARCH_X86_64, X32 | 101) == RET_ENOSYS);
}

static void
test_arches_of_profile (void)
{
  oci_syscall rules[] = {
    { NAMES ("read", "rseq", "no_such_call"), .action = "SCMP_ACT_ALLOW" },
    { NAMES ("socket"), .action = "SCMP_ACT_ERRNO" }, /* a pseudo number on i386 */
  };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ERRNO", .architectures = STRS ("SCMP_ARCH_X86", "SCMP_ARCH_X32"),
                     .architectures_len = 2, .syscalls = rules, .syscalls_len = 2 };
  sc_enosys_arch a[SC_ENOSYS_MAX_ARCHS];
  size_t n;

  if (seccomp_arch_native () != SCMP_ARCH_X86_64)
    {
      UNIT_SKIP ("x86_64 syscall numbers");
      return;
    }
  n = sc_enosys_arches (&sc, a);
  CHECK (n == 2);
  /* the native architecture first, with the x32 numbers of the same AUDIT_ARCH */
  CHECK (a[0].audit == AUDIT_ARCH_X86_64);
  CHECK (a[0].max == (uint32_t) seccomp_syscall_resolve_name_arch (SCMP_ARCH_X86_64, "rseq"));
  CHECK (a[0].max_x32 == (uint32_t) seccomp_syscall_resolve_name_arch (SCMP_ARCH_X32, "rseq"));
  CHECK (a[0].max_x32 & X32);
  CHECK (a[1].audit == AUDIT_ARCH_I386);
  CHECK (a[1].max == (uint32_t) seccomp_syscall_resolve_name_arch (SCMP_ARCH_X86, "rseq"));

  /* nothing named: no architecture, no stub */
  sc.syscalls_len = 0;
  CHECK (sc_enosys_arches (&sc, a) == 0);
}

/* The answer of P to call NR of ARCH. */
static uint32_t
prog_answer (const seccomp_prog *p, uint32_t arch, int nr)
{
  struct seccomp_data d = { .nr = nr, .arch = arch };
  return seccomp_bpf_run (seccomp_prog_insns (p), seccomp_prog_len (p), &d);
}

static int
nr_of (uint32_t arch, const char *name)
{
  return seccomp_syscall_resolve_name_arch (arch, name);
}

static void
test_compiled_profile (void)
{
  static uint32_t exdev = EXDEV;
  oci_syscall rules[] = {
    { NAMES ("read", "write", "getpid", "execve", "execveat", "rseq"), .action = "SCMP_ACT_ALLOW" },
    { NAMES ("sethostname"), .action = "SCMP_ACT_ERRNO", .errno_ret = &exdev },
    { NAMES ("kcmp"), .action = "SCMP_ACT_NOTIFY" },
  };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ERRNO",
                     .architectures = STRS ("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"),
                     .architectures_len = 3, .syscalls = rules, .syscalls_len = 3, .listener_path = "/x" };
  const uint32_t archs[] = { SCMP_ARCH_X86_64, SCMP_ARCH_X86, SCMP_ARCH_X32 };
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p = NULL;

  if (seccomp_arch_native () != SCMP_ARCH_X86_64)
    {
      UNIT_SKIP ("x86_64, x32 and i386 in one filter");
      return;
    }
  if (seccomp_prepare (&sc, NULL, &p, &err) < 0)
    {
      fprintf (stderr, "  %s\n", err->msg);
      CHECK (0);
      return;
    }
  for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
    {
      uint32_t audit = archs[i] == SCMP_ARCH_X32 ? AUDIT_ARCH_X86_64 : archs[i];
      int rseq = nr_of (archs[i], "rseq");
      CHECK (prog_answer (p, audit, nr_of (archs[i], "read")) == SECCOMP_RET_ALLOW);
      CHECK (prog_answer (p, audit, rseq) == SECCOMP_RET_ALLOW);
      CHECK (prog_answer (p, audit, nr_of (archs[i], "sethostname")) == (SECCOMP_RET_ERRNO | EXDEV));
      CHECK (prog_answer (p, audit, nr_of (archs[i], "kcmp")) == SECCOMP_RET_USER_NOTIF);
      /* older, not named: the default */
      CHECK (prog_answer (p, audit, nr_of (archs[i], "acct")) == RET_EPERM);
      CHECK (prog_answer (p, audit, nr_of (archs[i], "unshare")) == RET_EPERM);
      /* newer than the newest named: ENOSYS.  That is rseq, but on x32 execve and
         execveat, whose x32 numbers are in the x32-only range 512-547 */
      if (archs[i] == SCMP_ARCH_X32)
        {
          int newest = nr_of (archs[i], "execveat");
          CHECK (newest > rseq);
          CHECK (prog_answer (p, audit, newest) == SECCOMP_RET_ALLOW);
          CHECK (prog_answer (p, audit, newest + 1) == RET_ENOSYS);
          CHECK (prog_answer (p, audit, nr_of (archs[i], "faccessat2")) == RET_EPERM);
          continue;
        }
      CHECK (prog_answer (p, audit, nr_of (archs[i], "faccessat2")) == RET_ENOSYS);
      CHECK (prog_answer (p, audit, nr_of (archs[i], "clone3")) == RET_ENOSYS);
      CHECK (prog_answer (p, audit, rseq + 1) == RET_ENOSYS);
    }
  CHECK (prog_answer (p, AUDIT_ARCH_X86_64, 1000) == RET_ENOSYS);
  /* the runtime's last execveat still goes through */
  CHECK (seccomp_prog_allows (p, &(struct seccomp_data){ .nr = nr_of (SCMP_ARCH_X86_64, "execveat"),
                                                         .arch = AUDIT_ARCH_X86_64 }));
  CHECK (seccomp_prog_has_listener (p));
  seccomp_prog_free (p);
}

/* The stub only where the default refuses with something else than ENOSYS; unnamed
   older calls keep the default (KILL_PROCESS too). */
static void
test_default_actions (void)
{
  oci_syscall rules[] = { { NAMES ("getpid"), .action = "SCMP_ACT_ERRNO", .errno_ret = &(uint32_t){ EXDEV } } };
  static uint32_t enosys = ENOSYS;
  struct
  {
    const char *def;
    uint32_t *errno_ret;
    uint32_t ret_older, ret_newer;
  } cases[] = {
    { "SCMP_ACT_ALLOW", NULL, SECCOMP_RET_ALLOW, SECCOMP_RET_ALLOW },
    { "SCMP_ACT_LOG", NULL, SECCOMP_RET_LOG, SECCOMP_RET_LOG },
    { "SCMP_ACT_ERRNO", &enosys, RET_ENOSYS, RET_ENOSYS },
    { "SCMP_ACT_ERRNO", NULL, RET_EPERM, RET_ENOSYS },
    { "SCMP_ACT_KILL_PROCESS", NULL, SECCOMP_RET_KILL_PROCESS, RET_ENOSYS },
    { "SCMP_ACT_TRAP", NULL, SECCOMP_RET_TRAP, RET_ENOSYS },
  };
  uint32_t native = seccomp_arch_native ();
  int getpid_nr = seccomp_syscall_resolve_name ("getpid");
  int older = -1;

  /* an unnamed call numbered below getpid here */
  for (const char *const *c = (const char *const[]){ "read", "write", "close", "exit", NULL }; *c && older < 0; c++)
    if (seccomp_syscall_resolve_name (*c) >= 0 && seccomp_syscall_resolve_name (*c) < getpid_nr)
      older = seccomp_syscall_resolve_name (*c);
  if (older < 0)
    {
      UNIT_SKIP ("no call numbered below getpid on this architecture");
      return;
    }
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      oci_seccomp sc = { .default_action = (char *) cases[i].def, .default_errno_ret = cases[i].errno_ret,
                         .syscalls = rules, .syscalls_len = 1 };
      cleanup_err ocisbx_err *err = NULL;
      seccomp_prog *p = NULL;
      CHECK (seccomp_prepare (&sc, NULL, &p, &err) == 0);
      if (p == NULL)
        continue;
      CHECK (prog_answer (p, native, getpid_nr) == (SECCOMP_RET_ERRNO | EXDEV));
      CHECK ((prog_answer (p, native, older) & SECCOMP_RET_ACTION_FULL) == (cases[i].ret_older & SECCOMP_RET_ACTION_FULL));
      CHECK (prog_answer (p, native, older) == cases[i].ret_older);
      CHECK (prog_answer (p, native, getpid_nr + 1000) == cases[i].ret_newer);
      seccomp_prog_free (p);
    }
}

int
main (void)
{
  static const unit_test tests[] = {
    T (test_wanted),           T (test_stub_answers),      T (test_stub_x86_64_without_x32),
    T (test_stub_many_arches), T (test_arches_of_profile), T (test_compiled_profile),
    T (test_default_actions),
  };
  return unit_run (tests, sizeof tests / sizeof tests[0]);
}
