/* The runtime's cgroup file system table (fs_ops.h); alone in its object so that a unit
   test that defines `cg_fs` itself does not pull it from libocisbx.a. */
#include <config.h>
#include "core/cgroups/fs_ops.h"

const cg_fs_ops *const cg_fs = &cg_fs_real;
