/* cgroups on the real kernel (as root): the eBPF device filter attached to a cgroup2
   child, a setup/enter/freeze/destroy round trip on the host's hierarchies, and the pure
   v2 path on a private cgroup2 mount: the runtime's cgroup file system operations. */
#include <config.h>

#include "test_cgroups.h"

/* Attach the filter for real to a cgroup2 child and open devices from inside. */
static void
test_ebpf_real (void)
{
  const char *base = is_cgroup2 ("/sys/fs/cgroup/unified") ? "/sys/fs/cgroup/unified"
                     : is_cgroup2 ("/sys/fs/cgroup")       ? "/sys/fs/cgroup"
                                                           : NULL;
  char *dir, *procs;
  cg_dev_rule rules[] = { { false, 'a', -1, -1, CG_DEV_ALL }, { true, 'c', 1, 3, CG_DEV_ALL },
                          { true, 'c', 1, 9, CG_DEV_READ } };
  ocisbx_err *err = NULL;
  int pfd[2];
  pid_t pid;
  int results[4] = { 1, 1, 1, 1 };

  if (base == NULL || geteuid () != 0)
    {
      UNIT_SKIP ("needs root and a cgroup2 mount");
      return;
    }
  dir = xasprintf ("%s/ocisbx-unit-%d", base, (int) getpid ());
  procs = xasprintf ("%s/cgroup.procs", dir);
  CHECK (mkdir (dir, 0755) == 0);
  CHECK (cg_ebpf_attach (dir, rules, 3, &err) == 0);
  if (err)
    fprintf (stderr, "  %s\n", err->msg);
  err_freep (&err);
  /* attaching again replaces: still exactly one program */
  CHECK (cg_ebpf_attach (dir, rules, 3, &err) == 0);
  err_freep (&err);
  {
    union bpf_attr a;
    uint32_t ids[8];
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    memset (&a, 0, sizeof a);
    a.query.target_fd = fd;
    a.query.attach_type = BPF_CGROUP_DEVICE;
    a.query.prog_ids = (uintptr_t) ids;
    a.query.prog_cnt = 8;
    CHECK (syscall (SYS_bpf, BPF_PROG_QUERY, &a, sizeof a) == 0 && a.query.prog_cnt == 1);
    close (fd);
  }
  CHECK (pipe2 (pfd, O_CLOEXEC) == 0);
  pid = fork ();
  if (pid == 0)
    {
      char buf[32];
      int res[4];
      int fd = open (procs, O_WRONLY);
      snprintf (buf, sizeof buf, "%d", (int) getpid ());
      if (fd < 0 || write (fd, buf, strlen (buf)) < 0)
        _exit (2);
      close (fd);
      res[0] = try_open ("/dev/null", O_RDWR);
      res[1] = try_open ("/dev/zero", O_RDONLY);
      res[2] = try_open ("/dev/urandom", O_RDONLY);
      res[3] = try_open ("/dev/urandom", O_WRONLY);
      if (write (pfd[1], res, sizeof res) < 0)
        _exit (3);
      _exit (0);
    }
  close (pfd[1]);
  CHECK (read (pfd[0], results, sizeof results) == sizeof results);
  close (pfd[0]);
  waitpid (pid, NULL, 0);
  CHECK (results[0] == 0);
  CHECK (results[1] == -EPERM);
  CHECK (results[2] == 0);
  CHECK (results[3] == -EPERM);
  CHECK (rmdir (dir) == 0);
  free (procs);
  free (dir);
}

