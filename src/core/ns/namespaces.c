#include <config.h>
#include "core/ns/namespaces.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/syscalls.h"

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif
#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

static void
plan_init (ns_plan *plan)
{
  memset (plan, 0, sizeof *plan);
  for (size_t i = 0; i < NS_MAX; i++)
    plan->joins[i].fd = -1;
}

void
ns_plan_close (ns_plan *plan)
{
  for (size_t i = 0; i < plan->n_joins; i++)
    if (plan->joins[i].fd >= 0)
      close (plan->joins[i].fd);
  plan->n_joins = 0;
}

int
ns_prepare (const oci_linux *lx, ns_plan *plan, ocisbx_err **err)
{
  int seen = 0;

  plan_init (plan);
  if (lx == NULL)
    return 0;
  for (size_t i = 0; i < lx->namespaces_len; i++)
    {
      const oci_namespace *ns = &lx->namespaces[i];
      int flag = ns_flag_of (ns->type);
      int fd, got;

      if (flag == 0)
        return err_set (err, 0, "config.json: .linux.namespaces[%zu].type: unknown namespace \"%s\"", i,
                        ns->type ? ns->type : "");
      if (seen & flag)
        return err_set (err, 0, "config.json: .linux.namespaces[%zu].type: namespace \"%s\" given twice", i,
                        ns->type);
      seen |= flag;
      if (ns->path == NULL || ns->path[0] == '\0')
        {
          plan->new_flags |= flag;
          continue;
        }
      if (ns->path[0] != '/')
        return err_set (err, 0, "config.json: .linux.namespaces[%zu].path: \"%s\" is not an absolute path", i,
                        ns->path);
      fd = open (ns->path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        return err_set (err, errno, "config.json: .linux.namespaces[%zu].path: open `%s`", i, ns->path);
      plan->joins[plan->n_joins].flag = flag;
      plan->joins[plan->n_joins++].fd = fd;
      got = ioctl (fd, NS_GET_NSTYPE);
      if (got < 0)
        return err_set (err, 0, "config.json: .linux.namespaces[%zu].path: `%s` is not a namespace", i, ns->path);
      if (got != flag)
        return err_set (err, 0, "config.json: .linux.namespaces[%zu].path: `%s` is a %s namespace, not %s", i,
                        ns->path, ns_proc_name (got) ? ns_proc_name (got) : "different", ns->type);
      if (flag == CLONE_NEWUSER)
        plan->join_user = true;
    }
  nsjoin_sort (plan->joins, plan->n_joins);
  if (lx->time_offsets_len)
    {
      if (!(plan->new_flags & CLONE_NEWTIME))
        return err_set (err, 0, "config.json: .linux.timeOffsets: needs a new time namespace");
      for (size_t i = 0; i < lx->time_offsets_len; i++)
        if (strcmp (lx->time_offsets[i].key, "monotonic") != 0 && strcmp (lx->time_offsets[i].key, "boottime") != 0)
          return err_set (err, 0, "config.json: .linux.timeOffsets.%s: unknown clock (monotonic or boottime)",
                          lx->time_offsets[i].key);
      plan->time_offsets = lx->time_offsets;
      plan->time_offsets_len = lx->time_offsets_len;
    }
  return 0;
}

bool
ns_plan_joins_own (const ns_plan *plan, int flag)
{
  struct stat joined, own;
  char path[64];

  for (size_t i = 0; i < plan->n_joins; i++)
    {
      if (plan->joins[i].flag != flag)
        continue;
      snprintf (path, sizeof path, "/proc/self/ns/%s", ns_proc_name (flag));
      if (fstat (plan->joins[i].fd, &joined) < 0 || stat (path, &own) < 0)
        return true;
      return joined.st_dev == own.st_dev && joined.st_ino == own.st_ino;
    }
  return false;
}

static int
write_time_offsets (const ns_plan *plan, ocisbx_err **err)
{
  char buf[256];
  size_t len = 0;

  for (size_t i = 0; i < plan->time_offsets_len && len < sizeof buf - 64; i++)
    {
      const oci_time_offset *o = &plan->time_offsets[i];
      len += snprintf (buf + len, sizeof buf - len, "%s %lld %u\n", o->key, (long long) o->secs,
                       (unsigned) o->nanosecs);
    }
  if (len == 0)
    return 0;
  if (write_proc_file ("/proc/self/timens_offsets", buf, len, err) < 0)
    return err_wrap (err, "linux.timeOffsets");
  return 0;
}

static int
save_ns (ns_saved *saved, int flag, ocisbx_err **err)
{
  char path[64];
  int fd;

  snprintf (path, sizeof path, "/proc/self/ns/%s", ns_proc_name (flag));
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "open `%s`", path);
  saved->flags[saved->n] = flag;
  saved->fds[saved->n++] = fd;
  return 0;
}

