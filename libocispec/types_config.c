/* The field tables of config.json (the root, mounts, hooks, root), per
   config-schema.json and defs.json; .process and .linux have their own files. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const ocispec_field mount_fields[] = {
  F_STR ("destination", oci_mount, destination, OCISPEC_F_REQUIRED | OCISPEC_F_PATH),
  F_STR ("type", oci_mount, type, 0),
  F_STR ("source", oci_mount, source, OCISPEC_F_PATH),
  F_STRARR ("options", oci_mount, options, 0),
  F_OBJARR ("uidMappings", oci_mount, uid_mappings, 0, &ocispec_id_mapping_type),
  F_OBJARR ("gidMappings", oci_mount, gid_mappings, 0, &ocispec_id_mapping_type),
};
static const ocispec_type mount_type = OCISPEC_TYPE (oci_mount, mount_fields, NULL);

/* path MUST be absolute; timeout, when set, MUST be > 0. */
static int
validate_hook (void *obj, const char *path, char **err)
{
  const oci_hook *h = obj;
  char q[OCISPEC_QUOTE_MAX];
  if (h->path[0] != '/')
    return ocispec_fail (err, path, ".path: must be an absolute path, got %s", ocispec_quote (q, h->path));
  if (h->timeout && *h->timeout < 1)
    return ocispec_fail (err, path, ".timeout: must be greater than zero, got %lld", (long long) *h->timeout);
  return 0;
}

static const ocispec_field hook_fields[] = {
  F_STR ("path", oci_hook, path, OCISPEC_F_REQUIRED | OCISPEC_F_PATH),
  F_STRARR ("args", oci_hook, args, 0),
  F_STRARR ("env", oci_hook, env, 0),
  F_NUM ("timeout", OCISPEC_INT64, oci_hook, timeout, OCISPEC_F_PTR),
};
static const ocispec_type hook_type = OCISPEC_TYPE (oci_hook, hook_fields, validate_hook);

static const ocispec_field hooks_fields[] = {
  F_OBJARR ("prestart", oci_hooks, prestart, 0, &hook_type),
  F_OBJARR ("createRuntime", oci_hooks, create_runtime, 0, &hook_type),
  F_OBJARR ("createContainer", oci_hooks, create_container, 0, &hook_type),
  F_OBJARR ("startContainer", oci_hooks, start_container, 0, &hook_type),
  F_OBJARR ("poststart", oci_hooks, poststart, 0, &hook_type),
  F_OBJARR ("poststop", oci_hooks, poststop, 0, &hook_type),
};
static const ocispec_type hooks_type = OCISPEC_TYPE (oci_hooks, hooks_fields, NULL);

static const ocispec_field root_fields[] = {
  F_STR ("path", oci_root, path, OCISPEC_F_REQUIRED | OCISPEC_F_PATH),
  F_BOOL ("readonly", oci_root, readonly, 0),
};
static const ocispec_type root_type = OCISPEC_TYPE (oci_root, root_fields, NULL);

/* Reads "N" digits at *S; false if none. */
static bool
read_number (const char **s, unsigned long *out)
{
  const char *p = *s;
  char *end;
  if (*p < '0' || *p > '9')
    return false;
  *out = strtoul (p, &end, 10);
  *s = end;
  return true;
}

/* ociVersion check: "1.x.y[-pre][+build]"; the error names PATH. */
static int
ocispec_check_version (const char *v, const char *path, char **err)
{
  char q[OCISPEC_QUOTE_MAX];
  unsigned long major, minor, patch;
  const char *p = v;

  /* MAJOR.MINOR.PATCH, optionally followed by -prerelease or +build. */
  if (!read_number (&p, &major) || *p++ != '.' || !read_number (&p, &minor) || *p++ != '.'
      || !read_number (&p, &patch) || (*p != '\0' && *p != '-' && *p != '+'))
    return ocispec_fail (err, path, ": invalid version %s (ocisbx supports %s)", ocispec_quote (q, v),
                         OCISPEC_VERSIONS_SUPPORTED);
  if (major != 1)
    return ocispec_fail (err, path, ": unsupported major version %s (ocisbx supports %s)",
                         ocispec_quote (q, v), OCISPEC_VERSIONS_SUPPORTED);
  return 0;
}

static int
validate_config (void *obj, const char *path, char **err)
{
  const oci_config *c = obj;
  char *at = ocispec_strdup_printf ("%s.ociVersion", path);
  int r = ocispec_check_version (c->oci_version, at, err);
  free (at);
  if (r < 0)
    return r;
  /* config.md: keys MUST NOT be empty strings */
  for (size_t i = 0; i < c->annotations.len; i++)
    if (c->annotations.keys[i][0] == '\0')
      {
        at = ocispec_strdup_printf ("%s.annotations", path);
        r = ocispec_fail (err, at, ": a key is empty");
        free (at);
        return r;
      }
  return 0;
}

static const ocispec_field config_fields[] = {
  F_STR ("ociVersion", oci_config, oci_version, OCISPEC_F_REQUIRED),
  F_OBJ ("process", oci_config, process, 0, &oci_process_type),
  F_OBJ ("root", oci_config, root, 0, &root_type),
  F_STR ("hostname", oci_config, hostname, OCISPEC_F_UTSNAME),
  F_STR ("domainname", oci_config, domainname, OCISPEC_F_UTSNAME),
  F_OBJARR ("mounts", oci_config, mounts, 0, &mount_type),
  F_OBJ ("hooks", oci_config, hooks, 0, &hooks_type),
  F_MAP ("annotations", oci_config, annotations, 0),
  F_OBJ ("linux", oci_config, linux_, 0, &ocispec_linux_type),
};
const ocispec_type oci_config_type = OCISPEC_TYPE (oci_config, config_fields, validate_config);

int
oci_config_parse_file (const char *path, oci_config **out, char **err)
{
  return ocispec_parse_file (&oci_config_type, path, "config.json", (void **) out, err);
}

int
oci_config_parse_data (const char *data, size_t len, oci_config **out, char **err)
{
  return ocispec_parse (&oci_config_type, "config.json", data, len, (void **) out, err);
}

int
oci_config_generate (const oci_config *c, bool pretty, char **json, size_t *len, char **err)
{
  return ocispec_generate (&oci_config_type, c, pretty, json, len, err);
}

void
oci_config_free (oci_config *c)
{
  ocispec_free (&oci_config_type, c);
}

int
oci_resources_parse_data (const char *data, size_t len, oci_resources **out, char **err)
{
  /* what `update -r` takes is config.json's linux.resources: named so in errors */
  static const char *const at[] = { "linux", "resources", NULL };
  return ocispec_parse_at (&oci_resources_type, "resources", at, data, len, (void **) out, err);
}

void
oci_resources_free (oci_resources *r)
{
  ocispec_free (&oci_resources_type, r);
}
