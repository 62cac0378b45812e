/* The exec stub (dmz_stub.h): the user-space seccomp evaluator behind dmz_usable, checked
   against hand-made programs and against the kernel itself; the sealed stub and its
   argv contract. */
#include <config.h>
#include "unit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/process/dmz_stub.h"
#include "core/seccomp/seccomp.h"
#include "core/utils.h"

#define STRS(...) ((char *[]){ __VA_ARGS__ })
#define NSTRS(...) (sizeof ((char *[]){ __VA_ARGS__ }) / sizeof (char *))
#define NAMES(...) .names = STRS (__VA_ARGS__), .names_len = NSTRS (__VA_ARGS__)
#define LEN(a) (sizeof (a) / sizeof (a)[0])

#if defined(__x86_64__)
#define NATIVE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NATIVE AUDIT_ARCH_AARCH64
#else
#define NATIVE 0
#endif

static struct seccomp_data
call (int nr, uint64_t a0, uint64_t a4)
{
  struct seccomp_data d = { .nr = nr, .arch = NATIVE, .args = { a0, 0, 0, 0, a4, 0 } };
  return d;
}

/* --- the interpreter on hand-made programs --- */

static void
test_bpf_hand_made (void)
{
  /* nr == execveat ? (args[4] & AT_EMPTY_PATH ? ERRNO(1) : ALLOW) : LOG */
  struct sock_filter f[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 3),
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[4])),
    BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, AT_EMPTY_PATH, 0, 2),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_LOG),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct seccomp_data d = call (SYS_execveat, 3, AT_EMPTY_PATH);
  CHECK (seccomp_bpf_run (f, LEN (f), &d) == (SECCOMP_RET_ERRNO | 1));
  d = call (SYS_execveat, 3, 0);
  CHECK (seccomp_bpf_run (f, LEN (f), &d) == SECCOMP_RET_ALLOW);
  d = call (SYS_getpid, 0, 0);
  CHECK (seccomp_bpf_run (f, LEN (f), &d) == SECCOMP_RET_LOG);
  CHECK (seccomp_bpf_allows (SECCOMP_RET_LOG) && seccomp_bpf_allows (SECCOMP_RET_ALLOW));
  CHECK (!seccomp_bpf_allows (SECCOMP_RET_ERRNO | 1) && !seccomp_bpf_allows (SECCOMP_RET_USER_NOTIF)
         && !seccomp_bpf_allows (SECCOMP_RET_TRACE) && !seccomp_bpf_allows (SECCOMP_RET_KILL_PROCESS));

  /* scratch memory, X, ALU, RET A */
  struct sock_filter g[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[0])),
    BPF_STMT (BPF_ST, 3),
    BPF_STMT (BPF_LDX | BPF_IMM, 10),
    BPF_STMT (BPF_LD | BPF_MEM, 3),
    BPF_STMT (BPF_ALU | BPF_MUL | BPF_X, 0),
    BPF_STMT (BPF_ALU | BPF_ADD | BPF_K, 2),
    BPF_STMT (BPF_ALU | BPF_OR | BPF_K, SECCOMP_RET_ERRNO),
    BPF_STMT (BPF_RET | BPF_A, 0),
  };
  d = call (SYS_getpid, 4, 0);
  CHECK (seccomp_bpf_run (g, LEN (g), &d) == (SECCOMP_RET_ERRNO | 42));
}

