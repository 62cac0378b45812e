/* seccomp translation, validation, cache, loading (in forked children), the notify
   listener hand-over, the SHA-256 behind the cache key, and the cloned binary. */
#include <config.h>
#include "unit.h"
#include "unit_files.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/process/cloned_binary.h"
#include "core/process/lsm.h"
#include "core/seccomp/seccomp.h"
#include "core/seccomp/seccomp_cache.h"
#include "core/seccomp/sha256.h"
#include "core/utils.h"

extern char **environ;

#define STRS(...) ((char *[]){ __VA_ARGS__ })
#define NSTRS(...) (sizeof ((char *[]){ __VA_ARGS__ }) / sizeof (char *))
/* names = the listed strings */
#define NAMES(...) .names = STRS (__VA_ARGS__), .names_len = NSTRS (__VA_ARGS__)

static uint32_t u32_38 = 38, u32_77 = 77, u32_99 = 99, u32_5 = 5;

/* A closed fd: fcntl on it fails with EBADF unless a rule answers first. */
#define NOFD 5000

static char *
prepare_err (const oci_seccomp *sc)
{
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p = NULL;
  if (seccomp_prepare (sc, NULL, &p, &err) == 0)
    {
      seccomp_prog_free (p);
      return NULL;
    }
  return xstrdup (err->msg);
}

static char *
validate_err (const oci_seccomp *sc)
{
  cleanup_err ocisbx_err *err = NULL;
  if (seccomp_validate (sc, &err) == 0)
    return NULL;
  return xstrdup (err->msg);
}

/* Loads SC's filter in a child (with no_new_privs), runs FN there and returns the
   child's wait status; FN's return is the exit code. */
static int
run_filtered (const oci_seccomp *sc, int (*fn) (void *), void *arg)
{
  cleanup_err ocisbx_err *err = NULL;
  cleanup_seccomp_prog seccomp_prog *p = NULL;
  int status = -1;
  pid_t pid;

  if (seccomp_prepare (sc, NULL, &p, &err) < 0)
    {
      fprintf (stderr, "  prepare: %s\n", err->msg);
      return -1;
    }
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    {
      int nfd;
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_prog_load (p, &nfd, &err) < 0)
        _exit (200);
      /* the raw call: no libc/sanitizer exit path the filter may refuse */
      syscall (SYS_exit_group, fn (arg));
    }
  waitpid (pid, &status, 0);
  return status;
}

/* --- SHA-256 --- */

/* DATA's digest, through the CPU's SHA instructions (HW, when it has them) or not. */
static void
digest_of (const void *data, size_t len, bool hw, uint8_t d[SHA256_DIGEST_LEN])
{
  sha256_ctx c;
  sha256_init (&c);
  c.hw = c.hw && hw;
  sha256_update (&c, data, len);
  sha256_final (&c, d);
}

/* Both ways give the same digests: every length up to 5 blocks, pieces of any size. */
static void
test_sha256_hw_matches_portable (void)
{
  static uint8_t data[320];
  uint8_t a[SHA256_DIGEST_LEN], b[SHA256_DIGEST_LEN];
  sha256_ctx probe;
  uint32_t x = 12345;

  sha256_init (&probe);
  printf ("# SHA-256 with the CPU's instructions: %s\n", probe.hw ? "yes" : "no (portable only)");
  for (size_t i = 0; i < sizeof data; i++)
    {
      x = x * 1103515245u + 12345u;
      data[i] = (uint8_t) (x >> 16);
    }
  for (size_t len = 0; len <= sizeof data; len++)
    {
      digest_of (data, len, true, a);
      digest_of (data, len, false, b);
      CHECK (memcmp (a, b, sizeof a) == 0);
    }
  {
    sha256_ctx c;
    sha256_init (&c);
    for (size_t off = 0, step = 1; off < sizeof data; off += step, step = step % 70 + 7)
      sha256_update (&c, data + off, off + step > sizeof data ? sizeof data - off : step);
    sha256_final (&c, a);
    digest_of (data, sizeof data, false, b);
    CHECK (memcmp (a, b, sizeof a) == 0);
  }
}

