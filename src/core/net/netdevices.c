/* linux.netDevices: host interfaces moved into the container's network namespace
   (netdevices.h). */
#include <config.h>
#include "core/net/netdevices.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/net/netlink.h"
#include "core/ns/rootless_user.h"
#include "core/syscalls.h"
#include "core/utils.h"

#define FIELD "config.json: .linux.netDevices"

/* The address flags a user may set (RTM_NEWADDR); the rest are the kernel's state. */
#define ADDR_FLAGS_KEPT                                                                           \
  (IFA_F_NODAD | IFA_F_HOMEADDRESS | IFA_F_MANAGETEMPADDR | IFA_F_NOPREFIXROUTE | IFA_F_MCAUTOJOIN)

static const char *
target_name (const oci_net_device *d)
{
  return d->name && d->name[0] ? d->name : d->key;
}

/* The kernel's dev_valid_name; with TEMPLATE one "%d" is allowed (dev_alloc_name). */
static bool
valid_ifname (const char *name, bool template)
{
  const char *pct = strchr (name, '%');

  if (name[0] == '\0' || strnlen (name, IFNAMSIZ) == IFNAMSIZ || strcmp (name, ".") == 0
      || strcmp (name, "..") == 0)
    return false;
  for (const char *p = name; *p; p++)
    if (*p == '/' || *p == ':' || isspace ((unsigned char) *p))
      return false;
  if (pct == NULL)
    return true;
  return template && pct[1] == 'd' && strchr (pct + 2, '%') == NULL;
}

static bool
is_template (const char *name)
{
  return strchr (name, '%') != NULL;
}

/* The container's network namespace: a new one, or one joined that is not ours. */
static int
check_netns (const ns_plan *ns, ocisbx_err **err)
{
  struct stat own, joined;

  if (ns->new_flags & CLONE_NEWNET)
    return 0;
  for (size_t i = 0; i < ns->n_joins; i++)
    {
      if (ns->joins[i].flag != CLONE_NEWNET)
        continue;
      if (stat ("/proc/self/ns/net", &own) < 0 || fstat (ns->joins[i].fd, &joined) < 0)
        return err_set (err, errno, FIELD ": stat the network namespaces");
      if (own.st_dev == joined.st_dev && own.st_ino == joined.st_ino)
        return err_set (err, 0, FIELD ": the network namespace the container joins is the runtime's own: "
                                "its devices would stay on the host");
      return 0;
    }
  return err_set (err, 0, FIELD ": the container has no network namespace of its own (no \"network\" in "
                          ".linux.namespaces): its devices would stay on the host");
}

int
netdev_validate (const oci_linux *lx, const ns_plan *ns, ocisbx_err **err)
{
  if (lx == NULL || lx->net_devices_len == 0)
    return 0;
  for (size_t i = 0; i < lx->net_devices_len; i++)
    {
      const oci_net_device *d = &lx->net_devices[i];
      const char *to = target_name (d);

      if (!valid_ifname (d->key, false))
        return err_set (err, 0, FIELD ": `%s`: not a valid interface name", d->key);
      if (!valid_ifname (to, true))
        return err_set (err, 0, FIELD ".%s.name: `%s`: not a valid interface name (at most %d bytes, no '/', "
                                "':' or space; one \"%%d\" for the kernel to number it)",
                        d->key, to, IFNAMSIZ - 1);
      for (size_t j = 0; j < i && !is_template (to); j++)
        if (strcmp (to, target_name (&lx->net_devices[j])) == 0)
          return err_set (err, 0, FIELD ".%s: `%s` is also the container's name of `%s`", d->key, to,
                          lx->net_devices[j].key);
    }
  if (check_netns (ns, err) < 0)
    return -1;
  if (!rootless_has_cap (CAP_NET_ADMIN))
    return err_set (err, EPERM, FIELD ": moving a network device needs CAP_NET_ADMIN");
  for (size_t i = 0; i < lx->net_devices_len; i++)
    if (if_nametoindex (lx->net_devices[i].key) == 0)
      return err_set (err, errno == ENXIO ? ENODEV : errno, FIELD ".%s: no such network device on the host",
                      lx->net_devices[i].key);
  return 0;
}

/* ---- moving ---- */

typedef struct netdev_addr
{
  struct ifaddrmsg ifa;
  uint32_t flags;
  unsigned char local[16], address[16], broadcast[16];
  unsigned char local_len, address_len, broadcast_len;
} netdev_addr;

typedef struct addr_list
{
  int index;
  netdev_addr *v;
  size_t n;
} addr_list;

static void
addr_list_free (addr_list *l)
{
  free (l->v);
}

