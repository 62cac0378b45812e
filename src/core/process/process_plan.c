/* The parent's half of the container process: process.* of a config (or of exec's
   process.json / flags) turned into a process_plan before the clone.  Names become
   numbers (capabilities, rlimits, scheduler policy and flags, ioPriority class,
   personality domain), values are range-checked, the environment is merged (the last
   of a variable given twice wins) and every error names the document and field
   ("config.json: .process.rlimits[1].type: ...").

   It runs in the runtime's own process, before any namespace or credential change: it
   may allocate, log warnings and fail with a message, but it changes nothing of the
   process (no set*id, prctl other than PR_CAPBSET_READ, chdir or fd of the
   container's).  What it builds the child applies: process.c, then process_final.c. */
#include <config.h>
#include "core/process/process.h"

#include <linux/capability.h>
#include <linux/ioprio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"

/* The highest capability the kernel knows. */
int
process_last_cap (void)
{
  int c = CAPABILITY_MAX;
  while (c > 0 && prctl (PR_CAPBSET_READ, c, 0, 0, 0) < 0)
    c--;
  return c;
}

/* A capability this kernel lacks, whose name nobody knows, or that the runtime cannot
   grant (not in its own bounding set, which every process it starts inherits), is left
   out with a warning (runtime-spec config.md: MUST be logged, SHOULD NOT fail; runc
   warns on the unknown ones, and fails on the others at capset).  The names go to
   *SKIPPED (", "-separated, each once). */
static void
cap_mask (char **names, size_t n, int last, uint64_t *out, char **skipped)
{
  *out = 0;
  for (size_t i = 0; i < n; i++)
    {
      int cap = capability_from_name (names[i]);
      if (cap >= 0 && cap <= last && prctl (PR_CAPBSET_READ, cap, 0, 0, 0) == 1)
        {
          *out |= 1ULL << cap;
          continue;
        }
      cleanup_free char *quoted = xasprintf ("\"%.64s\"", names[i]);
      if (*skipped && strstr (*skipped, quoted))
        continue;
      char *joined = xasprintf ("%s%s%s", *skipped ? *skipped : "", *skipped ? ", " : "", quoted);
      free (*skipped);
      *skipped = joined;
    }
}

static void
prepare_caps (const oci_capabilities *c, const char *doc, const char *field, process_plan *plan)
{
  cleanup_free char *skipped = NULL;
  int last = process_last_cap ();

  plan->has_caps = true;
  cap_mask (c->bounding, c->bounding_len, last, &plan->cap_bounding, &skipped);
  cap_mask (c->effective, c->effective_len, last, &plan->cap_effective, &skipped);
  cap_mask (c->inheritable, c->inheritable_len, last, &plan->cap_inheritable, &skipped);
  cap_mask (c->permitted, c->permitted_len, last, &plan->cap_permitted, &skipped);
  cap_mask (c->ambient, c->ambient_len, last, &plan->cap_ambient, &skipped);
  if (skipped)
    log_warning ("%s: %s.capabilities: ignoring unknown or unavailable capabilities: %s", doc, field, skipped);
}

static const struct
{
  const char *name;
  uint32_t policy;
} sched_policies[] = {
  { "SCHED_OTHER", 0 }, { "SCHED_FIFO", 1 }, { "SCHED_RR", 2 },
  { "SCHED_BATCH", 3 }, { "SCHED_IDLE", 5 }, { "SCHED_DEADLINE", 6 },
};

static const struct
{
  const char *name;
  uint64_t flag;
} sched_flags[] = {
  { "SCHED_FLAG_RESET_ON_FORK", 0x01 }, { "SCHED_FLAG_RECLAIM", 0x02 },
  { "SCHED_FLAG_DL_OVERRUN", 0x04 },    { "SCHED_FLAG_KEEP_POLICY", 0x08 },
  { "SCHED_FLAG_KEEP_PARAMS", 0x10 },   { "SCHED_FLAG_UTIL_CLAMP_MIN", 0x20 },
  { "SCHED_FLAG_UTIL_CLAMP_MAX", 0x40 },
};

