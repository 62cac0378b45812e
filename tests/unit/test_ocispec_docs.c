/* The documents ocisbx generates itself: the features document (what it lists is
   what a config may use) and `spec`'s default config. */
#include <config.h>

#include <errno.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "ocispec.h"
#include "internal.h"
#include "ocispec_check.h"
#include "core/features.h"
#include "core/process/process.h"
#include "core/rootfs/mount_options.h"

#define NELEMS(a) (sizeof (a) / sizeof ((a)[0]))

/* ------------------------------------------------------------------ features, spec */

static bool
has (char *const *v, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (v[i], s) == 0)
      return true;
  return false;
}

static void
test_features_document (void)
{
  oci_features *f = NULL;
  ocisbx_err *e = NULL;
  char *json = NULL, *err = NULL;
  size_t n = 0;

  CHECK (features_document (&f, &e) == 0);
  if (f == NULL)
    return;
  CHECK_STR (f->oci_version_min, "1.0.0");
  CHECK_STR (f->oci_version_max, "1.3.0");
  CHECK (f->hooks_len == 6 && has (f->hooks, f->hooks_len, "createRuntime"));
  CHECK (has (f->mount_options, f->mount_options_len, "rro"));
  CHECK (has (f->mount_options, f->mount_options_len, "ridmap"));
  CHECK (!has (f->mount_options, f->mount_options_len, "defaults")); /* not an OCI option */
  for (size_t i = 0; i < f->mount_options_len; i++)
    CHECK (ocispec_in_list (features_oci_mount_options, f->mount_options[i]));
  oci_features_linux *l = f->linux_;
  CHECK (l->namespaces_len == 8 && has (l->namespaces, l->namespaces_len, "time"));
  CHECK (l->capabilities_len >= 38);
  CHECK (has (l->capabilities, l->capabilities_len, "CAP_SYS_ADMIN"));
  CHECK (has (l->capabilities, l->capabilities_len, "CAP_CHOWN"));
  for (size_t i = 0; i < l->capabilities_len; i++)
    CHECK (strncmp (l->capabilities[i], "CAP_", 4) == 0);
#ifdef HAVE_SYSTEMD
  CHECK (*l->cgroup->systemd);
#else
  CHECK (!*l->cgroup->systemd);
#endif
  CHECK (*l->cgroup->v1 && *l->cgroup->v2 && !*l->cgroup->systemd_user && !*l->cgroup->rdma);
  CHECK (*l->seccomp->enabled);
  CHECK (has (l->seccomp->actions, l->seccomp->actions_len, "SCMP_ACT_ERRNO"));
  CHECK (has (l->seccomp->operators, l->seccomp->operators_len, "SCMP_CMP_MASKED_EQ"));
  CHECK (has (l->seccomp->archs, l->seccomp->archs_len, "SCMP_ARCH_X86_64"));
  CHECK (l->seccomp->known_flags_len >= l->seccomp->supported_flags_len);
  for (size_t i = 0; i < l->seccomp->archs_len; i++)
    CHECK (ocispec_in_list (ocispec_seccomp_archs, l->seccomp->archs[i]));
  char *aa = read_whole ("/sys/module/apparmor/parameters/enabled", NULL);
  CHECK (*l->apparmor->enabled == (aa != NULL && aa[0] == 'Y'));
  free (aa);
  CHECK (*l->selinux->enabled == (access ("/sys/fs/selinux/enforce", F_OK) == 0));
  CHECK (*l->mount_extensions->idmap->enabled);
  CHECK (*l->intel_rdt->enabled && *l->intel_rdt->schemata && *l->intel_rdt->monitoring);

  CHECK (oci_features_generate (f, true, &json, &n, &err) == 0);
  if (json)
    CHECK (roundtrip_equal (&oci_features_type, "features", json, n));
  free (json);
  oci_features_free (f);
}

/* config_accepts (FMT, VALUE): a config.json of FMT with VALUE in it parses (the
   message of its error printed otherwise) */