static void
test_sha256_vectors (void)
{
  uint8_t d[SHA256_DIGEST_LEN];
  char hex[65];
  sha256_ctx c;
  static char million[1000000];

  sha256 ("", 0, d);
  sha256_hex (d, hex);
  CHECK_STR (hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  sha256 ("abc", 3, d);
  sha256_hex (d, hex);
  CHECK_STR (hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  /* 56 bytes: the padding spills into a second block */
  sha256 ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, d);
  sha256_hex (d, hex);
  CHECK_STR (hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  /* a million 'a' fed in uneven pieces */
  memset (million, 'a', sizeof million);
  sha256_init (&c);
  for (size_t off = 0, step = 1; off < sizeof million; off += step, step = step * 3 % 997 + 1)
    sha256_update (&c, million + off, off + step > sizeof million ? sizeof million - off : step);
  sha256_final (&c, d);
  sha256_hex (d, hex);
  CHECK_STR (hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* --- translation --- */

static void
test_actions (void)
{
  uint32_t v = 0;
  CHECK (seccomp_action_value ("SCMP_ACT_KILL", NULL, &v) == 0 && v == SCMP_ACT_KILL_THREAD);
  CHECK (seccomp_action_value ("SCMP_ACT_KILL_PROCESS", NULL, &v) == 0 && v == SCMP_ACT_KILL_PROCESS);
  CHECK (seccomp_action_value ("SCMP_ACT_KILL_THREAD", NULL, &v) == 0 && v == SCMP_ACT_KILL_THREAD);
  CHECK (seccomp_action_value ("SCMP_ACT_TRAP", NULL, &v) == 0 && v == SCMP_ACT_TRAP);
  CHECK (seccomp_action_value ("SCMP_ACT_ERRNO", NULL, &v) == 0 && v == SCMP_ACT_ERRNO (EPERM));
  CHECK (seccomp_action_value ("SCMP_ACT_ERRNO", &u32_38, &v) == 0 && v == SCMP_ACT_ERRNO (38));
  CHECK (seccomp_action_value ("SCMP_ACT_TRACE", NULL, &v) == 0 && v == SCMP_ACT_TRACE (EPERM));
  CHECK (seccomp_action_value ("SCMP_ACT_TRACE", &u32_5, &v) == 0 && v == SCMP_ACT_TRACE (5));
  CHECK (seccomp_action_value ("SCMP_ACT_ALLOW", &u32_5, &v) == 0 && v == SCMP_ACT_ALLOW);
  CHECK (seccomp_action_value ("SCMP_ACT_LOG", NULL, &v) == 0 && v == SCMP_ACT_LOG);
  CHECK (seccomp_action_value ("SCMP_ACT_NOTIFY", NULL, &v) == 0 && v == SCMP_ACT_NOTIFY);
  CHECK (seccomp_action_value ("SCMP_ACT_NOPE", NULL, &v) < 0);
  CHECK (seccomp_action_value (NULL, NULL, &v) < 0);
  for (size_t i = 0; seccomp_known_actions[i]; i++)
    CHECK (seccomp_action_value (seccomp_known_actions[i], NULL, &v) == 0);
}

static void
test_operators_flags_archs (void)
{
  static const struct
  {
    const char *name;
    int op;
  } ops[] = { { "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT }, { "SCMP_CMP_LE", SCMP_CMP_LE },
              { "SCMP_CMP_EQ", SCMP_CMP_EQ }, { "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
              { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ } };
  const char *archs[32];
  size_t n;
  unsigned int f = 0;
  uint32_t a = 0;
  int op = -1;

  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    CHECK (seccomp_operator_value (ops[i].name, &op) == 0 && op == ops[i].op);
  CHECK (seccomp_operator_value ("SCMP_CMP_XOR", &op) < 0);

  CHECK (seccomp_flag_value ("SECCOMP_FILTER_FLAG_TSYNC", &f) == 0 && f == SECCOMP_FILTER_FLAG_TSYNC);
  CHECK (seccomp_flag_value ("SECCOMP_FILTER_FLAG_LOG", &f) == 0 && f == SECCOMP_FILTER_FLAG_LOG);
  CHECK (seccomp_flag_value ("SECCOMP_FILTER_FLAG_SPEC_ALLOW", &f) == 0 && f == SECCOMP_FILTER_FLAG_SPEC_ALLOW);
  CHECK (seccomp_flag_value ("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", &f) == 0
         && f == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
  CHECK (seccomp_flag_value ("SECCOMP_FILTER_FLAG_NEW_LISTENER", &f) < 0);
  for (size_t i = 0; seccomp_known_flags[i]; i++)
    CHECK (seccomp_flag_supported (seccomp_known_flags[i])); /* kernel 6.18 has them all */

  CHECK (seccomp_arch_value ("SCMP_ARCH_X86_64", &a) == 0 && a == SCMP_ARCH_X86_64);
  CHECK (seccomp_arch_value ("SCMP_ARCH_X86", &a) == 0 && a == SCMP_ARCH_X86);
  CHECK (seccomp_arch_value ("SCMP_ARCH_AARCH64", &a) == 0 && a == SCMP_ARCH_AARCH64);
  CHECK (seccomp_arch_value ("SCMP_ARCH_MIPSEL64N32", &a) == 0 && a == SCMP_ARCH_MIPSEL64N32);
  CHECK (seccomp_arch_value ("SCMP_ARCH_VAX", &a) < 0);
  CHECK (seccomp_arch_value ("x86_64", &a) < 0);
  n = seccomp_known_archs (archs, 32);
  CHECK (n >= 17);
  for (size_t i = 0; i < n; i++)
    CHECK (seccomp_arch_value (archs[i], &a) == 0);
}

/* --- validation: the exact messages --- */

static void
test_validation_errors (void)
{
  oci_seccomp_arg bad_op = { .index = 0, .value = 1, .op = "SCMP_CMP_XOR" };
  oci_seccomp_arg bad_index = { .index = 6, .value = 1, .op = "SCMP_CMP_EQ" };
  oci_syscall bad_action[] = { { NAMES ("read"), .action = "SCMP_ACT_ALLOW" },
                               { NAMES ("mkdir"), .action = "SCMP_ACT_DENY" } };
  oci_syscall with_bad_op[] = { { NAMES ("kill"), .action = "SCMP_ACT_ERRNO", .args = &bad_op, .args_len = 1 } };
  oci_syscall with_bad_index[] = { { NAMES ("kill"), .action = "SCMP_ACT_ERRNO", .args = &bad_index,
                                     .args_len = 1 } };
  oci_syscall notify[] = { { NAMES ("mkdir"), .action = "SCMP_ACT_NOTIFY" } };
  oci_syscall notify_write[] = { { NAMES ("mkdir", "write"), .action = "SCMP_ACT_NOTIFY" } };
  oci_syscall notify_sendmsg[] = { { NAMES ("mkdir"), .action = "SCMP_ACT_ALLOW" },
                                   { NAMES ("sendmsg"), .action = "SCMP_ACT_NOTIFY" } };
  oci_syscall no_names[] = { { .names = NULL, .names_len = 0, .action = "SCMP_ACT_ERRNO" } };
  oci_seccomp sc;
  char *msg;

#define EXPECT(expected)                                                                           \
  do                                                                                               \
    {                                                                                              \
      msg = validate_err (&sc);                                                                    \
      CHECK_STR (msg, expected);                                                                   \
      free (msg);                                                                                  \
    }                                                                                              \
  while (0)

  sc = (oci_seccomp) { .default_action = "SCMP_ACT_NOPE" };
  EXPECT ("config.json: .linux.seccomp.defaultAction: unknown action \"SCMP_ACT_NOPE\"");
  sc = (oci_seccomp) { .default_action = NULL };
  EXPECT ("config.json: .linux.seccomp.defaultAction: missing");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_NOTIFY", .listener_path = "/x" };
  EXPECT ("config.json: .linux.seccomp.defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .architectures = STRS ("SCMP_ARCH_X86_64", "SCMP_ARCH_VAX"),
                       .architectures_len = 2 };
  EXPECT ("config.json: .linux.seccomp.architectures[1]: unknown architecture \"SCMP_ARCH_VAX\" (libseccomp 2.5.4)");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .flags = STRS ("SECCOMP_FILTER_FLAG_LOG", "FLAG_X"),
                       .flags_len = 2 };
  EXPECT ("config.json: .linux.seccomp.flags[1]: unknown flag \"FLAG_X\"");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = bad_action, .syscalls_len = 2 };
  EXPECT ("config.json: .linux.seccomp.syscalls[1].action: unknown action \"SCMP_ACT_DENY\"");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = with_bad_op, .syscalls_len = 1 };
  EXPECT ("config.json: .linux.seccomp.syscalls[0].args[0].op: unknown operator \"SCMP_CMP_XOR\"");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = with_bad_index, .syscalls_len = 1 };
  EXPECT ("config.json: .linux.seccomp.syscalls[0].args[0].index: 6 is out of range (0-5)");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = no_names, .syscalls_len = 1 };
  EXPECT ("config.json: .linux.seccomp.syscalls[0].names: must name at least one syscall");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = notify, .syscalls_len = 1 };
  EXPECT ("config.json: .linux.seccomp.listenerPath: required when SCMP_ACT_NOTIFY is used");
  sc.listener_path = "";
  EXPECT ("config.json: .linux.seccomp.listenerPath: required when SCMP_ACT_NOTIFY is used");
  sc.listener_path = "/run/a/very/long/path/that/does/not/fit/into/the/sun_path/field/of/a/sockaddr_un/"
                     "structure/at/all/not/even/close.sock";
  EXPECT ("config.json: .linux.seccomp.listenerPath: longer than a unix socket path can be (107 bytes)");
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = notify_write, .syscalls_len = 1,
                       .listener_path = "/run/agent.sock" };
  EXPECT ("config.json: .linux.seccomp.syscalls[0].names[1]: SCMP_ACT_NOTIFY cannot be used for the write "
          "syscall (the runtime needs it to hand over the listener fd)");
  sc.syscalls = notify_sendmsg;
  sc.syscalls_len = 2;
  EXPECT ("config.json: .linux.seccomp.syscalls[1].names[0]: SCMP_ACT_NOTIFY cannot be used for the sendmsg "
          "syscall (the runtime needs it to hand over the listener fd)");

  /* valid ones, and prepare runs the same checks */
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = notify, .syscalls_len = 1,
                       .listener_path = "/run/agent.sock" };
  msg = validate_err (&sc);
  CHECK (msg == NULL);
  free (msg);
  CHECK (seccomp_validate (NULL, NULL) == 0);
  sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .flags = STRS ("FLAG_X"), .flags_len = 1 };
  msg = prepare_err (&sc);
  CHECK_STR (msg, "config.json: .linux.seccomp.flags[0]: unknown flag \"FLAG_X\"");
  free (msg);
  {
    oci_seccomp_arg a1 = { .index = 0, .value = 1, .op = "SCMP_CMP_EQ" };
    oci_syscall clash[] = { { NAMES ("rmdir"), .action = "SCMP_ACT_ERRNO", .args = &a1, .args_len = 1 },
                            { NAMES ("rmdir"), .action = "SCMP_ACT_KILL", .args = &a1, .args_len = 1 } };
    sc = (oci_seccomp) { .default_action = "SCMP_ACT_ALLOW", .syscalls = clash, .syscalls_len = 2 };
    msg = prepare_err (&sc);
    CHECK_STR (msg, "config.json: .linux.seccomp.syscalls[1]: the rule for \"rmdir\" conflicts with an earlier one");
    free (msg);
  }
