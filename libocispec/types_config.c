#include <config.h>
#include "internal.h"
const ocispec_type oci_config_type = { "config", sizeof (oci_config), NULL, 0, NULL };
const ocispec_type oci_process_type = { "process", sizeof (oci_process), NULL, 0, NULL };
