#include <config.h>
#include "unit.h"
#include "ocispec.h"

static void
test_placeholder (void)
{
  char *err = NULL;
  void *out = NULL;
  CHECK (ocispec_parse (&oci_config_type, "config.json", "{}", 2, &out, &err) < 0);
  free (err);
}

UNIT_MAIN (T (test_placeholder))
