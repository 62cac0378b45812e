/* linux.seccomp: validation, translation to libseccomp, BPF export and cache (parent);
   one seccomp(2) call in the child.  The listener side is in seccomp_notify.c. */
#include <config.h>
#include "core/seccomp/seccomp.h"

#include <ctype.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "core/log.h"
#include "core/seccomp/seccomp_cache.h"
#include "core/seccomp/seccomp_enosys.h"
#include "core/seccomp/seccomp_rules.h"
#include "core/utils.h"

#if OCISBX_ASAN
#include <sanitizer/lsan_interface.h>

/* LeakSanitizer, in ASan builds: libseccomp (2.5.4 to 2.6.x at least) loses argument
   nodes of its own filter trees, even after seccomp_release, for some rule sets of a
   multiplexed syscall (x86_64 and x86; socket: a1 >= 2, a1 > 7, a0 & 1 == 1).  Built
   without frame pointers, its allocations show as its allocator zmalloc alone: no leak
   of libseccomp's memory is reported (our filter context is released by release_ctx). */
const char *
__lsan_default_suppressions (void)
{
  return "leak:zmalloc\n";
}
#endif

#define FIELD "config.json: .linux.seccomp"

struct seccomp_prog
{
  struct sock_filter *insns;
  size_t len;
  unsigned int flags; /* for seccomp(2) */
  bool listener;
  bool from_cache;
};

/* --- name tables --- */

static const struct
{
  const char *name;
  uint32_t value;
  bool takes_errno;
} actions[] = {
  { "SCMP_ACT_KILL", SCMP_ACT_KILL_THREAD, false },
  { "SCMP_ACT_KILL_PROCESS", SCMP_ACT_KILL_PROCESS, false },
  { "SCMP_ACT_KILL_THREAD", SCMP_ACT_KILL_THREAD, false },
  { "SCMP_ACT_TRAP", SCMP_ACT_TRAP, false },
  { "SCMP_ACT_ERRNO", SCMP_ACT_ERRNO (0), true },
  { "SCMP_ACT_TRACE", SCMP_ACT_TRACE (0), true },
  { "SCMP_ACT_ALLOW", SCMP_ACT_ALLOW, false },
  { "SCMP_ACT_LOG", SCMP_ACT_LOG, false },
  { "SCMP_ACT_NOTIFY", SCMP_ACT_NOTIFY, false },
};

static const struct
{
  const char *name;
  enum scmp_compare op;
} operators[] = {
  { "SCMP_CMP_NE", SCMP_CMP_NE }, { "SCMP_CMP_LT", SCMP_CMP_LT }, { "SCMP_CMP_LE", SCMP_CMP_LE },
  { "SCMP_CMP_EQ", SCMP_CMP_EQ }, { "SCMP_CMP_GE", SCMP_CMP_GE }, { "SCMP_CMP_GT", SCMP_CMP_GT },
  { "SCMP_CMP_MASKED_EQ", SCMP_CMP_MASKED_EQ },
};

/* libseccomp 2.5 has no attribute for WAIT_KILLABLE_RECV; we need none: the child
   calls seccomp(2) itself with these flags. */
