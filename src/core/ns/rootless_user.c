/* Rootless: the default state root, the detection of --rootless auto, and the id maps
   of an unprivileged caller (see rootless_user.h). */
#include <config.h>
#include "core/ns/rootless_user.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/log.h"
#include "core/ns/namespaces.h"
#include "core/utils.h"

#define SUBUID_FILE "/etc/subuid"
#define SUBGID_FILE "/etc/subgid"

/* ---- who we are ---- */

bool
rootless_in_userns (void)
{
  cleanup_free char *map = NULL;
  unsigned long a, b, c;
  int used = 0;

  if (read_file_at (AT_FDCWD, "/proc/self/uid_map", &map, NULL, NULL) < 0)
    return false;
  if (sscanf (map, " %lu %lu %lu %n", &a, &b, &c, &used) != 3)
    return true;
  return !(a == 0 && b == 0 && c == 4294967295UL && map[used] == '\0');
}

bool
rootless_auto (void)
{
  return geteuid () != 0 || rootless_in_userns ();
}

bool
rootless_has_cap (int cap)
{
  struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
  struct __user_cap_data_struct d[2];

  memset (d, 0, sizeof d);
  if (cap < 0 || cap >= 64 || syscall (SYS_capget, &h, d) < 0)
    return false;
  return (d[cap / 32].effective & (1U << (cap % 32))) != 0;
}

/* ---- the default --root ---- */

/* DIR exists (made 0700 if missing), is a directory owned by us, and not a symlink. */
static int
private_dir (const char *dir, ocisbx_err **err)
{
  cleanup_close int fd = -1;
  struct stat st;

  if (mkdir (dir, 0700) < 0 && errno != EEXIST)
    return err_set (err, errno, "state root: mkdir `%s`", dir);
  fd = open (dir, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "state root: open `%s`", dir);
  if (fstat (fd, &st) < 0)
    return err_set (err, errno, "state root: stat `%s`", dir);
  if (S_ISLNK (st.st_mode) || !S_ISDIR (st.st_mode) || st.st_uid != geteuid ())
    return err_set (err, EPERM,
                    "state root `%s` is not a directory owned by uid %u (someone else made it?): refusing it; "
                    "pass --root or set XDG_RUNTIME_DIR",
                    dir, (unsigned) geteuid ());
  if (st.st_mode & 022)
    return err_set (err, EPERM, "state root `%s` is writable by others (mode %04o): refusing it", dir,
                    (unsigned) (st.st_mode & 07777));
  return 0;
}

static bool
owned_dir (const char *dir)
{
  struct stat st;
  return dir && dir[0] == '/' && lstat (dir, &st) == 0 && S_ISDIR (st.st_mode) && st.st_uid == geteuid ();
}

int
rootless_default_root (const char *xdg, const char *tmp, char **out, ocisbx_err **err)
{
  cleanup_free char *dir = NULL;

  *out = NULL;
  if (geteuid () == 0)
    {
      /* The real root keeps /run/ocisbx (its XDG_RUNTIME_DIR, /run/user/0, is no place
         for it); root of a user namespace (rootless podman runs us so) takes
         $XDG_RUNTIME_DIR/ocisbx unless it calls itself root, as runc does. */
      const char *user = getenv ("USER");
      if (!rootless_in_userns () || xdg == NULL || xdg[0] == '\0' || (user && strcmp (user, "root") == 0))
        return 0;
    }
  if (xdg && xdg[0])
    {
      if (owned_dir (xdg))
        dir = xasprintf ("%s/ocisbx", xdg);
      else
        log_debug ("XDG_RUNTIME_DIR `%s` is not a directory of ours: state under %s", xdg, tmp);
    }
  if (dir == NULL)
    dir = xasprintf ("%s/ocisbx-%u", tmp, (unsigned) geteuid ());
  if (private_dir (dir, err) < 0)
    return -1;
  *out = steal_ptr (&dir);
  return 0;
}

/* ---- /etc/subuid, /etc/subgid ---- */

typedef struct subid_range
{
  unsigned long start, count;
} subid_range;

