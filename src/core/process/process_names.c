/* Name tables of process_plan.c and process.c: signals, capabilities, rlimits, CPU
   lists, PATH lookup. */
#include <config.h>
#include "core/process/process.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"

static const struct
{
  const char *name;
  int sig;
} signals[] = {
  { "HUP", SIGHUP },       { "INT", SIGINT },       { "QUIT", SIGQUIT },     { "ILL", SIGILL },
  { "TRAP", SIGTRAP },     { "ABRT", SIGABRT },     { "IOT", SIGIOT },       { "BUS", SIGBUS },
  { "FPE", SIGFPE },       { "KILL", SIGKILL },     { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV },
  { "USR2", SIGUSR2 },     { "PIPE", SIGPIPE },     { "ALRM", SIGALRM },     { "TERM", SIGTERM },
  { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD },     { "CLD", SIGCHLD },      { "CONT", SIGCONT },
  { "STOP", SIGSTOP },     { "TSTP", SIGTSTP },     { "TTIN", SIGTTIN },     { "TTOU", SIGTTOU },
  { "URG", SIGURG },       { "XCPU", SIGXCPU },     { "XFSZ", SIGXFSZ },     { "VTALRM", SIGVTALRM },
  { "PROF", SIGPROF },     { "WINCH", SIGWINCH },   { "IO", SIGIO },         { "POLL", SIGPOLL },
  { "PWR", SIGPWR },       { "SYS", SIGSYS },
};

static bool
parse_uint (const char *s, long max, long *out)
{
  char *end;
  long v;
  if (!isdigit ((unsigned char) *s))
    return false;
  errno = 0;
  v = strtol (s, &end, 10);
  if (errno || *end || v > max)
    return false;
  *out = v;
  return true;
}

int
signal_parse (const char *s)
{
  long n;

  if (s == NULL || *s == '\0')
    return -1;
  if (parse_uint (s, 1000000, &n))
    return n <= SIGRTMAX ? (int) n : -1; /* 0: only whether it exists */
  if (strncasecmp (s, "SIG", 3) == 0)
    s += 3;
  for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
    if (strcasecmp (s, signals[i].name) == 0)
      return signals[i].sig;
  if (strncasecmp (s, "RTMIN", 5) == 0 || strncasecmp (s, "RTMAX", 5) == 0)
    {
      bool min = strncasecmp (s, "RTMIN", 5) == 0;
      const char *rest = s + 5;
      int sig;
      if (*rest == '\0')
        return min ? SIGRTMIN : SIGRTMAX;
      if ((min && *rest != '+') || (!min && *rest != '-') || !parse_uint (rest + 1, 64, &n))
        return -1;
      sig = min ? SIGRTMIN + (int) n : SIGRTMAX - (int) n;
      return sig >= SIGRTMIN && sig <= SIGRTMAX ? sig : -1;
    }
  return -1;
}

static const char *const cap_names[CAPABILITY_MAX + 1] = {
  "CAP_CHOWN",           "CAP_DAC_OVERRIDE",   "CAP_DAC_READ_SEARCH", "CAP_FOWNER",
  "CAP_FSETID",          "CAP_KILL",           "CAP_SETGID",          "CAP_SETUID",
  "CAP_SETPCAP",         "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST",
  "CAP_NET_ADMIN",       "CAP_NET_RAW",        "CAP_IPC_LOCK",        "CAP_IPC_OWNER",
  "CAP_SYS_MODULE",      "CAP_SYS_RAWIO",      "CAP_SYS_CHROOT",      "CAP_SYS_PTRACE",
  "CAP_SYS_PACCT",       "CAP_SYS_ADMIN",      "CAP_SYS_BOOT",        "CAP_SYS_NICE",
  "CAP_SYS_RESOURCE",    "CAP_SYS_TIME",       "CAP_SYS_TTY_CONFIG",  "CAP_MKNOD",
  "CAP_LEASE",           "CAP_AUDIT_WRITE",    "CAP_AUDIT_CONTROL",   "CAP_SETFCAP",
  "CAP_MAC_OVERRIDE",    "CAP_MAC_ADMIN",      "CAP_SYSLOG",          "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND",   "CAP_AUDIT_READ",     "CAP_PERFMON",         "CAP_BPF",
  "CAP_CHECKPOINT_RESTORE",
};

int
capability_from_name (const char *name)
{
  if (name == NULL)
    return -1;
  for (int i = 0; i <= CAPABILITY_MAX; i++)
    if (strcasecmp (name, cap_names[i]) == 0)
      return i;
  return -1;
}

const char *
capability_name (int cap)
{
  return cap >= 0 && cap <= CAPABILITY_MAX ? cap_names[cap] : NULL;
}

