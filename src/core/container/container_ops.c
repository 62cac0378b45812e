/* The commands on an existing container: start, kill, delete, state, list. */
#include <config.h>
#include "core/container/container_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/container/cgroup_record.h"
#include "core/container/handle.h"
#include "core/container/hooks.h"
#include "core/log.h"
#include "core/container/notify.h"
#include "core/utils.h"

/* The name of UID in the host's passwd, else "#UID". */
static char *
container_owner_name (uid_t uid)
{
  char *name = passwd_field ("/etc/passwd", uid, 0);
  return name ? name : xasprintf ("#%u", (unsigned) uid);
}

/* The spec's state document; RUNTIME_FIELDS adds what runc's `state` prints beside it. */
static char *
state_doc (const container_state *st, container_status status, bool pretty, bool runtime_fields)
{
  oci_state s = { 0 };
  int32_t pid = state_shown_pid (st, status);
  cleanup_free char *owner = NULL;
  char *json = NULL, *msg = NULL;

  s.oci_version = st->oci_version ? st->oci_version : (char *) OCI_SPEC_VERSION;
  s.id = st->id;
  s.status = (char *) container_status_name (status);
  s.pid = &pid;
  s.bundle = st->bundle;
  s.annotations = st->annotations;
  if (runtime_fields)
    {
      s.rootfs = st->rootfs ? st->rootfs : (char *) "";
      s.created = st->created ? st->created : (char *) "";
      s.owner = owner = container_owner_name (st->owner);
    }
  if (oci_state_generate (&s, pretty, &json, NULL, &msg) < 0)
    {
      log_warning ("%s", msg);
      free (msg);
      return xstrdup ("{}");
    }
  return json;
}

char *
container_state_doc (const container_state *st, container_status status, bool pretty)
{
  return state_doc (st, status, pretty, false);
}

/* ---- signals to the init, robust against a reused pid ---- */

static int
init_pidfd (const container_state *st)
{
  uint64_t t;
  int fd = syscall (SYS_pidfd_open, st->pid, 0);

  if (fd < 0)
    return -1;
  /* the pidfd pins the process: check it is still ours */
  if (proc_stat_start_time (st->pid, &t, NULL) < 0 || (st->start_time && t != st->start_time))
    {
      close (fd);
      errno = ESRCH;
      return -1;
    }
  return fd;
}

static int
signal_init (const container_state *st, int sig, ocisbx_err **err)
{
  cleanup_close int fd = init_pidfd (st);
  if (fd < 0 || syscall (SYS_pidfd_send_signal, fd, sig, NULL, 0) < 0)
    return err_set (err, errno, "signal %d to the container's init (pid %d)", sig, (int) st->pid);
  return 0;
}

/* Until the init is gone, for at most TIMEOUT_MS. */
static void
wait_gone (const container_state *st, int timeout_ms)
{
  cleanup_close int fd = init_pidfd (st);
  struct pollfd p = { fd, POLLIN, 0 };

  if (fd < 0)
    return;
  while (poll (&p, 1, timeout_ms) < 0 && errno == EINTR)
    ;
}

/* ---- start ---- */

/* The init holds its end of the exec fifo open until its execve (CLOEXEC): the end of
   file says the startContainer hooks ran and the process was executed, as poststart
   hooks need (runtime-spec).  What comes before it is the init's error instead. */
