/* Pure logic of the lifecycle: signal names, container ids, PATH lookup,
   capability and rlimit tables, CPU lists, the state file round trip. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/ns/namespaces.h"
#include "core/process/process.h"
#include "core/container/container_internal.h"
#include "core/container/state_store.h"
#include "core/container/sync.h"
#include "core/container/sync_transport.h"
#include "core/utils.h"
#include "unit.h"
#include "unit_files.h"

static void
test_signal_names (void)
{
  CHECK (signal_parse ("KILL") == SIGKILL);
  CHECK (signal_parse ("SIGKILL") == SIGKILL);
  CHECK (signal_parse ("kill") == SIGKILL);
  CHECK (signal_parse ("sigterm") == SIGTERM);
  CHECK (signal_parse ("9") == 9);
  CHECK (signal_parse ("10") == SIGUSR1);
  CHECK (signal_parse ("USR2") == SIGUSR2);
  CHECK (signal_parse ("WINCH") == SIGWINCH);
  CHECK (signal_parse ("RTMIN") == SIGRTMIN);
  CHECK (signal_parse ("SIGRTMIN+2") == SIGRTMIN + 2);
  CHECK (signal_parse ("RTMAX-1") == SIGRTMAX - 1);
  CHECK (signal_parse (NULL) == -1);
  CHECK (signal_parse ("") == -1);
  CHECK (signal_parse ("0") == 0);
  CHECK (signal_parse ("1000") == -1);
  CHECK (signal_parse ("-9") == -1);
  CHECK (signal_parse ("9x") == -1);
  CHECK (signal_parse ("NOSUCHSIG") == -1);
  CHECK (signal_parse ("SIG") == -1);
  CHECK (signal_parse ("RTMIN+99") == -1);
  CHECK (signal_parse ("RTMIN-1") == -1);
}

static void
test_ids (void)
{
  ocisbx_err *err = NULL;
  char long_id[STATE_ID_MAX + 2];

  CHECK (state_validate_id ("abc", NULL) == 0);
  CHECK (state_validate_id ("Ab_1.2-3+x", NULL) == 0);
  CHECK (state_validate_id ("0", NULL) == 0);
  const char *bad[] = { "", ".", "..", "../x", "a/b", "/abs", "x y", "a\tb", "a:b", "-a", "_a", ".a", "a\n", "é" };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      int r = state_validate_id (bad[i], &err);
      CHECK (r < 0);
      CHECK (err != NULL && strstr (err->msg, "invalid container id") != NULL);
      err_freep (&err);
    }
  CHECK (state_validate_id (NULL, NULL) < 0);
  memset (long_id, 'a', sizeof long_id);
  long_id[STATE_ID_MAX] = '\0';
  CHECK (state_validate_id (long_id, NULL) == 0);
  long_id[STATE_ID_MAX] = 'a';
  long_id[STATE_ID_MAX + 1] = '\0';
  CHECK (state_validate_id (long_id, NULL) < 0);
}

static void
test_capabilities (void)
{
  CHECK (capability_from_name ("CAP_CHOWN") == 0);
  CHECK (capability_from_name ("CAP_SYS_ADMIN") == 21);
  CHECK (capability_from_name ("cap_net_raw") == 13);
  CHECK (capability_from_name ("CAP_CHECKPOINT_RESTORE") == 40);
  CHECK (capability_from_name ("CAP_BPF") == 39);
  CHECK (capability_from_name ("CAP_NOPE") == -1);
  CHECK (capability_from_name ("CHOWN") == -1);
  CHECK (capability_from_name (NULL) == -1);
  for (int i = 0; i <= CAPABILITY_MAX; i++)
    CHECK (capability_from_name (capability_name (i)) == i);
  CHECK (capability_name (41) == NULL);
  CHECK (capability_name (-1) == NULL);
}

static void
test_rlimits (void)
{
  CHECK (rlimit_from_name ("RLIMIT_NOFILE") == RLIMIT_NOFILE);
  CHECK (rlimit_from_name ("RLIMIT_CORE") == RLIMIT_CORE);
  CHECK (rlimit_from_name ("RLIMIT_RTTIME") == RLIMIT_RTTIME);
  CHECK (rlimit_from_name ("RLIMIT_FOO") == -1);
  CHECK (rlimit_from_name ("rlimit_nofile") == -1);
  CHECK (rlimit_from_name (NULL) == -1);
}

static void
test_cpuset (void)
{
  cpu_set_t *s = NULL;
  size_t sz = 0;

  CHECK (cpuset_parse ("0-3,7", &s, &sz) == 0);
  if (s)
    {
      CHECK (CPU_ISSET_S (0, sz, s) && CPU_ISSET_S (3, sz, s) && CPU_ISSET_S (7, sz, s));
      CHECK (!CPU_ISSET_S (4, sz, s) && !CPU_ISSET_S (6, sz, s));
      CHECK (CPU_COUNT_S (sz, s) == 5);
      CPU_FREE (s);
    }
  s = NULL;
  CHECK (cpuset_parse ("5", &s, &sz) == 0 && s && CPU_COUNT_S (sz, s) == 1);
  if (s)
    CPU_FREE (s);
  const char *bad[] = { "", "a", "1-", "3-1", "1,,2", "1;2", "-1", "1-2-3", NULL };
  for (size_t i = 0; bad[i]; i++)
    {
      s = NULL;
      CHECK (cpuset_parse (bad[i], &s, &sz) < 0);
      CHECK (s == NULL);
    }
  CHECK (cpuset_parse (NULL, &s, &sz) < 0);
}

static void
touch (const char *path, mode_t mode)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd >= 0)
    close (fd);
  chmod (path, mode);
}

/* touch of DIR followed by TAIL. */
static void
touch_in (const char *dir, const char *tail, mode_t mode)
{
  char path[4096];
  snprintf (path, sizeof path, "%s%s", dir, tail);
  touch (path, mode);
}