static const struct
{
  const char *name;
  unsigned int flag;
} flags[] = {
  { "SECCOMP_FILTER_FLAG_TSYNC", SECCOMP_FILTER_FLAG_TSYNC },
  { "SECCOMP_FILTER_FLAG_LOG", SECCOMP_FILTER_FLAG_LOG },
  { "SECCOMP_FILTER_FLAG_SPEC_ALLOW", SECCOMP_FILTER_FLAG_SPEC_ALLOW },
  { "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV },
};

const char *const seccomp_known_actions[] = {
  "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP", "SCMP_ACT_ERRNO",
  "SCMP_ACT_TRACE", "SCMP_ACT_ALLOW", "SCMP_ACT_LOG", "SCMP_ACT_NOTIFY", NULL,
};
const char *const seccomp_known_operators[] = {
  "SCMP_CMP_NE", "SCMP_CMP_LT", "SCMP_CMP_LE", "SCMP_CMP_EQ", "SCMP_CMP_GE", "SCMP_CMP_GT", "SCMP_CMP_MASKED_EQ", NULL,
};
const char *const seccomp_known_flags[] = {
  "SECCOMP_FILTER_FLAG_TSYNC", "SECCOMP_FILTER_FLAG_LOG", "SECCOMP_FILTER_FLAG_SPEC_ALLOW",
  "SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV", NULL,
};

/* The runtime-spec names; those libseccomp does not know are left out by seccomp_known_archs. */
static const char *const spec_archs[] = {
  "SCMP_ARCH_X86",       "SCMP_ARCH_X86_64",   "SCMP_ARCH_X32",      "SCMP_ARCH_ARM",
  "SCMP_ARCH_AARCH64",   "SCMP_ARCH_MIPS",     "SCMP_ARCH_MIPS64",   "SCMP_ARCH_MIPS64N32",
  "SCMP_ARCH_MIPSEL",    "SCMP_ARCH_MIPSEL64", "SCMP_ARCH_MIPSEL64N32", "SCMP_ARCH_PPC",
  "SCMP_ARCH_PPC64",     "SCMP_ARCH_PPC64LE",  "SCMP_ARCH_S390",     "SCMP_ARCH_S390X",
  "SCMP_ARCH_PARISC",    "SCMP_ARCH_PARISC64", "SCMP_ARCH_RISCV64",  "SCMP_ARCH_LOONGARCH64",
  "SCMP_ARCH_M68K",      "SCMP_ARCH_SH",       "SCMP_ARCH_SHEB",
};

int
seccomp_action_value (const char *name, const uint32_t *errno_ret, uint32_t *out)
{
  for (size_t i = 0; name && i < sizeof actions / sizeof actions[0]; i++)
    if (strcmp (name, actions[i].name) == 0)
      {
        *out = actions[i].value;
        if (actions[i].takes_errno)
          *out |= (errno_ret ? *errno_ret : EPERM) & 0xffffu;
        return 0;
      }
  return -1;
}

/* SCMP_ACT_ERRNO and SCMP_ACT_TRACE return a value (errnoRet); no other action does. */
static bool
action_takes_errno (const char *name)
{
  for (size_t i = 0; name && i < sizeof actions / sizeof actions[0]; i++)
    if (strcmp (name, actions[i].name) == 0)
      return actions[i].takes_errno;
  return false;
}

int
seccomp_operator_value (const char *name, int *out)
{
  for (size_t i = 0; name && i < sizeof operators / sizeof operators[0]; i++)
    if (strcmp (name, operators[i].name) == 0)
      {
        *out = operators[i].op;
        return 0;
      }
  return -1;
}

int
seccomp_flag_value (const char *name, unsigned int *out)
{
  for (size_t i = 0; name && i < sizeof flags / sizeof flags[0]; i++)
    if (strcmp (name, flags[i].name) == 0)
      {
        *out = flags[i].flag;
        return 0;
      }
  return -1;
}

int
seccomp_arch_value (const char *name, uint32_t *out)
{
  char lower[32];
  size_t n;

  if (name == NULL || strncmp (name, "SCMP_ARCH_", 10) != 0)
    return -1;
  n = strlen (name + 10);
  if (n == 0 || n >= sizeof lower)
    return -1;
  for (size_t i = 0; i <= n; i++)
    lower[i] = (char) tolower ((unsigned char) name[10 + i]);
  *out = seccomp_arch_resolve_name (lower);
  return *out == 0 ? -1 : 0;
}

size_t
seccomp_known_archs (const char **out, size_t max)
{
  size_t n = 0;
  uint32_t a;
  for (size_t i = 0; i < sizeof spec_archs / sizeof spec_archs[0] && n < max; i++)
    if (seccomp_arch_value (spec_archs[i], &a) == 0)
      out[n++] = spec_archs[i];
  return n;
}

/* seccomp(2) checks the flags before it reads the program: EFAULT for a NULL program
   means "flags accepted", EINVAL "unknown here".  Nothing is loaded either way. */
static bool
kernel_accepts_flags (unsigned int f)
{
  return syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, f, NULL) < 0 && errno == EFAULT;
}