#undef EXPECT
}

/* --- compiled filters, loaded in children --- */

static int
probe_mkdir (void *arg)
{
  (void) arg;
  if (mkdir ("/nonexistent-dir/x", 0700) == 0)
    return 0;
  return errno;
}

static int
probe_fcntl (void *arg)
{
  const long *a = arg; /* fd, cmd */
  if (syscall (SYS_fcntl, a[0], a[1]) >= 0)
    return 0;
  return errno;
}

static int
probe_getppid_write (void *arg)
{
  (void) arg;
  /* the allow list has exit_group and write only */
  if (syscall (SYS_getppid) >= 0)
    return 0;
  return errno;
}

static void
test_errno_and_unknown_names (void)
{
  oci_syscall rules[] = { { NAMES ("no_such_syscall", "mkdir", "also_unknown"), .action = "SCMP_ACT_ERRNO",
                            .errno_ret = &u32_38 } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = rules, .syscalls_len = 1 };
  int st = run_filtered (&sc, probe_mkdir, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == ENOSYS);
  /* without errnoRet: EPERM */
  rules[0].errno_ret = NULL;
  st = run_filtered (&sc, probe_mkdir, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == EPERM);
  /* unfiltered: the real error */
  sc.syscalls_len = 0;
  st = run_filtered (&sc, probe_mkdir, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == ENOENT);
}

