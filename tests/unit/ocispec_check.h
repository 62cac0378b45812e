/* Checks over libocispec's field tables (ocispec_check.c), for the unit tests. */
#ifndef OCISBX_TEST_OCISPEC_CHECK_H
#define OCISBX_TEST_OCISPEC_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <yajl/yajl_tree.h>

#include "ocispec.h"
#include "internal.h"

/* The whole file, NUL-terminated; NULL with errno on failure. */
char *read_whole (const char *path, size_t *len);
/* A and B (of type T) are equal, field by field; prints the first difference. */
bool equal_obj (const ocispec_type *t, const void *a, const void *b, const char *path);
/* Number of fields of T (recursively) present in none of OBJS; prints them. */
int check_covered (const ocispec_type *t, yajl_val *objs, size_t n, const char *path);
/* Number of byte ranges of T's struct that no field describes (KEYED: an
   OBJMAP element, whose member 0 is the key); prints them. */
int check_struct_covered (const ocispec_type *t, bool keyed);
/* parse -> generate -> parse of DATA as T: the two objects are equal and generating
   again gives the same text; prints the first step that fails. */
bool roundtrip_equal (const ocispec_type *t, const char *doc, const char *data, size_t len);

#endif