/* The host's real hierarchies: setup, enter a child, freeze, kill, destroy. */
static void
test_real_roundtrip (void)
{
  char id[64];
  oci_config *c = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{\"memory\":{\"limit\":33554432},"
                         "\"pids\":{\"limit\":17}}}}");
  cgroup_config cc = { .fs_root = NULL, .id = id, .resources = res_of (c) };
  cgroup_manager *m = NULL, *m2 = NULL;
  ocisbx_err *err = NULL;
  pid_t pid;
  bool frozen = true;
  char *ser = NULL;

  if (geteuid () != 0 || access ("/sys/fs/cgroup", W_OK) != 0)
    {
      UNIT_SKIP ("needs root and a writable /sys/fs/cgroup");
      ocispec_free (&oci_config_type, c);
      return;
    }
  snprintf (id, sizeof id, "unit-%d", (int) getpid ());
  CHECK (cgroup_setup (&cc, &m, &err) == 0);
  if (err)
    fprintf (stderr, "  %s\n", err->msg);
  err_freep (&err);
  if (m == NULL)
    {
      ocispec_free (&oci_config_type, c);
      return;
    }
  CHECK (cgroup_manager_layout (m) == cgroup_detect_layout ("/sys/fs/cgroup"));
  {
    cg_hier *mem = cg_find (m, "memory"), *pids = cg_find (m, "pids");
    uint64_t v = 0;
    CHECK (mem && cg_read_u64 (mem, m->layout == CGROUP_LAYOUT_V2 ? "memory.max" : "memory.limit_in_bytes", &v, &err)
                      == 0
           && v == 33554432);
    err_freep (&err);
    CHECK (pids && cg_read_u64 (pids, "pids.max", &v, &err) == 0 && v == 17);
    err_freep (&err);
  }
  pid = fork ();
  if (pid == 0)
    {
      for (;;)
        pause ();
    }
  CHECK (cgroup_enter (m, pid, &err) == 0);
  err_freep (&err);
  {
    char *p = xasprintf ("/proc/%d/cgroup", (int) pid);
    char *data = NULL;
    CHECK (read_file_at (AT_FDCWD, p, &data, NULL, &err) == 0);
    err_freep (&err);
    CHECK (data && strstr (data, id));
    free (data);
    free (p);
  }
  ser = cgroup_serialize (m);
  CHECK (load_serialized (NULL, ser, &m2, &err) == 0);
  err_freep (&err);
  if (m2)
    {
      pid_t *pids = NULL;
      size_t n = 0;
      CHECK (cgroup_pids (m2, &pids, &n, &err) == 0 && n == 1 && pids[0] == pid);
      err_freep (&err);
      free (pids);
      CHECK (cgroup_freeze (m2, true, &err) == 0);
      err_freep (&err);
      CHECK (cgroup_is_frozen (m2, &frozen, &err) == 0 && frozen);
      CHECK (cgroup_freeze (m2, false, &err) == 0);
      CHECK (cgroup_is_frozen (m2, &frozen, &err) == 0 && !frozen);
      err_freep (&err);
      /* destroy with the process still inside, frozen: it gets killed */
      CHECK (cgroup_freeze (m2, true, &err) == 0);
      err_freep (&err);
      CHECK (cgroup_destroy (m2, &err) == 0);
      if (err)
        fprintf (stderr, "  %s\n", err->msg);
      err_freep (&err);
    }
  {
    int st = 0;
    CHECK (waitpid (pid, &st, 0) == pid && WIFSIGNALED (st) && WTERMSIG (st) == SIGKILL);
  }
  for (size_t i = 0; i < m->n; i++)
    CHECK (access (m->h[i].dir, F_OK) != 0);
  /* is_frozen of a removed cgroup: not frozen, no error */
  CHECK (cgroup_is_frozen (m, &frozen, &err) == 0 && !frozen);
  err_freep (&err);
  free (ser);
  cgroup_manager_free (m);
  cgroup_manager_free (m2);
  ocispec_free (&oci_config_type, c);
}

/* Pure v2 for real: a private mount namespace with cgroup2 mounted on a temp dir is
   detected as v2; setup attaches the eBPF device filter, a process in the cgroup
   is filtered, freeze / kill / destroy use cgroup.freeze / cgroup.kill.  Returns the
   number of failed checks, or -1 when no cgroup2 can be mounted (a skip). */