static void
test_default_errno_allow_list (void)
{
  oci_syscall rules[] = { { NAMES ("exit_group", "exit", "write", "rt_sigreturn"), .action = "SCMP_ACT_ALLOW" },
                          { NAMES ("getpid"), .action = "SCMP_ACT_ERRNO", .errno_ret = &u32_38 } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ERRNO", .default_errno_ret = &u32_38, .syscalls = rules,
                     .syscalls_len = 2 };
  /* rules[1] equals the default: skipped instead of refused */
  int st = run_filtered (&sc, probe_getppid_write, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == ENOSYS);
  sc.default_errno_ret = NULL;
  rules[1].errno_ret = NULL;
  st = run_filtered (&sc, probe_getppid_write, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == EPERM);
}

/* One rule on fcntl: ERRNO 77 when the args match. */
static int
fcntl_result (oci_seccomp_arg *args, size_t n, long fd, long cmd)
{
  oci_syscall rules[] = { { NAMES ("fcntl"), .action = "SCMP_ACT_ERRNO", .errno_ret = &u32_77, .args = args,
                            .args_len = n } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = rules, .syscalls_len = 1 };
  long a[2] = { fd, cmd };
  int st = run_filtered (&sc, probe_fcntl, a);
  return WIFEXITED (st) ? WEXITSTATUS (st) : -1;
}

static void
test_argument_operators (void)
{
  static const struct
  {
    const char *op;
    uint64_t value, value_two;
    long probe;
    bool match;
  } cases[] = {
    { "SCMP_CMP_EQ", 1000, 0, 1000, true },        { "SCMP_CMP_EQ", 1000, 0, 1001, false },
    { "SCMP_CMP_NE", 1000, 0, 1001, true },        { "SCMP_CMP_NE", 1000, 0, 1000, false },
    { "SCMP_CMP_LT", 1000, 0, 999, true },         { "SCMP_CMP_LT", 1000, 0, 1000, false },
    { "SCMP_CMP_LE", 1000, 0, 1000, true },        { "SCMP_CMP_LE", 1000, 0, 1001, false },
    { "SCMP_CMP_GE", 1000, 0, 1000, true },        { "SCMP_CMP_GE", 1000, 0, 999, false },
    { "SCMP_CMP_GT", 1000, 0, 1001, true },        { "SCMP_CMP_GT", 1000, 0, 1000, false },
    /* value is the mask, valueTwo the datum */
    { "SCMP_CMP_MASKED_EQ", 0xf0, 0x30, 0x35, true }, { "SCMP_CMP_MASKED_EQ", 0xf0, 0x30, 0x45, false },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      oci_seccomp_arg arg = { .index = 1, .value = cases[i].value, .value_two = cases[i].value_two,
                              .op = (char *) cases[i].op };
      int r = fcntl_result (&arg, 1, NOFD, cases[i].probe);
      if (r != (cases[i].match ? 77 : EBADF))
        fprintf (stderr, "  %s %#llx/%#llx on %#lx: errno %d\n", cases[i].op, (unsigned long long) cases[i].value,
                 (unsigned long long) cases[i].value_two, cases[i].probe, r);
      CHECK (r == (cases[i].match ? 77 : EBADF));
    }
}

