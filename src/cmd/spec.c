/* ocisbx spec: write a starter config.json (busybox-friendly, like `runc spec`). */
#include <config.h>
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups.h"
#include "ocispec.h"

#define N(a) (sizeof (a) / sizeof ((a)[0]))

static const char spec_help[]
    = "Usage: ocisbx spec [OPTIONS]\n"
      "\n"
      "Write a starter config.json for a bundle whose root filesystem is ./rootfs\n"
      "(a shell in a busybox or alpine tree).  An existing config.json is never replaced.\n"
      "\n"
      "Options:\n"
      "  -b, --bundle DIR   write DIR/config.json (default: the current directory)\n"
      "      --rootless     a config for an unprivileged user: a user namespace mapping\n"
      "                     container root to the caller, no network namespace, /sys\n"
      "                     bind-mounted read-only, no cgroup mount and no resources\n"
      "  -h, --help         this help\n";

/* The default capability set of runc and crun. */
static char *default_caps[] = { "CAP_AUDIT_WRITE", "CAP_KILL", "CAP_NET_BIND_SERVICE" };
static char *default_env[]
    = { "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "TERM=xterm" };
static char *default_args[] = { "sh" };

static char *opts_dev[] = { "nosuid", "strictatime", "mode=755", "size=65536k" };
static char *opts_devpts[] = { "nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5" };
static char *opts_shm[] = { "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" };
static char *opts_nosuid_noexec_nodev[] = { "nosuid", "noexec", "nodev" };
static char *opts_sys[] = { "nosuid", "noexec", "nodev", "ro" };
/* rro, not runc's ro: the host's /sys/fs/cgroup/... below /sys read-only too
   (CVE-2023-25809's class; runc relies on the cgroup mount that follows instead) */
static char *opts_sys_rootless[] = { "rbind", "nosuid", "noexec", "nodev", "rro" };
static char *opts_cgroup[] = { "nosuid", "noexec", "nodev", "relatime", "ro" };

static char *masked_paths[]
    = { "/proc/acpi",        "/proc/asound",    "/proc/kcore",      "/proc/keys",
        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug",
        "/sys/firmware",     "/proc/scsi" };
static char *readonly_paths[] = { "/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger" };

/* Fills CFG (and the storage it points into) with the default config.
   Everything points at static or caller-owned storage: nothing to free. */
typedef struct spec_storage
{
  oci_config cfg;
  oci_process process;
  oci_capabilities caps;
  oci_rlimit rlimit;
  oci_root root;
  oci_mount mounts[7];
  oci_linux linux_;
  oci_resources resources;
  oci_device_cgroup deny_all;
  oci_namespace namespaces[7];
  oci_id_mapping uid_map, gid_map;
} spec_storage;

static void
build_default_config (spec_storage *s, bool rootless)
{
  size_t n;

  memset (s, 0, sizeof *s);
  s->cfg.oci_version = OCI_SPEC_VERSION;
  s->cfg.hostname = "ocisbx";

  s->process.terminal = true;
  s->process.args = default_args;
  s->process.args_len = N (default_args);
  s->process.env = default_env;
  s->process.env_len = N (default_env);
  s->process.cwd = "/";
  s->caps = (oci_capabilities) {
    .bounding = default_caps, .bounding_len = N (default_caps),
    .effective = default_caps, .effective_len = N (default_caps),
    .permitted = default_caps, .permitted_len = N (default_caps),
    .ambient = default_caps, .ambient_len = N (default_caps),
  };
  s->process.capabilities = &s->caps;
  s->rlimit = (oci_rlimit) { .type = "RLIMIT_NOFILE", .hard = 1024, .soft = 1024 };
  s->process.rlimits = &s->rlimit;
  s->process.rlimits_len = 1;
  s->process.no_new_privileges = true;
  s->cfg.process = &s->process;

  s->root = (oci_root) { .path = "rootfs", .readonly = true };
  s->cfg.root = &s->root;

  n = 0;
  s->mounts[n++] = (oci_mount) { .destination = "/proc", .type = "proc", .source = "proc" };
  s->mounts[n++] = (oci_mount) { .destination = "/dev", .type = "tmpfs", .source = "tmpfs",
                                 .options = opts_dev, .options_len = N (opts_dev) };
  s->mounts[n++] = (oci_mount) { .destination = "/dev/pts", .type = "devpts", .source = "devpts",
                                 .options = opts_devpts,
                                 /* gid=5 (tty) is not mapped in a rootless user namespace */
                                 .options_len = N (opts_devpts) - (rootless ? 1 : 0) };
  s->mounts[n++] = (oci_mount) { .destination = "/dev/shm", .type = "tmpfs", .source = "shm",
                                 .options = opts_shm, .options_len = N (opts_shm) };
  s->mounts[n++] = (oci_mount) { .destination = "/dev/mqueue", .type = "mqueue", .source = "mqueue",
                                 .options = opts_nosuid_noexec_nodev,
                                 .options_len = N (opts_nosuid_noexec_nodev) };
  if (rootless) /* a new sysfs needs a network namespace owned by the user namespace */
    s->mounts[n++] = (oci_mount) { .destination = "/sys", .type = "bind", .source = "/sys",
                                   .options = opts_sys_rootless, .options_len = N (opts_sys_rootless) };
  else
    {
      s->mounts[n++] = (oci_mount) { .destination = "/sys", .type = "sysfs", .source = "sysfs",
                                     .options = opts_sys, .options_len = N (opts_sys) };
      s->mounts[n++] = (oci_mount) { .destination = "/sys/fs/cgroup", .type = "cgroup", .source = "cgroup",
                                     .options = opts_cgroup, .options_len = N (opts_cgroup) };
    }
  s->cfg.mounts = s->mounts;
  s->cfg.mounts_len = n;

  n = 0;
  s->namespaces[n++].type = "pid";
  if (!rootless)
    s->namespaces[n++].type = "network";
  s->namespaces[n++].type = "ipc";
  s->namespaces[n++].type = "uts";
  s->namespaces[n++].type = "mount";
  /* as runc: a cgroup namespace only on a unified (v2) host; on v1 or hybrid the
     container sees the host's cgroup paths, which tools written for runc expect */
  if (cgroup_detect_layout (CGROUP_FS_ROOT) == CGROUP_LAYOUT_V2)
    s->namespaces[n++].type = "cgroup";
  if (rootless)
    s->namespaces[n++].type = "user";
  s->linux_.namespaces = s->namespaces;
  s->linux_.namespaces_len = n;

  if (rootless)
    {
      s->uid_map = (oci_id_mapping) { .container_id = 0, .host_id = getuid (), .size = 1 };
      s->gid_map = (oci_id_mapping) { .container_id = 0, .host_id = getgid (), .size = 1 };
      s->linux_.uid_mappings = &s->uid_map;
      s->linux_.uid_mappings_len = 1;
      s->linux_.gid_mappings = &s->gid_map;
      s->linux_.gid_mappings_len = 1;
    }
  else
    {
      s->deny_all = (oci_device_cgroup) { .allow = false, .access = "rwm" };
      s->resources.devices = &s->deny_all;
      s->resources.devices_len = 1;
      s->linux_.resources = &s->resources;
    }
  s->linux_.masked_paths = masked_paths;
  s->linux_.masked_paths_len = N (masked_paths);
  s->linux_.readonly_paths = readonly_paths;
  s->linux_.readonly_paths_len = N (readonly_paths);
  s->cfg.linux_ = &s->linux_;
}

static int
write_spec (const char *bundle, bool rootless, ocisbx_err **err)
{
  spec_storage s;
  cleanup_free char *json = NULL;
  cleanup_free char *path = NULL;
  char *msg = NULL;
  size_t len = 0;

  build_default_config (&s, rootless);
  if (oci_config_generate (&s.cfg, true, &json, &len, &msg) < 0)
    return err_take (err, 0, msg);

  path = xasprintf ("%s/config.json", bundle);
  cleanup_close int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST)
    return err_setk (err, ERR_EXISTS, 0, "`%s` already exists: remove it first, it is never replaced", path);
  if (fd < 0)
    return err_set (err, errno, "create `%s`", path);
  if (write_all (fd, json, len) < 0)
    {
      int e = errno;
      unlink (path);
      return err_set (err, e, "write `%s`", path);
    }
  return 0;
}

int
cmd_spec (const ocisbx_globals *g, int argc, char **argv)
{
  enum
  {
    OPT_ROOTLESS = 256
  };
  static const struct option opts[] = {
    { "bundle", required_argument, NULL, 'b' },
    { "rootless", no_argument, NULL, OPT_ROOTLESS },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  const char *bundle = ".";
  bool rootless = false;
  ocisbx_err *err = NULL;
  int c;

  opterr = 0;
  while ((c = getopt_long (argc, argv, "+:b:h", opts, NULL)) != -1)
    switch (c)
      {
      case 'b':
        bundle = optarg;
        break;
      case OPT_ROOTLESS:
        rootless = true;
        break;
      case 'h':
        fputs (spec_help, stdout);
        return 0;
      case ':':
        return cmd_usage_error ("spec", "option \"%s\" needs an argument", argv[optind - 1]);
      default:
        return cmd_usage_error ("spec", "unknown option \"%s\"", argv[optind - 1]);
      }
  if (optind < argc)
    return cmd_usage_error ("spec", "unexpected argument \"%s\"", argv[optind]);

  if (write_spec (bundle, rootless, &err) < 0)
    return cmd_fail (err);
  return 0;
}