/* passwd_field reads in 4 KiB steps: lines across the steps, a last line without a
   newline, a line longer than the buffer (skipped), odd lines. */
static void
test_passwd_field (void)
{
  char path[] = "/tmp/test_passwd.XXXXXX";
  int fd = mkstemp (path);
  cleanup_free char *longline = xmalloc0 (9000), *big = NULL;
  char *s;

  CHECK (fd >= 0);
  close (fd);
  CHECK (write_text (path, "root:x:0:0:root:/root:/bin/sh\n# comment\n\nodd\nnohome:x:7:7:::/bin/sh\n"
                           "user:x:1000:1000:U:/home/user:/bin/sh"));
  CHECK_STR ((s = passwd_field (path, 0, 5)), "/root");
  free (s);
  CHECK_STR ((s = passwd_field (path, 1000, 5)), "/home/user"); /* no final newline */
  free (s);
  CHECK_STR ((s = passwd_field (path, 1000, 0)), "user");
  free (s);
  CHECK (passwd_field (path, 7, 5) == NULL); /* empty field */
  CHECK (passwd_field (path, 42, 5) == NULL);
  CHECK (passwd_field (path, 0, 7) == NULL);
  /* a 9000-byte line that looks like uid 5's, then uid 5 past the first 4 KiB */
  memset (longline, 'a', 8990);
  memcpy (longline, "bad:x:5:5::/bad:", 16);
  big = xasprintf ("%s\n%s\nfive:x:5:5::/home/five:/bin/sh\n", longline, "x:x:9:9::/n:/bin/sh");
  CHECK (write_text (path, big));
  CHECK_STR ((s = passwd_field (path, 5, 5)), "/home/five");
  free (s);
  CHECK_STR ((s = passwd_field (path, 9, 5)), "/n");
  free (s);
  /* an entry past the first PASSWD_MAX bytes (of zeros, a hole) is not read */
  fd = open (path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CHECK (fd >= 0 && ftruncate (fd, PASSWD_MAX) == 0 && lseek (fd, 0, SEEK_END) == (off_t) PASSWD_MAX);
  CHECK (write (fd, "\nlate:x:3:3::/late:/bin/sh\n", 27) == 27);
  close (fd);
  CHECK (passwd_field (path, 3, 5) == NULL);
  unlink (path);
  CHECK (passwd_field (path, 0, 5) == NULL); /* no file */
  /* what is not a plain file is not read (nor waited for): a FIFO, a device, procfs */
  CHECK (mkfifo (path, 0600) == 0);
  CHECK (passwd_field (path, 0, 5) == NULL);
  unlink (path);
  CHECK (passwd_field ("/dev/zero", 0, 5) == NULL);
  CHECK (passwd_field ("/proc/self/status", 0, 5) == NULL);
}

static void
test_path_lookup (void)
{
  char tmpl[] = "/tmp/test_lifecycle.XXXXXX";
  char *dir = mkdtemp (tmpl);
  cleanup_free char *a = NULL, *b = NULL, *exe = NULL, *noexec = NULL, *path = NULL;
  char *out = NULL;
  ocisbx_err *err = NULL;

  CHECK (dir != NULL);
  if (dir == NULL)
    return;
  a = xasprintf ("%s/a", dir);
  b = xasprintf ("%s/b", dir);
  mkdir (a, 0755);
  mkdir (b, 0755);
  exe = xasprintf ("%s/prog", b);
  touch (exe, 0755);
  noexec = xasprintf ("%s/data", a);
  touch (noexec, 0644);
  path = xasprintf ("%s:%s", a, b);

  /* found in the second directory */
  CHECK (path_lookup ("prog", path, &out, &err) == 0);
  CHECK_STR (out, exe);
  free (out);
  out = NULL;

  /* missing: Go's wording, which podman matches */
  CHECK (path_lookup ("nosuchcmd", path, &out, &err) < 0);
  CHECK (err && strcmp (err->msg, "exec: \"nosuchcmd\": executable file not found in $PATH") == 0);
  /* the kind, not the words, gives exec's exit code: 127 */
  CHECK (err && err->kind == ERR_NOT_FOUND && err_exec_exit_code (err, 255) == 127);
  err_freep (&err);

  /* only a non-executable candidate: permission denied */
  CHECK (path_lookup ("data", path, &out, &err) < 0);
  CHECK (err && strcmp (err->msg, "exec: \"data\": permission denied") == 0);
  CHECK (err && err->kind == ERR_PERMISSION && err_exec_exit_code (err, 255) == 126);
  err_freep (&err);

  /* a directory is not executable */
  CHECK (path_lookup ("b", dir, &out, &err) < 0);
  CHECK (err && err->kind == ERR_PERMISSION);
  err_freep (&err);

  /* absolute paths are not searched */
  CHECK (path_lookup (exe, "/nonexistent", &out, &err) == 0);
  CHECK_STR (out, exe);
  free (out);
  out = NULL;
  CHECK (path_lookup ("/no/such/binary", path, &out, &err) < 0);
  CHECK (err && strcmp (err->msg, "exec: \"/no/such/binary\": stat /no/such/binary: no such file or directory") == 0);
  CHECK (err && err->kind == ERR_NOT_FOUND);
  err_freep (&err);
  CHECK (path_lookup (noexec, path, &out, &err) < 0);
  CHECK (err && strstr (err->msg, "permission denied") != NULL && strstr (err->msg, noexec) != NULL);
  CHECK (err && err->kind == ERR_PERMISSION);
  /* wrapped, the kind stays; a plain error is 255 whatever its words */
  err_wrap (&err, "process");
  CHECK (err && err->kind == ERR_PERMISSION);
  err_freep (&err);
  err_set (&err, EACCES, "mount `/x`: permission denied");
  CHECK (err && err->kind == ERR_SYSTEM && err_exec_exit_code (err, 255) == 255);
  err_freep (&err);

  /* the default PATH when the environment has none: /bin/sh exists on the host */
  CHECK (path_lookup ("sh", NULL, &out, &err) == 0);
  CHECK (out && strstr (out, "/sh") != NULL);
  free (out);
  out = NULL;
  CHECK (path_lookup ("", path, &out, &err) < 0);
  CHECK (err && strcmp (err->msg, "exec: \"\": executable file not found in $PATH") == 0 && err->kind == ERR_NOT_FOUND);
  err_freep (&err);

  unlink (exe);
  unlink (noexec);
  rmdir (a);
  rmdir (b);
  rmdir (dir);
}

static void
test_namespace_names (void)
{
  CHECK (ns_flag_of ("pid") == CLONE_NEWPID);
  CHECK (ns_flag_of ("network") == CLONE_NEWNET);
  CHECK (ns_flag_of ("mount") == CLONE_NEWNS);
  CHECK (ns_flag_of ("time") == CLONE_NEWTIME);
  CHECK (ns_flag_of ("net") == 0);
  CHECK (ns_flag_of ("foo") == 0);
  CHECK (ns_flag_of (NULL) == 0);
  CHECK_STR (ns_proc_name (CLONE_NEWNET), "net");
  CHECK_STR (ns_proc_name (CLONE_NEWNS), "mnt");
  CHECK (ns_proc_name (0) == NULL);
}

static void
test_namespace_plan (void)
{
  oci_namespace nss[3] = { { "pid", NULL }, { "mount", NULL }, { "foo", NULL } };
  oci_linux lx = { 0 };
  ns_plan plan;
  ocisbx_err *err = NULL;

  lx.namespaces = nss;
  lx.namespaces_len = 2;
  CHECK (ns_prepare (&lx, &plan, &err) == 0);
  CHECK (plan.new_flags == (CLONE_NEWPID | CLONE_NEWNS));
  CHECK (ns_clone_flags (&plan) == (CLONE_NEWPID | CLONE_NEWNS));
  ns_plan_close (&plan);

  lx.namespaces_len = 3;
  CHECK (ns_prepare (&lx, &plan, &err) < 0);
  CHECK (err && strcmp (err->msg, "config.json: .linux.namespaces[2].type: unknown namespace \"foo\"") == 0);
  err_freep (&err);
  ns_plan_close (&plan);

  /* a path that is not a namespace, and one of the wrong type */
  nss[2] = (oci_namespace){ "network", "/etc/passwd" };
  CHECK (ns_prepare (&lx, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, ".linux.namespaces[2].path") && strstr (err->msg, "not a namespace"));
  err_freep (&err);
  ns_plan_close (&plan);
  nss[2] = (oci_namespace){ "network", "/proc/self/ns/uts" };
  CHECK (ns_prepare (&lx, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, "is a uts namespace, not network"));
  err_freep (&err);
  ns_plan_close (&plan);
  /* a path of the runtime's mount namespace is absolute (runtime-spec config-linux.md) */
  nss[2] = (oci_namespace){ "network", "proc/self/ns/net" };
  CHECK (ns_prepare (&lx, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, ".linux.namespaces[2].path: \"proc/self/ns/net\" is not an absolute path"));
  err_freep (&err);
  ns_plan_close (&plan);
  nss[2] = (oci_namespace){ "network", "/proc/self/ns/net" };
  CHECK (ns_prepare (&lx, &plan, &err) == 0);
  CHECK (plan.n_joins == 1 && plan.joins[0].flag == CLONE_NEWNET && plan.joins[0].fd >= 0);
  ns_plan_close (&plan);

  /* twice the same kind */
  nss[2] = (oci_namespace){ "pid", NULL };
  CHECK (ns_prepare (&lx, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, "given twice"));
  err_freep (&err);
  ns_plan_close (&plan);
}

/* state_dir_remove: what create leaves (by name), anything else too (the walk). */
static void
test_state_dir_remove (void)
{
  char tmpl[] = "/tmp/test_lifecycle_rm.XXXXXX";
  char *dir = mkdtemp (tmpl);
  ocisbx_err *err = NULL;
  cleanup_free char *a = NULL, *b = NULL, *sub = NULL;
  int rootfd;

  CHECK (dir != NULL);
  if (dir == NULL)
    return;
  rootfd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  a = xasprintf ("%s/a", dir);
  b = xasprintf ("%s/b", dir);
  sub = xasprintf ("%s/b/sub", dir);
  /* a: state.json and exec.fifo only */
  CHECK (mkdir (a, 0700) == 0);
  touch_in (a, "/" STATE_FILE, 0600);
  CHECK (mkfifoat (rootfd, "a/" STATE_FIFO, 0622) == 0);
  CHECK (state_dir_remove (rootfd, "a", &err) == 0);
  CHECK (access (a, F_OK) < 0 && errno == ENOENT);
  /* b: more, and a subdirectory */
  CHECK (mkdir (b, 0700) == 0 && mkdir (sub, 0700) == 0);
  touch_in (b, "/" STATE_FILE, 0600);
  touch_in (b, "/extra", 0600);
  touch_in (sub, "/deeper", 0600);
  CHECK (state_dir_remove (rootfd, "b", &err) == 0);
  CHECK (access (b, F_OK) < 0 && errno == ENOENT);
  /* gone already: fine */
  CHECK (state_dir_remove (rootfd, "b", &err) == 0);
  CHECK (err == NULL);
  err_free (err);
  close (rootfd);
  rmdir (dir);
}

static void
test_state_roundtrip (void)
{
  char tmpl[] = "/tmp/test_lifecycle_state.XXXXXX";
  char *dir = mkdtemp (tmpl);
  int rootfd, dirfd, dup;
  ocisbx_err *err = NULL;
  char *keys[] = { "a" }, *values[] = { "b" };
  int64_t timeout = 5;
  oci_hook hook = { .path = "/bin/true", .timeout = &timeout };
  cgroup_state_hierarchy hier = { .name = "memory", .controllers = "memory", .path = "/ocisbx/c1", .created = 1 };
  cgroup_state cg = { .layout = "v1", .hierarchies = &hier, .hierarchies_len = 1 };
  container_state st = {
    .oci_version = "1.2.0", .id = "c1", .pid = 1234, .start_time = 99, .bundle = "/b", .rootfs = "/b/rootfs",
    .created = "2024-01-01T00:00:00.000000000Z", .owner = 0, .cgroups = &cg, .userns = true,
    .annotations = { keys, values, 1 }, .poststop = &hook, .poststop_len = 1,
  };
  container_state *back = NULL;

  CHECK (dir != NULL);
  if (dir == NULL)
    return;
  rootfd = state_root_open (dir, false, &err);
  CHECK (rootfd >= 0);
  dirfd = state_dir_create (rootfd, "c1", &err);
  CHECK (dirfd >= 0);
  /* a second create of the same id fails */
  dup = state_dir_create (rootfd, "c1", &err);
  CHECK (dup < 0 && err && strstr (err->msg, "already exists") && err->kind == ERR_EXISTS);
  err_freep (&err);
  CHECK (state_dir_create (rootfd, "../evil", &err) < 0);
  err_freep (&err);

  CHECK (state_write (dirfd, &st, &err) == 0);
  CHECK (state_read (dirfd, "c1", &back, &err) == 0);
  if (back)
    {
      CHECK_STR (back->id, "c1");
      CHECK (back->pid == 1234 && back->start_time == 99 && back->userns);
      CHECK_STR (back->bundle, "/b");
      CHECK (back->annotations.len == 1);
      CHECK (back->poststop_len == 1 && back->poststop[0].timeout && *back->poststop[0].timeout == 5);
      /* the cgroups: a typed object, no test flag */
      CHECK (back->cgroups && back->cgroup == NULL && back->cgroups->hierarchies_len == 1);
      CHECK (back->cgroups && strcmp (back->cgroups->layout, "v1") == 0
             && strcmp (back->cgroups->hierarchies[0].path, "/ocisbx/c1") == 0
             && back->cgroups->hierarchies[0].created == 1);
      /* pid 1234 with start time 99 is not a live init of ours */
      CHECK (state_status (dirfd, back) == STATUS_STOPPED);
      container_state_free (back);
    }
  CHECK_STR (container_status_name (STATUS_PAUSED), "paused");

  /* the init record: none, written, read back; a corrupt state.json is named by path */
  {
    pid_t pid = 0;
    uint64_t t = 0;
    cleanup_free char *path = xasprintf ("%s/c1/" STATE_FILE, dir);
    CHECK (state_init_record_read (dirfd, &pid, &t, &err) == 0);
    CHECK (state_init_record_write (dirfd, 4321, 123456789012ULL, &err) == 0);
    CHECK (state_init_record_read (dirfd, &pid, &t, &err) == 1 && pid == 4321 && t == 123456789012ULL);
    CHECK (state_init_record_write (dirfd, 1, 1, &err) < 0); /* written once */
    err_freep (&err);
    CHECK (unlinkat (dirfd, STATE_INIT, 0) == 0 && symlinkat ("12 x", dirfd, STATE_INIT) == 0);
    CHECK (state_init_record_read (dirfd, &pid, &t, &err) < 0 && err && strstr (err->msg, "/c1/" STATE_INIT));
    err_freep (&err);
    /* an older ocisbx's state.json: "cgroup" is text; read as the typed "cgroups" */
    {
      const char *old = "{\"id\":\"c1\",\"pid\":1234,\"startTime\":5,\"bundle\":\"/b\",\"cgroup\":\"ocisbx-cgroups 1\\nlayout "
                        "hybrid\\nfake 0\\nrootless 0\\nh 1 memory\\tmemory\\t0\\t/ocisbx/c1\\nh 2 unified\\t\\t1\\t"
                        "/ocisbx/c1\\n\"}";
      CHECK (write_file_atomic_at (dirfd, STATE_FILE, old, strlen (old), 0600, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) == 0);
      CHECK (back && back->cgroup == NULL && back->cgroups && back->cgroups->hierarchies_len == 2);
      if (back && back->cgroups && back->cgroups->hierarchies_len == 2)
        {
          cgroup_state_hierarchy *u = &back->cgroups->hierarchies[1];
          CHECK_STR (back->cgroups->layout, "hybrid");
          CHECK (!back->cgroups->rootless && back->cgroups->systemd_unit == NULL);
          CHECK (strcmp (u->name, "unified") == 0 && u->controllers[0] == '\0' && u->v2 && u->created == 2
                 && strcmp (u->path, "/ocisbx/c1") == 0);
        }
      container_state_free (back);
      back = NULL;
      /* what is not the old text is an error naming the file and the field */
      old = "{\"id\":\"c1\",\"pid\":1,\"startTime\":5,\"bundle\":\"/b\",\"cgroup\":\"x\"}";
      CHECK (write_file_atomic_at (dirfd, STATE_FILE, old, strlen (old), 0600, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, path)
             && strstr (err->msg, ".cgroup: cgroups: unknown serialized state"));
      err_freep (&err);
    }
    /* state.json's init against the record: a missing startTime is the record's for
       the same pid; another pid, or neither, is refused naming the file */
    {
      const char *nost = "{\"id\":\"c1\",\"pid\":4321,\"bundle\":\"/b\"}";
      CHECK (write_file_atomic_at (dirfd, STATE_FILE, nost, strlen (nost), 0600, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, path)
             && strstr (err->msg, "startTime") && strstr (err->msg, "/c1/" STATE_INIT));
      err_freep (&err);
      CHECK (unlinkat (dirfd, STATE_INIT, 0) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, "no init record"));
      err_freep (&err);
      CHECK (state_init_record_write (dirfd, 4321, 77, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) == 0 && back && back->start_time == 77);
      container_state_free (back);
      back = NULL;
      nost = "{\"id\":\"c1\",\"pid\":4322,\"bundle\":\"/b\"}";
      CHECK (write_file_atomic_at (dirfd, STATE_FILE, nost, strlen (nost), 0600, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, "pid 4321"));
      err_freep (&err);
      nost = "{\"id\":\"c1\",\"pid\":4321,\"startTime\":78,\"bundle\":\"/b\"}";
      CHECK (write_file_atomic_at (dirfd, STATE_FILE, nost, strlen (nost), 0600, &err) == 0);
      CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, "start time 77"));
      err_freep (&err);
    }
    CHECK (write_file_atomic_at (dirfd, STATE_FILE, "{\"id\":", 6, 0600, &err) == 0);
    CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, path));
    err_freep (&err);
    CHECK (write_file_atomic_at (dirfd, STATE_FILE, "", 0, 0600, &err) == 0);
    CHECK (state_read (dirfd, "c1", &back, &err) < 0 && err && strstr (err->msg, "empty"));
    err_freep (&err);
  }
  close (dirfd);
  CHECK (state_dir_open (rootfd, "nope", 0, &err) < 0 && err && strstr (err->msg, "does not exist")
         && err->kind == ERR_NOT_FOUND);
  err_freep (&err);
  CHECK (state_dir_remove (rootfd, "c1", &err) == 0);
  CHECK (faccessat (rootfd, "c1", F_OK, 0) < 0 && errno == ENOENT);
  close (rootfd);
  rmdir (dir);
}

