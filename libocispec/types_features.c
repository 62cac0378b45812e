#include <config.h>
#include "internal.h"
const ocispec_type oci_features_type = { "features", sizeof (oci_features), NULL, 0, NULL };
