/* The field tables of the features document, per features-schema.json and
   features-linux.json.  Lists are not restricted to known values: a reader
   of another runtime's features must accept what is newer than itself. */
#include <config.h>

#include "internal.h"

static const ocispec_field cgroup_fields[] = {
  F_BOOL ("v1", oci_features_cgroup, v1, OCISPEC_F_PTR),
  F_BOOL ("v2", oci_features_cgroup, v2, OCISPEC_F_PTR),
  F_BOOL ("systemd", oci_features_cgroup, systemd, OCISPEC_F_PTR),
  F_BOOL ("systemdUser", oci_features_cgroup, systemd_user, OCISPEC_F_PTR),
  F_BOOL ("rdma", oci_features_cgroup, rdma, OCISPEC_F_PTR),
};
static const ocispec_type cgroup_type = OCISPEC_TYPE (oci_features_cgroup, cgroup_fields, NULL);

static const ocispec_field seccomp_fields[] = {
  F_BOOL ("enabled", oci_features_seccomp, enabled, OCISPEC_F_PTR),
  F_STRARR ("actions", oci_features_seccomp, actions, 0),
  F_STRARR ("operators", oci_features_seccomp, operators, 0),
  F_STRARR ("archs", oci_features_seccomp, archs, 0),
  F_STRARR ("knownFlags", oci_features_seccomp, known_flags, 0),
  F_STRARR ("supportedFlags", oci_features_seccomp, supported_flags, 0),
};
static const ocispec_type seccomp_type = OCISPEC_TYPE (oci_features_seccomp, seccomp_fields, NULL);

static const ocispec_field enabled_fields[] = {
  F_BOOL ("enabled", oci_features_enabled, enabled, OCISPEC_F_PTR),
};
static const ocispec_type enabled_type = OCISPEC_TYPE (oci_features_enabled, enabled_fields, NULL);

static const ocispec_field mount_ext_fields[] = {
  F_OBJ ("idmap", oci_features_mount_ext, idmap, 0, &enabled_type),
};
static const ocispec_type mount_ext_type = OCISPEC_TYPE (oci_features_mount_ext, mount_ext_fields, NULL);

static const ocispec_field intel_rdt_fields[] = {
  F_BOOL ("enabled", oci_features_intel_rdt, enabled, OCISPEC_F_PTR),
  F_BOOL ("schemata", oci_features_intel_rdt, schemata, OCISPEC_F_PTR),
  F_BOOL ("monitoring", oci_features_intel_rdt, monitoring, OCISPEC_F_PTR),
};
static const ocispec_type intel_rdt_type = OCISPEC_TYPE (oci_features_intel_rdt, intel_rdt_fields, NULL);

static const ocispec_field memory_policy_fields[] = {
  F_STRARR ("modes", oci_features_memory_policy, modes, 0),
  F_STRARR ("flags", oci_features_memory_policy, flags, 0),
};
static const ocispec_type memory_policy_type
    = OCISPEC_TYPE (oci_features_memory_policy, memory_policy_fields, NULL);

static const ocispec_field linux_fields[] = {
  F_STRARR ("namespaces", oci_features_linux, namespaces, 0),
  F_STRARR ("capabilities", oci_features_linux, capabilities, 0),
  F_OBJ ("cgroup", oci_features_linux, cgroup, 0, &cgroup_type),
  F_OBJ ("seccomp", oci_features_linux, seccomp, 0, &seccomp_type),
  F_OBJ ("apparmor", oci_features_linux, apparmor, 0, &enabled_type),
  F_OBJ ("selinux", oci_features_linux, selinux, 0, &enabled_type),
  F_OBJ ("intelRdt", oci_features_linux, intel_rdt, 0, &intel_rdt_type),
  F_OBJ ("mountExtensions", oci_features_linux, mount_extensions, 0, &mount_ext_type),
  F_OBJ ("netDevices", oci_features_linux, net_devices, 0, &enabled_type),
  F_OBJ ("memoryPolicy", oci_features_linux, memory_policy, 0, &memory_policy_type),
};
static const ocispec_type linux_type = OCISPEC_TYPE (oci_features_linux, linux_fields, NULL);

static const ocispec_field features_fields[] = {
  F_STR ("ociVersionMin", oci_features, oci_version_min, OCISPEC_F_REQUIRED),
  F_STR ("ociVersionMax", oci_features, oci_version_max, OCISPEC_F_REQUIRED),
  F_STRARR ("hooks", oci_features, hooks, 0),
  F_STRARR ("mountOptions", oci_features, mount_options, 0),
  F_OBJ ("linux", oci_features, linux_, 0, &linux_type),
  F_MAP ("annotations", oci_features, annotations, 0),
  F_STRARR ("potentiallyUnsafeConfigAnnotations", oci_features, potentially_unsafe_config_annotations, 0),
};
const ocispec_type oci_features_type = OCISPEC_TYPE (oci_features, features_fields, NULL);

int
oci_features_generate (const oci_features *f, bool pretty, char **json, size_t *len, char **err)
{
  return ocispec_generate (&oci_features_type, f, pretty, json, len, err);
}

void
oci_features_free (oci_features *f)
{
  ocispec_free (&oci_features_type, f);
}
