/* Shared between the libocispec parser and generator. */
#ifndef OCISPEC_INTERNAL_H
#define OCISPEC_INTERNAL_H

#include "ocispec.h"

#define OCISPEC_FIELD_PTR(obj, f) ((void *) ((char *) (obj) + (f)->offset))

#endif