bool
seccomp_flag_supported (const char *name)
{
  unsigned int f;
  if (seccomp_flag_value (name, &f) < 0)
    return false;
  if (f == SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) /* only valid with a listener */
    f |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
  return kernel_accepts_flags (f);
}

/* --- validation --- */

/* What the child calls between loading a filter with a listener and the agent
   receiving it (sync.c's messages): write(2) for a message, sendmsg(2) for one
   that carries an fd. */
static const char *const runtime_syscalls[] = { "write", "sendmsg", NULL };

static bool
uses_notify (const oci_seccomp *sc)
{
  for (size_t i = 0; i < sc->syscalls_len; i++)
    if (sc->syscalls[i].action && strcmp (sc->syscalls[i].action, "SCMP_ACT_NOTIFY") == 0)
      return true;
  return false;
}

static int
check_syscall_rule (const oci_syscall *s, size_t i, ocisbx_err **err)
{
  uint32_t act;
  int op;

  if (s->names_len == 0)
    return err_set (err, 0, FIELD ".syscalls[%zu].names: must name at least one syscall", i);
  if (seccomp_action_value (s->action, s->errno_ret, &act) < 0)
    return err_set (err, 0, FIELD ".syscalls[%zu].action: unknown action \"%s\"", i, s->action ? s->action : "");
  /* a value nothing returns: refused, as crun does (runc 1.1 ignores it) */
  if (s->errno_ret && !action_takes_errno (s->action))
    return err_set (err, 0, FIELD ".syscalls[%zu].errnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE return it, not %s",
                    i, s->action);
  for (size_t j = 0; j < s->names_len; j++)
    {
      if (s->names[j] == NULL || s->names[j][0] == '\0')
        return err_set (err, 0, FIELD ".syscalls[%zu].names[%zu]: empty syscall name", i, j);
      /* The child reports the listener fd before the agent has it: the syscalls it
         does that with cannot wait for the agent. */
      for (const char *const *r = runtime_syscalls; act == SCMP_ACT_NOTIFY && *r; r++)
        if (strcmp (s->names[j], *r) == 0)
          return err_set (err, 0,
                          FIELD ".syscalls[%zu].names[%zu]: SCMP_ACT_NOTIFY cannot be used for the %s "
                                "syscall (the runtime needs it to hand over the listener fd)",
                          i, j, *r);
    }
  for (size_t j = 0; j < s->args_len; j++)
    {
      if (s->args[j].index >= 6)
        return err_set (err, 0, FIELD ".syscalls[%zu].args[%zu].index: %u is out of range (0-5)", i, j,
                        s->args[j].index);
      if (seccomp_operator_value (s->args[j].op, &op) < 0)
        return err_set (err, 0, FIELD ".syscalls[%zu].args[%zu].op: unknown operator \"%s\"", i, j,
                        s->args[j].op ? s->args[j].op : "");
    }
  return 0;
}