static int
prepare_sched (const oci_scheduler *s, const char *doc, const char *field, process_sched_attr *a,
               ocisbx_err **err)
{
  size_t i;

  memset (a, 0, sizeof *a);
  a->size = sizeof *a;
  for (i = 0; i < sizeof sched_policies / sizeof sched_policies[0]; i++)
    if (s->policy && strcmp (s->policy, sched_policies[i].name) == 0)
      break;
  if (i == sizeof sched_policies / sizeof sched_policies[0])
    return err_set (err, 0, "%s: %s.scheduler.policy: unknown policy \"%s\"", doc, field,
                    s->policy ? s->policy : "");
  a->sched_policy = sched_policies[i].policy;
  for (size_t j = 0; j < s->flags_len; j++)
    {
      for (i = 0; i < sizeof sched_flags / sizeof sched_flags[0]; i++)
        if (strcmp (s->flags[j], sched_flags[i].name) == 0)
          break;
      if (i == sizeof sched_flags / sizeof sched_flags[0])
        return err_set (err, 0, "%s: %s.scheduler.flags[%zu]: unknown flag \"%s\"", doc, field, j, s->flags[j]);
      a->sched_flags |= sched_flags[i].flag;
    }
  if (s->nice)
    {
      if (*s->nice < -20 || *s->nice > 19)
        return err_set (err, 0, "%s: %s.scheduler.nice: %d is not in -20..19", doc, field, (int) *s->nice);
      a->sched_nice = *s->nice;
    }
  if (s->priority)
    a->sched_priority = *s->priority;
  if (s->runtime)
    a->sched_runtime = *s->runtime;
  if (s->deadline)
    a->sched_deadline = *s->deadline;
  if (s->period)
    a->sched_period = *s->period;
  return 0;
}

static int
prepare_ioprio (const oci_io_priority *p, const char *doc, const char *field, int *out, ocisbx_err **err)
{
  int class;

  if (p->class_ && strcmp (p->class_, "IOPRIO_CLASS_RT") == 0)
    class = IOPRIO_CLASS_RT;
  else if (p->class_ && strcmp (p->class_, "IOPRIO_CLASS_BE") == 0)
    class = IOPRIO_CLASS_BE;
  else if (p->class_ && strcmp (p->class_, "IOPRIO_CLASS_IDLE") == 0)
    class = IOPRIO_CLASS_IDLE;
  else
    return err_set (err, 0, "%s: %s.ioPriority.class: unknown class \"%s\"", doc, field, p->class_ ? p->class_ : "");
  if (p->priority < 0 || p->priority > 7)
    return err_set (err, 0, "%s: %s.ioPriority.priority: %d is not in 0..7", doc, field, (int) p->priority);
  *out = IOPRIO_PRIO_VALUE (class, p->priority);
  return 0;
}

typedef struct env_var
{
  const char *kv;
  size_t key_len; /* up to the '=' */
  size_t idx;
} env_var;

static int
env_var_cmp (const void *a, const void *b)
{
  const env_var *x = a, *y = b;
  size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
  int r = memcmp (x->kv, y->kv, n);

  if (r == 0 && x->key_len != y->key_len)
    r = x->key_len < y->key_len ? -1 : 1;
  if (r == 0)
    r = x->idx < y->idx ? -1 : 1;
  return r;
}

/* process.env, then EXTRA, as execve gets them: a variable given twice keeps its last
   value, at the place of the last one, and an empty HOME counts as none (filled from
   the container's passwd later), as runc does.  Sorting makes it n log n for any size. */