static void
test_argument_and_or (void)
{
  /* two arguments: ANDed */
  oci_seccomp_arg both[] = { { .index = 0, .value = NOFD, .op = "SCMP_CMP_EQ" },
                             { .index = 1, .value = 9, .op = "SCMP_CMP_EQ" } };
  /* the same argument twice: libseccomp cannot AND them; like runc, they are ORed */
  oci_seccomp_arg same[] = { { .index = 1, .value = 3, .op = "SCMP_CMP_EQ" },
                             { .index = 1, .value = 4, .op = "SCMP_CMP_EQ" } };
  CHECK (fcntl_result (both, 2, NOFD, 9) == 77);
  CHECK (fcntl_result (both, 2, NOFD, 8) == EBADF);
  CHECK (fcntl_result (both, 2, NOFD + 1, 9) == EBADF);
  CHECK (fcntl_result (same, 2, NOFD, 3) == 77);
  CHECK (fcntl_result (same, 2, NOFD, 4) == 77);
  CHECK (fcntl_result (same, 2, NOFD, 5) == EBADF);
}

static void
test_kill_trap_log_trace (void)
{
  static const struct
  {
    const char *action;
    int signal; /* 0: exits */
    int exit_code;
  } cases[] = {
    { "SCMP_ACT_KILL", SIGSYS, 0 },  { "SCMP_ACT_KILL_PROCESS", SIGSYS, 0 }, { "SCMP_ACT_KILL_THREAD", SIGSYS, 0 },
    { "SCMP_ACT_TRAP", SIGSYS, 0 },  { "SCMP_ACT_LOG", 0, ENOENT },           /* allowed: the real error */
    { "SCMP_ACT_TRACE", 0, ENOSYS }, /* no tracer attached: ENOSYS */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      oci_syscall rules[] = { { NAMES ("mkdir"), .action = (char *) cases[i].action } };
      oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = rules, .syscalls_len = 1 };
      int st = run_filtered (&sc, probe_mkdir, NULL);
      if (cases[i].signal)
        CHECK (WIFSIGNALED (st) && WTERMSIG (st) == cases[i].signal);
      else
        CHECK (WIFEXITED (st) && WEXITSTATUS (st) == cases[i].exit_code);
      if (WIFEXITED (st) && WEXITSTATUS (st) == 200)
        fprintf (stderr, "  %s: load failed\n", cases[i].action);
    }
}

static void
test_architectures_and_flags (void)
{
  oci_syscall rules[] = { { NAMES ("mkdir", "socketcall", "arch_prctl"), .action = "SCMP_ACT_ERRNO",
                            .errno_ret = &u32_38 } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW",
                     .architectures = STRS ("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"),
                     .architectures_len = 3,
                     .flags = STRS ("SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
                                    "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"),
                     .flags_len = 4,
                     .syscalls = rules,
                     .syscalls_len = 1 };
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p = NULL, *native = NULL;
  int st;

  CHECK (seccomp_prepare (&sc, NULL, &p, &err) == 0);
  /* WAIT_KILLABLE_RECV means nothing without a listener: dropped */
  CHECK (seccomp_prog_flags (p)
         == (SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_TSYNC));
  CHECK (!seccomp_prog_has_listener (p));
  sc.architectures_len = 0;
  CHECK (seccomp_prepare (&sc, NULL, &native, &err) == 0);
  CHECK (seccomp_prog_len (p) > seccomp_prog_len (native)); /* the other arches add code */
  seccomp_prog_free (p);
  seccomp_prog_free (native);
  sc.architectures_len = 3;
  st = run_filtered (&sc, probe_mkdir, NULL);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == ENOSYS);
  CHECK (seccomp_prepare (NULL, NULL, &p, &err) == 0 && p == NULL);
}

/* --- NOTIFY: the child loads, the parent takes the fd with pidfd_getfd and answers --- */