static unsigned char
copy_attr (const struct nlmsghdr *h, unsigned short type, unsigned char *to)
{
  const struct rtattr *a = nl_attr (h, sizeof (struct ifaddrmsg), type);
  size_t len = a ? RTA_PAYLOAD (a) : 0;

  if (len == 0 || len > 16)
    return 0;
  memcpy (to, RTA_DATA (a), len);
  return (unsigned char) len;
}

/* RTM_GETADDR's dump: the permanent global addresses of L->index (the spec's RFC 3549
   IFA_F_PERMANENT and RT_SCOPE_UNIVERSE). */
static void
collect_addr (const struct nlmsghdr *h, void *arg)
{
  addr_list *l = arg;
  const struct ifaddrmsg *ifa = NLMSG_DATA (h);
  const struct rtattr *fl;
  netdev_addr a = { .ifa = *ifa };
  netdev_addr *nv;

  if (h->nlmsg_type != RTM_NEWADDR || h->nlmsg_len < NLMSG_LENGTH (sizeof *ifa)
      || (int) ifa->ifa_index != l->index || ifa->ifa_scope != RT_SCOPE_UNIVERSE)
    return;
  fl = nl_attr (h, sizeof *ifa, IFA_FLAGS);
  a.flags = fl && RTA_PAYLOAD (fl) >= 4 ? *(const uint32_t *) RTA_DATA (fl) : ifa->ifa_flags;
  if (!(a.flags & IFA_F_PERMANENT))
    return;
  a.local_len = copy_attr (h, IFA_LOCAL, a.local);
  a.address_len = copy_attr (h, IFA_ADDRESS, a.address);
  a.broadcast_len = copy_attr (h, IFA_BROADCAST, a.broadcast);
  nv = realloc (l->v, (l->n + 1) * sizeof *nv);
  if (nv == NULL)
    abort ();
  nv[l->n++] = a;
  l->v = nv;
}

static void
link_index_of (const struct nlmsghdr *h, void *arg)
{
  const struct ifinfomsg *ifi = NLMSG_DATA (h);

  if (h->nlmsg_type == RTM_NEWLINK && h->nlmsg_len >= NLMSG_LENGTH (sizeof *ifi))
    *(int *) arg = ifi->ifi_index;
}

/* *INDEX: the device NAME (or, NAME NULL, of index *INDEX) of FD's namespace, or 0 when
   there is none. */
static int
link_lookup (int fd, const char *name, int *index, const char *what, ocisbx_err **err)
{
  struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = name ? 0 : *index };
  nl_msg m;
  ocisbx_err *e = NULL;

  nl_msg_init (&m, RTM_GETLINK, 0, &ifi, sizeof ifi);
  if (name)
    nl_msg_put (&m, IFLA_IFNAME, name, strlen (name) + 1);
  *index = 0;
  if (nl_talk (fd, &m, link_index_of, index, what, &e) == 0)
    return 0;
  if (e->errnum == ENODEV)
    {
      err_free (e);
      *index = 0;
      return 0;
    }
  *err = e;
  return -1;
}

static int
add_addresses (int fd, const addr_list *l, int index, const char *key, ocisbx_err **err)
{
  for (size_t i = 0; i < l->n; i++)
    {
      const netdev_addr *a = &l->v[i];
      struct ifaddrmsg ifa = a->ifa;
      uint32_t flags = a->flags & ADDR_FLAGS_KEPT;
      nl_msg m;

      ifa.ifa_index = (unsigned) index;
      ifa.ifa_flags = (unsigned char) flags;
      nl_msg_init (&m, RTM_NEWADDR, NLM_F_CREATE | NLM_F_REPLACE, &ifa, sizeof ifa);
      nl_msg_put (&m, IFA_FLAGS, &flags, sizeof flags);
      if (a->local_len)
        nl_msg_put (&m, IFA_LOCAL, a->local, a->local_len);
      if (a->address_len)
        nl_msg_put (&m, IFA_ADDRESS, a->address, a->address_len);
      if (a->broadcast_len)
        nl_msg_put (&m, IFA_BROADCAST, a->broadcast, a->broadcast_len);
      if (nl_talk (fd, &m, NULL, NULL, "add an address", err) < 0)
        return err_wrap (err, FIELD ".%s", key);
    }
  return 0;
}

static int
set_up (int fd, int index, const char *key, ocisbx_err **err)
{
  struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index, .ifi_flags = IFF_UP, .ifi_change = IFF_UP };
  nl_msg m;

  nl_msg_init (&m, RTM_NEWLINK, 0, &ifi, sizeof ifi);
  if (nl_talk (fd, &m, NULL, NULL, "set the device up", err) < 0)
    return err_wrap (err, FIELD ".%s", key);
  return 0;
}

/* The device INDEX of HOST's namespace moved into NETNS as TO (IFLA_IFNAME in the same
   request: the kernel numbers a "%d" there), its ADDRS added again, set up. */
