/* linux.seccomp through libseccomp.  The parent compiles the filter (or takes it from the
   cache under --root); the child loads it as its last step before execve. */
#ifndef OCISBX_SECCOMP_H
#define OCISBX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "ocispec.h"

typedef struct seccomp_prog seccomp_prog;

/* CACHE_DIR may be NULL (no cache). *out is NULL when the config has no seccomp. */
int seccomp_prepare (const oci_seccomp *sc, const char *cache_dir, seccomp_prog **out, ocisbx_err **err);
/* In the child, after capabilities and no_new_privs, just before execve.  Returns the
   notify fd (>= 0) when the filter has SCMP_ACT_NOTIFY rules, else -1 on success... see .c */
int seccomp_load (const seccomp_prog *p, int *notify_fd, ocisbx_err **err);
/* After start: send the notify fd + state to linux.seccomp.listenerPath. */
int seccomp_send_listener (const oci_seccomp *sc, int notify_fd, const char *state_json, ocisbx_err **err);
void seccomp_prog_free (seccomp_prog *p);

#endif
