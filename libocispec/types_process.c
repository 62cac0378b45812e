/* The field tables of "process" (config.json's .process, and process.json for
   `exec --process`), per config-schema.json. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char *const rlimit_types[]
    = { "RLIMIT_AS",     "RLIMIT_CORE",    "RLIMIT_CPU",        "RLIMIT_DATA",
        "RLIMIT_FSIZE",  "RLIMIT_LOCKS",   "RLIMIT_MEMLOCK",    "RLIMIT_MSGQUEUE",
        "RLIMIT_NICE",   "RLIMIT_NOFILE",  "RLIMIT_NPROC",      "RLIMIT_RSS",
        "RLIMIT_RTPRIO", "RLIMIT_RTTIME",  "RLIMIT_SIGPENDING", "RLIMIT_STACK",
        NULL };
static const char *const ioprio_classes[] = { "IOPRIO_CLASS_RT", "IOPRIO_CLASS_BE", "IOPRIO_CLASS_IDLE", NULL };
static const char *const sched_policies[] = { "SCHED_OTHER", "SCHED_FIFO", "SCHED_RR",      "SCHED_BATCH",
                                              "SCHED_ISO",   "SCHED_IDLE", "SCHED_DEADLINE", NULL };
static const char *const sched_flags[]
    = { "SCHED_FLAG_RESET_ON_FORK", "SCHED_FLAG_RECLAIM",        "SCHED_FLAG_DL_OVERRUN",
        "SCHED_FLAG_KEEP_POLICY",   "SCHED_FLAG_KEEP_PARAMS",    "SCHED_FLAG_UTIL_CLAMP_MIN",
        "SCHED_FLAG_UTIL_CLAMP_MAX", NULL };

static const ocispec_field console_size_fields[] = {
  F_NUM ("height", OCISPEC_UINT64, oci_console_size, height, OCISPEC_F_REQUIRED),
  F_NUM ("width", OCISPEC_UINT64, oci_console_size, width, OCISPEC_F_REQUIRED),
};
static const ocispec_type console_size_type = OCISPEC_TYPE (oci_console_size, console_size_fields, NULL);

/* The schema requires none of user's fields (uid and gid default to 0). */
static const ocispec_field user_fields[] = {
  F_NUM ("uid", OCISPEC_UINT32, oci_user, uid, 0),
  F_NUM ("gid", OCISPEC_UINT32, oci_user, gid, 0),
  F_NUM ("umask", OCISPEC_UINT32, oci_user, umask, OCISPEC_F_PTR),
  F_U32ARR ("additionalGids", oci_user, additional_gids, 0),
  F_STR ("username", oci_user, username, 0),
};
static const ocispec_type user_type = OCISPEC_TYPE (oci_user, user_fields, NULL);

static const ocispec_field capabilities_fields[] = {
  F_STRARR ("bounding", oci_capabilities, bounding, 0),
  F_STRARR ("effective", oci_capabilities, effective, 0),
  F_STRARR ("inheritable", oci_capabilities, inheritable, 0),
  F_STRARR ("permitted", oci_capabilities, permitted, 0),
  F_STRARR ("ambient", oci_capabilities, ambient, 0),
};
static const ocispec_type capabilities_type = OCISPEC_TYPE (oci_capabilities, capabilities_fields, NULL);

static const ocispec_field rlimit_fields[] = {
  F_ENUM ("type", oci_rlimit, type, OCISPEC_F_REQUIRED, rlimit_types, "rlimit"),
  F_NUM ("hard", OCISPEC_UINT64, oci_rlimit, hard, OCISPEC_F_REQUIRED),
  F_NUM ("soft", OCISPEC_UINT64, oci_rlimit, soft, OCISPEC_F_REQUIRED),
};
static const ocispec_type rlimit_type = OCISPEC_TYPE (oci_rlimit, rlimit_fields, NULL);

static const ocispec_field io_priority_fields[] = {
  F_ENUM ("class", oci_io_priority, class_, OCISPEC_F_REQUIRED, ioprio_classes, "I/O priority class"),
  F_NUM ("priority", OCISPEC_INT32, oci_io_priority, priority, 0),
};
static const ocispec_type io_priority_type = OCISPEC_TYPE (oci_io_priority, io_priority_fields, NULL);