static const struct
{
  const char *name;
  int resource;
} rlimits[] = {
  { "RLIMIT_CPU", RLIMIT_CPU },         { "RLIMIT_FSIZE", RLIMIT_FSIZE },
  { "RLIMIT_DATA", RLIMIT_DATA },       { "RLIMIT_STACK", RLIMIT_STACK },
  { "RLIMIT_CORE", RLIMIT_CORE },       { "RLIMIT_RSS", RLIMIT_RSS },
  { "RLIMIT_NPROC", RLIMIT_NPROC },     { "RLIMIT_NOFILE", RLIMIT_NOFILE },
  { "RLIMIT_MEMLOCK", RLIMIT_MEMLOCK }, { "RLIMIT_AS", RLIMIT_AS },
  { "RLIMIT_LOCKS", RLIMIT_LOCKS },     { "RLIMIT_SIGPENDING", RLIMIT_SIGPENDING },
  { "RLIMIT_MSGQUEUE", RLIMIT_MSGQUEUE }, { "RLIMIT_NICE", RLIMIT_NICE },
  { "RLIMIT_RTPRIO", RLIMIT_RTPRIO },   { "RLIMIT_RTTIME", RLIMIT_RTTIME },
};

int
rlimit_from_name (const char *name)
{
  for (size_t i = 0; name && i < sizeof rlimits / sizeof rlimits[0]; i++)
    if (strcmp (name, rlimits[i].name) == 0)
      return rlimits[i].resource;
  return -1;
}

int
cpuset_parse (const char *s, cpu_set_t **out, size_t *size)
{
  long max = 0;
  const char *p;
  cpu_set_t *set;
  size_t sz;

  if (s == NULL || *s == '\0')
    return -1;
  /* First pass: syntax and the highest CPU. */
  for (p = s; *p;)
    {
      char *end;
      long a, b;
      if (!isdigit ((unsigned char) *p))
        return -1;
      a = strtol (p, &end, 10);
      b = a;
      if (*end == '-')
        {
          if (!isdigit ((unsigned char) end[1]))
            return -1;
          b = strtol (end + 1, &end, 10);
        }
      if (b < a || b > 65535)
        return -1;
      if (b > max)
        max = b;
      if (*end == ',')
        end++;
      else if (*end != '\0')
        return -1;
      p = end;
    }
  set = CPU_ALLOC (max + 1);
  if (set == NULL)
    abort ();
  sz = CPU_ALLOC_SIZE (max + 1);
  CPU_ZERO_S (sz, set);
  for (p = s; *p;)
    {
      char *end;
      long a = strtol (p, &end, 10), b = a;
      if (*end == '-')
        b = strtol (end + 1, &end, 10);
      for (long c = a; c <= b; c++)
        CPU_SET_S (c, sz, set);
      p = *end == ',' ? end + 1 : end;
    }
  *out = set;
  *size = sz;
  return 0;
}

/* Go's exec.LookPath semantics for one candidate. */
static int
check_executable (const char *path)
{
  struct stat st;
  if (stat (path, &st) < 0)
    return -1;
  if (S_ISDIR (st.st_mode) || !S_ISREG (st.st_mode))
    {
      errno = EACCES;
      return -1;
    }
  if (faccessat (AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
    return -1;
  return 0;
}

int
path_lookup (const char *file, const char *path_env, char **out, ocisbx_err **err)
{
  cleanup_free char *copy = NULL;
  char *save = NULL, *dir;
  int first_errno = 0;

  if (file == NULL || *file == '\0')
    return err_engine (err, ERR_NOT_FOUND, "exec: \"\"");
  if (strchr (file, '/'))
    {
      if (check_executable (file) == 0)
        {
          *out = xstrdup (file);
          return 0;
        }
      if (errno == ENOENT || errno == ENOTDIR)
        return err_setk (err, ERR_NOT_FOUND, 0, "exec: \"%s\": stat %s: %s", file, file,
                         errno == ENOENT ? "no such file or directory" : "not a directory");
      if (errno == EACCES || errno == EPERM)
        return err_engine (err, ERR_PERMISSION, "exec: \"%s\"", file);
      return err_setk (err, ERR_NOT_FOUND, errno, "exec: \"%s\"", file);
    }
  if (path_env == NULL)
    path_env = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  copy = xstrdup (path_env);
  /* strtok_r would skip empty elements, which mean "." */
  for (dir = copy; dir; dir = save)
    {
      cleanup_free char *cand = NULL;
      save = strchr (dir, ':');
      if (save)
        *save++ = '\0';
      cand = xasprintf ("%s/%s", *dir ? dir : ".", file);
      if (check_executable (cand) == 0)
        {
          *out = steal_ptr (&cand);
          return 0;
        }
      if ((errno == EACCES || errno == EPERM) && first_errno == 0)
        first_errno = errno;
    }
  if (first_errno)
    return err_engine (err, ERR_PERMISSION, "exec: \"%s\"", file);
  return err_engine (err, ERR_NOT_FOUND, "exec: \"%s\"", file);
}