/* The ranges of USER (or of the number OWN_ID as text) in FILE. */
static int
read_subids (const char *file, const char *user, unsigned own_id, subid_range **out, size_t *n,
             ocisbx_err **err)
{
  cleanup_fclose FILE *f = fopen (file, "re");
  cleanup_free char *line = NULL;
  char num[16];
  size_t cap = 0;

  *out = NULL;
  *n = 0;
  if (f == NULL)
    {
      if (errno == ENOENT)
        return 0;
      return err_set (err, errno, "open `%s`", file);
    }
  snprintf (num, sizeof num, "%u", own_id);
  while (getline (&line, &cap, f) > 0)
    {
      char *colon = strchr (line, ':'), *end;
      unsigned long start, count;

      if (line[0] == '#' || colon == NULL)
        continue;
      *colon = '\0';
      if (strcmp (line, num) != 0 && (user == NULL || strcmp (line, user) != 0))
        continue;
      start = strtoul (colon + 1, &end, 10);
      if (*end != ':')
        continue;
      count = strtoul (end + 1, &end, 10);
      if (count == 0)
        continue;
      *out = realloc (*out, (*n + 1) * sizeof **out);
      if (*out == NULL)
        abort ();
      (*out)[(*n)++] = (subid_range){ start, count };
    }
  return 0;
}

/* [START, START+COUNT) is covered by the union of R. */
static bool
covered (const subid_range *r, size_t n, unsigned long long start, unsigned long long count)
{
  unsigned long long end = start + count;

  while (start < end)
    {
      bool found = false;
      for (size_t i = 0; i < n && !found; i++)
        if (start >= r[i].start && start < (unsigned long long) r[i].start + r[i].count)
          {
            start = (unsigned long long) r[i].start + r[i].count;
            found = true;
          }
      if (!found)
        return false;
    }
  return true;
}

int
idmap_check_subids (const char *subid_file, const char *user, unsigned own_id, const oci_id_mapping *maps,
                    size_t n, const char *field, ocisbx_err **err)
{
  cleanup_free subid_range *r = NULL;
  size_t nr = 0;

  if (read_subids (subid_file, user, own_id, &r, &nr, err) < 0)
    return err_wrap (err, "config.json: %s", field);
  for (size_t i = 0; i < n; i++)
    {
      const oci_id_mapping *m = &maps[i];
      if (m->size == 0)
        return err_set (err, 0, "config.json: %s[%zu].size: must be > 0", field, i);
      if (m->size == 1 && m->host_id == own_id)
        continue; /* one's own id needs no entitlement */
      if (!covered (r, nr, m->host_id, m->size))
        {
          char who[64];
          if (user)
            snprintf (who, sizeof who, "user \"%s\"", user);
          else
            snprintf (who, sizeof who, "uid %u", own_id);
          return err_set (err, 0, "config.json: %s[%zu]: range %u-%llu is not in %s for %s", field, i,
                          m->host_id, (unsigned long long) m->host_id + m->size - 1, subid_file, who);
        }
    }
  return 0;
}

/* ---- the maps ---- */

static char *
find_helper (const char *name)
{
  const char *path = getenv ("PATH");
  cleanup_free char *copy = xstrdup (path && path[0] ? path : "/usr/local/bin:/usr/bin:/bin");
  char *save = NULL;

  for (char *d = strtok_r (copy, ":", &save); d; d = strtok_r (NULL, ":", &save))
    {
      char *p = xasprintf ("%s/%s", d, name);
      if (d[0] == '/' && access (p, X_OK) == 0)
        return p;
      free (p);
    }
  /* setuid helpers live in /usr/bin; a restricted PATH may lack it */
  {
    char *p = xasprintf ("/usr/bin/%s", name);
    if (access (p, X_OK) == 0)
      return p;
    free (p);
  }
  return NULL;
}

/* A single mapping of the caller's own id, which an unprivileged writer may write. */
static bool
self_only (const oci_id_mapping *m, size_t n, unsigned own)
{
  return n == 1 && m[0].size == 1 && m[0].host_id == own;
}

static int
plan_one (const oci_id_mapping *m, size_t n, bool privileged, unsigned own, const char *helper_name,
          const char *subid_file, const char *field, bool *use_helper, char **helper, ocisbx_err **err)
{
  cleanup_free char *name = NULL;

  *use_helper = false;
  if (n == 0 || privileged || self_only (m, n, own))
    return 0;
  /* newuidmap/newgidmap check the real uid's entries: so do we, first, so that a
     refused range is reported in terms of the config. */
  name = passwd_field ("/etc/passwd", getuid (), 0);
  if (idmap_check_subids (subid_file, name, own, m, n, field, err) < 0)
    return -1;
  *helper = find_helper (helper_name);
  if (*helper == NULL)
    return err_set (err, 0,
                    "config.json: %s: mapping more than the caller's own id needs %s (package uidmap), "
                    "not found in $PATH",
                    field, helper_name);
  *use_helper = true;
  return 0;
}

static void
map_caller (oci_id_mapping **maps, size_t *n, unsigned own)
{
  free (*maps);
  *maps = xmalloc0 (sizeof **maps);
  **maps = (oci_id_mapping) { .container_id = 0, .host_id = own, .size = 1 };
  *n = 1;
}