static void
test_bpf_malformed_allows_nothing (void)
{
  struct seccomp_data d = call (SYS_getpid, 0, 0);
  struct sock_filter out_of_data[] = { BPF_STMT (BPF_LD | BPF_W | BPF_ABS, sizeof (struct seccomp_data)),
                                       BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  struct sock_filter unaligned[] = { BPF_STMT (BPF_LD | BPF_W | BPF_ABS, 2),
                                     BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  struct sock_filter div0[] = { BPF_STMT (BPF_ALU | BPF_DIV | BPF_K, 0),
                                BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  struct sock_filter off_end[] = { BPF_STMT (BPF_LD | BPF_IMM, 1) };
  struct sock_filter far_jump[] = { BPF_JUMP (BPF_JMP | BPF_JA, 5, 0, 0),
                                    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };
  struct sock_filter bad_mem[] = { BPF_STMT (BPF_ST, BPF_MEMWORDS), BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW) };

  CHECK (seccomp_bpf_run (out_of_data, LEN (out_of_data), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (unaligned, LEN (unaligned), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (div0, LEN (div0), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (off_end, LEN (off_end), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (far_jump, LEN (far_jump), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (bad_mem, LEN (bad_mem), &d) == SECCOMP_RET_KILL_PROCESS);
  CHECK (seccomp_bpf_run (NULL, 0, &d) == SECCOMP_RET_KILL_PROCESS);
}

/* --- compiled profiles: the evaluator agrees with the kernel --- */

static seccomp_prog *
compile (const oci_seccomp *sc)
{
  cleanup_err ocisbx_err *err = NULL;
  seccomp_prog *p = NULL;
  if (seccomp_prepare (sc, NULL, &p, &err) < 0)
    fprintf (stderr, "  prepare: %s\n", err->msg);
  return p;
}

/* What the kernel answers to fcntl (FD, CMD) under P: the errno, 0 for success. */
static int
kernel_fcntl (const seccomp_prog *p, long fd, long cmd)
{
  int status = -1;
  pid_t pid = fork ();
  if (pid == 0)
    {
      cleanup_err ocisbx_err *err = NULL;
      int nfd;
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_prog_load (p, &nfd, &err) < 0)
        syscall (SYS_exit_group, 200);
      long r = syscall (SYS_fcntl, fd, cmd, 0);
      syscall (SYS_exit_group, r < 0 ? errno : 0);
    }
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_evaluator_matches_kernel (void)
{
  uint32_t e77 = 77;
  oci_seccomp_arg args[] = { { .index = 0, .value = 1, .op = "SCMP_CMP_GT" },
                             { .index = 1, .value = F_GETFD, .op = "SCMP_CMP_EQ" } };
  oci_syscall rules[] = { { NAMES ("fcntl"), .action = "SCMP_ACT_ERRNO", .errno_ret = &e77, .args = args,
                            .args_len = 2 } };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = rules, .syscalls_len = 1 };
  cleanup_seccomp_prog seccomp_prog *p = compile (&sc);
  long cases[][2] = { { 0, F_GETFD }, { 2, F_GETFD }, { 2, F_GETFL }, { 5000, F_GETFD }, { 1, F_GETFD } };

  CHECK (p != NULL);
  if (p == NULL)
    return;
  for (size_t i = 0; i < LEN (cases); i++)
    {
      struct seccomp_data d = { .nr = SYS_fcntl, .arch = NATIVE, .args = { cases[i][0], cases[i][1] } };
      int k = kernel_fcntl (p, cases[i][0], cases[i][1]);
      bool ours = seccomp_prog_allows (p, &d);
      /* refused by the filter <=> errno 77 from the kernel */
      if (ours == (k == 77))
        fprintf (stderr, "  fcntl (%ld, %ld): evaluator %d, kernel errno %d\n", cases[i][0], cases[i][1], ours, k);
      CHECK (ours == (k != 77));
    }
}

static void
test_dmz_usable (void)
{
  uint32_t e1 = 1;
  oci_syscall allow_execveat[] = { { NAMES ("execve", "execveat", "exit_group"), .action = "SCMP_ACT_ALLOW" } };
  oci_syscall execve_only[] = { { NAMES ("execve", "exit_group"), .action = "SCMP_ACT_ALLOW" } };
  oci_syscall deny_execveat[] = { { NAMES ("execveat"), .action = "SCMP_ACT_ERRNO", .errno_ret = &e1 } };
  oci_syscall notify_execveat[] = { { NAMES ("execveat"), .action = "SCMP_ACT_NOTIFY" } };
  oci_seccomp_arg cwd_only[] = { { .index = 0, .value = (uint64_t) (int64_t) AT_FDCWD, .op = "SCMP_CMP_EQ" } };
  oci_syscall execveat_at_cwd[] = { { NAMES ("execveat"), .action = "SCMP_ACT_ALLOW", .args = cwd_only,
                                      .args_len = 1 } };
  oci_seccomp allow_list = { .default_action = "SCMP_ACT_ERRNO", .syscalls = allow_execveat, .syscalls_len = 1 };
  oci_seccomp no_execveat = { .default_action = "SCMP_ACT_ERRNO", .syscalls = execve_only, .syscalls_len = 1 };
  oci_seccomp deny_list = { .default_action = "SCMP_ACT_ALLOW", .syscalls = deny_execveat, .syscalls_len = 1 };
  oci_seccomp notify = { .default_action = "SCMP_ACT_ALLOW", .syscalls = notify_execveat, .syscalls_len = 1,
                         .listener_path = "/run/agent.sock" };
  oci_seccomp at_cwd = { .default_action = "SCMP_ACT_ERRNO", .syscalls = execveat_at_cwd, .syscalls_len = 1 };
  cleanup_seccomp_prog seccomp_prog *p1 = compile (&allow_list);
  cleanup_seccomp_prog seccomp_prog *p2 = compile (&no_execveat);
  cleanup_seccomp_prog seccomp_prog *p3 = compile (&deny_list);
  cleanup_seccomp_prog seccomp_prog *p4 = compile (&notify);
  cleanup_seccomp_prog seccomp_prog *p5 = compile (&at_cwd);

#ifdef HAVE_DMZ
  CHECK (dmz_usable (NULL, 7, NULL, NULL));
  CHECK (p1 && dmz_usable (p1, 7, NULL, NULL));
  CHECK (p2 && !dmz_usable (p2, 7, NULL, NULL));
  CHECK (p3 && !dmz_usable (p3, 7, NULL, NULL));
  CHECK (p4 && !dmz_usable (p4, 7, NULL, NULL));
  /* allowed for AT_FDCWD only: not for our fd */
  CHECK (p5 && !dmz_usable (p5, 7, NULL, NULL));
  /* an exec label: the label's domain may not run an anonymous memfd */
  CHECK (!dmz_usable (NULL, 7, "system_u:system_r:container_t:s0", NULL));
  CHECK (!dmz_usable (NULL, 7, NULL, "docker-default"));
  CHECK (dmz_usable (NULL, 7, "", ""));
  /* the stub's write and close for the memory cgroup hand-off */
  CHECK (dmz_memcg_usable (NULL));
  CHECK (p3 && dmz_memcg_usable (p3));
  CHECK (p1 && !dmz_memcg_usable (p1)); /* write and close fall to the ERRNO default */
  {
    uint32_t e9 = 9;
    oci_syscall with_io[] = { { NAMES ("execveat", "write", "close"), .action = "SCMP_ACT_ALLOW" } };
    oci_syscall no_close[] = { { NAMES ("close"), .action = "SCMP_ACT_ERRNO", .errno_ret = &e9 } };
    oci_seccomp io = { .default_action = "SCMP_ACT_ERRNO", .syscalls = with_io, .syscalls_len = 1 };
    oci_seccomp nc = { .default_action = "SCMP_ACT_ALLOW", .syscalls = no_close, .syscalls_len = 1 };
    cleanup_seccomp_prog seccomp_prog *p6 = compile (&io);
    cleanup_seccomp_prog seccomp_prog *p7 = compile (&nc);
    CHECK (p6 && dmz_memcg_usable (p6));
    CHECK (p7 && !dmz_memcg_usable (p7));
  }
#else
  CHECK (!dmz_usable (NULL, 7, NULL, NULL));
#endif
}

/* --- the stub --- */

/* Everything FD gives until end of file (the stub writes its message in pieces). */
static char *
stderr_of (int fd)
{
  char buf[1024];
  size_t len = 0;
  ssize_t n;
  while (len < sizeof buf - 1 && (n = read (fd, buf + len, sizeof buf - 1 - len)) > 0)
    len += (size_t) n;
  buf[len] = '\0';
  return xstrdup (buf);
}

/* Runs the dmz (FD) with dmz_argv (MEMCG, TREE, PATH, ARGV) in a child with stderr into
   a pipe; returns the wait status and the child's stderr in *MSG. */
static int
run_stub_as (int fd, int memcg, const char *tree, const char *path, char **argv, char **msg)
{
  int pipefd[2], status = -1;
  pid_t pid;

  if (pipe2 (pipefd, O_CLOEXEC) < 0)
    return -1;
  fflush (NULL);
  pid = fork ();
  if (pid == 0)
    {
      dup2 (pipefd[1], 2);
      dup2 (open ("/dev/null", O_WRONLY | O_CLOEXEC), 1);
      char fdnum[DMZ_FDNUM_SIZE];
      dmz_execveat (fd, dmz_argv (memcg, tree, path, argv, fdnum), (char *[]){ NULL });
      _exit (99);
    }
  close (pipefd[1]);
  *msg = stderr_of (pipefd[0]);
  close (pipefd[0]);
  waitpid (pid, &status, 0);
  return status;
}

static int
run_stub (int fd, const char *path, char **argv, char **msg)
{
  return run_stub_as (fd, -1, NULL, path, argv, msg);
}

static void
test_stub (void)
{
#ifdef HAVE_DMZ
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int fd = dmz_memfd (&err);
  cleanup_free char *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL;
  int seals, st;

  CHECK (fd >= 0);
  if (fd < 0)
    return;
  seals = fcntl (fd, F_GET_SEALS);
  CHECK (seals >= 0 && (seals & (F_SEAL_SEAL | F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK))
                           == (F_SEAL_SEAL | F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK));
  CHECK (write (fd, "x", 1) < 0 && errno == EPERM);
  CHECK ((fcntl (fd, F_GETFD) & FD_CLOEXEC) != 0);

  /* the program runs with its own argv[0] and arguments */
  st = run_stub (fd, "/bin/sh", STRS ("sh", "-c", "[ \"$0 $1\" = \"a b\" ] && exit 7", "a", "b", NULL), &m1);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 7);
  CHECK_STR (m1, "");
  /* failures: 127 not found, 126 cannot run, worded like the runtime */
  st = run_stub (fd, "/no/such/file", STRS ("prog", NULL), &m2);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 127);
  CHECK_STR (m2, "ocisbx: exec /no/such/file: no such file or directory\n");
  st = run_stub (fd, "/etc/passwd", STRS ("passwd", NULL), &m3);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 126);
  CHECK_STR (m3, "ocisbx: exec /etc/passwd: permission denied\n");

  /* "ocisbx-dmz-memcg FD": "0" written to FD, FD closed before the program runs */
  {
    cleanup_free char *m5 = NULL, *m6 = NULL, *script = NULL;
    int p[2], ro;
    char got[8] = "";
    CHECK (pipe (p) == 0); /* not O_CLOEXEC: the stub gets it */
    script = xasprintf ("[ ! -e /proc/self/fd/%d ] && exit 5", p[1]);
    st = run_stub_as (fd, p[1], NULL, "/bin/sh", STRS ("sh", "-c", script, NULL), &m5);
    close (p[1]);
    CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 5);
    CHECK_STR (m5, "");
    CHECK (read (p[0], got, sizeof got - 1) == 1 && strcmp (got, "0") == 0);
    close (p[0]);
    /* a file it cannot write: the program does not run */
    ro = open ("/dev/null", O_RDONLY);
    st = run_stub_as (fd, ro, NULL, "/bin/sh", STRS ("sh", "-c", "exit 5", NULL), &m6);
    close (ro);
    CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 127);
    CHECK_STR (m6, "ocisbx: exec: \"sh\": cannot rejoin the container's memory cgroup\n");
  }

  /* run as an interpreter (#!/proc/self/exe), or without the marker: refused */
  {
    int pipefd[2];
    pid_t pid;
    CHECK (pipe2 (pipefd, O_CLOEXEC) == 0);
    fflush (NULL);
    pid = fork ();
    if (pid == 0)
      {
        int copy = dup (fd); /* not O_CLOEXEC: executable by its /proc path */
        cleanup_free char *p = xasprintf ("/proc/self/fd/%d", copy);
        dup2 (pipefd[1], 2);
        execve (p, STRS ("/proc/self/exe", "/evil", NULL), STRS (NULL));
        _exit (99);
      }
    close (pipefd[1]);
    m4 = stderr_of (pipefd[0]);
    close (pipefd[0]);
    waitpid (pid, &st, 0);
    CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 126);
    CHECK (strstr (m4, "not a program to run") != NULL);
  }
#endif
}