static int
v2_real_body (void)
{
  char tmpl[] = "/tmp/ocisbx-cg2.XXXXXX";
  char *dir = mkdtemp (tmpl);
  char id[64], *orig = NULL;
  oci_config *c = parse ("{\"ociVersion\":\"1.0.2\",\"linux\":{\"resources\":{"
                         "\"devices\":[{\"allow\":false,\"access\":\"rwm\"}],"
                         "\"unified\":{\"cgroup.max.descendants\":\"3\"}}}}");
  cgroup_config cc = { .id = id, .resources = res_of (c) };
  cgroup_manager *m = NULL;
  ocisbx_err *err = NULL;
  int go[2], res[2];
  int results[3] = { 1, 1, 1 };
  pid_t pid;
  bool frozen = false;

  snprintf (id, sizeof id, "unitv2-%d", (int) getpid ());
  if (dir == NULL || mount ("none", dir, "cgroup2", 0, NULL) < 0)
    {
      fprintf (stderr, "  cannot mount cgroup2: %s\n", strerror (errno));
      return -1;
    }
  cc.fs_root = dir;
  CHECK (cgroup_detect_layout (dir) == CGROUP_LAYOUT_V2);
  orig = slurp (dir, "cgroup.subtree_control");
  CHECK (cgroup_setup (&cc, &m, &err) == 0);
  if (err)
    fprintf (stderr, "  %s\n", err->msg);
  err_freep (&err);
  if (m == NULL)
    goto out;
  CHECK (m->layout == CGROUP_LAYOUT_V2 && m->fs == &cg_fs_real && m->n == 1);
  CHECK_STR (cgroup_path (m), xasprintf ("/ocisbx/%s", id));
  CHECK_FILE (m->h[0].dir, "cgroup.max.descendants", "3\n");

  CHECK (pipe2 (go, O_CLOEXEC) == 0 && pipe2 (res, O_CLOEXEC) == 0);
  pid = fork ();
  if (pid == 0)
    {
      char b;
      int r[3];
      if (read (go[0], &b, 1) != 1)
        _exit (2);
      r[0] = try_open ("/dev/null", O_RDWR);
      r[1] = try_open ("/dev/zero", O_RDONLY);
      r[2] = try_open ("/dev/fuse", O_RDWR);
      if (write (res[1], r, sizeof r) < 0)
        _exit (3);
      for (;;)
        pause ();
    }
  close (go[0]);
  close (res[1]);
  CHECK (cgroup_enter (m, pid, &err) == 0);
  err_freep (&err);
  CHECK (write (go[1], "x", 1) == 1);
  CHECK (read (res[0], results, sizeof results) == sizeof results);
  CHECK (results[0] == 0);
  CHECK (results[1] == 0);
  CHECK (results[2] == -EPERM || results[2] == -ENOENT);
  CHECK (cgroup_freeze (m, true, &err) == 0);
  err_freep (&err);
  CHECK (cgroup_is_frozen (m, &frozen, &err) == 0 && frozen);
  CHECK (cgroup_freeze (m, false, &err) == 0);
  CHECK (cgroup_is_frozen (m, &frozen, &err) == 0 && !frozen);
  err_freep (&err);
  CHECK (cgroup_kill_all (m, SIGKILL, &err) == 0);
  err_freep (&err);
  {
    int st = 0;
    CHECK (waitpid (pid, &st, 0) == pid && WIFSIGNALED (st) && WTERMSIG (st) == SIGKILL);
  }
  CHECK (cgroup_destroy (m, &err) == 0);
  err_freep (&err);
  CHECK (access (m->h[0].dir, F_OK) != 0);
 out:
  /* leave the root's subtree_control as it was */
  {
    char *now = slurp (dir, "cgroup.subtree_control");
    char *save = NULL;
    for (char *t = now ? strtok_r (now, " \n", &save) : NULL; t; t = strtok_r (NULL, " \n", &save))
      if (orig == NULL || strstr (orig, t) == NULL)
        {
          char *f = xasprintf ("%s/cgroup.subtree_control", dir);
          char *v = xasprintf ("-%s", t);
          write_proc_file (f, v, strlen (v), &err);
          err_freep (&err);
          free (f);
          free (v);
        }
    free (now);
  }
  free (orig);
  cgroup_manager_free (m);
  ocispec_free (&oci_config_type, c);
  umount2 (dir, MNT_DETACH);
  rmdir (dir);
  return unit_failed_checks;
}

static void
test_v2_real (void)
{
  pid_t pid;
  int st = 0;
  if (geteuid () != 0)
    {
      UNIT_SKIP ("needs root");
      return;
    }
  pid = fork ();
  if (pid == 0)
    {
      unit_failed_checks = 0;
      if (unshare (CLONE_NEWNS) < 0 || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        _exit (77);
      int r = v2_real_body ();
      _exit (r < 0 ? 77 : r > 0);
    }
  CHECK (waitpid (pid, &st, 0) == pid && WIFEXITED (st));
  if (WIFEXITED (st) && WEXITSTATUS (st) == 77)
    UNIT_SKIP ("cannot mount a cgroup2 in a private mount namespace");
  else
    CHECK (WIFEXITED (st) && WEXITSTATUS (st) == 0);
}

UNIT_MAIN (T (test_ebpf_real), T (test_real_roundtrip), T (test_v2_real))