static void
test_timestamp (void)
{
  /* clock_gettime, not time(): glibc's time() reads the coarse clock, which can
     still be in the previous second when the precise one is in the next. */
  struct timespec t0, t1;
  clock_gettime (CLOCK_REALTIME, &t0);
  cleanup_free char *ts = state_timestamp_now ();
  clock_gettime (CLOCK_REALTIME, &t1);
  time_t before = t0.tv_sec, after = t1.tv_sec;
  struct tm a, b;
  char want_a[32], want_b[32];

  /* 2024-05-01T10:00:00.123456789Z */
  CHECK (ts && strlen (ts) == 30 && ts[4] == '-' && ts[7] == '-' && ts[10] == 'T' && ts[19] == '.' && ts[29] == 'Z');
  gmtime_r (&before, &a);
  gmtime_r (&after, &b);
  strftime (want_a, sizeof want_a, "%Y-%m-%dT%H:%M:%S", &a);
  strftime (want_b, sizeof want_b, "%Y-%m-%dT%H:%M:%S", &b);
  CHECK (ts && (strncmp (ts, want_a, 19) == 0 || strncmp (ts, want_b, 19) == 0));
}

static void
test_proc_stat (void)
{
  uint64_t t = 0, t2 = 0;
  char s = 0;
  CHECK (proc_stat_start_time (getpid (), &t, &s) == 0);
  CHECK (t > 0 && s == 'R');
  CHECK (proc_stat_start_time (getpid (), &t2, NULL) == 0 && t2 == t);
  CHECK (proc_stat_start_time (0x3fffffff, &t, &s) < 0);
}