int
seccomp_validate (const oci_seccomp *sc, ocisbx_err **err)
{
  uint32_t v;

  if (sc == NULL)
    return 0;
  if (sc->default_action == NULL)
    return err_set (err, 0, FIELD ".defaultAction: missing");
  if (seccomp_action_value (sc->default_action, sc->default_errno_ret, &v) < 0)
    return err_set (err, 0, FIELD ".defaultAction: unknown action \"%s\"", sc->default_action);
  if (v == SCMP_ACT_NOTIFY)
    return err_set (err, 0, FIELD ".defaultAction: SCMP_ACT_NOTIFY cannot be the default action");
  if (sc->default_errno_ret && !action_takes_errno (sc->default_action))
    return err_set (err, 0, FIELD ".defaultErrnoRet: only SCMP_ACT_ERRNO and SCMP_ACT_TRACE return it, not %s",
                    sc->default_action);
  if (sc->listener_metadata && (sc->listener_path == NULL || sc->listener_path[0] == '\0'))
    return err_set (err, 0, FIELD ".listenerMetadata: set without .listenerPath, the listener it is for");
  for (size_t i = 0; i < sc->architectures_len; i++)
    if (seccomp_arch_value (sc->architectures[i], &v) < 0)
      return err_set (err, 0, FIELD ".architectures[%zu]: unknown architecture \"%s\" (libseccomp %u.%u.%u)", i,
                      sc->architectures[i] ? sc->architectures[i] : "", seccomp_version ()->major,
                      seccomp_version ()->minor, seccomp_version ()->micro);
  for (size_t i = 0; i < sc->flags_len; i++)
    {
      unsigned int f;
      if (seccomp_flag_value (sc->flags[i], &f) < 0)
        return err_set (err, 0, FIELD ".flags[%zu]: unknown flag \"%s\"", i, sc->flags[i] ? sc->flags[i] : "");
      if (!seccomp_flag_supported (sc->flags[i]))
        return err_set (err, 0, FIELD ".flags[%zu]: %s is not supported by this kernel", i, sc->flags[i]);
    }
  for (size_t i = 0; i < sc->syscalls_len; i++)
    if (check_syscall_rule (&sc->syscalls[i], i, err) < 0)
      return -1;
  if (uses_notify (sc))
    {
      if (sc->listener_path == NULL || sc->listener_path[0] == '\0')
        return err_set (err, 0, FIELD ".listenerPath: required when SCMP_ACT_NOTIFY is used");
      if (strlen (sc->listener_path) >= sizeof ((struct sockaddr_un *) 0)->sun_path)
        return err_set (err, 0, FIELD ".listenerPath: longer than a unix socket path can be (%zu bytes)",
                        sizeof ((struct sockaddr_un *) 0)->sun_path - 1);
      if (!kernel_accepts_flags (SECCOMP_FILTER_FLAG_NEW_LISTENER))
        return err_set (err, 0, FIELD ": SCMP_ACT_NOTIFY is not supported by this kernel");
    }
  return 0;
}

/* --- compilation --- */

static void
release_ctx (scmp_filter_ctx *ctx)
{
  if (*ctx)
    seccomp_release (*ctx);
}

static int
add_rule (scmp_filter_ctx ctx, const sc_rule *r, ocisbx_err **err)
{
  int e = -seccomp_rule_add_array (ctx, r->act, r->nr, r->ncmp, r->cmp);

  if (e == EEXIST)
    return err_set (err, 0, FIELD ".syscalls[%zu]: the rule for \"%s\" conflicts with an earlier one", r->src,
                    r->name);
  if (e > 0)
    return err_set (err, e, FIELD ".syscalls[%zu]: add rule for \"%s\"", r->src, r->name);
  return 0;
}

/* seccomp_export_bpf writes to an fd (libseccomp 2.5 has no in-memory export).  *INSNS
   has room for the -ENOSYS stub after the N instructions. */
static int
export_bpf (scmp_filter_ctx ctx, struct sock_filter **insns, size_t *n, ocisbx_err **err)
{
  cleanup_close int fd = memfd_create ("ocisbx-seccomp", MFD_CLOEXEC);
  struct stat st;
  int r;

  if (fd < 0)
    return err_set (err, errno, "seccomp: memfd_create");
  r = seccomp_export_bpf (ctx, fd);
  if (r < 0)
    return err_set (err, -r, "seccomp: export the BPF program");
  if (fstat (fd, &st) < 0)
    return err_set (err, errno, "seccomp: stat the BPF program");
  if (st.st_size == 0 || st.st_size % sizeof (struct sock_filter) != 0)
    return err_set (err, EINVAL, "seccomp: BPF program of %lld bytes", (long long) st.st_size);
  if (st.st_size / sizeof (struct sock_filter) > BPF_MAXINSNS)
    return err_set (err, E2BIG, FIELD ".syscalls: the filter compiles to %lld BPF instructions, more than the kernel's limit of %d (BPF_MAXINSNS)",
                    (long long) (st.st_size / sizeof (struct sock_filter)), BPF_MAXINSNS);
  *n = st.st_size / sizeof (struct sock_filter);
  *insns = xmalloc0 ((*n + SC_ENOSYS_MAX_INSNS) * sizeof (struct sock_filter));
  if (pread (fd, *insns, st.st_size, 0) != st.st_size)
    {
      free (*insns);
      *insns = NULL;
      return err_set (err, errno ? errno : EIO, "seccomp: read the BPF program");
    }
  return 0;
}

