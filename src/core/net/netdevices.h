/* linux.netDevices (runtime-spec 1.3, config-linux.md "Network Devices"): host network
 * interfaces moved into the container's network namespace.
 *
 * netdev_validate (create_prepare, nothing touched yet): every entry's host device
 * exists, its names are valid interface names (the container name may end in the
 * kernel's "%d" template), no two entries want the same name, the container has a
 * network namespace that is not the runtime's own, and we have CAP_NET_ADMIN.
 *
 * netdev_move (the parent, once the init's network namespace is final and before the
 * createRuntime hooks: container.c): for each entry, from the host's network namespace,
 * its permanent global addresses are read, the device is moved and renamed in one
 * RTM_NEWLINK (IFLA_NET_NS_FD + IFLA_IFNAME), the addresses are added again (the move
 * drops them) and the device is set up, from a socket of the container's namespace.
 * A name already taken there is an error (not with "%d": the kernel picks a free one).
 *
 * Nothing is undone: the spec forbids moving a device back.  When the network namespace
 * goes away (the container's end, or a failed create), the kernel returns physical
 * devices to the host and destroys virtual ones (veth, macvlan, ...).
 */
#ifndef OCISBX_NETDEVICES_H
#define OCISBX_NETDEVICES_H

#include <sys/types.h>

#include "core/error.h"
#include "core/ns/namespaces.h"
#include "ocispec.h"

int netdev_validate (const oci_linux *lx, const ns_plan *ns, ocisbx_err **err);
/* PIDFD / PID: the init, which waits for us. */
int netdev_move (const oci_linux *lx, int pidfd, pid_t pid, ocisbx_err **err);

#endif