static void
test_sync_channel (void)
{
  int fds[2], pp[2];
  ocisbx_err *err = NULL;
  sync_msg m;

  CHECK (sync_pair (fds, &err) == 0);
  CHECK (pipe (pp) == 0);
  CHECK (sync_send (fds[1], SYNC_READY, 7, "abc", 3, pp[0], &err) == 0);
  CHECK (sync_recv (fds[0], SYNC_READY, &m, &err) == 0);
  CHECK (m.value == 7 && m.len == 3 && m.payload && strcmp (m.payload, "abc") == 0 && m.fd >= 0);
  sync_msg_clear (&m);
  /* an error from the peer */
  {
    ocisbx_err *peer = NULL;
    err_setk (&peer, ERR_PERMISSION, ENOENT, "exec: \"x\"");
    sync_send_error (fds[1], peer);
    err_free (peer);
  }
  CHECK (sync_recv (fds[0], SYNC_READY, &m, &err) < 0);
  CHECK (err && err->errnum == ENOENT && strstr (err->msg, "exec: \"x\""));
  CHECK (err && err->kind == ERR_PERMISSION); /* the kind crosses the channel */
  err_freep (&err);
  /* the wrong message, then end of file */
  CHECK (sync_send (fds[1], SYNC_GO, 0, NULL, 0, -1, &err) == 0);
  CHECK (sync_recv (fds[0], SYNC_READY, &m, &err) < 0 && err && err->errnum == EPROTO);
  err_freep (&err);
  close (fds[1]);
  CHECK (sync_recv (fds[0], SYNC_READY, &m, &err) < 0 && err && err->errnum == EPIPE);
  err_freep (&err);
  close (fds[0]);
  close (pp[0]);
  close (pp[1]);
}

