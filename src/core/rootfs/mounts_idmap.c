/* idmapped bind mounts: open_tree (OPEN_TREE_CLONE) of the source, mount_setattr
 * MOUNT_ATTR_IDMAP with the user namespace of a short-lived helper process that
 * carries the mount's uidMappings/gidMappings (or the container's), move_mount onto
 * the destination.  In a user namespace the container cannot idmap a host filesystem:
 * the runtime does it for it (mounts_runtime_source), and opens the bind sources it
 * cannot reach.
 */
#include <config.h>
#include "core/rootfs/mounts.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/rootfs/pathres.h"
#include "core/utils.h"
#include "core/syscalls.h"

#ifndef OPEN_TREE_CLOEXEC
#define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif

static char *
format_map (const oci_id_mapping *m, size_t n)
{
  char *out = xstrdup ("");
  for (size_t i = 0; i < n; i++)
    {
      char *line = xasprintf ("%s%u %u %u\n", out, m[i].container_id, m[i].host_id, m[i].size);
      free (out);
      out = line;
    }
  return out;
}

static void
reap (pid_t pid)
{
  int status;
  kill (pid, SIGKILL);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
}

/* The helper: enter a new user namespace, report its pid as /proc sees it (our
   /proc may belong to an ancestor pid namespace), wait until the pipe closes. */
static void __attribute__ ((noreturn))
helper (int ready, int hold)
{
  char buf[32] = "-";
  ssize_t n;
  char c;

  if (unshare (CLONE_NEWUSER) == 0 && (n = readlink ("/proc/self", buf, sizeof buf - 1)) > 0)
    buf[n] = '\0';
  if (write (ready, buf, strlen (buf)) < 0)
    _exit (1);
  close (ready);
  while (read (hold, &c, 1) < 0 && errno == EINTR)
    ;
  _exit (0);
}

static int
write_maps (const char *procpid, const char *uid_map, const char *gid_map, ocisbx_err **err)
{
  cleanup_free char *u = xasprintf ("/proc/%s/uid_map", procpid);
  cleanup_free char *g = xasprintf ("/proc/%s/gid_map", procpid);
  cleanup_free char *ns = xasprintf ("/proc/%s/ns/user", procpid);
  int fd;

  if (write_proc_file (u, uid_map, strlen (uid_map), err) < 0
      || write_proc_file (g, gid_map, strlen (gid_map), err) < 0)
    return -1;
  fd = open (ns, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "open `%s`", ns);
  return fd;
}

/* A user namespace fd with these mappings. */
static int
userns_with_maps (const oci_id_mapping *uids, size_t nu, const oci_id_mapping *gids, size_t ng,
                  ocisbx_err **err)
{
  cleanup_free char *uid_map = format_map (uids, nu);
  cleanup_free char *gid_map = format_map (gids, ng);
  cleanup_close int ready_r = -1, ready_w = -1, hold_r = -1, hold_w = -1;
  int p[2];
  char procpid[32];
  ssize_t n;
  pid_t pid;
  int fd;

  if (pipe2 (p, O_CLOEXEC) < 0)
    return err_set (err, errno, "pipe");
  ready_r = p[0], ready_w = p[1];
  if (pipe2 (p, O_CLOEXEC) < 0)
    return err_set (err, errno, "pipe");
  hold_r = p[0], hold_w = p[1];
  pid = fork ();
  if (pid < 0)
    return err_set (err, errno, "fork");
  if (pid == 0)
    {
      close (ready_r);
      close (hold_w);
      helper (ready_w, hold_r);
    }
  close (steal_fd (&ready_w));
  close (steal_fd (&hold_r));
  n = read (ready_r, procpid, sizeof procpid - 1);
  if (n <= 0 || procpid[0] == '-')
    {
      reap (pid);
      return err_set (err, EPERM, "idmapped mount: cannot create a user namespace");
    }
  procpid[n] = '\0';
  fd = write_maps (procpid, uid_map, gid_map, err);
  close (steal_fd (&hold_w));
  reap (pid);
  if (fd < 0)
    return err_wrap (err, "idmapped mount user namespace");
  return fd;
}

/* A detached copy of SRCFD's tree, idmapped: what M asks for.  Needs CAP_SYS_ADMIN in
   the initial user namespace. */