static const ocispec_field scheduler_fields[] = {
  F_ENUM ("policy", oci_scheduler, policy, OCISPEC_F_REQUIRED, sched_policies, "scheduler policy"),
  F_NUM ("nice", OCISPEC_INT32, oci_scheduler, nice, OCISPEC_F_PTR),
  F_NUM ("priority", OCISPEC_INT32, oci_scheduler, priority, OCISPEC_F_PTR),
  F_ENUMARR ("flags", oci_scheduler, flags, 0, sched_flags, "scheduler flag"),
  F_NUM ("runtime", OCISPEC_UINT64, oci_scheduler, runtime, OCISPEC_F_PTR),
  F_NUM ("deadline", OCISPEC_UINT64, oci_scheduler, deadline, OCISPEC_F_PTR),
  F_NUM ("period", OCISPEC_UINT64, oci_scheduler, period, OCISPEC_F_PTR),
};
static const ocispec_type scheduler_type = OCISPEC_TYPE (oci_scheduler, scheduler_fields, NULL);

/* Schema pattern ^[0-9, -]*$ for both. */
static int
validate_cpu_affinity (void *obj, const char *path, char **err)
{
  const oci_exec_cpu_affinity *a = obj;
  const char *vals[] = { a->initial, a->final };
  const char *names[] = { "initial", "final" };
  for (size_t i = 0; i < 2; i++)
    if (vals[i] && !ocispec_only_chars (vals[i], "0123456789, -"))
      {
        char q[OCISPEC_QUOTE_MAX];
        return ocispec_fail (err, path, ".%s: invalid CPU list %s", names[i], ocispec_quote (q, vals[i]));
      }
  return 0;
}

static const ocispec_field exec_cpu_affinity_fields[] = {
  F_STR ("initial", oci_exec_cpu_affinity, initial, 0),
  F_STR ("final", oci_exec_cpu_affinity, final, 0),
};
static const ocispec_type exec_cpu_affinity_type
    = OCISPEC_TYPE (oci_exec_cpu_affinity, exec_cpu_affinity_fields, validate_cpu_affinity);

/* cwd MUST be absolute; args[0] is looked up as a path; an rlimit type MUST NOT repeat. */
static int
validate_process (void *obj, const char *path, char **err)
{
  const oci_process *p = obj;
  char q[OCISPEC_QUOTE_MAX];

  if (p->cwd && p->cwd[0] != '/')
    return ocispec_fail (err, path, ".cwd: must be an absolute path, got %s", ocispec_quote (q, p->cwd));
  if (p->args_len > 0 && strlen (p->args[0]) > 4095) /* as OCISPEC_F_PATH */
    return ocispec_fail (err, path, ".args[0]: %zu bytes, longer than the kernel takes (4095): %s",
                         strlen (p->args[0]), ocispec_quote (q, p->args[0]));
  for (size_t i = 1; i < p->rlimits_len; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp (p->rlimits[i].type, p->rlimits[j].type) == 0)
        return ocispec_fail (err, path, ".rlimits[%zu]: rlimit %s listed twice", i,
                             ocispec_quote (q, p->rlimits[i].type));
  return 0;
}

static const ocispec_field process_fields[] = {
  F_BOOL ("terminal", oci_process, terminal, 0),
  F_OBJ ("consoleSize", oci_process, console_size, 0, &console_size_type),
  F_INLINE ("user", oci_process, user, 0, &user_type),
  F_STRARR ("args", oci_process, args, 0),
  F_STR ("commandLine", oci_process, command_line, 0),
  F_STRARR ("env", oci_process, env, 0),
  F_STR ("cwd", oci_process, cwd, OCISPEC_F_REQUIRED | OCISPEC_F_PATH),
  F_OBJ ("capabilities", oci_process, capabilities, 0, &capabilities_type),
  F_OBJARR ("rlimits", oci_process, rlimits, 0, &rlimit_type),
  F_BOOL ("noNewPrivileges", oci_process, no_new_privileges, 0),
  F_STR ("apparmorProfile", oci_process, apparmor_profile, 0),
  F_NUM ("oomScoreAdj", OCISPEC_INT32, oci_process, oom_score_adj, OCISPEC_F_PTR),
  F_STR ("selinuxLabel", oci_process, selinux_label, 0),
  F_OBJ ("ioPriority", oci_process, io_priority, 0, &io_priority_type),
  F_OBJ ("scheduler", oci_process, scheduler, 0, &scheduler_type),
  F_OBJ ("execCPUAffinity", oci_process, exec_cpu_affinity, 0, &exec_cpu_affinity_type),
};
const ocispec_type oci_process_type = OCISPEC_TYPE (oci_process, process_fields, validate_process);

int
oci_process_parse_file (const char *path, oci_process **out, char **err)
{
  const char *base = strrchr (path, '/');
  return ocispec_parse_file (&oci_process_type, path, base ? base + 1 : path, (void **) out, err);
}

int
oci_process_generate (const oci_process *p, bool pretty, char **json, size_t *len, char **err)
{
  return ocispec_generate (&oci_process_type, p, pretty, json, len, err);
}

void
oci_process_free (oci_process *p)
{
  ocispec_free (&oci_process_type, p);
}