static void
test_notify_round_trip (void)
{
  oci_syscall rules[] = { { NAMES ("mkdir"), .action = "SCMP_ACT_NOTIFY" } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .listener_path = "/unused", .syscalls = rules,
                     .syscalls_len = 1, .flags = STRS ("SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV"), .flags_len = 1 };
  cleanup_err ocisbx_err *err = NULL;
  cleanup_seccomp_prog seccomp_prog *p = NULL;
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  int pipefd[2], child_fd = -1, status = 0, nfd;
  pid_t pid;

  CHECK (seccomp_prepare (&sc, NULL, &p, &err) == 0);
  CHECK (seccomp_prog_has_listener (p));
  CHECK (seccomp_prog_flags (p) == (SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV));
  CHECK (pipe2 (pipefd, O_CLOEXEC) == 0);
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    {
      int fd;
      close (pipefd[0]);
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_prog_load (p, &fd, &err) < 0 || fd < 0)
        _exit (200);
      if (write (pipefd[1], &fd, sizeof fd) != sizeof fd)
        _exit (201);
      _exit (probe_mkdir (NULL)); /* blocks until the parent answers */
    }
  close (pipefd[1]);
  CHECK (read (pipefd[0], &child_fd, sizeof child_fd) == sizeof child_fd);
  close (pipefd[0]);
  nfd = seccomp_fetch_listener_fd (pid, child_fd, &err);
  CHECK (nfd >= 0);
  if (nfd >= 0)
    {
      CHECK (fcntl (nfd, F_GETFD) == FD_CLOEXEC);
      memset (&req, 0, sizeof req);
      CHECK (ioctl (nfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0);
      CHECK (req.data.nr == SCMP_SYS (mkdir) && req.pid == (uint32_t) pid);
      resp = (struct seccomp_notif_resp) { .id = req.id, .error = -(int) u32_99 };
      CHECK (ioctl (nfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == 0);
      close (nfd);
    }
  else
    kill (pid, SIGKILL);
  waitpid (pid, &status, 0);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 99);
}

/* A state document as the runtime generates it (keys in the table's order). */
#define C1_STATE "{\"ociVersion\":\"1.3.0\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":4242,\"bundle\":\"/b\"}"

static void
test_send_listener (void)
{
  cleanup_free char *dir = mktree ();
  cleanup_free char *path = xasprintf ("%s/agent.sock", dir);
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .listener_path = path, .listener_metadata = "m\"eta" };
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int srv = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  cleanup_close int conn = -1;
  cleanup_close int sent = memfd_create ("probe", MFD_CLOEXEC);
  char buf[4096] = "", cbuf[CMSG_SPACE (sizeof (int))];
  struct iovec iov = { buf, sizeof buf - 1 };
  struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct stat a, b;
  int got = -1;
  ssize_t n;

  strcpy (addr.sun_path, path);
  CHECK (bind (srv, (struct sockaddr *) &addr, sizeof addr) == 0 && listen (srv, 1) == 0);
  CHECK (seccomp_send_listener_pid (&sc, sent, 4242, C1_STATE, &err) == 0);
  conn = accept4 (srv, NULL, NULL, SOCK_CLOEXEC);
  CHECK (conn >= 0);
  n = recvmsg (conn, &mh, MSG_CMSG_CLOEXEC);
  CHECK (n > 0);
  if (n > 0 && CMSG_FIRSTHDR (&mh) && CMSG_FIRSTHDR (&mh)->cmsg_type == SCM_RIGHTS)
    memcpy (&got, CMSG_DATA (CMSG_FIRSTHDR (&mh)), sizeof got);
  CHECK (got >= 0);
  CHECK (got >= 0 && fstat (got, &a) == 0 && fstat (sent, &b) == 0 && a.st_ino == b.st_ino);
  if (got >= 0)
    close (got);
  CHECK_STR (buf, "{\"ociVersion\":\"1.3.0\",\"fds\":[\"seccompFd\"],\"pid\":4242,\"metadata\":\"m\\\"eta\","
                  "\"state\":" C1_STATE "}");
  /* one state per connection, the fd with the first (only) sendmsg; then the runtime
     has closed it (runtime-spec config-linux.md, Seccomp) */
  {
    char more;
    CHECK (read (conn, &more, 1) == 0);
  }

  /* the state document's pid is the one sent */
  {
    cleanup_close int conn2 = -1;
    char buf2[4096] = "";
    CHECK (seccomp_send_listener (&sc, sent,
                                  "{\"ociVersion\":\"1.3.0\",\"id\":\"c2\",\"status\":\"creating\","
                                  "\"pid\":77,\"bundle\":\"/b\"}",
                                  &err)
           == 0);
    if (err)
      fprintf (stderr, "  %s\n", err->msg);
    conn2 = accept4 (srv, NULL, NULL, SOCK_CLOEXEC);
    CHECK (conn2 >= 0 && read (conn2, buf2, sizeof buf2 - 1) > 0);
    CHECK (strstr (buf2, "\"fds\":[\"seccompFd\"],\"pid\":77,") != NULL);
    /* (read () drops the fd that came with the message: closed by the kernel) */
  }

  /* no agent listening: a clear error */
  unlink (path);
  CHECK (seccomp_send_listener_pid (&sc, sent, 1, C1_STATE, &err) < 0);
  CHECK (err && strstr (err->msg, "seccomp: connect to the seccomp agent at listenerPath") != NULL);
  rmtree (steal_ptr (&dir));
}