int
idmap_default (oci_linux *lx, const oci_process *proc, ocisbx_err **err)
{
  if (lx->uid_mappings_len == 0)
    {
      if (proc && proc->user.uid != 0)
        return err_set (err, 0, "config.json: .process.user.uid: %u is not mapped: without .linux.uidMappings "
                                "only the caller's own uid is, to 0", proc->user.uid);
      map_caller (&lx->uid_mappings, &lx->uid_mappings_len, getuid ());
    }
  if (lx->gid_mappings_len == 0)
    {
      if (proc && proc->user.gid != 0)
        return err_set (err, 0, "config.json: .process.user.gid: %u is not mapped: without .linux.gidMappings "
                                "only the caller's own gid is, to 0", proc->user.gid);
      for (size_t i = 0; proc && i < proc->user.additional_gids_len; i++)
        if (proc->user.additional_gids[i] != 0)
          return err_set (err, 0, "config.json: .process.user.additionalGids[%zu]: %u is not mapped: without "
                                  ".linux.gidMappings only the caller's own gid is, to 0",
                          i, proc->user.additional_gids[i]);
      map_caller (&lx->gid_mappings, &lx->gid_mappings_len, getgid ());
    }
  return 0;
}

int
idmap_prepare (const oci_linux *lx, idmap_plan *plan, ocisbx_err **err)
{
  bool priv_uid = rootless_has_cap (CAP_SETUID), priv_gid = rootless_has_cap (CAP_SETGID);

  memset (plan, 0, sizeof *plan);
  if (lx == NULL)
    return 0;
  if (plan_one (lx->uid_mappings, lx->uid_mappings_len, priv_uid, getuid (), "newuidmap", SUBUID_FILE,
                ".linux.uidMappings", &plan->uid_helper, &plan->newuidmap, err) < 0
      || plan_one (lx->gid_mappings, lx->gid_mappings_len, priv_gid, getgid (), "newgidmap", SUBGID_FILE,
                   ".linux.gidMappings", &plan->gid_helper, &plan->newgidmap, err) < 0)
    {
      idmap_plan_free (plan);
      return -1;
    }
  /* The kernel lets an unprivileged process write its own gid only once setgroups is
     denied; newgidmap decides that for itself. */
  plan->deny_setgroups = !priv_gid && !plan->gid_helper && lx->gid_mappings_len > 0;
  return 0;
}

void
idmap_plan_free (idmap_plan *plan)
{
  free (plan->newuidmap);
  free (plan->newgidmap);
  plan->newuidmap = plan->newgidmap = NULL;
}

/* newuidmap/newgidmap (HELPER) PID C H S ...: its output becomes part of the error. */
static int
run_idmap_helper (const char *helper, pid_t pid, const oci_id_mapping *m, size_t n, const char *field,
                  ocisbx_err **err)
{
  cleanup_strv char **argv = xmalloc0 ((3 * n + 3) * sizeof (char *));
  char out[1024];
  int status;

  argv[0] = xstrdup (helper);
  argv[1] = xasprintf ("%d", (int) pid);
  for (size_t i = 0; i < n; i++)
    {
      argv[2 + 3 * i] = xasprintf ("%u", m[i].container_id);
      argv[3 + 3 * i] = xasprintf ("%u", m[i].host_id);
      argv[4 + 3 * i] = xasprintf ("%u", m[i].size);
    }
  status = run_program (helper, argv, -1, out, sizeof out, err);
  if (status < 0)
    return err_wrap (err, "%s", field);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    return err_set (err, 0, "user namespace: %s: %s failed (%s %d)%s%s", field, helper,
                    WIFEXITED (status) ? "exit status" : "signal",
                    WIFEXITED (status) ? WEXITSTATUS (status) : WTERMSIG (status), *out ? ": " : "", out);
  return 0;
}

int
idmap_write (pid_t pid, const oci_linux *lx, const idmap_plan *plan, ocisbx_err **err)
{
  /* Direct writes first (setgroups before gid_map), then the helpers. */
  if (ns_write_id_maps (pid, lx->uid_mappings, plan->uid_helper ? 0 : lx->uid_mappings_len, lx->gid_mappings,
                        plan->gid_helper ? 0 : lx->gid_mappings_len, plan->deny_setgroups, err)
      < 0)
    return -1;
  if (plan->uid_helper
      && run_idmap_helper (plan->newuidmap, pid, lx->uid_mappings, lx->uid_mappings_len, ".linux.uidMappings", err) < 0)
    return -1;
  if (plan->gid_helper
      && run_idmap_helper (plan->newgidmap, pid, lx->gid_mappings, lx->gid_mappings_len, ".linux.gidMappings", err) < 0)
    return -1;
  return 0;
}