/* sync_mount_server for test_sync_steps: /dev/null for mount 3. */
static int
open_null_source (void *arg, size_t index, int child_fd, ocisbx_err **err)
{
  int *calls = arg;

  (*calls)++;
  if (index != 3 || child_fd != -1)
    return err_set (err, EINVAL, "mount %zu", index);
  return open ("/dev/null", O_RDONLY | O_CLOEXEC);
}

/* Where the init waits for SYNC_GO (sync.h draws it): in a user namespace, before its
   mounts, so that the bind sources it asks for are served after SYNC_GO, in the
   pipeline's serve_mount_sources step. */
static void
test_go_at (void)
{
  for (int i = 0; i < 8; i++)
    {
      bool parent_step = i & 1, child_hooks = i & 2, new_cgroupns = i & 4;
      CHECK (create_go_at (true, new_cgroupns, parent_step, child_hooks) == INIT_GO_AFTER_JOIN);
      CHECK (create_go_at (false, true, parent_step, child_hooks) == INIT_GO_AFTER_JOIN);
    }
  CHECK (create_go_at (false, false, true, false) == INIT_GO_BEFORE_HOOKS);
  CHECK (create_go_at (false, false, false, true) == INIT_GO_BEFORE_HOOKS);
  CHECK (create_go_at (false, false, false, false) == INIT_GO_BEFORE_PROCESS);
}

