#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/exec.h"
#include "core/utils.h"

static const char exec_help[] =
  "Usage: ocisbx exec [OPTIONS] CONTAINER-ID COMMAND [ARG...]\n"
  "       ocisbx exec [OPTIONS] --process FILE CONTAINER-ID\n\n"
  "Run a new process in a running container: its namespaces, cgroups, root,\n"
  "capabilities, rlimits, seccomp filter and LSM labels.  The exit status is the\n"
  "process's (128+N when it died of signal N); 127 when the command is not found,\n"
  "126 when it cannot be run, 255 for other failures.\n\n"
  "  -p, --process FILE         the process as a runtime-spec process.json\n"
  "  -t, --tty                  a pty for the process (relayed, or --console-socket)\n"
  "      --console-socket S     send the pty master to the unix socket S\n"
  "  -d, --detach               return once the process runs\n"
  "      --pid-file FILE        write the process's pid to FILE\n"
  "      --cwd DIR              working directory in the container\n"
  "  -e, --env KEY=VALUE        set an environment variable (repeatable)\n"
  "  -u, --user UID[:GID]       user (and group) ids\n"
  "  -g, --additional-gids GID  an additional group (repeatable)\n"
  "  -c, --cap CAP              add a capability to every set (repeatable)\n"
  "      --no-new-privs         set no_new_privs\n"
  "      --preserve-fds N       pass fds 3 .. 3+N-1 on to the process\n"
  "      --process-label L      SELinux label of the process\n"
  "      --apparmor PROFILE     AppArmor profile of the process\n"
  "      --ignore-paused        exec even into a paused container (the process\n"
  "                             waits frozen until `resume`)\n"
  "      --kill-tree[=BOOL]     run the process in a pid namespace of its own, whose\n"
  "                             PID 1 (a small reaper) forwards signals to it and ends\n"
  "                             with it: when the process exits or is killed, or a\n"
  "                             foreground exec is killed (SIGKILL too), every process\n"
  "                             it started dies, daemons included.  The default is the\n"
  "                             container's annotation io.github.ocisbx.exec.kill-tree\n"
  "                             (\"true\" or \"false\"; false when absent)\n"
  "      --memory SIZE          run the process in a cgroup of its own below the\n"
  "                             container's, limited to SIZE bytes (k, m, g suffixes;\n"
  "                             no swap beyond it): its whole tree, and only it, is\n"
  "                             OOM-killed past the limit\n"
  "      --pids-limit N         the same, at most N processes (tasks) in it\n"
  "      --cpus N               the same, at most N CPUs of time (a decimal: 0.5)\n"
  "                             Defaults: the container's annotations\n"
  "                             io.github.ocisbx.exec.memory, .pids-limit, .cpus\n"
  "      --usage-file FILE      (foreground) when the process ends, write its cgroup's\n"
  "                             usage as JSON: CPU time, peak memory, OOM kills, forks\n"
  "                             refused by the pids limit; a cgroup of its own too\n"
  "      --cgroup SUB           join the container's existing sub-cgroup SUB (as runc;\n"
  "                             on cgroup v1 also CONTROLLER[,CONTROLLER]:SUB, repeatable)\n";

static int
parse_id (const char *s, unsigned long *out)
{
  char *end;
  unsigned long v;

  errno = 0;
  v = strtoul (s, &end, 10);
  if (*s == '\0' || *s == '-' || *end || errno || v > 0xfffffffeUL)
    return -1;
  *out = v;
  return 0;
}

static int
parse_user (const char *s, exec_opts *o)
{
  cleanup_free char *copy = xstrdup (s);
  char *colon = strchr (copy, ':');
  unsigned long v;

  if (colon)
    {
      *colon = '\0';
      if (parse_id (colon + 1, &v) < 0)
        return -1;
      o->gid = (gid_t) v;
      o->has_gid = true;
    }
  if (parse_id (copy, &v) < 0)
    return -1;
  o->uid = (uid_t) v;
  o->has_uid = true;
  return 0;
}

/* "-g 10 -g 20" or "-g 10,20". */
static int
parse_gids (const char *s, exec_opts *o, size_t max)
{
  cleanup_free char *copy = xstrdup (s);
  char *save = NULL;

  for (char *t = strtok_r (copy, ",", &save); t; t = strtok_r (NULL, ",", &save))
    {
      unsigned long v;
      if (parse_id (t, &v) < 0 || o->n_add_gids == max)
        return -1;
      o->add_gids[o->n_add_gids++] = (gid_t) v;
    }
  return 0;
}

