#include <config.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

int
ocispec_parse (const ocispec_type *t, const char *doc, const char *data, size_t len, void **out, char **err)
{
  *err = strdup ("libocispec: not implemented");
  return -1;
}

int
ocispec_parse_file (const ocispec_type *t, const char *path, const char *doc, void **out, char **err)
{
  *err = strdup ("libocispec: not implemented");
  return -1;
}

void
ocispec_free (const ocispec_type *t, void *obj)
{
}
