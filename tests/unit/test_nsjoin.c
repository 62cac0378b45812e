/* The namespace joins of create and exec through the syscall seam (core/syscalls.h,
   ns/nsjoin.h): this program defines `sys` itself, whose setns records the call
   instead of making it, so the order of the joins, the pidfd and its /proc/PID/ns
   fallback and the errors are checked without root.  A fake /proc/PID is a scratch
   directory whose ns/ holds one plain file per namespace; the first setns of a file
   empties it, so a join that opened its files late fails. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ns/namespaces.h"
#include "core/syscalls.h"
#include "core/utils.h"
#include "unit.h"

/* ---- the recorder ---- */

static char rec_log[4096];
static int rec_pidfd = -1;     /* setns on it fails with rec_pidfd_errno (0: joins) */
static int rec_pidfd_errno;
static int rec_refuse;         /* setns into this kind fails with EPERM */
static char rec_dir[64];       /* the fake /proc/PID */

static void __attribute__ ((format (printf, 1, 2)))
rec (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  unit_vlog (rec_log, sizeof rec_log, fmt, ap);
  va_end (ap);
}

/* CLONE_NEW* flags as names, in the order of joining. */
static const char *
kinds (int flags, char buf[128])
{
  buf[0] = '\0';
  for (size_t i = 0; nsjoin_kind (i) != 0; i++)
    if (flags & nsjoin_kind (i))
      {
        strcat (buf, buf[0] ? "," : "");
        strcat (buf, ns_proc_name (nsjoin_kind (i)));
      }
  return buf;
}

/* Empty the fake ns/ directory (the files stay open where they are). */
static void
empty_dir (void)
{
  char path[128];
  for (size_t i = 0; nsjoin_kind (i) != 0; i++)
    {
      snprintf (path, sizeof path, "%s/ns/%s", rec_dir, ns_proc_name (nsjoin_kind (i)));
      unlink (path);
    }
}

static int
rec_setns (int fd, int nstype)
{
  char p[64], target[PATH_MAX], k[128];
  const char *name;
  ssize_t n;

  if (fd == rec_pidfd)
    {
      rec ("setns pidfd %s", kinds (nstype, k));
      errno = rec_pidfd_errno;
      return rec_pidfd_errno ? -1 : 0;
    }
  snprintf (p, sizeof p, "/proc/self/fd/%d", fd);
  n = readlink (p, target, sizeof target - 1);
  target[n < 0 ? 0 : n] = '\0';
  if (strstr (target, " (deleted)"))
    *strstr (target, " (deleted)") = '\0'; /* opened before the directory was emptied */
  /* a file of the fake directory by its name, one of ours (nsfs: "net:[4026...]") as "own-" */
  name = strrchr (target, '/') ? strrchr (target, '/') + 1 : target;
  if (strchr (target, ':'))
    *strchr (target, ':') = '\0', name = target;
  rec ("setns %s%s %s", target[0] == '/' ? "" : "own-", name, kinds (nstype, k));
  if (target[0] == '/')
    empty_dir ();
  if (nstype == rec_refuse)
    {
      errno = EPERM;
      return -1;
    }
  return 0;
}

const sys_ops *const sys = &(const sys_ops){ .setns = rec_setns };

/* ---- the fake /proc/PID ---- */

