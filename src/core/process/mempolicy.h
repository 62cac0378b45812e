/* linux.memoryPolicy (runtime-spec 1.3, config-linux.md "Memory policy"): the NUMA
 * policy of the container's init, set with set_mempolicy(2) before its execve (a
 * process's policy is inherited by its children and kept across execve).
 *
 * mempolicy_prepare (the parent): the mode and flags to numbers, `nodes` ("0-3,7") to a
 * node mask, each node checked to exist (/sys/devices/system/node/nodeN; not with
 * MPOL_F_RELATIVE_NODES, whose numbers are relative to the allowed set), and the
 * combinations set_mempolicy refuses refused first, naming the field.
 * mempolicy_apply (the init, process_apply_early): the raw syscall (no libnuma). */
#ifndef OCISBX_MEMPOLICY_H
#define OCISBX_MEMPOLICY_H

#include <stdbool.h>

#include "core/error.h"
#include "ocispec.h"

#define MEMPOLICY_MAX_NODES 1024

typedef struct mempolicy_plan
{
  bool set;
  int mode; /* MPOL_* | MPOL_F_* */
  unsigned long nodes[MEMPOLICY_MAX_NODES / (8 * sizeof (unsigned long))];
  bool any_node;
} mempolicy_plan;

/* The modes and flags known, as the spec names them (features). */
extern const char *const mempolicy_mode_names[];
extern const char *const mempolicy_flag_names[];

/* NODE_DIR: /sys/devices/system/node (a test's tree in the unit tests). */
int mempolicy_prepare (const oci_memory_policy *mp, const char *node_dir, mempolicy_plan *plan, ocisbx_err **err);
int mempolicy_apply (const mempolicy_plan *plan, ocisbx_err **err);

#endif