/* --- cache --- */

static void
test_cache (void)
{
  cleanup_free char *dir = mktree ();
  cleanup_free char *cache = xasprintf ("%s/seccomp-cache", dir);
  oci_syscall rules[] = { { NAMES ("mkdir", "rmdir"), .action = "SCMP_ACT_ERRNO", .errno_ret = &u32_38 },
                          { NAMES ("kill"), .action = "SCMP_ACT_KILL" } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = rules, .syscalls_len = 2 };
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *first = NULL, *second = NULL, *third = NULL, *other = NULL;
  uint8_t key[SHA256_DIGEST_LEN], key2[SHA256_DIGEST_LEN];
  char hex[65];
  cleanup_free char *entry = NULL;
  struct stat st;
  int fd;

  CHECK (seccomp_prepare (&sc, cache, &first, &err) == 0 && !seccomp_prog_from_cache (first));
  CHECK (stat (cache, &st) == 0 && (st.st_mode & 0777) == 0700);
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && seccomp_prog_from_cache (second));
  CHECK (seccomp_prog_len (first) == seccomp_prog_len (second)
         && memcmp (seccomp_prog_insns (first), seccomp_prog_insns (second),
                    seccomp_prog_len (first) * sizeof (struct sock_filter))
                == 0);
  seccomp_prog_free (second);

  /* the key follows the profile (and ignores what does not change the program) */
  seccomp_cache_key (&sc, key);
  rules[0].errno_ret = &u32_99;
  seccomp_cache_key (&sc, key2);
  CHECK (memcmp (key, key2, sizeof key) != 0);
  rules[0].errno_ret = &u32_38;
  sc.listener_path = "/run/agent.sock";
  sc.listener_metadata = "x";
  sc.flags = STRS ("SECCOMP_FILTER_FLAG_LOG");
  sc.flags_len = 1;
  seccomp_cache_key (&sc, key2);
  CHECK (memcmp (key, key2, sizeof key) == 0);
  CHECK (seccomp_prepare (&sc, cache, &other, &err) == 0 && seccomp_prog_from_cache (other));
  CHECK (seccomp_prog_flags (other) == SECCOMP_FILTER_FLAG_LOG);
  seccomp_prog_free (other);
  sc.flags_len = 0;

  /* corrupt the entry: one flipped byte in the program */
  sha256_hex (key, hex);
  entry = xasprintf ("%s/%s.bpf", cache, hex);
  fd = open (entry, O_RDWR | O_CLOEXEC);
  CHECK (fd >= 0);
  if (fd >= 0)
    {
      unsigned char c;
      CHECK (pread (fd, &c, 1, 100) == 1);
      c ^= 0x55;
      CHECK (pwrite (fd, &c, 1, 100) == 1);
      close (fd);
    }
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && !seccomp_prog_from_cache (second));
  CHECK (seccomp_prog_len (first) == seccomp_prog_len (second)
         && memcmp (seccomp_prog_insns (first), seccomp_prog_insns (second),
                    seccomp_prog_len (first) * sizeof (struct sock_filter))
                == 0);
  /* ... was rewritten: the next one hits again */
  CHECK (seccomp_prepare (&sc, cache, &third, &err) == 0 && seccomp_prog_from_cache (third));
  seccomp_prog_free (second);
  seccomp_prog_free (third);

  /* truncated, and garbage */
  CHECK (truncate (entry, 50) == 0);
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && !seccomp_prog_from_cache (second));
  seccomp_prog_free (second);
  {
    cleanup_free char *junk = xmalloc0 (200);
    cleanup_err ocisbx_err *e2 = NULL;
    CHECK (write_file_atomic_at (AT_FDCWD, entry, junk, 200, 0600, &e2) == 0);
  }
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && !seccomp_prog_from_cache (second));
  seccomp_prog_free (second);
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && seccomp_prog_from_cache (second));
  seccomp_prog_free (second);

  /* a cache others can write is not used, and that is not fatal */
  CHECK (chmod (cache, 0777) == 0);
  CHECK (seccomp_prepare (&sc, cache, &second, &err) == 0 && !seccomp_prog_from_cache (second));
  seccomp_prog_free (second);
  seccomp_prog_free (first);
  rmtree (steal_ptr (&dir));
}

/* --- cloned binary, LSM --- */

