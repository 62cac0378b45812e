/* linux.sysctl: only keys that a namespace of the container isolates are accepted
 *   ipc   kernel.msgmax kernel.msgmnb kernel.msgmni kernel.sem kernel.shmall
 *         kernel.shmmax kernel.shmmni kernel.shm_rmid_forced fs.mqueue.*
 *   net   net.*   (the container must have a network namespace)
 *   uts   kernel.hostname kernel.domainname (the value of .hostname / .domainname when
 *         that is set: another is refused naming both)
 * (never into a joined namespace that is the runtime's own: the host's), and are written to /proc/sys/<key with dots as slashes> through write_proc_file.
 */
#ifndef OCISBX_SYSCTL_H
#define OCISBX_SYSCTL_H

#include "core/error.h"
#include "core/ns/namespaces.h"
#include "ocispec.h"

/* In the parent, before anything is created: every key namespaced, its namespace present. */
int sysctl_validate (const oci_config *cfg, ocisbx_err **err);
/* In the parent, once PLAN opened the joined namespaces: no key into a joined namespace
   that is the runtime's own (the host's: runc refuses it too); the error names the key
   and the namespace's path. */
int sysctl_validate_joined (const oci_config *cfg, const ns_plan *plan, ocisbx_err **err);
/* In the container (after pivot_root, with the container's /proc).  Keys already holding
   the value are not written again, so a second call is harmless. */
int sysctl_apply (const oci_config *cfg, ocisbx_err **err);

#endif
