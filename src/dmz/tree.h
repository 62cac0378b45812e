/* The exec tree's reaper, part of ocisbx-dmz (dmz_main.c includes this file: it supplies
   sys6 (), the NR_* numbers and quit ()).

   `ocisbx exec --kill-tree` executes the dmz as "ocisbx-dmz-tree OPTS PATH ARGV0
   ARGS..." once the process is set up (namespaces, credentials, seccomp filter: the
   reaper runs under all of it, as the container's process would).  The dmz stays, as
   the process the runtime (or conmon) waits for, in the container's pid namespace:

     - every signal blocked (the runtime blocked them before the exec, so none sent
       meanwhile is lost), it becomes a child subreaper: whatever its descendants
       orphan, daemons that double-fork or setsid included, comes back to it;
     - with a PIDFD (a foreground `ocisbx exec` passes its own) the parent-death signal
       TREE_SIG_RUNTIME_GONE is armed again (a change of uid cleared it) and the runtime
       checked alive: a foreground exec killed even with SIGKILL takes the tree along;
     - it forks the leader: the caller's signal MASK back, a session (and process group)
       of its own, the pty as controlling terminal with TTY, then PATH executed as the
       plain dmz would (same messages, 126/127);
     - it closes fds 0 .. NFDS-1 (stdio and --preserve-fds are the leader's) and waits
       in rt_sigtimedwait: SIGCHLD reaps whatever died, any other signal goes to the
       leader, TREE_SIG_RUNTIME_GONE with the runtime gone ends the tree;
     - once the leader is gone it kills the rest: SIGKILL to each of its children
       (/proc/thread-self/children), waits for them (their children are its own then),
       and again until none is left that it may signal; then it exits with the leader's
       code (128+N for signal N).  Without a readable /proc it kills the leader's
       process group only.

   OPTS: "MASK:NFDS:PIDFD:TTY": MASK the leader's signal mask (signals 1-64 as a hex
   word, bit N-1 for signal N), NFDS and PIDFD decimal (PIDFD "-" when none), TTY "0"
   or "1".  The system calls made here are those dmz_tree_check (src/core/process/dmz_stub.c) finds
   allowed by the container's seccomp filter. */
#ifndef OCISBX_DMZ_TREE_H
#define OCISBX_DMZ_TREE_H

#define TREE_SIGKILL 9
#define TREE_SIGCHLD 17
#define TREE_SIG_RUNTIME_GONE 64 /* SIGRTMAX; DMZ_TREE_RUNTIME_GONE in src/core/process/dmz_stub.h */
#define TREE_SIG_BLOCK 0
#define TREE_SIG_SETMASK 2
#define TREE_WNOHANG 1
#define TREE_WALL 0x40000000
#define TREE_TIOCSCTTY 0x540E
#define TREE_PR_SET_PDEATHSIG 1
#define TREE_PR_SET_CHILD_SUBREAPER 36
#define TREE_POLLIN 1
#define TREE_AT_FDCWD -100
#define TREE_O_CLOEXEC 02000000
#define TREE_SIGSET_SIZE 8 /* the kernel's sigset: 64 signals on x86_64 and aarch64 */

typedef struct tree_opts
{
  unsigned long mask;
  long nfds;
  long pidfd; /* -1: none */
  int tty;
} tree_opts;

/* A hex or decimal number up to the next ':' or the end; *S moves past it. */
static int
tree_number (const char **s, int base, unsigned long *out)
{
  unsigned long n = 0;
  const char *p = *s;

  if (*p == ':' || *p == '\0')
    return -1;
  for (; *p && *p != ':'; p++)
    {
      int d;
      if (*p >= '0' && *p <= '9')
        d = *p - '0';
      else if (base == 16 && *p >= 'a' && *p <= 'f')
        d = *p - 'a' + 10;
      else
        return -1;
      if (n > (~0UL >> 4))
        return -1;
      n = n * base + d;
    }
  *s = *p == ':' ? p + 1 : p;
  *out = n;
  return 0;
}

static int
tree_parse (const char *s, tree_opts *o)
{
  unsigned long v;

  if (tree_number (&s, 16, &o->mask) < 0 || tree_number (&s, 10, &v) < 0 || v > 65536 + 3)
    return -1;
  o->nfds = (long) v;
  if (s[0] == '-' && s[1] == ':')
    {
      o->pidfd = -1;
      s += 2;
    }
  else if (tree_number (&s, 10, &v) < 0 || v > 65536 * 2)
    return -1;
  else
    o->pidfd = (long) v;
  if ((s[0] != '0' && s[0] != '1') || s[1] != '\0')
    return -1;
  o->tty = s[0] == '1';
  return 0;
}

/* The leader's wait status as an exit code, the shell's way. */
static int
tree_exit_code (int status)
{
  int sig = status & 0x7f;
  if (sig == 0)
    return (status >> 8) & 0xff;
  return 128 + sig;
}

/* Whether the runtime behind PIDFD has exited (a pidfd polls readable then). */
static int
tree_runtime_gone (long pidfd)
{
  struct
  {
    int fd;
    short events, revents;
  } p = { (int) pidfd, TREE_POLLIN, 0 };
  long zero[2] = { 0, 0 };

  return sys6 (NR_PPOLL, (long) &p, 1, (long) zero, 0, TREE_SIGSET_SIZE, 0) != 0;
}

