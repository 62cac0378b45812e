/* linux.intelRdt (runtime-spec, config-linux.md "IntelRdt"): the container's class of
 * service in a resctrl file system.
 *
 * Only the spec's first MUST is implemented: "If no mounted resctrl pseudo-filesystem
 * is available in the runtime mount namespace, the runtime MUST generate an error."
 * The CLOS directory, schemata, tasks and monitoring groups are not: with a resctrl
 * mount the create fails too, saying so, rather than accept the field and ignore it.
 * features says intelRdt.enabled false.  Checked by create_prepare, before anything
 * is made. */
#ifndef OCISBX_INTELRDT_H
#define OCISBX_INTELRDT_H

#include "core/error.h"
#include "ocispec.h"

/* MOUNTINFO: /proc/self/mountinfo (a test's file in the unit tests). */
int intelrdt_validate (const oci_linux *lx, const char *mountinfo, ocisbx_err **err);

#endif