int
ns_enter_for_clone (const ns_plan *plan, ns_saved *saved, ocisbx_err **err)
{
  memset (saved, 0, sizeof *saved);
  saved->cwd = -1;
  if (!plan->join_user)
    {
      /* ours first, to come back to (ns_leave), then theirs (mount last: nsjoin.h) */
      for (size_t i = 0; i < plan->n_joins; i++)
        {
          if (plan->joins[i].flag == CLONE_NEWNS)
            {
              saved->cwd = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
              if (saved->cwd < 0)
                return err_set (err, errno, "open the current directory");
            }
          if (save_ns (saved, plan->joins[i].flag, err) < 0)
            return -1;
        }
      if (nsjoin_fds (plan->joins, plan->n_joins, 0, err) < 0)
        return -1;
    }
  else
    for (size_t i = 0; i < plan->n_joins; i++)
      if (plan->joins[i].flag == CLONE_NEWPID)
        {
          /* setns(pid) only moves our future children: the child cannot do it itself. */
          if (save_ns (saved, CLONE_NEWPID, err) < 0)
            return -1;
          if (nsjoin_fds (&plan->joins[i], 1, 0, err) < 0)
            return -1;
        }
  if (plan->new_flags & CLONE_NEWTIME)
    {
      bool have = false;
      for (size_t i = 0; i < saved->n; i++)
        have |= saved->flags[i] == CLONE_NEWTIME;
      if (!have && save_ns (saved, CLONE_NEWTIME, err) < 0)
        return -1;
      if (unshare (CLONE_NEWTIME) < 0)
        return err_set (err, errno, "unshare the time namespace");
      if (write_time_offsets (plan, err) < 0)
        return -1;
    }
  return 0;
}

