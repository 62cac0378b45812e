/* state.json (container_state, state_store.h) described for the libocispec engine: kept apart
   from the rest of state_store.c so that the fuzz targets (tests/fuzz/) parse it alone. */
#include <config.h>
#include "core/container/state_store.h"

#include <stddef.h>

#define SF(json, kind, fl, st, m, lenoff, sub)                                                     \
  { json, kind, fl, offsetof (st, m), lenoff, sub, NULL, NULL }
#define SF_ARR(json, kind, st, m, sub)                                                             \
  { json, kind, 0, offsetof (st, m), offsetof (st, m##_len), sub, NULL, NULL }

static const ocispec_field hook_fields[] = {
  SF ("path", OCISPEC_STRING, OCISPEC_F_REQUIRED, oci_hook, path, 0, NULL),
  SF_ARR ("args", OCISPEC_STRARR, oci_hook, args, NULL),
  SF_ARR ("env", OCISPEC_STRARR, oci_hook, env, NULL),
  SF ("timeout", OCISPEC_INT64, OCISPEC_F_PTR, oci_hook, timeout, 0, NULL),
};
static const ocispec_type hook_type = { "hook", sizeof (oci_hook), hook_fields,
                                        sizeof hook_fields / sizeof hook_fields[0], NULL };

static const ocispec_field state_fields[] = {
  SF ("ociVersion", OCISPEC_STRING, 0, container_state, oci_version, 0, NULL),
  SF ("id", OCISPEC_STRING, OCISPEC_F_REQUIRED, container_state, id, 0, NULL),
  SF ("pid", OCISPEC_INT32, OCISPEC_F_REQUIRED, container_state, pid, 0, NULL),
  SF ("startTime", OCISPEC_UINT64, 0, container_state, start_time, 0, NULL),
  SF ("bundle", OCISPEC_STRING, OCISPEC_F_REQUIRED, container_state, bundle, 0, NULL),
  SF ("config", OCISPEC_STRING, 0, container_state, config, 0, NULL),
  SF ("rootfs", OCISPEC_STRING, 0, container_state, rootfs, 0, NULL),
  SF ("created", OCISPEC_STRING, 0, container_state, created, 0, NULL),
  SF ("owner", OCISPEC_UINT32, 0, container_state, owner, 0, NULL),
  SF ("cgroups", OCISPEC_OBJ, 0, container_state, cgroups, 0, &cgroup_state_type),
  SF ("cgroup", OCISPEC_STRING, 0, container_state, cgroup, 0, NULL), /* an older ocisbx's */
  SF ("systemdCgroup", OCISPEC_BOOL, 0, container_state, systemd_cgroup, 0, NULL),
  SF ("rootless", OCISPEC_BOOL, 0, container_state, rootless, 0, NULL),
  SF ("userns", OCISPEC_BOOL, 0, container_state, userns, 0, NULL),
  SF ("noProcess", OCISPEC_BOOL, 0, container_state, no_process, 0, NULL),
  SF ("annotations", OCISPEC_MAP, 0, container_state, annotations, 0, NULL),
  SF_ARR ("poststart", OCISPEC_OBJARR, container_state, poststart, &hook_type),
  SF_ARR ("poststop", OCISPEC_OBJARR, container_state, poststop, &hook_type),
};
const ocispec_type container_state_type = { "container_state", sizeof (container_state), state_fields,
                                         sizeof state_fields / sizeof state_fields[0], NULL };
