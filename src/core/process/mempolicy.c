/* linux.memoryPolicy: the init's NUMA policy (mempolicy.h). */
#include <config.h>
#include "core/process/mempolicy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FIELD "config.json: .linux.memoryPolicy"

/* <linux/mempolicy.h>'s values, for older headers */
enum
{
  MP_DEFAULT = 0,
  MP_PREFERRED = 1,
  MP_BIND = 2,
  MP_INTERLEAVE = 3,
  MP_LOCAL = 4,
  MP_PREFERRED_MANY = 5,
  MP_WEIGHTED_INTERLEAVE = 6,
  MP_F_NUMA_BALANCING = 1 << 13,
  MP_F_RELATIVE_NODES = 1 << 14,
  MP_F_STATIC_NODES = 1 << 15,
};

/* each with its value at the same index */
const char *const mempolicy_mode_names[] = {
  "MPOL_DEFAULT", "MPOL_PREFERRED", "MPOL_BIND", "MPOL_INTERLEAVE", "MPOL_LOCAL", "MPOL_PREFERRED_MANY",
  "MPOL_WEIGHTED_INTERLEAVE", NULL,
};
const char *const mempolicy_flag_names[] = { "MPOL_F_NUMA_BALANCING", "MPOL_F_RELATIVE_NODES", "MPOL_F_STATIC_NODES",
                                             NULL };
static const int flag_values[] = { MP_F_NUMA_BALANCING, MP_F_RELATIVE_NODES, MP_F_STATIC_NODES };

#define BITS_PER_LONG (8 * sizeof (unsigned long))

static int
name_index (const char *const *names, const char *name)
{
  for (int i = 0; names[i]; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  return -1;
}

static int
add_node (mempolicy_plan *p, unsigned long n, const char *node_dir, bool check, ocisbx_err **err)
{
  char path[4096];
  struct stat st;

  if (n >= MEMPOLICY_MAX_NODES)
    return err_set (err, 0, FIELD ".nodes: node %lu: beyond %d", n, MEMPOLICY_MAX_NODES - 1);
  snprintf (path, sizeof path, "%s/node%lu", node_dir, n);
  if (check && stat (path, &st) < 0)
    return err_set (err, 0, FIELD ".nodes: node %lu does not exist (no `%s`)", n, path);
  p->nodes[n / BITS_PER_LONG] |= 1UL << (n % BITS_PER_LONG);
  p->any_node = true;
  return 0;
}

static int
parse_number (const char **s, unsigned long *v, const char *nodes, ocisbx_err **err)
{
  char *end;

  if (**s < '0' || **s > '9')
    return err_set (err, 0, FIELD ".nodes: `%s`: want a list like \"0-3,7\"", nodes);
  errno = 0;
  *v = strtoul (*s, &end, 10);
  if (errno)
    return err_set (err, 0, FIELD ".nodes: `%s`: a node number out of range", nodes);
  *s = end;
  return 0;
}

/* "0-3,7": comma-separated numbers and ranges. */
static int
parse_nodes (const char *nodes, const char *node_dir, bool check, mempolicy_plan *p, ocisbx_err **err)
{
  const char *s = nodes;

  while (*s)
    {
      unsigned long a, b;
      if (parse_number (&s, &a, nodes, err) < 0)
        return -1;
      b = a;
      if (*s == '-')
        {
          s++;
          if (parse_number (&s, &b, nodes, err) < 0)
            return -1;
          if (b < a)
            return err_set (err, 0, FIELD ".nodes: `%s`: range %lu-%lu goes down", nodes, a, b);
        }
      if (b >= MEMPOLICY_MAX_NODES)
        return err_set (err, 0, FIELD ".nodes: node %lu: beyond %d", b, MEMPOLICY_MAX_NODES - 1);
      for (unsigned long n = a; n <= b; n++)
        if (add_node (p, n, node_dir, check, err) < 0)
          return -1;
      if (*s == ',' && s[1] != '\0')
        s++;
      else if (*s)
        return err_set (err, 0, FIELD ".nodes: `%s`: want a list like \"0-3,7\"", nodes);
    }
  return 0;
}

/* What set_mempolicy(2) refuses (mm/mempolicy.c: sanitize_mpol_flags, mpol_new), said
   before anything is created. */
static int
check_combination (const oci_memory_policy *mp, int mode, int flags, bool any_node, ocisbx_err **err)
{
  if ((flags & MP_F_STATIC_NODES) && (flags & MP_F_RELATIVE_NODES))
    return err_set (err, 0, FIELD ".flags: MPOL_F_STATIC_NODES and MPOL_F_RELATIVE_NODES exclude each other");
  if ((flags & MP_F_NUMA_BALANCING) && mode != MP_BIND && mode != MP_PREFERRED_MANY)
    return err_set (err, 0, FIELD ".flags: MPOL_F_NUMA_BALANCING goes with MPOL_BIND or MPOL_PREFERRED_MANY, not %s",
                    mp->mode);
  switch (mode)
    {
    case MP_DEFAULT:
    case MP_LOCAL:
      if (any_node)
        return err_set (err, 0, FIELD ".nodes: %s takes no nodes", mp->mode);
      if (flags & (MP_F_STATIC_NODES | MP_F_RELATIVE_NODES))
        return err_set (err, 0, FIELD ".flags: %s takes no node flags", mp->mode);
      break;
    case MP_PREFERRED: /* without nodes: local allocation, then no node flags */
      if (!any_node && (flags & (MP_F_STATIC_NODES | MP_F_RELATIVE_NODES)))
        return err_set (err, 0, FIELD ".flags: %s without nodes takes no node flags", mp->mode);
      break;
    default:
      if (!any_node)
        return err_set (err, 0, FIELD ".nodes: %s needs at least one node", mp->mode);
    }
  return 0;
}

int
mempolicy_prepare (const oci_memory_policy *mp, const char *node_dir, mempolicy_plan *plan, ocisbx_err **err)
{
  int mode, flags = 0;

  memset (plan, 0, sizeof *plan);
  if (mp == NULL)
    return 0;
  if (mp->mode == NULL)
    return err_set (err, 0, FIELD ".mode: required");
  mode = name_index (mempolicy_mode_names, mp->mode);
  if (mode < 0)
    return err_set (err, 0, FIELD ".mode: unknown mode `%s`", mp->mode);
  for (size_t i = 0; i < mp->flags_len; i++)
    {
      int f = name_index (mempolicy_flag_names, mp->flags[i]);
      if (f < 0)
        return err_set (err, 0, FIELD ".flags[%zu]: unknown flag `%s`", i, mp->flags[i]);
      flags |= flag_values[f];
    }
  if (mp->nodes && parse_nodes (mp->nodes, node_dir, !(flags & MP_F_RELATIVE_NODES), plan, err) < 0)
    return -1;
  if (check_combination (mp, mode, flags, plan->any_node, err) < 0)
    return -1;
  plan->mode = mode | flags;
  plan->set = true;
  return 0;
}

int
mempolicy_apply (const mempolicy_plan *plan, ocisbx_err **err)
{
  /* the kernel reads maxnode - 1 bits */
  unsigned long maxnode = plan->any_node ? MEMPOLICY_MAX_NODES + 1 : 0;

  if (!plan->set)
    return 0;
  if (syscall (SYS_set_mempolicy, plan->mode, plan->any_node ? plan->nodes : NULL, maxnode) < 0)
    return err_set (err, errno, FIELD ": set_mempolicy");
  return 0;
}