/* "ocisbx-dmz-tree": the leader's exit code, its signal as 128+N, its tree killed once
   it is gone, failures worded as the plain stub's. */
static void
test_stub_tree (void)
{
#ifdef HAVE_DMZ
  cleanup_err ocisbx_err *err = NULL;
  cleanup_close int fd = dmz_memfd (&err);
  cleanup_free char *m1 = NULL, *m2 = NULL, *m3 = NULL, *m4 = NULL, *m5 = NULL;
  int st;
  long daemon;

  CHECK (fd >= 0);
  if (fd < 0)
    return;
  st = run_stub_as (fd, -1, "0:3:-:0", "/bin/sh", STRS ("sh", "-c", "[ \"$0\" = a ] && exit 7", "a", NULL), &m1);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 7);
  CHECK_STR (m1, "");
  st = run_stub_as (fd, -1, "0:3:-:0", "/bin/sh", STRS ("sh", "-c", "kill -TERM $$", NULL), &m2);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 128 + SIGTERM);
  /* a daemon of the leader's (its own session, its parent gone) does not outlive it */
  st = run_stub_as (fd, -1, "0:3:-:0", "/bin/sh",
                    STRS ("sh", "-c", "sh -c 'setsid sleep 300 >/dev/null 2>&1 & echo $! >&2'; exit 3", NULL), &m3);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 3);
  daemon = strtol (m3, NULL, 10);
  CHECK (daemon > 0 && kill ((pid_t) daemon, 0) < 0 && errno == ESRCH);
  /* failures */
  st = run_stub_as (fd, -1, "0:3:-:0", "/no/such/file", STRS ("prog", NULL), &m4);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 127);
  CHECK_STR (m4, "ocisbx: exec /no/such/file: no such file or directory\n");
  st = run_stub_as (fd, -1, "0:x:-:0", "/bin/true", STRS ("true", NULL), &m5);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 126);
  CHECK_STR (m5, "ocisbx-dmz: bad exec tree options\n");
