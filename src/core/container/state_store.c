#include <config.h>
#include "core/container/state_store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/utils.h"

/* ---- ids and directories ---- */

int
state_validate_id (const char *id, ocisbx_err **err)
{
  size_t n = id ? strlen (id) : 0;

  if (n == 0)
    return err_set (err, 0, "invalid container id: empty");
  if (n > STATE_ID_MAX)
    return err_set (err, 0, "invalid container id: longer than %d bytes", STATE_ID_MAX);
  for (size_t i = 0; i < n; i++)
    {
      unsigned char c = id[i];
      bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
      if (alnum || (i > 0 && (c == '_' || c == '.' || c == '-' || c == '+')))
        continue;
      return err_set (err, 0, "invalid container id \"%.64s\": use letters, digits and _ . - + (not first)",
                      id);
    }
  return 0;
}

int
state_root_open (const char *root, bool create, ocisbx_err **err)
{
  int fd;

  if (root == NULL)
    root = STATE_ROOT_DEFAULT;
  fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0 || errno != ENOENT || !create)
    {
      if (fd < 0)
        return err_set (err, errno, "state root `%s`", root);
      return fd;
    }
  /* mkdir -p */
  {
    cleanup_free char *p = xstrdup (root);
    for (char *s = p + 1; *s; s++)
      if (*s == '/')
        {
          *s = '\0';
          if (mkdir (p, 0711) < 0 && errno != EEXIST)
            return err_set (err, errno, "mkdir `%s`", p);
          *s = '/';
        }
    if (mkdir (p, 0700) < 0 && errno != EEXIST)
      return err_set (err, errno, "mkdir `%s`", p);
  }
  fd = open (root, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return err_set (err, errno, "state root `%s`", root);
  return fd;
}

int
state_dir_create (int rootfd, const char *id, ocisbx_err **err)
{
  int fd;

  if (state_validate_id (id, err) < 0)
    return -1;
  if (mkdirat (rootfd, id, 0711) < 0)
    {
      if (errno == EEXIST)
        return err_setk (err, ERR_EXISTS, 0, "container \"%s\" already exists", id);
      return err_set (err, errno, "mkdir state dir of `%s`", id);
    }
  fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return err_set (err, errno, "open state dir of `%s`", id);
  /* Never blocks: the directory is brand new, and whoever opens it next waits for us. */
  if (flock (fd, LOCK_EX) < 0)
    {
      int saved = errno;
      close (fd);
      return err_set (err, saved, "lock state dir of `%s`", id);
    }
  return fd;
}

int
state_dir_open (int rootfd, const char *id, int lock, ocisbx_err **err)
{
  int fd;

  if (state_validate_id (id, err) < 0)
    return -1;
  fd = openat (rootfd, id, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      if (errno == ENOENT)
        return err_takek (err, ERR_NOT_FOUND, ENOENT, xasprintf ("container \"%s\" does not exist", id));
      return err_set (err, errno, "open state dir of `%s`", id);
    }
  if (lock)
    {
      struct stat st;
      int r;
      do
        r = flock (fd, lock);
      while (r < 0 && errno == EINTR);
      if (r < 0)
        {
          int saved = errno;
          close (fd);
          return err_set (err, saved, "lock state dir of `%s`", id);
        }
      /* A delete may have removed the directory while we waited. */
      if (fstat (fd, &st) < 0 || st.st_nlink == 0)
        {
          close (fd);
          return err_takek (err, ERR_NOT_FOUND, ENOENT, xasprintf ("container \"%s\" does not exist", id));
        }
    }
  return fd;
}

typedef struct tree_walk
{
  int dirfd;
  int depth;
} tree_walk;

static int remove_tree_at (int parent, const char *name, int depth);

static int
remove_entry (const char *name, unsigned char type, void *arg)
{
  const tree_walk *w = arg;
  (void) type;
  remove_tree_at (w->dirfd, name, w->depth + 1);
  return 0;
}