static int
fake_proc (void)
{
  char path[128];

  rec_log[0] = '\0';
  rec_pidfd = -1;
  rec_pidfd_errno = 0;
  rec_refuse = 0;
  if (rec_dir[0] == '\0')
    {
      strcpy (rec_dir, "/tmp/test_nsjoin.XXXXXX");
      if (mkdtemp (rec_dir) == NULL)
        abort ();
      snprintf (path, sizeof path, "%s/ns", rec_dir);
      mkdir (path, 0755);
    }
  for (size_t i = 0; nsjoin_kind (i) != 0; i++)
    {
      snprintf (path, sizeof path, "%s/ns/%s", rec_dir, ns_proc_name (nsjoin_kind (i)));
      close (open (path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
    }
  return open (rec_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static int
ns_file (const char *name)
{
  char path[128];
  snprintf (path, sizeof path, "%s/ns/%s", rec_dir, name);
  return open (path, O_RDONLY | O_CLOEXEC);
}

static const int all = CLONE_NEWUSER | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWCGROUP
                       | CLONE_NEWTIME | CLONE_NEWNS;

#define ALL_FILES                                                                                  \
  "setns user user\nsetns ipc ipc\nsetns uts uts\nsetns net net\nsetns pid pid\n"                  \
  "setns cgroup cgroup\nsetns time time\nsetns mnt mnt\n"

/* ---- exec: the namespaces of a running process ---- */

static void
t_pidfd_one_call (void)
{
  cleanup_close int dir = fake_proc ();
  cleanup_close int pidfd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  ocisbx_err *err = NULL;

  rec_pidfd = pidfd;
  CHECK (nsjoin_process (pidfd, dir, 42, CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUSER, &err) == 0);
  CHECK_STR (rec_log, "setns pidfd user,net,mnt\n");
  err_freep (&err);
}

/* Linux < 5.8 (EINVAL) or a pidfd it does not know (EBADF): the files, in the order,
   every one opened before the first join (the first empties the directory). */
static void
t_pidfd_refused_falls_back_to_files (void)
{
  static const int errs[] = { EINVAL, EBADF };

  for (size_t i = 0; i < 2; i++)
    {
      cleanup_close int dir = fake_proc ();
      cleanup_close int pidfd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
      ocisbx_err *err = NULL;

      rec_pidfd = pidfd;
      rec_pidfd_errno = errs[i];
      CHECK (nsjoin_process (pidfd, dir, 42, all, &err) == 0);
      CHECK_STR (rec_log, "setns pidfd user,ipc,uts,net,pid,cgroup,time,mnt\n" ALL_FILES);
      err_freep (&err);
    }
}

static void
t_no_pidfd_files_only (void)
{
  cleanup_close int dir = fake_proc ();
  ocisbx_err *err = NULL;

  CHECK (nsjoin_process (-1, dir, 42, CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWUTS, &err) == 0);
  CHECK_STR (rec_log, "setns uts uts\nsetns pid pid\nsetns mnt mnt\n");
  err_freep (&err);
  rec_log[0] = '\0';
  CHECK (nsjoin_process (-1, dir, 42, 0, &err) == 0);
  CHECK_STR (rec_log, "");
}

static void
t_pidfd_error_is_not_retried (void)
{
  cleanup_close int dir = fake_proc ();
  cleanup_close int pidfd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  ocisbx_err *err = NULL;

  rec_pidfd = pidfd;
  rec_pidfd_errno = EPERM;
  CHECK (nsjoin_process (pidfd, dir, 42, CLONE_NEWNS | CLONE_NEWNET, &err) < 0);
  CHECK_STR (rec_log, "setns pidfd net,mnt\n");
  CHECK (err && strstr (err->msg, "namespaces of process 42 (setns on its pidfd)") && err->errnum == EPERM);
  err_freep (&err);
}

/* A file that cannot be opened: named, and nothing joined. */
static void
t_missing_file_named_nothing_joined (void)
{
  cleanup_close int dir = fake_proc ();
  char path[128];
  ocisbx_err *err = NULL;

  snprintf (path, sizeof path, "%s/ns/net", rec_dir);
  unlink (path);
  CHECK (nsjoin_process (-1, dir, 42, CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS, &err) < 0);
  CHECK_STR (rec_log, "");
  CHECK (err && strstr (err->msg, "open /proc/42/ns/net") && err->errnum == ENOENT);
  err_freep (&err);
}

/* A refused join: named; none after it. */
static void
t_refused_join_named_and_last (void)
{
  cleanup_close int dir = fake_proc ();
  ocisbx_err *err = NULL;

  rec_refuse = CLONE_NEWUTS;
  CHECK (nsjoin_process (-1, dir, 42, all, &err) < 0);
  CHECK_STR (rec_log, "setns user user\nsetns ipc ipc\nsetns uts uts\n");
  CHECK (err && strcmp (err->msg, "setns uts namespace: Operation not permitted") == 0);
  err_freep (&err);
}

/* ---- create: open files (linux.namespaces[].path) ---- */

static void
t_fds_sorted_user_first_mount_last (void)
{
  cleanup_close int dir = fake_proc ();
  ns_join_entry e[4] = { { CLONE_NEWNS, ns_file ("mnt") },
                         { CLONE_NEWPID, ns_file ("pid") },
                         { CLONE_NEWNET, ns_file ("net") },
                         { CLONE_NEWUSER, ns_file ("user") } };
  ocisbx_err *err = NULL;

  nsjoin_sort (e, 4);
  CHECK (e[0].flag == CLONE_NEWUSER && e[3].flag == CLONE_NEWNS);
  /* the child's joins (ns_join): not pid, which the parent entered */
  CHECK (nsjoin_fds (e, 4, CLONE_NEWPID, &err) == 0);
  CHECK_STR (rec_log, "setns user user\nsetns net net\nsetns mnt mnt\n");
  for (size_t i = 0; i < 4; i++)
    close (e[i].fd);
  err_freep (&err);
}

/* The parent around the clone: ours saved, theirs joined (mount last), then back to
   ours the other way round. */
static void
t_enter_for_clone_and_leave (void)
{
  cleanup_close int dir = fake_proc ();
  ns_plan plan;
  ns_saved saved;
  ocisbx_err *err = NULL;

  memset (&plan, 0, sizeof plan);
  plan.joins[0] = (ns_join_entry){ CLONE_NEWIPC, ns_file ("ipc") };
  plan.joins[1] = (ns_join_entry){ CLONE_NEWNET, ns_file ("net") };
  plan.joins[2] = (ns_join_entry){ CLONE_NEWNS, ns_file ("mnt") };
  plan.n_joins = 3;
  CHECK (ns_enter_for_clone (&plan, &saved, &err) == 0);
  CHECK_STR (rec_log, "setns ipc ipc\nsetns net net\nsetns mnt mnt\n");
  rec_log[0] = '\0';
  CHECK (ns_leave (&saved, &err) == 0);
  CHECK_STR (rec_log, "setns own-mnt mnt\nsetns own-net net\nsetns own-ipc ipc\n");
  err_freep (&err);

  /* a joined user namespace: the parent enters only the pid namespace, the child
     (ns_join) the rest, user first */
  close (fake_proc ());
  plan.joins[3] = (ns_join_entry){ CLONE_NEWUSER, ns_file ("user") };
  plan.joins[4] = (ns_join_entry){ CLONE_NEWPID, ns_file ("pid") };
  plan.n_joins = 5;
  plan.join_user = true;
  nsjoin_sort (plan.joins, plan.n_joins);
  CHECK (ns_enter_for_clone (&plan, &saved, &err) == 0);
  CHECK_STR (rec_log, "setns pid pid\n");
  rec_log[0] = '\0';
  CHECK (ns_leave (&saved, &err) == 0);
  CHECK_STR (rec_log, "setns own-pid pid\n");
  rec_log[0] = '\0';
  CHECK (ns_join (&plan, &err) == 0);
  CHECK_STR (rec_log, "setns user user\nsetns ipc ipc\nsetns net net\nsetns mnt mnt\n");
  ns_plan_close (&plan);
  err_freep (&err);
}

static void
remove_fake_proc (void)
{
  char path[128];
  empty_dir ();
  snprintf (path, sizeof path, "%s/ns", rec_dir);
  rmdir (path);
  rmdir (rec_dir);
}

int
main (void)
{
  static const unit_test tests[] = {
    { "exec: one setns on the init's pidfd", t_pidfd_one_call },
    { "exec: a pidfd refused (EINVAL, EBADF): the files, opened first, user first", t_pidfd_refused_falls_back_to_files },
    { "exec: no pidfd: the files only", t_no_pidfd_files_only },
    { "exec: another error of the pidfd's is an error", t_pidfd_error_is_not_retried },
    { "exec: a file that cannot be opened is named, nothing joined", t_missing_file_named_nothing_joined },
    { "exec: a refused join names the namespace, none after it", t_refused_join_named_and_last },
    { "create: joined files sorted user first, mount last; pid skipped", t_fds_sorted_user_first_mount_last },
    { "create: around the clone, back the other way; a joined user namespace", t_enter_for_clone_and_leave },
  };
  int r = unit_run (tests, sizeof tests / sizeof tests[0]);
  remove_fake_proc ();
  return r;
}
