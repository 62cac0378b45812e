/* The features document: what ocisbx supports, stated truthfully.
 *
 * Each entry is derived from the code that implements it where such code
 * exposes a list (mount_options.c, seccomp.c, libcap); the rest is stated here.
 * Whoever lands (or removes) a feature in another area updates this file in the
 * same change: e.g. cgroup.systemd, intelRdt, netDevices, memoryPolicy.
 */
#include <config.h>
#include <git_commit.h>
#include "core/features.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unistd.h>

#include "core/container/exec.h"
#include "core/process/mempolicy.h"
#include "core/rootfs/mount_options.h"
#include "core/seccomp/seccomp.h"
#include "core/rootfs/rootfs.h"
#include "core/utils.h"

static const char *const hook_kinds[] = {
  "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop", NULL,
};

/* The runtime-spec's mount options (config.md, "Mounts"), plus crun's tmpcopyup. */
const char *const features_oci_mount_options[] = {
  "ro",          "rw",           "nosuid",       "suid",         "nodev",        "dev",
  "noexec",      "exec",         "sync",         "async",        "dirsync",      "remount",
  "mand",        "nomand",       "atime",        "noatime",      "diratime",     "nodiratime",
  "relatime",    "norelatime",   "strictatime",  "nostrictatime", "lazytime",    "bind",
  "rbind",       "private",      "rprivate",     "shared",       "rshared",      "slave",
  "rslave",      "unbindable",   "runbindable",  "rro",          "rrw",          "rnosuid",
  "rsuid",       "rnodev",       "rdev",         "rnoexec",      "rexec",        "rnoatime",
  "ratime",      "rrelatime",    "rnorelatime",  "rstrictatime", "rnostrictatime", "idmap",
  "ridmap",      "tmpcopyup",    NULL,
};

/* A growable string vector stored as (char **, size_t). */
static void
strv_push (char ***v, size_t *len, const char *s)
{
  char **nv = realloc (*v, (*len + 1) * sizeof (char *));
  if (nv == NULL)
    abort ();
  nv[(*len)++] = xstrdup (s);
  *v = nv;
}

static bool *
bool_new (bool value)
{
  bool *b = xmalloc0 (sizeof *b);
  *b = value;
  return b;
}

static oci_features_enabled *
enabled_new (bool value)
{
  oci_features_enabled *e = xmalloc0 (sizeof *e);
  e->enabled = bool_new (value);
  return e;
}

/* /sys/module/apparmor/parameters/enabled reads "Y" when AppArmor is on. */
static bool
apparmor_enabled (void)
{
  cleanup_free char *buf = NULL;
  ocisbx_err *e = NULL;
  if (read_file_at (AT_FDCWD, "/sys/module/apparmor/parameters/enabled", &buf, NULL, &e) < 0)
    {
      err_free (e);
      return false;
    }
  return buf[0] == 'Y';
}

static bool
selinux_enabled (void)
{
  return access ("/sys/fs/selinux/enforce", F_OK) == 0;
}

/* Every capability libcap can name, as CAP_*. */
static void
add_capabilities (oci_features_linux *l)
{
  cap_value_t max = cap_max_bits ();
  for (cap_value_t c = 0; c < max; c++)
    {
      char *name = cap_to_name (c);
      if (name == NULL)
        continue;
      if (strncmp (name, "cap_", 4) == 0)
        {
          cleanup_free char *upper = xstrdup (name);
          for (char *p = upper; *p; p++)
            *p = (char) toupper ((unsigned char) *p);
          strv_push (&l->capabilities, &l->capabilities_len, upper);
        }
      cap_free (name);
    }
}

/* The seccomp lists come from seccomp.c (what the translation handles),
   restricted to the names the runtime-spec defines. */
