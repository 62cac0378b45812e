#include <config.h>
#include "core/rootfs/sysctl.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "core/rootfs/pathres.h"
#include "core/utils.h"

typedef enum
{
  NS_NONE,
  NS_IPC,
  NS_NET,
  NS_UTS,
} sysctl_ns;

static const char *const ns_names[] = { "", "ipc", "network", "uts" };

static const char *const ipc_keys[] = {
  "kernel.msgmax", "kernel.msgmnb", "kernel.msgmni", "kernel.sem", "kernel.shmall",
  "kernel.shmmax", "kernel.shmmni", "kernel.shm_rmid_forced", NULL,
};

/* KEY in dotted form ("net/ipv4/ip_forward" is accepted as "net.ipv4.ip_forward"). */
static char *
dotted (const char *key)
{
  char *k = xstrdup (key);
  for (char *p = k; *p; p++)
    if (*p == '/')
      *p = '.';
  return k;
}

static sysctl_ns
namespace_of (const char *key)
{
  cleanup_free char *k = dotted (key);

  for (size_t i = 0; ipc_keys[i]; i++)
    if (strcmp (k, ipc_keys[i]) == 0)
      return NS_IPC;
  if (strncmp (k, "fs.mqueue.", 10) == 0 && k[10])
    return NS_IPC;
  if (strncmp (k, "net.", 4) == 0 && k[4])
    return NS_NET;
  if (strcmp (k, "kernel.hostname") == 0 || strcmp (k, "kernel.domainname") == 0)
    return NS_UTS;
  return NS_NONE;
}

static bool
has_namespace (const oci_config *cfg, const char *type)
{
  for (size_t i = 0; i < cfg->linux_->namespaces_len; i++)
    if (cfg->linux_->namespaces[i].type && strcmp (cfg->linux_->namespaces[i].type, type) == 0)
      return true;
  return false;
}

/* kernel.hostname and kernel.domainname set what .hostname and .domainname set: with
   the field set, the value must be the field's (crun's "domainname with sysctl": the
   same value passes), a different one is refused naming both; without it, the sysctl
   is the only one to set it (docker gives --domainname so), in the uts namespace. */
static int
uts_check (const oci_config *cfg, const char *key, const char *value, ocisbx_err **err)
{
  cleanup_free char *k = dotted (key);
  bool host = strcmp (k, "kernel.hostname") == 0;
  const char *field = host ? cfg->hostname : cfg->domainname;
  const char *name = host ? "hostname" : "domainname";

  if (field == NULL || strcmp (field, value ? value : "") == 0)
    return 0;
  return err_set (err, 0, "config.json: .linux.sysctl: \"%s\" (\"%s\") conflicts with .%s (\"%s\"): set the %s once",
                  key, value ? value : "", name, field, name);
}

int
sysctl_validate (const oci_config *cfg, ocisbx_err **err)
{
  const ocispec_map *m;

  if (cfg->linux_ == NULL)
    return 0;
  m = &cfg->linux_->sysctl;
  for (size_t i = 0; i < m->len; i++)
    {
      const char *key = m->keys[i];
      sysctl_ns ns;

      if (*key == '\0' || *key == '.' || *key == '/' || strstr (key, "..") || strstr (key, "//"))
        return err_set (err, 0, "config.json: .linux.sysctl: \"%s\" is not a sysctl name", key);
      ns = namespace_of (key);
      if (ns == NS_UTS && uts_check (cfg, key, m->values[i], err) < 0)
        return -1;
      if (ns == NS_NONE)
        return err_set (err, 0, "config.json: .linux.sysctl: \"%s\" is not a namespaced sysctl", key);
      if (!has_namespace (cfg, ns_names[ns]))
        return err_set (err, 0,
                        "config.json: .linux.sysctl: \"%s\" needs the %s namespace in "
                        ".linux.namespaces",
                        key, ns_names[ns]);
    }
  return 0;
}

/* The path .linux.namespaces gives for the namespace TYPE. */
static const char *
namespace_path (const oci_config *cfg, const char *type)
{
  for (size_t i = 0; i < cfg->linux_->namespaces_len; i++)
    if (cfg->linux_->namespaces[i].type && strcmp (cfg->linux_->namespaces[i].type, type) == 0)
      return cfg->linux_->namespaces[i].path;
  return NULL;
}

int
sysctl_validate_joined (const oci_config *cfg, const ns_plan *plan, ocisbx_err **err)
{
  const ocispec_map *m;

  if (cfg->linux_ == NULL)
    return 0;
  m = &cfg->linux_->sysctl;
  for (size_t i = 0; i < m->len; i++)
    {
      sysctl_ns ns = namespace_of (m->keys[i]);
      const char *path;

      if (ns == NS_NONE || !ns_plan_joins_own (plan, ns_flag_of (ns_names[ns])))
        continue;
      path = namespace_path (cfg, ns_names[ns]);
      return err_set (err, 0,
                      "config.json: .linux.sysctl: \"%s\" would be written into the runtime's own (the host's) %s "
                      "namespace: .linux.namespaces joins `%s`",
                      m->keys[i], ns_names[ns], path ? path : "");
    }
  return 0;
}

/* The same values modulo whitespace ("250 32000" and "250\t32000\n"). */
static bool
same_value (const char *a, const char *b)
{
  for (;;)
    {
      while (isspace ((unsigned char) *a))
        a++;
      while (isspace ((unsigned char) *b))
        b++;
      if (*a == '\0' || *b == '\0')
        return *a == *b;
      while (*a && !isspace ((unsigned char) *a) && *a == *b)
        a++, b++;
      if (!((*a == '\0' || isspace ((unsigned char) *a)) && (*b == '\0' || isspace ((unsigned char) *b))))
        return false;
    }
}

int
sysctl_apply (const oci_config *cfg, ocisbx_err **err)
{
  const ocispec_map *m;

  if (cfg->linux_ == NULL)
    return 0;
  m = &cfg->linux_->sysctl;
  for (size_t i = 0; i < m->len; i++)
    {
      cleanup_free char *path = NULL;
      cleanup_free char *current = NULL;
      const char *value = m->values[i] ? m->values[i] : "";
      ocisbx_err *ignored = NULL;

      if (namespace_of (m->keys[i]) == NS_NONE || pathres_has_dotdot (m->keys[i]))
        return err_set (err, EPERM, "sysctl \"%s\" is not a namespaced sysctl", m->keys[i]);
      path = xasprintf ("/proc/sys/%s", m->keys[i]);
      if (strchr (m->keys[i], '/') == NULL) /* "a/b.c" is already a path: keep its dots */
        for (char *p = path + strlen ("/proc/sys/"); *p; p++)
          if (*p == '.')
            *p = '/';
      if (read_file_at (AT_FDCWD, path, &current, NULL, &ignored) == 0 && same_value (current, value))
        continue;
      err_free (ignored);
      if (write_proc_file (path, value, strlen (value), err) < 0)
        return err_wrap (err, "sysctl \"%s\"", m->keys[i]);
    }
  return 0;
}