/* The -ENOSYS stub (seccomp_enosys.c) in front of the N instructions of INSNS, which
   has room for it. */
static int
prepend_enosys_stub (const oci_seccomp *sc, uint32_t def, struct sock_filter *insns, size_t *n, ocisbx_err **err)
{
  sc_enosys_arch arches[SC_ENOSYS_MAX_ARCHS];
  struct sock_filter stub[SC_ENOSYS_MAX_INSNS];
  size_t len;

  if (!sc_enosys_wanted (def))
    return 0;
  len = sc_enosys_stub (arches, sc_enosys_arches (sc, arches), stub);
  if (len == 0)
    return 0;
  if (*n + len > BPF_MAXINSNS)
    return err_set (err, E2BIG, FIELD ".syscalls: the filter compiles to %zu BPF instructions (%zu of them returning ENOSYS for syscalls newer than the profile), more than the kernel's limit of %d (BPF_MAXINSNS)",
                    *n + len, len, BPF_MAXINSNS);
  memmove (insns + len, insns, *n * sizeof *insns);
  memcpy (insns, stub, len * sizeof *insns);
  *n += len;
  return 0;
}

static int
compile (const oci_seccomp *sc, struct sock_filter **insns, size_t *n, ocisbx_err **err)
{
  __attribute__ ((cleanup (release_ctx))) scmp_filter_ctx ctx = NULL;
  cleanup_free sc_rule *rules = NULL;
  size_t nrules;
  uint32_t def, v;
  int r;

  seccomp_action_value (sc->default_action, sc->default_errno_ret, &def);
  /* libseccomp's time grows with the square of the rules: only those that matter, and
     only if they can fit */
  nrules = sc_rules_drop_inert (rules, sc_rules_expand (sc, def, &rules));
  if (sc_rules_check_size (sc, rules, nrules, err) < 0)
    return -1;
  ctx = seccomp_init (def);
  if (ctx == NULL)
    return err_set (err, EINVAL, FIELD ".defaultAction: libseccomp refused \"%s\"", sc->default_action);
  /* The child loads the program itself: no NO_NEW_PRIVS from libseccomp.  A binary
     tree keeps big allow lists fast to evaluate. */
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_NNP, 0);
  seccomp_attr_set (ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);

  for (size_t i = 0; i < sc->architectures_len; i++)
    {
      seccomp_arch_value (sc->architectures[i], &v);
      r = seccomp_arch_add (ctx, v);
      if (r < 0 && r != -EEXIST)
        return err_set (err, -r, FIELD ".architectures[%zu]: add \"%s\"", i, sc->architectures[i]);
    }
  for (size_t i = 0; i < nrules; i++)
    if (add_rule (ctx, &rules[i], err) < 0)
      return -1;
  if (export_bpf (ctx, insns, n, err) < 0)
    return -1;
  return prepend_enosys_stub (sc, def, *insns, n, err);
}