static bool
config_accepts (const char *fmt, const char *value)
{
  char *json = ocispec_strdup_printf (fmt, value), *err = NULL;
  oci_config *c = NULL;
  int r = oci_config_parse_data (json, strlen (json), &c, &err);
  if (r < 0)
    fprintf (stderr, "  %s: %s\n", value, err ? err : "?");
  free (err);
  free (json);
  if (c)
    oci_config_free (c);
  return r == 0;
}

/* features.md / features-linux.md: every element features lists, the runtime MUST
   recognise (accept) in config.json: ociVersionMin/Max as .ociVersion, hooks, mount
   options, namespaces, capabilities, the seccomp actions, operators, archs and flags,
   the memory policy modes and flags. */
static void
test_features_recognised (void)
{
  oci_features *f = NULL;
  ocisbx_err *e = NULL;
  size_t i;

  CHECK (features_document (&f, &e) == 0);
  if (f == NULL || f->linux_ == NULL || f->linux_->seccomp == NULL || f->linux_->memory_policy == NULL)
    return;
  const oci_features_linux *l = f->linux_;
  const oci_features_seccomp *sc = l->seccomp;
  CHECK (config_accepts ("{\"ociVersion\": \"%s\"}", f->oci_version_min));
  CHECK (config_accepts ("{\"ociVersion\": \"%s\"}", f->oci_version_max));
  for (i = 0; i < f->hooks_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"hooks\": {\"%s\": [{\"path\": \"/bin/true\"}]}}",
                           f->hooks[i]));
  for (i = 0; i < f->mount_options_len; i++)
    CHECK (mount_opt_known (f->mount_options[i]));
  for (i = 0; i < l->namespaces_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"namespaces\": [{\"type\": \"%s\"}]}}",
                           l->namespaces[i]));
  for (i = 0; i < l->capabilities_len; i++)
    CHECK (capability_from_name (l->capabilities[i]) >= 0);
  for (i = 0; i < sc->actions_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"seccomp\": {\"defaultAction\": \"%s\"}}}",
                           sc->actions[i]));
  for (i = 0; i < sc->operators_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"seccomp\": {\"defaultAction\": "
                           "\"SCMP_ACT_ALLOW\", \"syscalls\": [{\"names\": [\"read\"], \"action\": \"SCMP_ACT_LOG\", "
                           "\"args\": [{\"index\": 0, \"value\": 1, \"op\": \"%s\"}]}]}}}",
                           sc->operators[i]));
  for (i = 0; i < sc->archs_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"seccomp\": {\"defaultAction\": "
                           "\"SCMP_ACT_ALLOW\", \"architectures\": [\"%s\"]}}}",
                           sc->archs[i]));
  for (i = 0; i < sc->known_flags_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"seccomp\": {\"defaultAction\": "
                           "\"SCMP_ACT_ALLOW\", \"flags\": [\"%s\"]}}}",
                           sc->known_flags[i]));
  for (i = 0; i < sc->supported_flags_len; i++)
    {
      bool known = false;
      for (size_t k = 0; k < sc->known_flags_len; k++)
        known = known || strcmp (sc->known_flags[k], sc->supported_flags[i]) == 0;
      CHECK (known);
    }
  for (i = 0; i < l->memory_policy->modes_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"memoryPolicy\": {\"mode\": \"%s\"}}}",
                           l->memory_policy->modes[i]));
  for (i = 0; i < l->memory_policy->flags_len; i++)
    CHECK (config_accepts ("{\"ociVersion\": \"1.3.0\", \"linux\": {\"memoryPolicy\": {\"mode\": \"MPOL_BIND\", "
                           "\"nodes\": \"0\", \"flags\": [\"%s\"]}}}",
                           l->memory_policy->flags[i]));
  CHECK (f->hooks_len == 6 && l->namespaces_len >= 7 && sc->actions_len >= 8 && l->memory_policy->modes_len >= 6);
  oci_features_free (f);
}

