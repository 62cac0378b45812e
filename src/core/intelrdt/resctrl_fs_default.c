/* The runtime's resctrl file system table (resctrl_fs.h); alone in its object so that a
   unit test that defines `rdt_fs` itself does not pull it from libocisbx.a. */
#include <config.h>
#include "core/intelrdt/resctrl_fs.h"

const rdt_fs_ops *const rdt_fs = &rdt_fs_real;