int
ns_enter_mount_of (int pidfd, pid_t pid, ns_saved *saved, ocisbx_err **err)
{
  memset (saved, 0, sizeof *saved);
  saved->cwd = open (".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (saved->cwd < 0)
    return err_set (err, errno, "open the current directory");
  if (save_ns (saved, CLONE_NEWNS, err) == 0 && nsjoin_process (pidfd, -1, pid, CLONE_NEWNS, err) == 0)
    return 0;
  ns_leave (saved, NULL);
  return -1;
}

int
ns_leave (ns_saved *saved, ocisbx_err **err)
{
  int ret = 0;

  /* Back to our own namespaces, the mount namespace last (the others' files are
     already open, so the order does not matter for them). */
  for (size_t i = saved->n; i-- > 0;)
    {
      if (sys->setns (saved->fds[i], saved->flags[i]) < 0 && ret == 0)
        ret = err_set (err, errno, "return to the runtime's %s namespace", ns_proc_name (saved->flags[i]));
      close (saved->fds[i]);
    }
  saved->n = 0;
  if (saved->cwd >= 0)
    {
      if (fchdir (saved->cwd) < 0 && ret == 0)
        ret = err_set (err, errno, "return to the working directory");
      close (saved->cwd);
      saved->cwd = -1;
    }
  return ret;
}

int
ns_clone_flags (const ns_plan *plan)
{
  if (plan->join_user)
    return 0; /* the child joins, then unshares */
  /* cgroup: unshared by the child inside its cgroup; time: see ns_enter_for_clone. */
  return plan->new_flags & ~(CLONE_NEWCGROUP | CLONE_NEWTIME);
}

pid_t
ns_clone (int flags, int cgroup_fd, int *pidfd, ocisbx_err **err)
{
  struct clone_args args;
  pid_t pid;

  memset (&args, 0, sizeof args);
  args.flags = (uint64_t) flags | (pidfd ? CLONE_PIDFD : 0);
  /* clone3 refuses an exit signal with CLONE_PARENT: the child then signals our parent
     as we would (SIGCHLD). */
  args.exit_signal = (flags & CLONE_PARENT) ? 0 : SIGCHLD;
  if (pidfd)
    {
      *pidfd = -1;
      args.pidfd = (uint64_t) (uintptr_t) pidfd;
    }
  if (cgroup_fd >= 0)
    {
      args.flags |= CLONE_INTO_CGROUP;
      args.cgroup = cgroup_fd;
    }
  pid = syscall (SYS_clone3, &args, sizeof args);
  if (pid < 0 && errno == ENOSYS && cgroup_fd < 0)
    {
      /* clone(2): flags, stack, parent_tid, child_tid, tls on x86_64 */
      pid = syscall (SYS_clone, (unsigned long) flags | SIGCHLD, 0, NULL, NULL, 0);
    }
  if (pid < 0)
    return err_set (err, errno, "clone");
  return pid;
}

int
ns_join (const ns_plan *plan, ocisbx_err **err)
{
  int unshare_flags;

  if (!plan->join_user)
    return 0;
  /* not pid: entered by the parent */
  if (nsjoin_fds (plan->joins, plan->n_joins, CLONE_NEWPID, err) < 0)
    return -1;
  unshare_flags = plan->new_flags & ~(CLONE_NEWPID | CLONE_NEWCGROUP | CLONE_NEWTIME | CLONE_NEWUSER);
  if (unshare_flags && unshare (unshare_flags) < 0)
    return err_set (err, errno, "unshare namespaces");
  return 0;
}

static int
write_map (pid_t pid, const char *file, const oci_id_mapping *m, size_t n, ocisbx_err **err)
{
  char path[64];
  cleanup_free char *buf = NULL;
  size_t len = 0, cap = n * 40 + 1;

  if (n == 0)
    return 0;
  buf = xmalloc0 (cap);
  for (size_t i = 0; i < n; i++)
    len += snprintf (buf + len, cap - len, "%u %u %u\n", m[i].container_id, m[i].host_id, m[i].size);
  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
  return write_proc_file (path, buf, len, err);
}

int
ns_write_id_maps (pid_t pid, const oci_id_mapping *uids, size_t n_uids, const oci_id_mapping *gids,
                  size_t n_gids, bool deny_setgroups, ocisbx_err **err)
{
  if (deny_setgroups)
    {
      char path[64];
      snprintf (path, sizeof path, "/proc/%d/setgroups", (int) pid);
      if (write_proc_file (path, "deny", 4, err) < 0)
        return err_wrap (err, "user namespace");
    }
  if (write_map (pid, "uid_map", uids, n_uids, err) < 0)
    return err_wrap (err, "user namespace: linux.uidMappings");
  if (write_map (pid, "gid_map", gids, n_gids, err) < 0)
    return err_wrap (err, "user namespace: linux.gidMappings");
  return 0;
}

int
ns_id_to_host (pid_t pid, const char *file, uint32_t id, uint32_t *host, ocisbx_err **err)
{
  char path[64];
  cleanup_free char *map = NULL;
  const char *p;
  unsigned long inside, outside, count;
  int used = 0;

  snprintf (path, sizeof path, "/proc/%d/%s", (int) pid, file);
  if (read_file_at (AT_FDCWD, path, &map, NULL, err) < 0)
    return -1;
  for (p = map; sscanf (p, " %lu %lu %lu%n", &inside, &outside, &count, &used) == 3; p += used)
    if (id >= inside && id - inside < count)
      {
        *host = (uint32_t) (outside + (id - inside));
        return 1;
      }
  return 0;
}

int
ns_loopback_up (ocisbx_err **err)
{
  struct ifreq ifr;
  cleanup_close int fd = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

  if (fd < 0)
    return err_set (err, errno, "network namespace: socket");
  memset (&ifr, 0, sizeof ifr);
  strcpy (ifr.ifr_name, "lo");
  if (ioctl (fd, SIOCGIFFLAGS, &ifr) < 0)
    return err_set (err, errno, "network namespace: flags of lo");
  if (ifr.ifr_flags & IFF_UP)
    return 0;
  ifr.ifr_flags |= IFF_UP;
  if (ioctl (fd, SIOCSIFFLAGS, &ifr) < 0)
    return err_set (err, errno, "network namespace: bring lo up");
  return 0;
}
