/* OCI hooks: each one a program run with its args and env, the container's state
 * JSON on stdin, and an optional timeout (killed on expiry).  Where they run:
 *
 *   prestart, createRuntime  the runtime (parent), once the namespaces exist and the
 *                            mounts are done, before pivot_root (container.c)
 *   createContainer          the container init, before pivot_root.  The hook's path is
 *                            looked up there: the init's mount namespace is still a copy
 *                            of the host's, so host paths resolve as they do in the
 *                            runtime (unless a config mount covers them), as in runc
 *   startContainer           the container init after `start`, before execve: the path
 *                            is resolved in the container's root
 *   poststart                the `start` (or `run`) process, after the start
 *   poststop                 `delete`
 * runtime-spec 1.3's lifecycle: a failing hook of create (prestart, createRuntime,
 * createContainer) makes it fail, and the container is undone and its poststop hooks
 * run (container.c: undo_create); a failing startContainer or poststart hook makes
 * start fail and stops the container (the init reports a startContainer failure
 * through the exec fifo: container_ops.c), whose delete runs the poststop hooks; `run`
 * does all of it.  The hooks after a failing one do not run; but a failing poststop
 * hook is a warning, and the hooks after it still run.
 * A hook without env gets the environment of whoever runs it: the runtime's, and for
 * startContainer the process's (process.env, HOME filled in), as runc and crun.
 */
#ifndef OCISBX_HOOKS_H
#define OCISBX_HOOKS_H

#include <stddef.h>

#include "core/error.h"
#include "ocispec.h"

/* Run the N hooks of PHASE ("prestart", ...) in order; the first failure stops them.
   DEFAULT_ENV (NULL: ours) is for hooks without env.
   Errors: "PHASE hook #I (`path`): exited with status 1: <its output>". */
int hooks_run (const oci_hook *h, size_t n, const char *state_json, const char *phase, char *const *default_env,
               ocisbx_err **err);
/* poststop: every hook runs; each failure is logged as a warning. */
void hooks_run_all (const oci_hook *h, size_t n, const char *state_json, const char *phase);

#endif