static int
prepare_env (char **env, size_t n_env, char *const *extra, size_t n_extra, const char *doc, const char *field,
             process_plan *plan, ocisbx_err **err)
{
  size_t n = n_env + n_extra, k = 0;
  cleanup_free env_var *v = xmalloc0 ((n ? n : 1) * sizeof *v);
  cleanup_free bool *keep = xmalloc0 ((n ? n : 1) * sizeof *keep);

  for (size_t i = 0; i < n; i++)
    {
      const char *kv = i < n_env ? env[i] : extra[i - n_env];
      const char *eq = strchr (kv, '=');
      if (eq == NULL || eq == kv)
        return err_set (err, 0, "%s: %s.env[%zu]: \"%.32s%s\" is not NAME=VALUE", doc, field, i, kv,
                        strlen (kv) > 32 ? "..." : "");
      v[i] = (env_var){ kv, (size_t) (eq - kv), i };
      keep[i] = true;
    }
  qsort (v, n, sizeof *v, env_var_cmp);
  for (size_t i = 0; i + 1 < n; i++)
    if (v[i].key_len == v[i + 1].key_len && memcmp (v[i].kv, v[i + 1].kv, v[i].key_len) == 0)
      keep[v[i].idx] = false;
  plan->need_home = true;
  plan->envp = xmalloc0 ((n + 1) * sizeof (char *)); /* HOME: the child's copy (process_run) */
  plan->env_extra = xmalloc0 ((n_extra + 1) * sizeof (char *));
  for (size_t i = 0; i < n; i++)
    {
      char *kv = i < n_env ? env[i] : xstrdup (extra[i - n_env]);
      if (i >= n_env)
        plan->env_extra[plan->n_env_extra++] = kv;
      if (!keep[i])
        continue;
      if (strncmp (kv, "HOME=", 5) == 0)
        {
          if (kv[5] == '\0')
            continue;
          plan->need_home = false;
        }
      plan->envp[k++] = kv;
    }
  return 0;
}

int
process_prepare (const oci_process *p, const char *doc, const char *field, char *const *extra_env,
                 process_plan *plan, ocisbx_err **err)
{
  size_t n_extra = 0;

  memset (plan, 0, sizeof *plan);
  sigemptyset (&plan->sigmask);
  if (p == NULL)
    return err_set (err, 0, "%s: %s: required to run a container", doc, field);
  if (p->args_len == 0 || p->args[0] == NULL || p->args[0][0] == '\0')
    return err_set (err, 0, "%s: %s.args: must name the program to run", doc, field);
  if (p->cwd == NULL || p->cwd[0] != '/')
    return err_set (err, 0, "%s: %s.cwd: \"%s\" is not an absolute path", doc, field, p->cwd ? p->cwd : "");

  plan->argv = xmalloc0 ((p->args_len + 1) * sizeof (char *));
  memcpy (plan->argv, p->args, p->args_len * sizeof (char *));
  while (extra_env && extra_env[n_extra])
    n_extra++;
  if (prepare_env (p->env, p->env_len, extra_env, n_extra, doc, field, plan, err) < 0)
    return -1;
  plan->cwd = p->cwd;
  plan->terminal = p->terminal;
  if (p->console_size)
    {
      plan->has_tty_size = true;
      plan->tty_size.ws_row = p->console_size->height;
      plan->tty_size.ws_col = p->console_size->width;
    }

  plan->uid = p->user.uid;
  plan->gid = p->user.gid;
  if (p->user.additional_gids_len)
    {
      plan->groups = xmalloc0 (p->user.additional_gids_len * sizeof (gid_t));
      for (size_t i = 0; i < p->user.additional_gids_len; i++)
        plan->groups[i] = p->user.additional_gids[i];
      plan->n_groups = p->user.additional_gids_len;
    }
  if (p->user.umask)
    {
      plan->has_umask = true;
      plan->umask = *p->user.umask & 07777;
    }

  if (p->capabilities)
    prepare_caps (p->capabilities, doc, field, plan);

  if (p->rlimits_len)
    {
      plan->rlimits = xmalloc0 (p->rlimits_len * sizeof (process_rlimit));
      for (size_t i = 0; i < p->rlimits_len; i++)
        {
          const oci_rlimit *r = &p->rlimits[i];
          int res = rlimit_from_name (r->type);
          if (res < 0)
            return err_set (err, 0, "%s: %s.rlimits[%zu].type: unknown rlimit \"%s\"", doc, field, i,
                            r->type ? r->type : "");
          for (size_t j = 0; j < i; j++)
            if (plan->rlimits[j].resource == res)
              return err_set (err, 0, "%s: %s.rlimits[%zu].type: \"%s\" given twice", doc, field, i, r->type);
          if (r->soft > r->hard)
            return err_set (err, 0, "%s: %s.rlimits[%zu]: soft limit %llu above the hard limit %llu", doc, field,
                            i, (unsigned long long) r->soft, (unsigned long long) r->hard);
          plan->rlimits[i].resource = res;
          plan->rlimits[i].name = r->type;
          plan->rlimits[i].lim.rlim_cur = r->soft;
          plan->rlimits[i].lim.rlim_max = r->hard;
          plan->n_rlimits++;
        }
    }
  plan->no_new_privs = p->no_new_privileges;
  if (p->oom_score_adj)
    {
      if (*p->oom_score_adj < -1000 || *p->oom_score_adj > 1000)
        return err_set (err, 0, "%s: %s.oomScoreAdj: %d is not in -1000..1000", doc, field, (int) *p->oom_score_adj);
      plan->has_oom_score_adj = true;
      plan->oom_score_adj = *p->oom_score_adj;
    }
  if (p->io_priority)
    {
      if (prepare_ioprio (p->io_priority, doc, field, &plan->ioprio, err) < 0)
        return -1;
      plan->has_ioprio = true;
    }
  if (p->scheduler)
    {
      if (prepare_sched (p->scheduler, doc, field, &plan->sched, err) < 0)
        return -1;
      plan->has_sched = true;
    }
  if (p->exec_cpu_affinity)
    {
      const oci_exec_cpu_affinity *a = p->exec_cpu_affinity;
      size_t sz = 0;
      if (a->initial && cpuset_parse (a->initial, &plan->cpu_initial, &sz) < 0)
        return err_set (err, 0, "%s: %s.execCPUAffinity.initial: invalid CPU list \"%s\"", doc, field, a->initial);
      if (sz > plan->cpuset_size)
        plan->cpuset_size = sz;
      if (a->final && cpuset_parse (a->final, &plan->cpu_final, &sz) < 0)
        return err_set (err, 0, "%s: %s.execCPUAffinity.final: invalid CPU list \"%s\"", doc, field, a->final);
      if (sz > plan->cpuset_size)
        plan->cpuset_size = sz;
    }
  plan->apparmor_profile = p->apparmor_profile;
  plan->selinux_label = p->selinux_label;
  return 0;
}