static oci_features_seccomp *
seccomp_features (void)
{
  oci_features_seccomp *s = xmalloc0 (sizeof *s);
  const char *archs[64];
  size_t n_archs;

  s->enabled = bool_new (true);
  for (const char *const *a = seccomp_known_actions; *a; a++)
    if (ocispec_in_list (ocispec_seccomp_actions, *a))
      strv_push (&s->actions, &s->actions_len, *a);
  for (const char *const *o = seccomp_known_operators; *o; o++)
    if (ocispec_in_list (ocispec_seccomp_operators, *o))
      strv_push (&s->operators, &s->operators_len, *o);
  n_archs = seccomp_known_archs (archs, sizeof archs / sizeof archs[0]);
  for (size_t i = 0; i < n_archs; i++)
    if (ocispec_in_list (ocispec_seccomp_archs, archs[i]))
      strv_push (&s->archs, &s->archs_len, archs[i]);
  for (const char *const *f = seccomp_known_flags; *f; f++)
    if (ocispec_in_list (ocispec_seccomp_flags, *f))
      {
        strv_push (&s->known_flags, &s->known_flags_len, *f);
        if (seccomp_flag_supported (*f))
          strv_push (&s->supported_flags, &s->supported_flags_len, *f);
      }
  return s;
}

static oci_features_linux *
linux_features (void)
{
  oci_features_linux *l = xmalloc0 (sizeof *l);

  for (const char *const *ns = ocispec_namespace_types; *ns; ns++)
    strv_push (&l->namespaces, &l->namespaces_len, *ns);
  add_capabilities (l);

  l->cgroup = xmalloc0 (sizeof *l->cgroup);
  l->cgroup->v1 = bool_new (true);
  l->cgroup->v2 = bool_new (true);
#ifdef HAVE_SYSTEMD
  l->cgroup->systemd = bool_new (true); /* cgroups/systemd.c through ocisbx-systemd */
#else
  l->cgroup->systemd = bool_new (false);
#endif
  l->cgroup->systemd_user = bool_new (false);
  l->cgroup->rdma = bool_new (false);

  l->seccomp = seccomp_features ();
  l->apparmor = enabled_new (apparmor_enabled ());
  l->selinux = enabled_new (selinux_enabled ());
  l->intel_rdt = xmalloc0 (sizeof *l->intel_rdt); /* intelrdt/ */
  l->intel_rdt->enabled = bool_new (true);
  l->intel_rdt->schemata = bool_new (true);
  l->intel_rdt->monitoring = bool_new (true);
  l->net_devices = enabled_new (true); /* net/netdevices.c */
  l->mount_extensions = xmalloc0 (sizeof *l->mount_extensions);
  l->mount_extensions->idmap = enabled_new (true);
  l->memory_policy = xmalloc0 (sizeof *l->memory_policy); /* process/mempolicy.c */
  for (const char *const *m = mempolicy_mode_names; *m; m++)
    strv_push (&l->memory_policy->modes, &l->memory_policy->modes_len, *m);
  for (const char *const *f = mempolicy_flag_names; *f; f++)
    strv_push (&l->memory_policy->flags, &l->memory_policy->flags_len, *f);
  return l;
}

int
features_document (oci_features **out, ocisbx_err **err)
{
  oci_features *f = xmalloc0 (sizeof *f);

  f->oci_version_min = xstrdup (OCISPEC_VERSION_MIN);
  f->oci_version_max = xstrdup (OCISPEC_VERSION_MAX);
  for (const char *const *h = hook_kinds; *h; h++)
    strv_push (&f->hooks, &f->hooks_len, *h);
  /* Only the options the mount code implements. */
  for (const char *const *o = features_oci_mount_options; *o; o++)
    if (mount_opt_known (*o))
      strv_push (&f->mount_options, &f->mount_options_len, *o);
  f->linux_ = linux_features ();

  map_set (&f->annotations, "io.github.ocisbx.version", PACKAGE_VERSION);
  map_set (&f->annotations, "io.github.ocisbx.commit", GIT_COMMIT);
  /* read from config.json by every exec: its values */
  map_set (&f->annotations, EXEC_KILL_TREE_ANNOTATION, "true|false");
  map_set (&f->annotations, EXEC_MEMORY_ANNOTATION, "bytes, k/m/g suffixes (a cgroup per exec)");
  map_set (&f->annotations, EXEC_PIDS_ANNOTATION, "max processes (a cgroup per exec)");
  map_set (&f->annotations, EXEC_CPUS_ANNOTATION, "CPUs, a decimal (a cgroup per exec)");
  /* read by create and run (rootfs/overlay.c) */
  map_set (&f->annotations, ROOTFS_OVERLAY_ANNOTATION, "ephemeral|/absolute/upper/dir");
  *out = f;
  return 0;
}