static int
move_and_set_up (int host, int ctr, int netns, const oci_net_device *d, int index, const addr_list *addrs,
                 ocisbx_err **err)
{
  const char *to = target_name (d);
  struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = index };
  uint32_t nsfd = (uint32_t) netns;
  nl_msg m;

  nl_msg_init (&m, RTM_NEWLINK, 0, &ifi, sizeof ifi);
  nl_msg_put (&m, IFLA_NET_NS_FD, &nsfd, sizeof nsfd);
  nl_msg_put (&m, IFLA_IFNAME, to, strlen (to) + 1);
  if (nl_talk (host, &m, NULL, NULL, "move the device into the container's network namespace", err) < 0)
    return err_wrap (err, FIELD ".%s", d->key);
  /* with "%d" the index was checked free there: the kernel kept it */
  if (!is_template (to) && link_lookup (ctr, to, &index, "find the moved device", err) < 0)
    return err_wrap (err, FIELD ".%s", d->key);
  if (index == 0)
    return err_set (err, ENODEV, FIELD ".%s: `%s` is not in the container's network namespace after the move",
                    d->key, to);
  if (add_addresses (ctr, addrs, index, d->key, err) < 0)
    return -1;
  return set_up (ctr, index, d->key, err);
}

/* One entry: HOST and CTR, rtnetlink sockets of either namespace, NETNS the container's. */
static int
move_one (int host, int ctr, int netns, const oci_net_device *d, ocisbx_err **err)
{
  const char *to = target_name (d);
  struct ifaddrmsg ifa = { .ifa_family = AF_UNSPEC };
  __attribute__ ((cleanup (addr_list_free))) addr_list addrs = { 0 };
  int index = 0, taken = 0;
  nl_msg m;

  if (link_lookup (host, d->key, &index, "find the device", err) < 0)
    return err_wrap (err, FIELD ".%s", d->key);
  if (index == 0)
    return err_set (err, ENODEV, FIELD ".%s: no such network device on the host", d->key);
  /* what the container's namespace has: a taken name is an error, unless the kernel
     numbers it; with "%d" the device is found again by its index, which must be free */
  if (is_template (to))
    taken = index;
  if (link_lookup (ctr, is_template (to) ? NULL : to, &taken, "look into the container", err) < 0)
    return err_wrap (err, FIELD ".%s", d->key);
  if (taken && !is_template (to))
    return err_set (err, EEXIST, FIELD ".%s: `%s` exists in the container's network namespace", d->key, to);
  if (taken)
    return err_set (err, EEXIST, FIELD ".%s: the device's index %d is taken in the container's network namespace",
                    d->key, index);

  /* the move drops the addresses: the spec keeps the permanent global ones */
  addrs.index = index;
  nl_msg_init (&m, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof ifa);
  if (nl_talk (host, &m, collect_addr, &addrs, "list the addresses", err) < 0)
    return err_wrap (err, FIELD ".%s", d->key);
  return move_and_set_up (host, ctr, netns, d, index, &addrs, err);
}

/* A socket of the network namespace NETNS: made there, used from here. */
static int
socket_in (int netns, ocisbx_err **err)
{
  cleanup_close int own = open ("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  int fd;

  if (own < 0)
    return err_set (err, errno, FIELD ": open the runtime's network namespace");
  if (sys->setns (netns, CLONE_NEWNET) < 0)
    return err_set (err, errno, FIELD ": enter the container's network namespace");
  fd = nl_socket (err);
  if (sys->setns (own, CLONE_NEWNET) < 0)
    abort (); /* the runtime is not where it must be: nothing it does next is safe */
  return fd;
}

int
netdev_move (const oci_linux *lx, int pidfd, pid_t pid, ocisbx_err **err)
{
  cleanup_close int netns = -1, host = -1, ctr = -1;
  char path[64];

  if (lx == NULL || lx->net_devices_len == 0)
    return 0;
  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) pid);
  netns = open (path, O_RDONLY | O_CLOEXEC);
  if (netns < 0)
    return err_set (err, errno, FIELD ": open `%s`", path);
  /* the init waits for us: its pid cannot have been reused unless it died */
  if (pidfd >= 0 && syscall (SYS_pidfd_send_signal, pidfd, 0, NULL, 0) < 0)
    return err_set (err, errno, FIELD ": the container's init is gone");
  host = nl_socket (err);
  if (host < 0)
    return err_wrap (err, FIELD);
  ctr = socket_in (netns, err);
  if (ctr < 0)
    return err_wrap (err, FIELD);
  for (size_t i = 0; i < lx->net_devices_len; i++)
    if (move_one (host, ctr, netns, &lx->net_devices[i], err) < 0)
      return -1;
  return 0;
}