/* The protocol's steps, both sides: the child's in a forked process. */
static void
test_sync_steps (void)
{
  int fds[2], calls = 0, master = -1, status = 0;
  sync_mount_server ms = { open_null_source, &calls };
  ocisbx_err *err = NULL;
  char *payload = NULL;
  pid_t pid, got = 0;

  CHECK (sync_pair (fds, &err) == 0);
  pid = fork ();
  if (pid == 0)
    {
      int src, pp[2];
      close (fds[0]);
      if (sync_report_pid (fds[1], 42, &err) < 0 || sync_wait_go (fds[1], &payload, &err) < 0 || payload == NULL
          || strcmp (payload, "creating") != 0 || strcmp (payload + 9, "created") != 0)
        _exit (1);
      src = sync_ask_mount_source (fds[1], 3, -1, &err);
      if (src < 0 || sync_mounts_done (fds[1], &err) < 0 || sync_run_parent_hooks (fds[1], &err) < 0
          || sync_send_listener (fds[1], 7, &err) < 0)
        _exit (2);
      if (pipe (pp) < 0 || sync_ready (fds[1], pp[0], &err) < 0)
        _exit (3);
      _exit (0); /* end-of-file: sync_wait_exec */
    }
  CHECK (pid > 0);
  close (fds[1]);
  CHECK (sync_recv_pid (fds[0], &got, &err) == 0 && got == 42);
  CHECK (sync_send_go (fds[0], "creating\0created", 17, &err) == 0);
  CHECK (sync_serve_mount_sources (fds[0], &ms, &err) == 0 && calls == 1); /* its own step */
  CHECK (sync_wait_hooks (fds[0], &err) == 0);
  CHECK (sync_hooks_done (fds[0], &err) == 0);
  {
    int child_fd = -1;
    CHECK (sync_recv_listener (fds[0], &child_fd, &err) == 0 && child_fd == 7);
  }
  CHECK (sync_ack_listener (fds[0], &err) == 0);
  CHECK (sync_wait_ready (fds[0], &master, &err) == 0 && master >= 0);
  CHECK (sync_wait_exec (fds[0], &err) == 0);
  CHECK (waitpid (pid, &status, 0) == pid && WIFEXITED (status) && WEXITSTATUS (status) == 0);
  if (master >= 0)
    close (master);
  close (fds[0]);
  err_freep (&err);

  /* a step out of order, a request for a bind source outside the rootfs set-up, and a
     child's failure at the end */
  CHECK (sync_pair (fds, &err) == 0);
  CHECK (sync_ready (fds[1], -1, &err) == 0); /* not the awaited step */
  CHECK (sync_wait_hooks (fds[0], &err) < 0 && err && err->errnum == EPROTO);
  err_freep (&err);
  {
    /* the child's ask, by hand: it would wait for the answer */
    CHECK (sync_send (fds[1], SYNC_MOUNT_SOURCE, 3, NULL, 0, -1, &err) == 0);
    CHECK (sync_wait_ready (fds[0], &master, &err) < 0 && err && err->errnum == EPROTO);
    err_freep (&err);
    CHECK (sync_mounts_done (fds[1], &err) == 0); /* and no step but the serving one takes that */
    CHECK (sync_recv_listener (fds[0], &master, &err) < 0 && err && err->errnum == EPROTO);
    err_freep (&err);
  }
  {
    ocisbx_err *peer = NULL;
    err_set (&peer, ENOENT, "exec: \"x\"");
    sync_send_error (fds[1], peer);
    err_free (peer);
  }
  CHECK (sync_wait_exec (fds[0], &err) < 0 && err && err->errnum == ENOENT);
  err_freep (&err);
  close (fds[1]);
  close (fds[0]);
}