static unsigned int
load_flags (const oci_seccomp *sc, bool listener)
{
  unsigned int all = 0, f;
  for (size_t i = 0; i < sc->flags_len; i++)
    if (seccomp_flag_value (sc->flags[i], &f) == 0)
      all |= f;
  if (listener)
    {
      all |= SECCOMP_FILTER_FLAG_NEW_LISTENER;
      if (all & SECCOMP_FILTER_FLAG_TSYNC) /* the kernel wants both, or EINVAL */
        all |= SECCOMP_FILTER_FLAG_TSYNC_ESRCH;
    }
  else if (all & SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
    {
      log_debug ("seccomp: SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV without SCMP_ACT_NOTIFY: ignored");
      all &= ~SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
    }
  return all;
}

static double
ms_since (const struct timespec *t0)
{
  struct timespec t1;
  clock_gettime (CLOCK_MONOTONIC, &t1);
  return (t1.tv_sec - t0->tv_sec) * 1e3 + (t1.tv_nsec - t0->tv_nsec) / 1e6;
}

int
seccomp_prepare (const oci_seccomp *sc, const char *cache_dir, seccomp_prog **out, ocisbx_err **err)
{
  cleanup_seccomp_prog seccomp_prog *p = NULL;
  cleanup_close int dirfd = -1;
  uint8_t key[SHA256_DIGEST_LEN];
  struct timespec t0;

  *out = NULL;
  if (sc == NULL)
    return 0;
  if (seccomp_validate (sc, err) < 0)
    return -1;
  clock_gettime (CLOCK_MONOTONIC, &t0);
  p = xmalloc0 (sizeof *p);
  p->listener = uses_notify (sc);
  p->flags = load_flags (sc, p->listener);

  if (cache_dir != NULL)
    {
      cleanup_err ocisbx_err *cerr = NULL;
      dirfd = seccomp_cache_open_dir (cache_dir, &cerr);
      if (dirfd < 0)
        log_warning ("%s", cerr->msg);
      else
        {
          seccomp_cache_key (sc, key);
          if (seccomp_cache_lookup (dirfd, key, &p->insns, &p->len) == 1)
            {
              p->from_cache = true;
              log_debug ("seccomp: %zu instructions from the cache in %.3f ms", p->len, ms_since (&t0));
              *out = steal_ptr (&p);
              return 0;
            }
        }
    }

  if (compile (sc, &p->insns, &p->len, err) < 0)
    return -1;
  log_debug ("seccomp: compiled %zu instructions in %.3f ms", p->len, ms_since (&t0));
  if (dirfd >= 0)
    {
      cleanup_err ocisbx_err *cerr = NULL;
      if (seccomp_cache_store (dirfd, key, p->insns, p->len, &cerr) < 0)
        log_debug ("%s", cerr->msg);
    }
  *out = steal_ptr (&p);
  return 0;
}

/* --- the child --- */

int
seccomp_prog_load (const seccomp_prog *p, int *notify_fd, ocisbx_err **err)
{
  struct sock_fprog prog;
  long r;

  *notify_fd = -1;
  if (p == NULL)
    return 0;
  prog.len = (unsigned short) p->len;
  prog.filter = p->insns;
  r = syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, p->flags, &prog);
  if (r < 0 && errno == ENOSYS && p->flags == 0)
    r = prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  if (r < 0 && errno == EACCES)
    return err_set (err, EACCES,
                    "seccomp: load the filter: the process has neither noNewPrivileges nor CAP_SYS_ADMIN");
  if (r < 0)
    return err_set (err, errno, "seccomp: load the filter (flags 0x%x)", p->flags);
  if (p->listener)
    *notify_fd = (int) r;
  return 0;
}

/* --- the handle --- */

bool
seccomp_prog_has_listener (const seccomp_prog *p)
{
  return p != NULL && p->listener;
}

size_t
seccomp_prog_len (const seccomp_prog *p)
{
  return p ? p->len : 0;
}

const void *
seccomp_prog_insns (const seccomp_prog *p)
{
  return p ? p->insns : NULL;
}

unsigned int
seccomp_prog_flags (const seccomp_prog *p)
{
  return p ? p->flags : 0;
}

bool
seccomp_prog_from_cache (const seccomp_prog *p)
{
  return p != NULL && p->from_cache;
}

void
seccomp_prog_free (seccomp_prog *p)
{
  if (p == NULL)
    return;
  free (p->insns);
  free (p);
}

void
seccomp_prog_freep (seccomp_prog **p)
{
  seccomp_prog_free (*p);
}
