/* The runtime-spec features document (`ocisbx features`). */
#ifndef OCISBX_FEATURES_H
#define OCISBX_FEATURES_H

#include "core/error.h"
#include "ocispec.h"

/* Build the document describing what this build, on this host, supports.
   Free *out with oci_features_free. */
int features_document (oci_features **out, ocisbx_err **err);

/* The OCI mount option table this document draws from (NULL-terminated). */
extern const char *const features_oci_mount_options[];

#endif