static void
test_process_prepare (void)
{
  char *args[] = { "sh" }, *env[] = { "PATH=/bin" }, *bad_caps[] = { "CAP_CHOWN", "CAP_NOPE" };
  oci_capabilities caps = { .bounding = bad_caps, .bounding_len = 2 };
  oci_rlimit rl = { "RLIMIT_NOPE", 1, 1 };
  oci_process p = { .args = args, .args_len = 1, .env = env, .env_len = 1, .cwd = "/" };
  char *extra[] = { "LISTEN_FDS=2", NULL };
  process_plan plan;
  ocisbx_err *err = NULL;

  CHECK (process_prepare (&p, "config.json", ".process", extra, &plan, &err) == 0);
  CHECK (plan.need_home && plan.argv[0] && plan.argv[1] == NULL);
  CHECK_STR (plan.envp[1], "LISTEN_FDS=2");
  CHECK (plan.envp[2] == NULL);
  process_plan_free (&plan);

  /* unknown: a warning, and left out (runtime-spec 1.3) */
  p.capabilities = &caps;
  CHECK (process_prepare (&p, "config.json", ".process", NULL, &plan, &err) == 0);
  CHECK (err == NULL && plan.has_caps && plan.cap_bounding == 1ULL << 0 /* CAP_CHOWN */);
  process_plan_free (&plan);
  p.capabilities = NULL;

  p.rlimits = &rl;
  p.rlimits_len = 1;
  CHECK (process_prepare (&p, "config.json", ".process", NULL, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, ".process.rlimits[0].type: unknown rlimit \"RLIMIT_NOPE\""));
  err_freep (&err);
  process_plan_free (&plan);
  p.rlimits_len = 0;

  p.cwd = "tmp";
  CHECK (process_prepare (&p, "config.json", ".process", NULL, &plan, &err) < 0);
  CHECK (err && strstr (err->msg, ".process.cwd"));
  err_freep (&err);
  process_plan_free (&plan);
}