int
process_prepare_personality (const oci_personality *pers, process_plan *plan, ocisbx_err **err)
{
  if (pers == NULL)
    return 0;
  if (pers->domain && strcmp (pers->domain, "LINUX") == 0)
    plan->personality = PER_LINUX;
  else if (pers->domain && strcmp (pers->domain, "LINUX32") == 0)
    plan->personality = PER_LINUX32;
  else
    return err_set (err, 0, "config.json: .linux.personality.domain: unknown domain \"%s\" (LINUX or LINUX32)",
                    pers->domain ? pers->domain : "");
  if (pers->flags_len)
    return err_set (err, 0, "config.json: .linux.personality.flags[0]: unknown flag \"%s\"", pers->flags[0]);
  plan->has_personality = true;
  return 0;
}

void
process_prepare_none (process_plan *plan)
{
  memset (plan, 0, sizeof *plan);
  sigemptyset (&plan->sigmask);
  plan->argv = xmalloc0 (sizeof (char *));
  plan->envp = xmalloc0 (sizeof (char *));
  plan->cwd = "/";
}

void
process_plan_free (process_plan *plan)
{
  free (plan->argv);
  free (plan->envp);
  for (size_t i = 0; i < plan->n_env_extra; i++)
    free (plan->env_extra[i]);
  free (plan->env_extra);
  free (plan->groups);
  free (plan->rlimits);
  if (plan->cpu_initial)
    CPU_FREE (plan->cpu_initial);
  if (plan->cpu_final)
    CPU_FREE (plan->cpu_final);
  if (plan->via_dmz && plan->dmz_fd >= 0)
    close (plan->dmz_fd);
  memset (plan, 0, sizeof *plan);
}

bool
process_may_ptrace (const process_plan *plan)
{
  return !plan->has_caps || (plan->cap_bounding & (1ULL << CAP_SYS_PTRACE));
}

bool
process_config_may_ptrace (const oci_process *p)
{
  const oci_capabilities *caps = p ? p->capabilities : NULL;

  if (p == NULL)
    return false;
  if (caps == NULL)
    return true;
  for (size_t i = 0; i < caps->bounding_len; i++)
    if (strcmp (caps->bounding[i], "CAP_SYS_PTRACE") == 0)
      return true;
  return false;
}
