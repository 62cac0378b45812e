/* The runtime's syscall table (syscalls.h); alone in its object so that a unit test
   that defines `sys` itself does not pull it from libocisbx.a. */
#include <config.h>
#include "core/syscalls.h"

const sys_ops *const sys = &sys_real;
