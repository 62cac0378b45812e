/* Joining namespaces: the order and the two ways in (nsjoin.h). */
#include <config.h>
#include "core/ns/nsjoin.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/syscalls.h"

static const struct
{
  const char *type; /* the OCI name */
  const char *proc; /* the /proc/PID/ns name */
  int flag;
} ns_table[NS_MAX] = {
  /* the order of joining: user first, mount last (nsjoin.h) */
  { "user", "user", CLONE_NEWUSER },
  { "ipc", "ipc", CLONE_NEWIPC },
  { "uts", "uts", CLONE_NEWUTS },
  { "network", "net", CLONE_NEWNET },
  { "pid", "pid", CLONE_NEWPID },
  { "cgroup", "cgroup", CLONE_NEWCGROUP },
  { "time", "time", CLONE_NEWTIME },
  { "mount", "mnt", CLONE_NEWNS },
};

int
nsjoin_kind (size_t i)
{
  return i < NS_MAX ? ns_table[i].flag : 0;
}

int
ns_flag_of (const char *type)
{
  for (size_t i = 0; type && i < NS_MAX; i++)
    if (strcmp (ns_table[i].type, type) == 0)
      return ns_table[i].flag;
  return 0;
}

const char *
ns_proc_name (int flag)
{
  for (size_t i = 0; i < NS_MAX; i++)
    if (ns_table[i].flag == flag)
      return ns_table[i].proc;
  return NULL;
}

static size_t
nsjoin_rank (int flag)
{
  for (size_t i = 0; i < NS_MAX; i++)
    if (ns_table[i].flag == flag)
      return i;
  return NS_MAX;
}

void
nsjoin_sort (ns_join_entry *e, size_t n)
{
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && nsjoin_rank (e[j].flag) < nsjoin_rank (e[j - 1].flag); j--)
      {
        ns_join_entry t = e[j];
        e[j] = e[j - 1];
        e[j - 1] = t;
      }
}

int
nsjoin_fds (const ns_join_entry *e, size_t n, int skip, ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    if (!(e[i].flag & skip) && sys->setns (e[i].fd, e[i].flag) < 0)
      return err_set (err, errno, "setns %s namespace", ns_proc_name (e[i].flag));
  return 0;
}

/* The files of FLAGS in /proc/PID/ns (PROCFD: /proc/PID, or -1), in the order, all
   opened before the first is joined. */
static int
nsjoin_files (int procfd, pid_t pid, int flags, ocisbx_err **err)
{
  ns_join_entry e[NS_MAX];
  size_t n = 0;
  int ret = 0;

  for (size_t i = 0; i < NS_MAX && ret == 0; i++)
    {
      char path[64];
      int fd;

      if (!(flags & ns_table[i].flag))
        continue;
      if (procfd >= 0)
        {
          snprintf (path, sizeof path, "ns/%s", ns_table[i].proc);
          fd = openat (procfd, path, O_RDONLY | O_CLOEXEC);
        }
      else
        {
          snprintf (path, sizeof path, "/proc/%d/ns/%s", (int) pid, ns_table[i].proc);
          fd = open (path, O_RDONLY | O_CLOEXEC);
        }
      if (fd < 0)
        ret = err_set (err, errno, "open /proc/%d/ns/%s", (int) pid, ns_table[i].proc);
      else
        e[n++] = (ns_join_entry){ .flag = ns_table[i].flag, .fd = fd };
    }
  if (ret == 0)
    ret = nsjoin_fds (e, n, 0, err);
  for (size_t i = 0; i < n; i++)
    close (e[i].fd);
  return ret;
}

int
nsjoin_process (int pidfd, int procfd, pid_t pid, int flags, ocisbx_err **err)
{
  if (flags == 0)
    return 0;
  if (pidfd >= 0)
    {
      if (sys->setns (pidfd, flags) == 0)
        return 0;
      /* before Linux 5.8 setns takes no pidfd */
      if (errno != EINVAL && errno != EBADF)
        return err_set (err, errno, "join the namespaces of process %d (setns on its pidfd)", (int) pid);
    }
  return nsjoin_files (procfd, pid, flags, err);
}
