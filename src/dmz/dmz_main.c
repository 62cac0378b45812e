/* ocisbx-dmz: the program the container's process is exec'd through.

   The runtime prepares the container and then, as its very last step, executes this
   small static program from a sealed memfd (src/core/process/dmz_stub.c); it executes the
   container's program in turn.  So when the kernel runs the container's program,
   /proc/self/exe is this sealed copy, never the host's ocisbx: a program whose
   interpreter is `#!/proc/self/exe` (CVE-2019-5736) runs the dmz, not the runtime,
   and nothing can write through it.

     argv: "ocisbx-dmz" PATH ARGV0 ARGS...      envp: the process's environment
       or: "ocisbx-dmz-memcg" FD PATH ARGV0 ARGS...: first write "0" to FD, the
           container's cgroup v1 memory "tasks" file, and close it (the runtime stepped
           out of that cgroup for this exec: src/core/cgroups/join.h)
       or: "ocisbx-dmz-tree" OPTS PATH ARGV0 ARGS...: the exec tree's reaper (tree.h):
           a subreaper that forks the leader, which executes PATH, and kills what is
           left of the leader's tree once the leader is gone (OPTS: tree.h)

   Any other argv (a script naming /proc/self/exe as its interpreter) is refused with
   126.  No libc: a freestanding file, built with -nostdlib -static (Makefile.am), for
   x86_64 and aarch64; configure leaves it out elsewhere (the runtime then re-executes
   itself from a sealed memfd instead, cloned_binary.c).  */

#define DMZ_ARGV0 "ocisbx-dmz"
#define DMZ_ARGV0_MEMCG "ocisbx-dmz-memcg"
#define DMZ_ARGV0_TREE "ocisbx-dmz-tree"

#if defined(__x86_64__)
#define NR_READ 0
#define NR_WRITE 1
#define NR_CLOSE 3
#define NR_IOCTL 16
#define NR_RT_SIGPROCMASK 14
#define NR_CLONE 56
#define NR_EXECVE 59
#define NR_WAIT4 61
#define NR_KILL 62
#define NR_SETSID 112
#define NR_RT_SIGTIMEDWAIT 128
#define NR_PRCTL 157
#define NR_EXIT_GROUP 231
#define NR_PPOLL 271
#define NR_OPENAT 257

static long
sys6 (long n, long a, long b, long c, long d, long e, long f)
{
  long r;
  register long r10 __asm__ ("r10") = d;
  register long r8 __asm__ ("r8") = e;
  register long r9 __asm__ ("r9") = f;
  __asm__ volatile ("syscall"
                    : "=a"(r)
                    : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
                    : "rcx", "r11", "memory");
  return r;
}

/* The kernel's initial stack: argc, argv[], NULL, envp[], NULL. */
__asm__ (".text\n"
         ".global _start\n"
         "_start:\n"
         "  xor %rbp, %rbp\n"
         "  mov %rsp, %rdi\n"
         "  and $-16, %rsp\n"
         "  call dmz_main\n"
         "  hlt\n");

#elif defined(__aarch64__)
#define NR_READ 63
#define NR_WRITE 64
#define NR_CLOSE 57
#define NR_IOCTL 29
#define NR_RT_SIGPROCMASK 135
#define NR_CLONE 220
#define NR_EXECVE 221
#define NR_WAIT4 260
#define NR_KILL 129
#define NR_SETSID 157
#define NR_RT_SIGTIMEDWAIT 137
#define NR_PRCTL 167
#define NR_EXIT_GROUP 94
#define NR_PPOLL 73
#define NR_OPENAT 56

static long
sys6 (long n, long a, long b, long c, long d, long e, long f)
{
  register long x8 __asm__ ("x8") = n;
  register long x0 __asm__ ("x0") = a;
  register long x1 __asm__ ("x1") = b;
  register long x2 __asm__ ("x2") = c;
  register long x3 __asm__ ("x3") = d;
  register long x4 __asm__ ("x4") = e;
  register long x5 __asm__ ("x5") = f;
  __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5) : "memory");
  return x0;
}

__asm__ (".text\n"
         ".global _start\n"
         "_start:\n"
         "  mov x0, sp\n"
         "  bl dmz_main\n");

#else
#error "ocisbx-dmz: no system call stub for this architecture"
#endif

#define sys3(n, a, b, c) sys6 (n, a, b, c, 0, 0, 0)

void dmz_main (long *sp) __attribute__ ((noreturn, used));

static unsigned long
len (const char *s)
{
  unsigned long n = 0;
  while (s[n])
    n++;
  return n;
}

static int
same (const char *a, const char *b)
{
  while (*a && *a == *b)
    a++, b++;
  return *a == *b;
}

static void
put (const char *s)
{
  sys3 (NR_WRITE, 2, (long) s, (long) len (s));
}

static __attribute__ ((noreturn)) void
quit (int code)
{
  for (;;)
    sys3 (NR_EXIT_GROUP, code, 0, 0);
}

#include "tree.h"

/* errno values are the same on x86_64 and aarch64 (asm-generic). */
static const char *
reason (long e)
{
  switch (e)
    {
    case 1: return "operation not permitted";
    case 2: return "no such file or directory";
    case 7: return "argument list too long";
    case 8: return "exec format error";
    case 12: return "cannot allocate memory";
    case 13: return "permission denied";
    case 20: return "not a directory";
    case 21: return "is a directory";
    case 26: return "text file busy";
    case 36: return "file name too long";
    case 40: return "too many levels of symbolic links";
    default: return "exec failed";
    }
}

/* A decimal fd, or -1. */
static long
fd_of (const char *s)
{
  long n = 0;
  if (*s == '\0')
    return -1;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9' || n > 100000000)
        return -1;
      n = n * 10 + (*s - '0');
    }
  return n;
}

void
dmz_main (long *sp)
{
  long argc = sp[0];
  char **argv = (char **) (sp + 1);
  char **envp = argv + argc + 1;
  long e;

  if (argc >= 4 && same (argv[0], DMZ_ARGV0_MEMCG))
    {
      long fd = fd_of (argv[1]);
      if (fd < 0 || sys3 (NR_WRITE, fd, (long) "0", 1) != 1)
        {
          put ("ocisbx: exec: \"");
          put (argv[3]);
          put ("\": cannot rejoin the container's memory cgroup\n");
          quit (127);
        }
      sys3 (NR_CLOSE, fd, 0, 0);
      argv++;
      argc--;
    }
  else if (argc >= 4 && same (argv[0], DMZ_ARGV0_TREE))
    {
      tree_opts o;
      if (tree_parse (argv[1], &o) < 0)
        {
          put ("ocisbx-dmz: bad exec tree options\n");
          quit (126);
        }
      if (!tree_start (&o))
        {
          put ("ocisbx: exec: \"");
          put (argv[3]);
          put ("\": cannot fork the exec tree's leader\n");
          quit (126);
        }
      argv++;
      argc--;
    }
  else if (argc < 3 || !same (argv[0], DMZ_ARGV0))
    {
      put ("ocisbx-dmz: not a program to run (permission denied)\n");
      quit (126);
    }
  e = -sys3 (NR_EXECVE, (long) argv[1], (long) (argv + 2), (long) envp);
  /* Worded as runc's "exec /run.sh: no such file or directory" (the runtime's own
     message, process_exec, says the same); podman matches these phrases. */
  put ("ocisbx: exec ");
  put (argv[1]);
  put (": ");
  put (reason (e));
  put ("\n");
  quit (e == 13 || e == 8 || e == 1 || e == 21 ? 126 : 127);
}
