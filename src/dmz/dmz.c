/* ocisbx-dmz: the program the container's process is exec'd through.

   The runtime prepares the container and then, as its very last step, executes this
   small static program from a sealed memfd (src/core/dmz.c); it executes the
   container's program in turn.  So when the kernel runs the container's program,
   /proc/self/exe is this sealed copy, never the host's ocisbx: a program whose
   interpreter is `#!/proc/self/exe` (CVE-2019-5736) runs the dmz, not the runtime,
   and nothing can write through it.

     argv: "ocisbx-dmz" PATH ARGV0 ARGS...      envp: the process's environment
       or: "ocisbx-dmz-memcg" FD PATH ARGV0 ARGS...: first write "0" to FD, the
           container's cgroup v1 memory "tasks" file, and close it (the runtime stepped
           out of that cgroup for this exec: src/core/cgroup_join.h)

   Any other argv (a script naming /proc/self/exe as its interpreter) is refused with
   126.  No libc: a freestanding file, built with -nostdlib -static (Makefile.am), for
   x86_64 and aarch64; configure leaves it out elsewhere (the runtime then re-executes
   itself from a sealed memfd instead, cloned_binary.c).  */

#define DMZ_ARGV0 "ocisbx-dmz"
#define DMZ_ARGV0_MEMCG "ocisbx-dmz-memcg"

#if defined(__x86_64__)
#define NR_WRITE 1
#define NR_CLOSE 3
#define NR_EXECVE 59
#define NR_EXIT_GROUP 231

static long
sys3 (long n, long a, long b, long c)
{
  long r;
  __asm__ volatile ("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
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
#define NR_WRITE 64
#define NR_CLOSE 57
#define NR_EXECVE 221
#define NR_EXIT_GROUP 94

static long
sys3 (long n, long a, long b, long c)
{
  register long x8 __asm__ ("x8") = n;
  register long x0 __asm__ ("x0") = a;
  register long x1 __asm__ ("x1") = b;
  register long x2 __asm__ ("x2") = c;
  __asm__ volatile ("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
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
  else if (argc < 3 || !same (argv[0], DMZ_ARGV0))
    {
      put ("ocisbx-dmz: not a program to run (permission denied)\n");
      quit (126);
    }
  e = -sys3 (NR_EXECVE, (long) argv[1], (long) (argv + 2), (long) envp);
  /* Worded like the runtime's own message: podman matches these phrases. */
  put ("ocisbx: exec: \"");
  put (argv[2]);
  put ("\": ");
  put (reason (e));
  put ("\n");
  quit (e == 13 || e == 8 || e == 1 || e == 21 ? 126 : 127);
}