static int
wait_exec_fifo (int fifo, const container_state *st, ocisbx_err **err)
{
  char msg[4096];
  size_t len = 0;
  ssize_t n;

  fcntl (fifo, F_SETFL, 0);
  for (;;)
    {
      char buf[512];
      n = read (fifo, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      if ((size_t) n > sizeof msg - 1 - len)
        n = sizeof msg - 1 - len;
      memcpy (msg + len, buf, n);
      len += n;
    }
  if (len == 0)
    return 0;
  msg[len] = '\0';
  return err_set (err, 0, "cannot start container \"%s\": %s", st->id, msg);
}

/* runtime-spec 1.3 lifecycle steps 7 and 9: a failing startContainer or poststart hook
   (or the execve) stops the container, and the lifecycle goes on at step 12: the
   container's processes killed and waited for, then the container destroyed and its
   poststop hooks run (step 13) by delete's own path, as runc and crun; START_ERR, the
   hook's error, stays start's.  What the destruction cannot undo is a warning. */
static void
destroy_failed_start (container_handle *h)
{
  cleanup_err ocisbx_err *e = NULL;
  cgroup_manager *m;

  if (container_cgroups (h, &m, &e) == 0)
    cgroup_kill_all (m, SIGKILL, &e);
  err_freep (&e);
  signal_init (h->st, SIGKILL, NULL);
  wait_gone (h->st, 10000);
  if (container_delete_at (h, true, &e) < 0)
    log_warning ("cannot destroy container \"%s\" after its failed start: %s", h->id, e->msg);
}

/* poststart hooks: the first that fails is start's error (runtime-spec 1.3). */
static int
start_poststart (const container_state *st, ocisbx_err **err)
{
  cleanup_free char *doc = NULL;

  if (st->poststart_len == 0)
    return 0;
  doc = container_state_doc (st, STATUS_RUNNING, false);
  if (hooks_run (st->poststart, st->poststart_len, doc, "poststart", NULL, err) < 0)
    return err_wrap (err, "cannot start container \"%s\"", st->id);
  return 0;
}

static int
start_at (container_handle *h, ocisbx_err **err)
{
  int dirfd = h->dirfd;
  const container_state *st = h->st;
  container_status status = state_status (dirfd, st);
  cleanup_close int fifo = -1;
  char c;
  ssize_t n;

  if (status != STATUS_CREATED)
    return err_set (err, 0, "cannot start container \"%s\": it is %s, not created", st->id,
                    container_status_name (status));
  /* runtime-spec: start MUST fail without process.  The init, which has nothing to
     run, goes: the container is stopped, for delete. */
  if (st->no_process)
    {
      signal_init (st, SIGKILL, NULL);
      return err_setk (err, ERR_INVALID_CONFIG, 0,
                       "cannot start container \"%s\": config.json: .process: not set, nothing to run", st->id);
    }
  fifo = openat (dirfd, STATE_FIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fifo < 0)
    {
      if (errno == ENOENT)
        return err_set (err, 0, "cannot start container \"%s\": already started", st->id);
      return err_set (err, errno, "open the exec fifo");
    }
  /* The init, blocked opening its end, writes one byte once we are here. */
  for (;;)
    {
      struct pollfd p = { fifo, POLLIN, 0 };
      int r = poll (&p, 1, 100);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        return err_set (err, errno, "poll the exec fifo");
      if (r > 0)
        break;
      if (!state_init_alive (st))
        return err_set (err, 0, "cannot start container \"%s\": its init exited", st->id);
    }
  do
    n = read (fifo, &c, 1);
  while (n < 0 && errno == EINTR);
  if (n != 1)
    return err_set (err, n < 0 ? errno : 0, "cannot start container \"%s\": the init did not answer", st->id);
  if (unlinkat (dirfd, STATE_FIFO, 0) < 0 && errno != ENOENT)
    return err_set (err, errno, "remove the exec fifo");
  if (wait_exec_fifo (fifo, st, err) < 0 || start_poststart (st, err) < 0)
    {
      destroy_failed_start (h);
      return -1;
    }
  return 0;
}

/* NOTIFY_SOCKET (notify.h): start listens before the process runs and returns once
   it said READY=1, or its init ended, as runc and crun; the container stays unlocked
   meanwhile. */
int
container_start (const char *root, const char *id, ocisbx_err **err)
{
  const char *host = notify_host_socket ();
  cleanup_close int notify = -1, pidfd = -1;
  pid_t pid;

  {
    cleanup_container container_handle h;

    if (container_open (root, id, LOCK_EX, &h, err) < 0)
      return -1;
    if (host && notify_dir_exists (h.dirfd))
      {
        notify = notify_listen (h.dirfd, err);
        pidfd = init_pidfd (h.st);
        if (notify < 0)
          return -1;
      }
    if (start_at (&h, err) < 0)
      return -1;
    pid = h.st->pid;
  }
  if (notify >= 0 && notify_wait_ready (notify, host, pid, pidfd, err) < 0)
    return -1;
  return 0;
}

/* ---- kill ---- */

/* --all: every process left in the container's cgroups.  Without a pid namespace of
   its own they outlive the init, so a stopped container is signalled too (as runc);
   one whose cgroups are gone has nothing left: done. */
static int
kill_all (container_handle *h, int sig, ocisbx_err **err)
{
  cgroup_manager *m;
  int r = container_cgroups (h, &m, err);

  if (r == 0)
    r = cgroup_kill_all (m, sig, err);
  if (r < 0 && (h->status == STATUS_STOPPED || h->status == STATUS_CREATING) && (*err)->errnum == ENOENT)
    {
      err_freep (err);
      return 0;
    }
  return r;
}

int
container_kill (const char *root, const char *id, int sig, bool all, ocisbx_err **err)
{
  cleanup_container container_handle h;
  container_status status;

  if (container_open (root, id, 0, &h, err) < 0)
    return -1;
  status = container_status_now (&h);
  if (all)
    {
      if (kill_all (&h, sig, err) == 0)
        return 0;
      if (status == STATUS_STOPPED || status == STATUS_CREATING)
        return err_wrap (err, "kill --all \"%s\"", id);
      log_debug ("kill --all: %s; signalling the init only", (*err)->msg);
      err_freep (err);
    }
  /* containerd (CRI) takes a kill error for "already gone" only by these words */
  if (status == STATUS_STOPPED || status == STATUS_CREATING)
    return err_engine (err, ERR_NOT_RUNNING, "cannot signal container \"%s\"", id);
  return signal_init (h.st, sig, err);
}

/* ---- delete ---- */

/* The init the record names while state.json has none (pid 0: its create died before
   the last write): it may wait on the exec fifo for ever. */
static void
adopt_recorded_init (int dirfd, container_state *st)
{
  cleanup_err ocisbx_err *e = NULL;
  container_state rec = { 0 };

  if (state_init_record_read (dirfd, &rec.pid, &rec.start_time, &e) < 0)
    {
      log_warning ("%s", e->msg); /* the cgroups still hold it */
      return;
    }
  if (rec.pid > 0 && state_init_alive (&rec))
    {
      st->pid = rec.pid;
      st->start_time = rec.start_time;
    }
}

int
container_delete_at (container_handle *h, bool force, ocisbx_err **err)
{
  container_state *st = h->st;
  container_status status;
  cgroup_manager *m = NULL;
  cleanup_err ocisbx_err *e = NULL;

  if (st->pid == 0)
    adopt_recorded_init (h->dirfd, st);
  status = container_status_now (h);
  if ((status == STATUS_RUNNING || status == STATUS_PAUSED) && !force)
    return err_set (err, 0, "cannot delete container \"%s\" that is not stopped: %s (use --force)", h->id,
                    container_status_name (status));
  if (container_cgroups (h, &m, &e) < 0)
    {
      log_debug ("delete: %s", e->msg);
      err_freep (&e);
    }
  if (status != STATUS_STOPPED && status != STATUS_CREATING)
    {
      if (m && cgroup_kill_all (m, SIGKILL, &e) < 0)
        err_freep (&e);
      signal_init (st, SIGKILL, NULL);
      if (status == STATUS_PAUSED && m && cgroup_freeze (m, false, &e) < 0)
        err_freep (&e);
      /* Held by a freezer of someone else's, the init cannot die until it is thawed:
         say so at once, and leave everything for a delete after the thaw. */
      {
        cleanup_free char *frozen = state_init_alive (st) ? cgroup_frozen_elsewhere (m, st->pid) : NULL;
        if (frozen)
          return err_set (err, 0,
                          "cannot delete container \"%s\": its init (pid %d) is frozen by the freezer cgroup "
                          "`%s`, not the container's: it cannot die until that is thawed; left it (SIGKILL "
                          "pending), the container's cgroups and its state",
                          h->id, (int) st->pid, frozen);
      }
      wait_gone (st, 10000);
    }
  if (m && cgroup_destroy (m, &e) < 0)
    {
      log_warning ("delete: %s", e->msg);
      err_freep (&e);
    }
  if (st->poststop_len)
    {
      cleanup_free char *doc = container_state_doc (st, STATUS_STOPPED, false);
      hooks_run_all (st->poststop, st->poststop_len, doc, "poststop");
    }
  if (intelrdt_cleanup_at (h->dirfd, err) < 0 || rootfs_snapshot_cleanup_at (h->dirfd, err) < 0)
    return err_wrap (err, "delete: left the state dir (delete again)");
  return state_dir_remove (h->rootfd, h->id, err);
}

/* Delete without a readable state.json: WHY says what is wrong with it (NULL: there is
   none, as a create killed before its first write leaves).  The init record leads to
   the init, the cgroups record to the cgroups and what runs in them; what cannot be
   found or killed is named, and the state dir stays. */
static int
delete_without_state (int rootfd, int dirfd, const char *id, const char *why, ocisbx_err **err)
{
  container_state st = { .id = (char *) id };
  cleanup_err ocisbx_err *e = NULL;
  cleanup_free char *dir = state_dir_file_path (dirfd, "");
  const char *sep = why ? "; " : "";
  int r = state_init_record_read (dirfd, &st.pid, &st.start_time, &e);

  if (why == NULL)
    why = "";
  if (r < 0)
    {
      /* Only its cgroups can lead to the init now. */
      if (faccessat (dirfd, STATE_CGROUPS, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
        return err_set (err, 0, "%s%s%s, and there is no cgroups record: cannot find the container's processes: "
                                "left them and the state dir `%s`",
                        why, sep, e->msg, dir);
      log_warning ("%s%s%s: its processes are found through its cgroups", why, sep, e->msg);
      err_freep (&e);
    }
  if (r == 1 && state_init_alive (&st))
    {
      if (signal_init (&st, SIGKILL, &e) == 0)
        wait_gone (&st, 10000);
      if (state_init_alive (&st))
        return err_set (err, 0, "%s%scannot kill the container's init (pid %d)%s%s: left it and the state dir `%s`",
                        why, sep, (int) st.pid, e ? ": " : "", e ? e->msg : "", dir);
      if (why[0])
        log_warning ("%s: killed its init (pid %d, from its init record)", why, (int) st.pid);
    }
  if (container_cgroups_cleanup_at (dirfd, err) < 0)
    return err_wrap (err, "%s%scannot remove the container's cgroups: left them and the state dir `%s`", why, sep,
                     dir);
  if (intelrdt_cleanup_at (dirfd, err) < 0 || rootfs_snapshot_cleanup_at (dirfd, err) < 0)
    return err_wrap (err, "%s%sleft the state dir `%s`", why, sep, dir);
  return state_dir_remove (rootfd, id, err);
}

int
container_delete (const char *root, const char *id, bool force, ocisbx_err **err)
{
  cleanup_container container_handle h;

  if (container_open (root, id, LOCK_EX, &h, err) < 0)
    {
      /* No state file (a create killed before writing it; we hold the lock, so no
         create is running), or an unreadable one with --force: what the init record
         names goes with the directory. */
      if (h.dirfd >= 0 && h.st == NULL)
        {
          if ((*err)->errnum == ENOENT)
            {
              err_freep (err);
              return delete_without_state (h.rootfd, h.dirfd, id, NULL, err);
            }
          {
            cleanup_err ocisbx_err *why = steal_ptr (err);
            if (force)
              return delete_without_state (h.rootfd, h.dirfd, id, why->msg, err);
            return err_set (err, 0, "%s (`delete --force` kills the container, found by its init and cgroups "
                                    "records, and removes it)",
                            why->msg);
          }
        }
      /* As runc: --force of a container that is already gone succeeds, so that the
         racing clean-ups of an engine (rm -f, run --rm, conmon's exit) all do. */
      if (force && h.dirfd < 0 && *err && (*err)->errnum == ENOENT)
        {
          err_freep (err);
          return 0;
        }
      return -1;
    }
  return container_delete_at (&h, force, err);
}

/* ---- state, list ---- */

int
container_state_json (const char *root, const char *id, char **json, ocisbx_err **err)
{
  cleanup_container container_handle h;

  if (container_open (root, id, 0, &h, err) < 0)
    return -1;
  *json = state_doc (h.st, container_status_now (&h), true, true);
  return 0;
}

static int
info_cmp (const void *a, const void *b)
{
  return strcmp (((const container_info *) a)->id, ((const container_info *) b)->id);
}

/* The name of OWNER for `list`: /etc/passwd is read once per run of one owner (the
   containers of a root usually have one), not once per container. */
static char *
owner_name (uid_t owner, const container_info *prev)
{
  if (prev && prev->owner == owner)
    return xstrdup (prev->owner_name);
  return container_owner_name (owner);
}

/* Every container under ROOT, by id, each read through the handle without a lock: `list`
   waits for no command on a container.  Skipped: entries that are not containers (no
   valid id, not a directory), containers being created (no state.json yet) or deleted
   meanwhile; and, with a warning naming the file, those whose state.json cannot be read,
   as runc does. */
int
container_list (const char *root, container_info **out, size_t *n, ocisbx_err **err)
{
  cleanup_close int rootfd = -1;
  cleanup_dir DIR *d = NULL;
  cleanup_err ocisbx_err *rerr = NULL;
  container_info *infos = NULL;
  size_t count = 0, cap = 0;
  struct dirent *de;

  *out = NULL;
  *n = 0;
  rootfd = state_root_open (root, false, &rerr);
  if (rootfd < 0)
    {
      if (rerr->errnum == ENOENT)
        return 0; /* no container made yet */
      *err = steal_ptr (&rerr);
      return -1;
    }
  d = opendir_at (rootfd, ".");
  if (d == NULL)
    return err_set (err, errno, "read the state root `%s`", root ? root : STATE_ROOT_DEFAULT);
  while ((de = readdir (d)))
    {
      cleanup_container container_handle h;
      cleanup_err ocisbx_err *e = NULL;
      container_status status;
      container_info *i;

      if (container_open_in (rootfd, de->d_name, 0, &h, &e) < 0)
        {
          if (h.dirfd >= 0 && e->errnum != ENOENT)
            log_warning ("%s", e->msg);
          continue;
        }
      status = container_status_now (&h);
      if (count == cap)
        {
          cap = cap ? cap * 2 : 8;
          infos = realloc (infos, cap * sizeof *infos);
          if (infos == NULL)
            abort ();
        }
      i = &infos[count++];
      i->id = steal_ptr (&h.st->id);
      i->pid = state_shown_pid (h.st, status);
      i->status = status;
      i->bundle = steal_ptr (&h.st->bundle);
      i->rootfs = steal_ptr (&h.st->rootfs);
      i->created = steal_ptr (&h.st->created);
      i->oci_version = steal_ptr (&h.st->oci_version);
      i->owner = h.st->owner;
      i->owner_name = owner_name (i->owner, count > 1 ? &infos[count - 2] : NULL);
    }
  if (count)
    qsort (infos, count, sizeof *infos, info_cmp);
  *out = infos;
  *n = count;
  return 0;
}

void
container_info_free (container_info *infos, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      free (infos[i].id);
      free (infos[i].bundle);
      free (infos[i].rootfs);
      free (infos[i].created);
      free (infos[i].owner_name);
      free (infos[i].oci_version);
    }
  free (infos);
}

/* runc's `list --format json`: an array of these, in this order, every field present. */
typedef struct list_entry
{
  char *oci_version;
  char *id;
  int32_t pid;
  char *status;
  char *bundle;
  char *rootfs;
  char *created;
  char *owner;
} list_entry;

#define LF(json, kind, m) { json, kind, OCISPEC_F_REQUIRED, offsetof (list_entry, m), 0, NULL, NULL, NULL }
static const ocispec_field list_entry_fields[] = {
  LF ("ociVersion", OCISPEC_STRING, oci_version), LF ("id", OCISPEC_STRING, id),
  LF ("pid", OCISPEC_INT32, pid),                 LF ("status", OCISPEC_STRING, status),
  LF ("bundle", OCISPEC_STRING, bundle),          LF ("rootfs", OCISPEC_STRING, rootfs),
  LF ("created", OCISPEC_STRING, created),        LF ("owner", OCISPEC_STRING, owner),
};
static const ocispec_type list_entry_type = { "list_entry", sizeof (list_entry), list_entry_fields,
                                              sizeof list_entry_fields / sizeof list_entry_fields[0], NULL };

typedef struct list_doc
{
  list_entry *entries;
  size_t entries_len;
} list_doc;
static const ocispec_field list_doc_field
    = { "", OCISPEC_OBJARR, 0, offsetof (list_doc, entries), offsetof (list_doc, entries_len), &list_entry_type, NULL, NULL };

static char *
or_empty (char *s)
{
  return s ? s : (char *) "";
}

int
container_list_json (const container_info *infos, size_t n, char **json, ocisbx_err **err)
{
  cleanup_free list_entry *e = xmalloc0 ((n ? n : 1) * sizeof *e);
  list_doc doc = { e, n };
  char *msg = NULL;

  for (size_t i = 0; i < n; i++)
    e[i] = (list_entry){
      .oci_version = or_empty (infos[i].oci_version),
      .id = or_empty (infos[i].id),
      .pid = infos[i].pid,
      .status = (char *) container_status_name (infos[i].status),
      .bundle = or_empty (infos[i].bundle),
      .rootfs = or_empty (infos[i].rootfs),
      .created = or_empty (infos[i].created),
      .owner = or_empty (infos[i].owner_name),
    };
  if (ocispec_generate_value (&list_doc_field, &doc, false, json, NULL, &msg) < 0)
    return err_take (err, 0, msg);
  return 0;
}