#endif
}

/* dmz_tree_check names the first call of the reaper that a filter refuses. */
static void
test_dmz_tree_check (void)
{
#ifdef HAVE_DMZ
  uint32_t e1 = 1;
  oci_syscall deny_wait[] = { { NAMES ("rt_sigtimedwait"), .action = "SCMP_ACT_ERRNO", .errno_ret = &e1 } };
  oci_syscall deny_ppoll[] = { { NAMES ("ppoll"), .action = "SCMP_ACT_ERRNO", .errno_ret = &e1 } };
  oci_seccomp w = { .default_action = "SCMP_ACT_ALLOW", .syscalls = deny_wait, .syscalls_len = 1 };
  oci_seccomp pp = { .default_action = "SCMP_ACT_ALLOW", .syscalls = deny_ppoll, .syscalls_len = 1 };
  cleanup_seccomp_prog seccomp_prog *p1 = compile (&w);
  cleanup_seccomp_prog seccomp_prog *p2 = compile (&pp);
  ocisbx_err *err = NULL;

  CHECK (dmz_tree_check (NULL, true, true, &err) == 0);
  CHECK (p1 && dmz_tree_check (p1, false, false, &err) < 0 && strstr (err->msg, "refuses rt_sigtimedwait"));
  err_freep (&err);
  /* ppoll only checks a foreground runtime */
  CHECK (p2 && dmz_tree_check (p2, false, false, &err) == 0);
  CHECK (p2 && dmz_tree_check (p2, false, true, &err) < 0 && strstr (err->msg, "refuses ppoll"));
  err_freep (&err);
#endif
}

int
main (void)
{
  static const unit_test tests[] = {
    T (test_bpf_hand_made),
    T (test_bpf_malformed_allows_nothing),
    T (test_evaluator_matches_kernel),
    T (test_dmz_usable),
    T (test_stub),
    T (test_stub_tree),
    T (test_dmz_tree_check),
  };
  return unit_run (tests, sizeof tests / sizeof tests[0]);
}