static int
parse_bool (const char *s)
{
  if (s == NULL || strcmp (s, "true") == 0 || strcmp (s, "1") == 0)
    return 1;
  if (strcmp (s, "false") == 0 || strcmp (s, "0") == 0)
    return 0;
  return -1;
}

enum
{
  OPT_CONSOLE_SOCKET = 256,
  OPT_PID_FILE,
  OPT_CWD,
  OPT_NO_NEW_PRIVS,
  OPT_PRESERVE_FDS,
  OPT_PROCESS_LABEL,
  OPT_APPARMOR,
  OPT_IGNORE_PAUSED,
  OPT_KILL_TREE,
  OPT_MEMORY,
  OPT_PIDS_LIMIT,
  OPT_CPUS,
  OPT_CGROUP,
  OPT_USAGE_FILE,
};

static const struct option exec_options[] = {
  { "process", required_argument, NULL, 'p' },
  { "tty", no_argument, NULL, 't' },
  { "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
  { "detach", no_argument, NULL, 'd' },
  { "pid-file", required_argument, NULL, OPT_PID_FILE },
  { "cwd", required_argument, NULL, OPT_CWD },
  { "env", required_argument, NULL, 'e' },
  { "user", required_argument, NULL, 'u' },
  { "additional-gids", required_argument, NULL, 'g' },
  { "cap", required_argument, NULL, 'c' },
  { "no-new-privs", optional_argument, NULL, OPT_NO_NEW_PRIVS },
  { "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
  { "process-label", required_argument, NULL, OPT_PROCESS_LABEL },
  { "apparmor", required_argument, NULL, OPT_APPARMOR },
  { "ignore-paused", no_argument, NULL, OPT_IGNORE_PAUSED },
  { "kill-tree", optional_argument, NULL, OPT_KILL_TREE },
  { "memory", required_argument, NULL, OPT_MEMORY },
  { "pids-limit", required_argument, NULL, OPT_PIDS_LIMIT },
  { "cpus", required_argument, NULL, OPT_CPUS },
  { "cgroup", required_argument, NULL, OPT_CGROUP },
  { "usage-file", required_argument, NULL, OPT_USAGE_FILE },
  { "help", no_argument, NULL, 'h' },
  { NULL, 0, NULL, 0 },
};

/* The options that store their argument (a string) or set a flag (a bool). */
static const struct
{
  int opt;
  bool is_flag;
  size_t offset; /* in exec_opts */
} plain_options[] = {
  { 'p', false, offsetof (exec_opts, process_file) },
  { OPT_CONSOLE_SOCKET, false, offsetof (exec_opts, console_socket) },
  { OPT_PID_FILE, false, offsetof (exec_opts, pid_file) },
  { OPT_CWD, false, offsetof (exec_opts, cwd) },
  { OPT_PROCESS_LABEL, false, offsetof (exec_opts, process_label) },
  { OPT_APPARMOR, false, offsetof (exec_opts, apparmor) },
  { OPT_MEMORY, false, offsetof (exec_opts, cg.memory) },
  { OPT_PIDS_LIMIT, false, offsetof (exec_opts, cg.pids_limit) },
  { OPT_CPUS, false, offsetof (exec_opts, cg.cpus) },
  { OPT_USAGE_FILE, false, offsetof (exec_opts, cg.usage_file) },
  { 't', true, offsetof (exec_opts, tty) },
  { 'd', true, offsetof (exec_opts, detach) },
  { OPT_IGNORE_PAUSED, true, offsetof (exec_opts, ignore_paused) },
};

/* Option C with ARG when it is a plain one (or a repeatable list: -e, -c): true. */
static bool
set_plain (exec_opts *o, int c, const char *arg)
{
  char *base = (char *) o;

  if (c == 'e' || c == 'c' || c == OPT_CGROUP)
    {
      if (c == OPT_CGROUP)
        o->cg.join[o->cg.n_join++] = arg;
      else if (c == 'e')
        o->env[o->n_env++] = (char *) arg;
      else
        o->caps[o->n_caps++] = (char *) arg;
      return true;
    }
  for (size_t i = 0; i < sizeof plain_options / sizeof plain_options[0]; i++)
    if (plain_options[i].opt == c)
      {
        if (plain_options[i].is_flag)
          *(bool *) (base + plain_options[i].offset) = true;
        else
          *(const char **) (base + plain_options[i].offset) = arg;
        return true;
      }
  return false;
}

/* The options whose value is read: 0, or the usage error's exit code; -1 for another
   option. */
static int
set_parsed (exec_opts *o, int c, const char *arg, size_t max_gids)
{
  char *end;
  long n;

  switch (c)
    {
    case 'u':
      if (parse_user (arg, o) < 0)
        return cmd_usage_error ("exec", "--user \"%s\": not UID[:GID] (numbers)", arg);
      return 0;
    case 'g':
      if (parse_gids (arg, o, max_gids) < 0)
        return cmd_usage_error ("exec", "--additional-gids \"%s\": not a group id", arg);
      return 0;
    case OPT_NO_NEW_PRIVS:
      o->no_new_privs = parse_bool (arg);
      if (o->no_new_privs < 0)
        return cmd_usage_error ("exec", "--no-new-privs=%s: true or false", arg);
      return 0;
    case OPT_PRESERVE_FDS:
      n = strtol (arg, &end, 10);
      if (*arg == '\0' || *end || n < 0 || n > 65536)
        return cmd_usage_error ("exec", "--preserve-fds: \"%s\" is not a count of fds", arg);
      o->preserve_fds = (int) n;
      return 0;
    case OPT_KILL_TREE:
      o->kill_tree = parse_bool (arg);
      if (o->kill_tree < 0)
        return cmd_usage_error ("exec", "--kill-tree=%s: true or false", arg);
      return 0;
    }
  return -1;
}

/* The operands: the id, then a command (or --process). */
static int
set_operands (exec_opts *o, int argc, char **argv, int optind)
{
  if (optind >= argc)
    return cmd_usage_error ("exec", "a container id is required");
  o->id = argv[optind++];
  o->args = argv + optind;
  o->n_args = argc - optind;
  if (o->process_file && o->n_args)
    return cmd_usage_error ("exec", "--process and a command cannot be given together");
  if (o->process_file == NULL && o->n_args == 0)
    return cmd_usage_error ("exec", "a command to run is required (or --process FILE)");
  if (o->detach && o->cg.usage_file)
    return cmd_usage_error ("exec", "--usage-file needs a foreground exec (-d returns before the process ends)");
  return 0;
}

int
cmd_exec (const ocisbx_globals *g, int argc, char **argv)
{
  cleanup_free char **env = xmalloc0 ((argc + 1) * sizeof (char *));
  cleanup_free char **caps = xmalloc0 ((argc + 1) * sizeof (char *));
  cleanup_free const char **join = xmalloc0 ((argc + 1) * sizeof (char *));
  cleanup_free gid_t *gids = NULL;
  size_t max_gids = argc;
  exec_opts o;
  ocisbx_err *err = NULL;
  int c, code;

  for (int i = 0; i < argc; i++)
    for (const char *p = argv[i]; *p; p++)
      max_gids += *p == ',';
  gids = xmalloc0 ((max_gids + 1) * sizeof (gid_t));
  memset (&o, 0, sizeof o);
  o.root = g->root;
  o.env = env;
  o.caps = caps;
  o.add_gids = gids;
  o.cg.join = join;
  o.no_new_privs = -1;
  o.kill_tree = -1;
  opterr = 0;
  while ((c = getopt_long (argc, argv, "+p:tde:u:g:c:h", exec_options, NULL)) != -1)
    {
      int r;

      if (set_plain (&o, c, optarg))
        continue;
      r = set_parsed (&o, c, optarg, max_gids);
      if (r > 0)
        return r;
      if (r == 0)
        continue;
      if (c == 'h')
        {
          fputs (exec_help, stdout);
          return 0;
        }
      return cmd_usage_error ("exec", "unknown option %s", argv[optind - 1]);
    }
  code = set_operands (&o, argc, argv, optind);
  if (code != 0)
    return code;
  if (container_exec (&o, &code, &err) < 0)
    {
      cmd_fail (err);
      return code;
    }
  return code;
}
