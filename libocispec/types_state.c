/* The field table of the state document, per state-schema.json, plus the fields runc's
   `state` prints beside them (rootfs, created, owner: the schema allows others); and the
   container process state a seccomp agent receives, the state document inside. */
#include <config.h>

#include "internal.h"

/* The spec's four, plus "paused" (runc reports it too). */
static const char *const state_statuses[] = { "creating", "created", "running", "stopped", "paused", NULL };

static int
validate_state (void *obj, const char *path, char **err)
{
  const oci_state *s = obj;
  if (s->pid && *s->pid < 0)
    return ocispec_fail (err, path, ".pid: must not be negative, got %d", (int) *s->pid);
  return 0;
}

static const ocispec_field state_fields[] = {
  F_STR ("ociVersion", oci_state, oci_version, OCISPEC_F_REQUIRED),
  F_STR ("id", oci_state, id, OCISPEC_F_REQUIRED),
  F_ENUM ("status", oci_state, status, OCISPEC_F_REQUIRED, state_statuses, "status"),
  F_NUM ("pid", OCISPEC_INT32, oci_state, pid, OCISPEC_F_PTR),
  F_STR ("bundle", oci_state, bundle, OCISPEC_F_REQUIRED),
  F_MAP ("annotations", oci_state, annotations, 0),
  F_STR ("rootfs", oci_state, rootfs, 0),
  F_STR ("created", oci_state, created, 0),
  F_STR ("owner", oci_state, owner, 0),
};
const ocispec_type oci_state_type = OCISPEC_TYPE (oci_state, state_fields, validate_state);

/* The container process state: the state document inside, as the agent reads it. */
static const ocispec_field process_state_fields[] = {
  F_STR ("ociVersion", oci_process_state, oci_version, OCISPEC_F_REQUIRED),
  F_STRARR ("fds", oci_process_state, fds, OCISPEC_F_REQUIRED),
  F_NUM ("pid", OCISPEC_INT32, oci_process_state, pid, OCISPEC_F_REQUIRED),
  F_STR ("metadata", oci_process_state, metadata, 0),
  F_OBJ ("state", oci_process_state, state, OCISPEC_F_REQUIRED, &oci_state_type),
};
const ocispec_type oci_process_state_type = OCISPEC_TYPE (oci_process_state, process_state_fields, NULL);

int
oci_state_parse_data (const char *data, size_t len, oci_state **out, char **err)
{
  return ocispec_parse (&oci_state_type, "state", data, len, (void **) out, err);
}

int
oci_state_generate (const oci_state *s, bool pretty, char **json, size_t *len, char **err)
{
  return ocispec_generate (&oci_state_type, s, pretty, json, len, err);
}

void
oci_state_free (oci_state *s)
{
  ocispec_free (&oci_state_type, s);
}