static void
test_cloned_binary (void)
{
  cleanup_close int exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  cleanup_close int m = memfd_create ("t", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  char out[256] = "";
  int p[2], status = 0;
  struct timespec t0, t1;
  pid_t pid;

  CHECK (exe >= 0 && !cloned_binary_fd_is_sealed (exe));
  CHECK (m >= 0 && !cloned_binary_fd_is_sealed (m));
  CHECK (fcntl (m, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE) == 0);
  CHECK (cloned_binary_fd_is_sealed (m));

  /* re-run this program through ensure_cloned_binary: see main () */
  CHECK (pipe2 (p, 0) == 0);
  clock_gettime (CLOCK_MONOTONIC, &t0);
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    {
      char fdarg[16];
      char *argv[] = { "test_seccomp", "--cloned-child", fdarg, NULL };
      cleanup_err ocisbx_err *err = NULL;
      close (p[0]);
      snprintf (fdarg, sizeof fdarg, "%d", p[1]);
      ensure_cloned_binary (3, argv, environ, NULL, &err);
      _exit (100); /* fexecve failed */
    }
  close (p[1]);
  CHECK (read_all (p[0], out, sizeof out - 1) > 0);
  close (p[0]);
  waitpid (pid, &status, 0);
  clock_gettime (CLOCK_MONOTONIC, &t1);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
  /* a read-only view where we may mount (root), else the sealed copy */
  CHECK (strcmp (out, "read-only view; write refused; no marker") == 0
         || strcmp (out, "sealed memfd; write refused; no marker") == 0);
  printf ("# the re-executed child: %s\n", out);
  printf ("# clone + re-exec of this %s test binary: %.2f ms\n", "unit",
          (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
}

/* The re-executed child of test_cloned_binary. */
static int
cloned_child (int argc, char **argv)
{
  cleanup_err ocisbx_err *err = NULL;
  int out = argc > 2 ? atoi (argv[2]) : 1, exe, w;
  char msg[128];

  if (ensure_cloned_binary (argc, argv, environ, NULL, &err) < 0) /* a no-op now */
    return 1;
  exe = open ("/proc/self/exe", O_RDONLY | O_CLOEXEC);
  w = open ("/proc/self/exe", O_WRONLY | O_CLOEXEC);
  snprintf (msg, sizeof msg, "%s; %s; %s",
            cloned_binary_fd_is_sealed (exe) ? "sealed memfd"
            : cloned_binary_exe_is_safe (exe) ? "read-only view"
                                              : "NOT SEALED",
            w < 0 || write (w, "x", 1) < 0 ? "write refused" : "WRITE WORKED",
            getenv (OCISBX_CLONED_ENV) ? "MARKER LEFT" : "no marker");
  return write_all (out, msg, strlen (msg)) < 0;
}

static void
test_lsm (void)
{
  cleanup_err ocisbx_err *err = NULL;
  bool aa = lsm_apparmor_enabled ();
  /* nothing asked: nothing to do */
  CHECK (lsm_validate (NULL, NULL, NULL, &err) == 0);
  CHECK (lsm_apply_exec_label (NULL, "", &err) == 0);
  if (!aa)
    {
      CHECK (lsm_validate ("ocisbx-test", NULL, NULL, &err) < 0);
      CHECK_STR (err ? err->msg : NULL, "config.json: .process.apparmorProfile: AppArmor is not enabled on this "
                                        "host (profile \"ocisbx-test\")");
    }
  if (!lsm_selinux_enabled ())
    {
      cleanup_err ocisbx_err *e2 = NULL, *e3 = NULL;
      /* refused, naming the field, as runc does */
      CHECK (lsm_validate (NULL, "system_u:system_r:container_t:s0", NULL, &e2) < 0);
      CHECK_STR (e2 ? e2->msg : NULL, "config.json: .process.selinuxLabel: SELinux is not enabled on this host "
                                      "(label \"system_u:system_r:container_t:s0\")");
      CHECK (lsm_validate (NULL, NULL, "system_u:object_r:container_file_t:s0", &e3) < 0);
      CHECK (e3 && strstr (e3->msg, "config.json: .linux.mountLabel: SELinux is not enabled"));
    }
}

int
main (int argc, char **argv)
{
  static const unit_test tests[] = {
    T (test_sha256_vectors), T (test_sha256_hw_matches_portable),
    T (test_actions),
    T (test_operators_flags_archs),
    T (test_validation_errors),
    T (test_errno_and_unknown_names),
    T (test_default_errno_allow_list),
    T (test_argument_operators),
    T (test_argument_and_or),
    T (test_kill_trap_log_trace),
    T (test_architectures_and_flags),
    T (test_notify_round_trip),
    T (test_send_listener),
    T (test_cache),
    T (test_cloned_binary),
    T (test_lsm),
  };
  if (argc > 1 && strcmp (argv[1], "--cloned-child") == 0)
    return cloned_child (argc, argv);
  return unit_run (tests, sizeof tests / sizeof tests[0]);
}