static int
remove_tree_at (int parent, const char *name, int depth)
{
  if (unlinkat (parent, name, 0) == 0 || errno == ENOENT)
    return 0;
  if (errno != EISDIR || depth > 8)
    return -1;
  {
    cleanup_close int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    tree_walk w = { fd, depth };
    if (fd < 0)
      return -1;
    dir_each (fd, remove_entry, &w);
  }
  if (unlinkat (parent, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
    return -1;
  return 0;
}

int
state_dir_remove (int rootfd, const char *id, ocisbx_err **err)
{
  if (state_validate_id (id, err) < 0)
    return -1;
  /* What create leaves, by name; anything else (the lock of an old version, a file a
     user put there) through the walk. */
  {
    cleanup_close int dir = openat (rootfd, id, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (dir < 0 && errno == ENOENT)
      return 0;
    if (dir >= 0)
      {
        unlinkat (dir, STATE_FILE, 0);
        unlinkat (dir, STATE_INIT, 0);
        unlinkat (dir, STATE_FIFO, 0);
        unlinkat (dir, STATE_CGROUPS, 0);
        if (unlinkat (rootfd, id, AT_REMOVEDIR) == 0)
          return 0;
      }
  }
  if (remove_tree_at (rootfd, id, 0) < 0)
    return err_set (err, errno, "remove state dir of `%s`", id);
  return 0;
}

/* ---- the state file ---- */

int
state_write (int dirfd, const container_state *st, ocisbx_err **err)
{
  cleanup_free char *json = NULL;
  char *msg = NULL;
  size_t len = 0;

  if (ocispec_generate (&container_state_type, st, false, &json, &len, &msg) < 0)
    return err_take (err, 0, msg);
  return write_file_atomic_at (dirfd, STATE_FILE, json, len, 0600, err);
}

char *
state_dir_file_path (int dirfd, const char *name)
{
  char link[64], dir[PATH_MAX];
  ssize_t n;

  snprintf (link, sizeof link, "/proc/self/fd/%d", dirfd);
  n = readlink (link, dir, sizeof dir - 1);
  if (n <= 0)
    return xstrdup (name);
  dir[n] = '\0';
  return name[0] ? xasprintf ("%s/%s", dir, name) : xstrdup (dir);
}

/* state.json's init checked against the init record, which create wrote apart from it:
   a pid is only signalled, joined or counted as the container's while its start time
   tells it from a later process with the same pid.  A state.json without "startTime"
   takes the record's when both name the same pid; one the record contradicts, or one
   with neither, is refused (as a corrupt state.json: `delete --force` still finds the
   init through the record). */
static int
state_check_init (int dirfd, const char *id, container_state *st, ocisbx_err **err)
{
  cleanup_err ocisbx_err *e = NULL;
  cleanup_free char *path = NULL;
  pid_t pid = 0;
  uint64_t t = 0;
  int r;

  if (st->pid <= 0)
    return 0; /* pid 0: written before the clone ("creating") */
  r = state_init_record_read (dirfd, &pid, &t, &e);
  if (r == 1 && pid == st->pid && (st->start_time == 0 || st->start_time == t))
    {
      st->start_time = t;
      return 0;
    }
  if (r != 1 && st->start_time)
    return 0; /* no record (an older ocisbx), or an unreadable one: state.json's own proof */
  path = state_dir_file_path (dirfd, STATE_FILE);
  if (r == 1)
    return err_set (err, 0,
                    "container \"%s\": %s: the init (pid %d, startTime %llu) is not the one its init record "
                    "names (pid %d, start time %llu): refusing to take that process for the container's",
                    id, path, (int) st->pid, (unsigned long long) st->start_time, (int) pid,
                    (unsigned long long) t);
  return err_set (err, 0,
                  "container \"%s\": %s: pid %d without \"startTime\", and %s: that process cannot be told "
                  "from another with the same pid: refusing to take it for the container's init",
                  id, path, (int) st->pid, e ? e->msg : "no init record");
}

/* The state ST parsed: an older ocisbx's "cgroup" text becomes the "cgroups" object;
   its init checked against the init record (state_check_init). */
static int
state_parsed (int dirfd, const char *id, container_state *st, container_state **out, ocisbx_err **err)
{
  if (state_check_init (dirfd, id, st, err) < 0)
    {
      container_state_free (st);
      return -1;
    }
  if (st->cgroups == NULL && st->cgroup && st->cgroup[0])
    {
      if (cgroup_state_parse (st->cgroup, &st->cgroups, err) < 0)
        {
          cleanup_free char *path = state_dir_file_path (dirfd, STATE_FILE);
          container_state_free (st);
          return err_wrap (err, "container \"%s\": %s: .cgroup", id, path);
        }
      free (st->cgroup);
      st->cgroup = NULL;
    }
  *out = st;
  return 0;
}

int
state_read (int dirfd, const char *id, container_state **out, ocisbx_err **err)
{
  cleanup_free char *data = NULL;
  cleanup_free char *path = NULL;
  cleanup_err ocisbx_err *rerr = NULL;
  char *msg = NULL;
  size_t len = 0;
  void *obj = NULL;

  if (read_file_at (dirfd, STATE_FILE, &data, &len, &rerr) < 0)
    {
      if (rerr->errnum == ENOENT)
        return err_takek (err, ERR_NOT_FOUND, ENOENT, xasprintf ("container \"%s\" does not exist", id));
      path = state_dir_file_path (dirfd, STATE_FILE);
      return err_set (err, 0, "container \"%s\": %s: %s", id, path, rerr->msg);
    }
  if (ocispec_parse (&container_state_type, STATE_FILE, data, len, &obj, &msg) == 0)
    return state_parsed (dirfd, id, obj, out, err);
  /* Rare: the message again, naming the file by its whole path. */
  free (msg);
  path = state_dir_file_path (dirfd, STATE_FILE);
  if (len == 0)
    return err_set (err, 0, "container \"%s\": %s: empty", id, path);
  if (ocispec_parse (&container_state_type, path, data, len, &obj, &msg) == 0)
    return state_parsed (dirfd, id, obj, out, err);
  err_take (err, 0, msg);
  return err_wrap (err, "container \"%s\"", id);
}

/* ---- the init record ---- */

int
state_init_record_write (int dirfd, pid_t pid, uint64_t start_time, ocisbx_err **err)
{
  char target[48];

  snprintf (target, sizeof target, "%d %llu", (int) pid, (unsigned long long) start_time);
  if (symlinkat (target, dirfd, STATE_INIT) < 0)
    return err_set (err, errno, "record the init in the state dir");
  return 0;
}

int
state_init_record_read (int dirfd, pid_t *pid, uint64_t *start_time, ocisbx_err **err)
{
  char buf[64];
  cleanup_free char *path = NULL;
  unsigned long long t;
  int p, used = 0;
  ssize_t n;

  n = readlinkat (dirfd, STATE_INIT, buf, sizeof buf - 1);
  if (n < 0 && errno == ENOENT)
    return 0;
  path = state_dir_file_path (dirfd, STATE_INIT);
  if (n < 0)
    return err_set (err, errno, "the init record `%s`", path);
  buf[n] = '\0';
  if (sscanf (buf, "%d %llu%n", &p, &t, &used) != 2 || (size_t) used != (size_t) n || p <= 0)
    return err_set (err, 0, "the init record `%s`: \"%.20s\" is not \"PID START_TIME\"", path, buf);
  *pid = p;
  *start_time = t;
  return 1;
}

void
container_state_free (container_state *st)
{
  if (st)
    ocispec_free (&container_state_type, st);
}

void
container_state_freep (container_state **st)
{
  container_state_free (*st);
  *st = NULL;
}

/* ---- status ---- */

int
proc_stat_start_time (pid_t pid, uint64_t *start_time, char *state)
{
  char path[64], buf[1024];
  cleanup_close int fd = -1;
  ssize_t n;
  char *p;
  unsigned long long t = 0;

  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  n = read_all (fd, buf, sizeof buf - 1);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  /* "pid (comm) S ppid ...": comm may hold spaces and parentheses; the last ')' ends it. */
  p = strrchr (buf, ')');
  if (p == NULL || p[1] != ' ')
    return -1;
  p += 2;
  if (state)
    *state = *p;
  /* p is field 3; the start time is field 22. */
  for (int field = 3; field < 22; field++)
    {
      p = strchr (p, ' ');
      if (p == NULL)
        return -1;
      p++;
    }
  if (sscanf (p, "%llu", &t) != 1)
    return -1;
  if (start_time)
    *start_time = t;
  return 0;
}

bool
state_init_alive (const container_state *st)
{
  uint64_t t;
  char s;

  if (st->pid <= 0 || proc_stat_start_time (st->pid, &t, &s) < 0)
    return false;
  if (st->start_time && t != st->start_time)
    return false; /* the pid was reused */
  return s != 'Z' && s != 'X' && s != 'x';
}

container_status
state_status (int dirfd, const container_state *st)
{
  cleanup_err ocisbx_err *err = NULL;
  cgroup_manager *m = NULL;
  bool frozen = false;

  if (st->pid == 0)
    return STATUS_CREATING; /* written before the clone; stale unless its create runs */
  if (!state_init_alive (st))
    return STATUS_STOPPED;
  if (faccessat (dirfd, STATE_FIFO, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
    return STATUS_CREATED;
  if (st->cgroups && cgroup_load (CGROUP_FS_ROOT, st->cgroups, &m, &err) == 0)
    {
      if (cgroup_is_frozen (m, &frozen, &err) < 0)
        frozen = false;
      cgroup_manager_free (m);
    }
  return frozen ? STATUS_PAUSED : STATUS_RUNNING;
}

const char *
container_status_name (container_status s)
{
  switch (s)
    {
    case STATUS_CREATING:
      return "creating";
    case STATUS_CREATED:
      return "created";
    case STATUS_RUNNING:
      return "running";
    case STATUS_PAUSED:
      return "paused";
    case STATUS_STOPPED:
      return "stopped";
    }
  return "unknown";
}

int32_t
state_shown_pid (const container_state *st, container_status status)
{
  return status == STATUS_STOPPED ? 0 : st->pid;
}

/* Civil date of a day count since 1970-01-01 (Howard Hinnant's algorithm). */
static void
civil_from_days (long long z, int *y, unsigned *m, unsigned *d)
{
  long long era, yoe, doy, mp;
  z += 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  yoe = z - era * 146097;
  yoe = (yoe - yoe / 1460 + yoe / 36524 - yoe / 146096) / 365;
  doy = (z - era * 146097) - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (unsigned) (doy - (153 * mp + 2) / 5 + 1);
  *m = (unsigned) (mp < 10 ? mp + 3 : mp - 9);
  *y = (int) (yoe + era * 400 + (*m <= 2));
}

char *
state_timestamp_now (void)
{
  struct timespec now;
  long long days, secs;
  unsigned mon, day;
  int year;

  /* Not gmtime_r/strftime: glibc loads the time zone (/etc/localtime) for them. */
  clock_gettime (CLOCK_REALTIME, &now);
  days = now.tv_sec / 86400;
  secs = now.tv_sec % 86400;
  if (secs < 0)
    {
      secs += 86400;
      days--;
    }
  civil_from_days (days, &year, &mon, &day);
  return xasprintf ("%04d-%02u-%02uT%02lld:%02lld:%02lld.%09ldZ", year, mon, day, secs / 3600, secs / 60 % 60,
                    secs % 60, now.tv_nsec);
}
