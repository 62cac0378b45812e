#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int
ocispec_generate (const ocispec_type *t, const void *obj, bool pretty, char **json, size_t *len, char **err)
{
  *err = strdup ("libocispec: not implemented");
  return -1;
}