/* `ocisbx spec` output parses and has runc's defaults (when the binary is there). */
static void
test_spec_command (void)
{
  const char *bin = getenv ("OCISBX_BIN");
  if (bin == NULL || access (bin, X_OK) != 0)
    {
      UNIT_SKIP ("OCISBX_BIN (the built ocisbx) is not set");
      return;
    }
  char dir[] = "/tmp/ocisbx-test-spec-XXXXXX";
  CHECK (mkdtemp (dir) != NULL);
  char *cmd = ocispec_strdup_printf ("'%s' spec --bundle '%s' && '%s' spec --rootless -b '%s/r' 2>/dev/null; "
                                     "mkdir '%s/r' && '%s' spec --rootless -b '%s/r'",
                                     bin, dir, bin, dir, dir, bin, dir);
  CHECK (system (cmd) == 0);
  free (cmd);

  char *path = ocispec_strdup_printf ("%s/config.json", dir);
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_file (path, &c, &err) == 0);
  if (c)
    {
      CHECK_STR (c->process->args[0], "sh");
      CHECK (c->process->terminal && c->process->no_new_privileges);
      CHECK (c->process->capabilities->bounding_len == 3);
      CHECK_STR (c->process->rlimits[0].type, "RLIMIT_NOFILE");
      /* a cgroup namespace on a cgroup v2 host only, as runc */
      struct statfs sfs;
      bool v2 = statfs ("/sys/fs/cgroup", &sfs) == 0 && sfs.f_type == CGROUP2_SUPER_MAGIC;
      CHECK (c->linux_->namespaces_len == (v2 ? 6 : 5));
      CHECK (c->linux_->uid_mappings_len == 0);
      CHECK (c->mounts_len == 7);
    }
  oci_config_free (c);
  /* A second run refuses to overwrite. */
  cmd = ocispec_strdup_printf ("'%s' spec -b '%s' 2>/dev/null", bin, dir);
  int st = system (cmd);
  CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 1);
  free (cmd);
  unlink (path);
  free (path);

  path = ocispec_strdup_printf ("%s/r/config.json", dir);
  c = NULL;
  CHECK (oci_config_parse_file (path, &c, &err) == 0);
  if (c)
    {
      CHECK (c->linux_->uid_mappings_len == 1 && c->linux_->uid_mappings[0].host_id == getuid ());
      CHECK (c->linux_->gid_mappings_len == 1 && c->linux_->gid_mappings[0].host_id == getgid ());
      CHECK (c->linux_->resources == NULL);
      bool netns = false, userns = false;
      for (size_t i = 0; i < c->linux_->namespaces_len; i++)
        {
          netns |= strcmp (c->linux_->namespaces[i].type, "network") == 0;
          userns |= strcmp (c->linux_->namespaces[i].type, "user") == 0;
        }
      CHECK (!netns && userns);
      CHECK (c->mounts_len == 6);
      for (size_t i = 0; i < c->mounts_len; i++)
        {
          CHECK (strcmp (c->mounts[i].type, "cgroup") != 0);
          if (strcmp (c->mounts[i].destination, "/dev/pts") == 0)
            CHECK (!has (c->mounts[i].options, c->mounts[i].options_len, "gid=5"));
          if (strcmp (c->mounts[i].destination, "/sys") == 0)
            CHECK (has (c->mounts[i].options, c->mounts[i].options_len, "rbind")
                   && has (c->mounts[i].options, c->mounts[i].options_len, "rro"));
        }
    }
  oci_config_free (c);
  unlink (path);
  free (path);
  path = ocispec_strdup_printf ("%s/r", dir);
  rmdir (path);
  free (path);
  rmdir (dir);
}

/* update -r's document: config.json's linux.resources alone, its errors naming the
   field where config.json has it (ocispec_parse_at), a duplicate key too. */
UNIT_MAIN (T (test_features_document), T (test_features_recognised), T (test_spec_command))