static int
idmapped_tree (const oci_config *cfg, const oci_mount *m, const mount_opts *o, int srcfd, ocisbx_err **err)
{
  const oci_linux *lx = cfg->linux_;
  const oci_id_mapping *uids = m->uid_mappings, *gids = m->gid_mappings;
  size_t nu = m->uid_mappings_len, ng = m->gid_mappings_len;
  bool recursive_tree = (o->flags & MS_REC) != 0;
  sys_mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP };
  cleanup_close int userns = -1;
  cleanup_close int tree = -1;

  if (nu == 0 && lx)
    uids = lx->uid_mappings, nu = lx->uid_mappings_len;
  if (ng == 0 && lx)
    gids = lx->gid_mappings, ng = lx->gid_mappings_len;
  if (nu == 0 || ng == 0)
    return err_set (err, EINVAL, "idmapped mount `%s`: no uidMappings/gidMappings", m->destination);

  userns = userns_with_maps (uids, nu, gids, ng, err);
  if (userns < 0)
    return -1;
  tree = sys->open_tree (srcfd, "",
                        OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH
                            | (recursive_tree ? AT_RECURSIVE : 0));
  if (tree < 0)
    return err_set (err, errno, "open_tree `%s`", m->source);
  attr.userns_fd = (uint64_t) userns;
  if (sys->mount_setattr (tree, "", AT_EMPTY_PATH | (o->ridmap ? AT_RECURSIVE : 0), &attr) < 0)
    return err_set (err, errno, "idmap mount `%s`", m->destination);
  return steal_fd (&tree);
}

bool
mount_wants_idmap (const oci_mount *m)
{
  if (m->uid_mappings_len || m->gid_mappings_len)
    return true;
  for (size_t i = 0; i < m->options_len; i++)
    if (strcmp (m->options[i], "idmap") == 0 || strcmp (m->options[i], "ridmap") == 0)
      return true;
  return false;
}

int
mounts_runtime_source (const rootfs_ctx *ctx, size_t index, int child_fd, ocisbx_err **err)
{
  const oci_config *cfg = ctx->cfg;
  const char *bundle = ctx->bundle, *rootfs = ctx->rootfs;
  const oci_mount *m = index < cfg->mounts_len ? &cfg->mounts[index] : NULL;
  mount_opts o;
  cleanup_free char *path = NULL;
  cleanup_close int own = -1;
  int tree;

  if (m == NULL || !mount_is_bind (m) || m->source == NULL || m->source[0] == '\0')
    return err_set (err, EPROTO, "mounts[%zu]: a source asked for, but not a bind mount", index);
  if (child_fd < 0)
    {
      /* as the child opens bind sources (mounts.c): relative ones are under the bundle */
      cleanup_free char *clean = NULL;
      path = m->source[0] == '/' || bundle == NULL ? xstrdup (m->source)
                                                   : xasprintf ("%s/%s", bundle, m->source);
      clean = pathres_clean (path);
      if (pathres_under (rootfs, clean)) /* the container's own files are its to open */
        return err_set (err, EACCES, "mounts[%zu]: open mount source `%s`", index, path);
      own = open (path, O_PATH | O_CLOEXEC);
      if (own < 0)
        return err_set (err, errno, "mounts[%zu]: open mount source `%s`", index, path);
      if (!mount_wants_idmap (m))
        return steal_fd (&own);
      child_fd = own;
    }
  o = ctx->mount_opts[index]; /* the plan's, its data borrowed */
  o.flags |= MS_BIND;
  tree = idmapped_tree (cfg, m, &o, child_fd, err);
  if (tree < 0)
    return err_wrap (err, "mounts[%zu]", index);
  return tree;
}

int
mount_idmapped (const rootfs_ctx *ctx, const oci_mount *m, const mount_opts *o, int srcfd,
                int dstfd, ocisbx_err **err)
{
  size_t index = (size_t) (m - ctx->cfg->mounts);
  cleanup_close int tree = -1;

  /* Idmapping a host filesystem takes CAP_SYS_ADMIN in the initial user namespace: in
     its own user namespace the container asks the runtime, when it lends its. */
  if (!ctx->userns)
    tree = idmapped_tree (ctx->cfg, m, o, srcfd, err);
  else if (ctx->runtime_source)
    tree = ctx->runtime_source (ctx->runtime_source_arg, index, srcfd, err);
  else
    return err_setk (err, ERR_UNSUPPORTED, ENOTSUP,
                     "idmapped mount `%s`: not supported with a user namespace here", m->destination);
  if (tree < 0)
    return -1;
  if (sys->move_mount (tree, "", dstfd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
    return err_set (err, errno, "attach idmapped mount `%s`", m->destination);
  return 0;
}
