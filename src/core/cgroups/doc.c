/* The cgroup part of state.json and of the creation record (cgroup_state, cgroups.h)
   described for the libocispec engine: kept apart, as container/state_doc.c, so that
   the fuzz targets (tests/fuzz/) build state.json's parser from the two alone. */
#include <config.h>
#include "core/cgroups/cgroups.h"

#include <stddef.h>

#define CF(json, kind, fl, st, m, sub, one_of)                                                     \
  { json, kind, fl, offsetof (st, m), 0, sub, one_of, NULL }

static const ocispec_field hierarchy_fields[] = {
  CF ("name", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_state_hierarchy, name, NULL, NULL),
  CF ("controllers", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_state_hierarchy, controllers, NULL, NULL),
  CF ("v2", OCISPEC_BOOL, 0, cgroup_state_hierarchy, v2, NULL, NULL),
  CF ("path", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_state_hierarchy, path, NULL, NULL),
  CF ("created", OCISPEC_UINT32, 0, cgroup_state_hierarchy, created, NULL, NULL),
};
static const ocispec_type hierarchy_type = { "cgroup_state_hierarchy", sizeof (cgroup_state_hierarchy),
                                             hierarchy_fields, sizeof hierarchy_fields / sizeof hierarchy_fields[0],
                                             NULL };

static const char *const layouts[] = { "v1", "hybrid", "v2", NULL };

static const ocispec_field state_fields[] = {
  CF ("layout", OCISPEC_STRING, OCISPEC_F_REQUIRED, cgroup_state, layout, NULL, layouts),
  CF ("rootless", OCISPEC_BOOL, 0, cgroup_state, rootless, NULL, NULL),
  CF ("systemdUnit", OCISPEC_STRING, 0, cgroup_state, systemd_unit, NULL, NULL),
  CF ("systemdSlice", OCISPEC_STRING, 0, cgroup_state, systemd_slice, NULL, NULL),
  { "hierarchies", OCISPEC_OBJARR, 0, offsetof (cgroup_state, hierarchies),
    offsetof (cgroup_state, hierarchies_len), &hierarchy_type, NULL, NULL },
};
const ocispec_type cgroup_state_type = { "cgroup_state", sizeof (cgroup_state), state_fields,
                                         sizeof state_fields / sizeof state_fields[0], NULL };