/* SIGKILL to each of our children listed in /proc/thread-self/children, then a wait
   for each (its own children are ours from then on).  The count killed, or -1 when
   /proc cannot be read. */
static long
tree_kill_children (void)
{
  char buf[4096];
  long pids[512], n = 0, len, fd, pid = -1;

  fd = sys6 (NR_OPENAT, TREE_AT_FDCWD, (long) "/proc/thread-self/children", TREE_O_CLOEXEC, 0, 0, 0);
  if (fd < 0)
    return -1;
  len = sys6 (NR_READ, fd, (long) buf, sizeof buf, 0, 0, 0);
  sys6 (NR_CLOSE, fd, 0, 0, 0, 0, 0);
  if (len < 0)
    return -1;
  /* a list cut by a full buffer: its last number may be cut too; the next round has it */
  if (len == (long) sizeof buf)
    while (len > 0 && buf[len - 1] != ' ')
      len--;
  for (long i = 0; i < len && n < (long) (sizeof pids / sizeof pids[0]); i++)
    {
      if (buf[i] >= '0' && buf[i] <= '9')
        pid = (pid < 0 ? 0 : pid * 10) + (buf[i] - '0');
      else if (pid > 0)
        {
          /* one we may not signal (a set-user-ID program's) is left to exit itself */
          if (sys6 (NR_KILL, pid, TREE_SIGKILL, 0, 0, 0, 0) == 0)
            pids[n++] = pid;
          pid = -1;
        }
    }
  for (long i = 0; i < n; i++)
    while (sys6 (NR_WAIT4, pids[i], 0, TREE_WALL, 0, 0, 0) == -4 /* EINTR */)
      ;
  return n;
}

/* The leader is gone (or to be): nothing of its tree may stay. */
static __attribute__ ((noreturn)) void
tree_end (long leader, int code)
{
  long n;

  /* the zombies first: no child left at all (the common case) needs no /proc */
  while ((n = sys6 (NR_WAIT4, -1, 0, TREE_WNOHANG | TREE_WALL, 0, 0, 0)) > 0)
    ;
  if (n == -10 /* ECHILD */)
    quit (code);
  while ((n = tree_kill_children ()) > 0)
    ;
  if (n < 0)
    sys6 (NR_KILL, -leader, TREE_SIGKILL, 0, 0, 0, 0);
  while (sys6 (NR_WAIT4, -1, 0, TREE_WNOHANG | TREE_WALL, 0, 0, 0) > 0)
    ;
  quit (code);
}

static __attribute__ ((noreturn)) void
tree_reap (long leader, long pidfd)
{
  unsigned long all = ~0UL;
  long info[16]; /* siginfo_t: 128 bytes */

  for (;;)
    {
      long sig = sys6 (NR_RT_SIGTIMEDWAIT, (long) &all, (long) info, 0, TREE_SIGSET_SIZE, 0, 0);
      if (sig < 0)
        continue; /* EINTR */
      if (sig == TREE_SIG_RUNTIME_GONE && pidfd >= 0 && tree_runtime_gone (pidfd))
        tree_end (leader, 128 + TREE_SIGKILL);
      if (sig != TREE_SIGCHLD)
        {
          sys6 (NR_KILL, leader, sig, 0, 0, 0, 0);
          continue;
        }
      for (;;)
        {
          int status = 0;
          long pid = sys6 (NR_WAIT4, -1, (long) &status, TREE_WNOHANG | TREE_WALL, 0, 0, 0);
          if (pid <= 0)
            break;
          if (pid == leader)
            tree_end (leader, tree_exit_code (status));
        }
    }
}

/* Returns in the leader, ready for execve; 0 when the tree could not be made (the
   caller says so and quits). */
static int
tree_start (const tree_opts *o)
{
  unsigned long all = ~0UL;
  long pid;

  sys6 (NR_RT_SIGPROCMASK, TREE_SIG_BLOCK, (long) &all, 0, TREE_SIGSET_SIZE, 0, 0);
  if (o->pidfd >= 0)
    {
      /* armed before the check: a runtime that dies after it signals us */
      sys6 (NR_PRCTL, TREE_PR_SET_PDEATHSIG, TREE_SIG_RUNTIME_GONE, 0, 0, 0, 0);
      if (tree_runtime_gone (o->pidfd))
        quit (128 + TREE_SIGKILL);
    }
  if (sys6 (NR_PRCTL, TREE_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0) < 0)
    return 0;
  pid = sys6 (NR_CLONE, TREE_SIGCHLD, 0, 0, 0, 0, 0);
  if (pid < 0)
    return 0;
  if (pid == 0)
    {
      if (o->pidfd >= 0)
        sys6 (NR_CLOSE, o->pidfd, 0, 0, 0, 0, 0);
      sys6 (NR_SETSID, 0, 0, 0, 0, 0, 0);
      if (o->tty)
        sys6 (NR_IOCTL, 0, TREE_TIOCSCTTY, 0, 0, 0, 0);
      sys6 (NR_RT_SIGPROCMASK, TREE_SIG_SETMASK, (long) &o->mask, 0, TREE_SIGSET_SIZE, 0, 0);
      return 1;
    }
  for (long fd = 0; fd < o->nfds; fd++)
    sys6 (NR_CLOSE, fd, 0, 0, 0, 0, 0);
  tree_reap (pid, o->pidfd);
}

#endif
