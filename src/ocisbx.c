/* ocisbx: an OCI runtime.  main(): global options, then the command table. */
#include <config.h>
#include <git_commit.h>

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "core/features_list.h"
#include "core/log.h"
#include "core/ns/rootless_user.h"
#include "core/utils.h"

static const ocisbx_command commands[] = {
  { "create", cmd_create, "create a container" },
  { "start", cmd_start, "start the user process of a created container" },
  { "state", cmd_state, "print the state of a container" },
  { "kill", cmd_kill, "send a signal to a container's init (or all its processes)" },
  { "delete", cmd_delete, "delete a container and everything it had" },
  { "run", cmd_run, "create, start and wait for a container" },
  { "exec", cmd_exec, "run a new process inside a running container" },
  { "list", cmd_list, "list the containers" },
  { "ps", cmd_ps, "list the processes of a container" },
  { "spec", cmd_spec, "write a default config.json" },
  { "features", cmd_features, "print the runtime-spec features document" },
  { "pause", cmd_pause, "freeze every process of a container" },
  { "resume", cmd_resume, "thaw a paused container" },
  { "update", cmd_update, "change a container's cgroup resources" },
  { "events", cmd_events, "print stats and OOM events of a container" },
};

extern char **environ;

static void
print_version (void)
{
  printf ("ocisbx version %s\ncommit: %s\nspec: %s\n%s\n", PACKAGE_VERSION, GIT_COMMIT, OCI_SPEC_VERSION,
          OCISBX_BUILD_FEATURES);
}

static void
print_help (void)
{
  printf ("Usage: ocisbx [GLOBAL OPTIONS] COMMAND [OPTIONS] [ARGS]\n\n"
          "An OCI runtime (runtime-spec %s).\n\nCommands:\n",
          OCI_SPEC_VERSION);
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    printf ("  %-10s %s\n", commands[i].name, commands[i].summary);
  printf ("\nGlobal options:\n"
          "  --root DIR           state directory (default /run/ocisbx; for a non-root user\n"
          "                       $XDG_RUNTIME_DIR/ocisbx, else /tmp/ocisbx-UID)\n"
          "  --log FILE           also write messages to FILE\n"
          "  --log-format FMT     text (default) or json\n"
          "  --debug              debug messages\n"
          "  --systemd-cgroup     cgroupsPath is slice:prefix:name\n"
          "  --rootless MODE      auto (default), true or false\n"
          "  -v, --version        print the version\n"
          "  -h, --help           this help\n"
          "\nRun 'ocisbx COMMAND --help' for a command's options.\n");
}

int
main (int argc, char **argv)
{
  enum
  {
    OPT_ROOT = 256,
    OPT_LOG,
    OPT_LOG_FORMAT,
    OPT_DEBUG,
    OPT_SYSTEMD_CGROUP,
    OPT_ROOTLESS,
    OPT_CRIU,
  };
  static const struct option opts[] = {
    { "root", required_argument, NULL, OPT_ROOT },
    { "log", required_argument, NULL, OPT_LOG },
    { "log-format", required_argument, NULL, OPT_LOG_FORMAT },
    { "debug", no_argument, NULL, OPT_DEBUG },
    { "systemd-cgroup", no_argument, NULL, OPT_SYSTEMD_CGROUP },
    { "rootless", required_argument, NULL, OPT_ROOTLESS },
    { "criu", required_argument, NULL, OPT_CRIU }, /* accepted and ignored, as podman may pass it */
    { "version", no_argument, NULL, 'v' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  ocisbx_globals g = { .root = NULL, .log_fmt = LOG_FMT_TEXT, .rootless = "auto" };
  const char *log_format = "text";
  cleanup_free char *default_root = NULL; /* g.root's storage when we chose it */
  ocisbx_err *err = NULL;
  int c;

  while ((c = getopt_long (argc, argv, "+vh", opts, NULL)) != -1)
    {
      switch (c)
        {
        case OPT_ROOT:
          g.root = optarg;
          break;
        case OPT_LOG:
          g.log = optarg;
          break;
        case OPT_LOG_FORMAT:
          log_format = optarg;
          break;
        case OPT_DEBUG:
          g.debug = true;
          break;
        case OPT_SYSTEMD_CGROUP:
          g.systemd_cgroup = true;
          break;
        case OPT_ROOTLESS:
          g.rootless = optarg;
          break;
        case OPT_CRIU:
          break;
        case 'v':
          print_version ();
          return 0;
        case 'h':
          print_help ();
          return 0;
        default:
          fprintf (stderr, "ocisbx: unknown global option; try 'ocisbx --help'\n");
          return EXIT_USAGE;
        }
    }

  if (strcmp (log_format, "json") == 0)
    g.log_fmt = LOG_FMT_JSON;
  else if (strcmp (log_format, "text") != 0)
    {
      fprintf (stderr, "ocisbx: --log-format: unknown format \"%s\" (text or json)\n", log_format);
      return EXIT_USAGE;
    }
  if (strcmp (g.rootless, "auto") != 0 && strcmp (g.rootless, "true") != 0 && strcmp (g.rootless, "false") != 0)
    {
      fprintf (stderr, "ocisbx: --rootless: unknown value \"%s\" (auto, true or false)\n", g.rootless);
      return EXIT_USAGE;
    }
  if (log_init (g.log, g.log_fmt, g.debug, &err) < 0)
    return cmd_fail (err);
  if (g.root == NULL)
    {
      /* A non-root user's containers live in a directory of its own (rootless_user.h). */
      if (rootless_default_root (getenv ("XDG_RUNTIME_DIR"), "/tmp", &default_root, &err) < 0)
        return cmd_fail (err);
      g.root = default_root;
    }

  if (optind >= argc)
    {
      print_help ();
      return EXIT_USAGE;
    }

  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp (argv[optind], commands[i].name) == 0)
      {
        log_debug ("ocisbx %s: %s, root `%s`", PACKAGE_VERSION, commands[i].name, g.root);
        /* Each command sees argv[0] = its name, as getopt expects. */
        optind++;
        int cargc = argc - optind + 1;
        char **cargv = argv + optind - 1;
        optind = 0; /* full reset of getopt for the command's own options */
        return commands[i].fn (&g, cargc, cargv);
      }

  fprintf (stderr, "ocisbx: unknown command \"%s\"; try 'ocisbx --help'\n", argv[optind]);
  return EXIT_USAGE;
}
