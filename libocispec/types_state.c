#include <config.h>
#include "internal.h"
const ocispec_type oci_state_type = { "state", sizeof (oci_state), NULL, 0, NULL };
