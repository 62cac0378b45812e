/* The schema lines of linux.intelRdt (l3CacheSchema, memBwSchema, schemata[]), as the
 * resctrl `schemata` file takes and shows them: "NAME:ID=VALUE;ID=VALUE...", one
 * resource per line, its domains by cache id.  Cache resources (L2*, L3*) have a hex
 * capacity bitmask, the others (MB, SMBA) a decimal bandwidth.  The kernel shows the
 * names right-aligned and the values padded ("    L3:0=00ff;1=00ff"): the comparison is
 * of numbers, not of text.  Pure functions, for the parent and the unit tests. */
#ifndef OCISBX_INTELRDT_SCHEMA_H
#define OCISBX_INTELRDT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "ocispec.h"

/* What is wrong with the schema line LINE (a static string), NULL when it is well
   formed.  Its resource name into NAME (SIZE bytes) either way ("" if none). */
const char *rdt_schema_check (const char *line, char *name, size_t size);

/* Whether every domain of the well-formed line LINE is in SCHEMATA (a `schemata`
   file's text) with the same value. */
bool rdt_schema_matches (const char *line, const char *schemata);

/* FN (FIELD, LINE, ARG, ERR) for each schema line of R, in the order they are written:
   l3CacheSchema (each of its lines, though it SHOULD be one), memBwSchema, schemata[];
   FIELD is ".l3CacheSchema", ".memBwSchema" or ".schemata[I]".  Stops at FN's -1. */
typedef int (*rdt_line_fn) (const char *field, const char *line, void *arg, ocisbx_err **err);
int rdt_schema_each (const oci_intel_rdt *r, rdt_line_fn fn, void *arg, ocisbx_err **err);
/* Whether R has a schema line to write. */
bool rdt_schema_any (const oci_intel_rdt *r);

#endif
