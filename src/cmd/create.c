#include <config.h>
#include "create_opts.h"
#include "core/ns/rootless_user.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char create_help[] =
  "Usage: ocisbx create [OPTIONS] CONTAINER-ID\n\n"
  "Create a container from a bundle; its process waits for `ocisbx start`.\n\n"
  "  -b, --bundle DIR         the bundle (default: the current directory)\n"
  "      --pid-file FILE      write the container's pid to FILE\n"
  "      --console-socket S   send the pty master to the unix socket S\n"
  "      --preserve-fds N     pass fds 3 .. 3+N-1 on to the container\n"
  "      --no-pivot           chroot instead of pivot_root (the rootfs is on a ramfs)\n"
  "      --no-new-keyring     keep the caller's session keyring\n"
  "      --ephemeral          the rootfs as an overlay's lower layer, its upper on a\n"
  "                           tmpfs thrown away with the container (a btrfs subvolume:\n"
  "                           a snapshot of it, destroyed at delete): the rootfs is\n"
  "                           never written\n"
  "      --overlay-upper DIR  the same, the upper layer kept in DIR (DIR/upper)\n";

static const char run_help[] =
  "Usage: ocisbx run [OPTIONS] CONTAINER-ID\n\n"
  "Create and start a container, wait for it, and delete it; the exit status is the\n"
  "process's (128+N when it died of signal N).  Killed in the foreground (SIGKILL\n"
  "too), it leaves nothing behind.  With process.terminal and no --console-socket the\n"
  "pty is relayed: the caller's size before the process starts, the caller's terminal\n"
  "raw; a stdin that is not a terminal ends with the pty's EOF character.\n\n"
  "  -b, --bundle DIR         the bundle (default: the current directory)\n"
  "  -d, --detach             return once the container runs\n"
  "      --keep               do not delete the container when it exits\n"
  "      --pid-file FILE      write the container's pid to FILE\n"
  "      --console-socket S   send the pty master to the unix socket S\n"
  "      --preserve-fds N     pass fds 3 .. 3+N-1 on to the container\n"
  "      --no-pivot           chroot instead of pivot_root\n"
  "      --no-new-keyring     keep the caller's session keyring\n"
  "      --no-subreaper       accepted for runc compatibility\n"
  "      --ephemeral          the rootfs as an overlay's lower layer, its upper on a\n"
  "                           tmpfs thrown away with the container (a btrfs subvolume:\n"
  "                           a snapshot of it, destroyed at delete): the rootfs is\n"
  "                           never written\n"
  "      --overlay-upper DIR  the same, the upper layer kept in DIR (DIR/upper)\n"
  "  (both set config.json's annotation io.github.ocisbx.rootfs.overlay)\n";

int
cmd_parse_create_opts (const ocisbx_globals *g, int argc, char **argv, bool run, container_opts *o)
{
  enum
  {
    OPT_PID_FILE = 256,
    OPT_CONSOLE_SOCKET,
    OPT_PRESERVE_FDS,
    OPT_NO_PIVOT,
    OPT_NO_NEW_KEYRING,
    OPT_KEEP,
    OPT_NO_SUBREAPER,
    OPT_EPHEMERAL,
    OPT_OVERLAY_UPPER,
  };
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "pid-file", required_argument, NULL, OPT_PID_FILE },
    { "console-socket", required_argument, NULL, OPT_CONSOLE_SOCKET },
    { "preserve-fds", required_argument, NULL, OPT_PRESERVE_FDS },
    { "no-pivot", no_argument, NULL, OPT_NO_PIVOT },
    { "no-new-keyring", no_argument, NULL, OPT_NO_NEW_KEYRING },
    { "detach", no_argument, NULL, 'd' },
    { "keep", no_argument, NULL, OPT_KEEP },
    { "no-subreaper", no_argument, NULL, OPT_NO_SUBREAPER },
    { "ephemeral", no_argument, NULL, OPT_EPHEMERAL },
    { "overlay-upper", required_argument, NULL, OPT_OVERLAY_UPPER },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *cmd = run ? "run" : "create";
  int c;

  memset (o, 0, sizeof *o);
  o->root = g->root;
  o->systemd_cgroup = g->systemd_cgroup;
  /* auto: not root, or in a user namespace (rootless.h) */
  o->rootless = strcmp (g->rootless, "true") == 0 || (strcmp (g->rootless, "auto") == 0 && rootless_auto ());
  opterr = 0;
  while ((c = getopt_long (argc, argv, run ? "b:dh" : "b:h", opts, NULL)) != -1)
    {
      char *end;
      long n;
      switch (c)
        {
        case 'b':
          o->bundle = optarg;
          break;
        case OPT_PID_FILE:
          o->pid_file = optarg;
          break;
        case OPT_CONSOLE_SOCKET:
          o->console_socket = optarg;
          break;
        case OPT_PRESERVE_FDS:
          n = strtol (optarg, &end, 10);
          if (*optarg == '\0' || *end || n < 0 || n > 65536)
            return cmd_usage_error (cmd, "--preserve-fds: \"%s\" is not a count of fds", optarg);
          o->preserve_fds = (int) n;
          break;
        case OPT_NO_PIVOT:
          o->no_pivot = true;
          break;
        case OPT_NO_NEW_KEYRING:
          o->no_new_keyring = true;
          break;
        case 'd':
          if (!run)
            return cmd_usage_error (cmd, "unknown option --detach");
          o->detach = true;
          break;
        case OPT_KEEP:
          if (!run)
            return cmd_usage_error (cmd, "unknown option --keep");
          o->keep = true;
          break;
        case OPT_NO_SUBREAPER:
          break;
        case OPT_EPHEMERAL:
          o->ephemeral = true;
          break;
        case OPT_OVERLAY_UPPER:
          o->overlay_upper = optarg;
          break;
        case 'h':
          fputs (run ? run_help : create_help, stdout);
          return CMD_HELP_SHOWN;
        default:
          return cmd_usage_error (cmd, "unknown option %s", argv[optind - 1]);
        }
    }
  if (optind != argc - 1)
    return cmd_usage_error (cmd, optind >= argc ? "a container id is required" : "one container id only");
  o->id = argv[optind];
  return 0;
}

int
cmd_create (const ocisbx_globals *g, int argc, char **argv)
{
  container_opts o;
  ocisbx_err *err = NULL;
  int r = cmd_parse_create_opts (g, argc, argv, false, &o);

  if (r != 0)
    return r == CMD_HELP_SHOWN ? 0 : r;
  if (container_create (&o, &err) < 0)
    return cmd_fail (err);
  return 0;
}