/* Every fd from a point on closed but the kept ones, in any order, those CLOEXEC: true
   when so. */
static bool
close_fds_case (void)
{
  int fds[6], keep[3];
  ocisbx_err *err = NULL;
  bool ok = true;

  int null = open ("/dev/null", O_RDONLY);

  /* far above anything the harness holds: all of >= 900 is ours to close */
  for (int i = 0; i < 6; i++)
    fds[i] = fcntl (null, F_DUPFD, 900 + i); /* not CLOEXEC */
  close (null);
  keep[0] = fds[4];
  keep[1] = -1;
  keep[2] = fds[1];
  ok = close_fds_except (fds[0], keep, 3, &err) == 0 && err == NULL;
  ok = cloexec_fds_from (fds[0], &err) == 0 && ok;
  for (int i = 0; i < 6; i++)
    {
      bool kept = i == 1 || i == 4;
      int fl = fcntl (fds[i], F_GETFD);
      ok = (kept ? fl == FD_CLOEXEC : (fl < 0 && errno == EBADF)) && ok;
      if (kept)
        close (fds[i]);
    }
  err_freep (&err);
  return ok;
}

static void
test_close_fds_except (void)
{
  CHECK (close_fds_case ());
}

/* The same on a kernel without close_range (ENOSYS by a seccomp filter): the walk of
   /proc/self/fd (dir_each, no heap), in a child of its own. */
static void
test_close_fds_without_close_range (void)
{
  struct sock_filter insns[] = {
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = { sizeof insns / sizeof insns[0], insns };
  int status = -1;
  pid_t pid = fork ();

  if (pid == 0)
    {
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
        _exit (2);
      if (syscall (SYS_close_range, 900U, ~0U, 0U) == 0 || errno != ENOSYS)
        _exit (3);
      _exit (close_fds_case () ? 0 : 1);
    }
  CHECK (pid > 0 && waitpid (pid, &status, 0) == pid);
  CHECK (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* An error is never sized by its input: a huge value is cut, never in a UTF-8 char. */
static void
test_error_size (void)
{
  size_t n = 1 << 20;
  char *big = malloc (n + 1);
  ocisbx_err *err = NULL;

  for (size_t i = 0; i < n; i += 2)
    memcpy (big + i, "\xc3\xa9", 2); /* é */
  big[n] = '\0';
  err_set (&err, ENAMETOOLONG, "sethostname \"%s\"", big);
  CHECK (err && strlen (err->msg) < ERR_MSG_MAX + 64);
  CHECK (err && strstr (err->msg, "\xc3\xa9...: File name too long"));
  CHECK (err && strncmp (err->msg, "sethostname \"\xc3\xa9", 15) == 0);
  err_wrap (&err, "rootfs: %s", big);
  CHECK (err && strlen (err->msg) < 2 * ERR_MSG_MAX + 64);
  err_freep (&err);
  free (big);
}

UNIT_MAIN (T (test_signal_names), T (test_ids), T (test_capabilities), T (test_rlimits), T (test_cpuset),
           T (test_path_lookup), T (test_namespace_names), T (test_namespace_plan), T (test_state_roundtrip),
           T (test_timestamp), T (test_proc_stat), T (test_sync_channel), T (test_sync_steps), T (test_go_at), T (test_process_prepare),
           T (test_passwd_field), T (test_state_dir_remove), T (test_close_fds_except), T (test_close_fds_without_close_range), T (test_error_size))
