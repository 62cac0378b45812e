/* Rootless: /etc/subuid entitlement checks, the id-map plan, the default state root
   (as an unprivileged uid in a forked child when run as root). */
#include <config.h>

#include <errno.h>
#include <linux/capability.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/ns/rootless_user.h"
#include "core/utils.h"
#include "unit.h"
#include "unit_files.h"

static char tmpdir[] = "/tmp/ocisbx-unit-rootless.XXXXXX";

static char *
write_subid (const char *content)
{
  char *p = xasprintf ("%s/subuid", tmpdir);
  CHECK (write_text (p, content));
  return p;
}

static const char *
check (const char *file, const oci_id_mapping *m, size_t n, char **msg)
{
  ocisbx_err *e = NULL;
  int r = idmap_check_subids (file, "x", 1234, m, n, ".linux.uidMappings", &e);
  free (*msg);
  *msg = NULL;
  if (r == 0)
    return "ok";
  *msg = xstrdup (e->msg);
  err_free (e);
  return *msg;
}

static void
test_subids (void)
{
  cleanup_free char *f = write_subid ("# comment\nother:100000:65536\nx:200000:1000\nx:201000:500\n1234:300000:10\n"
                                      "bad line\nx:5:0\n");
  cleanup_free char *msg = NULL;
  oci_id_mapping own[] = { { 0, 1234, 1 } };
  oci_id_mapping two[] = { { 0, 1234, 1 }, { 1, 200000, 1000 } };
  oci_id_mapping spans[] = { { 1, 200000, 1500 } };     /* two adjacent entries */
  oci_id_mapping by_uid[] = { { 1, 300000, 10 } };      /* an entry naming the uid */
  oci_id_mapping others[] = { { 0, 1234, 1 }, { 1, 100000, 65536 } };
  oci_id_mapping past[] = { { 1, 200500, 1001 } };      /* one id past the end */
  oci_id_mapping own_wide[] = { { 0, 1234, 2 } };       /* own id, but more than it */
  oci_id_mapping empty[] = { { 0, 200000, 0 } };

  CHECK_STR (check (f, own, 1, &msg), "ok");
  CHECK_STR (check (f, two, 2, &msg), "ok");
  CHECK_STR (check (f, spans, 1, &msg), "ok");
  CHECK_STR (check (f, by_uid, 1, &msg), "ok");
  {
    cleanup_free char *want = xasprintf ("config.json: .linux.uidMappings[1]: range 100000-165535 is not in %s "
                                         "for user \"x\"", f);
    CHECK_STR (check (f, others, 2, &msg), want);
  }
  CHECK (strstr (check (f, past, 1, &msg), "[0]: range 200500-201500 is not in") != NULL);
  CHECK (strstr (check (f, own_wide, 1, &msg), "[0]: range 1234-1235 is not in") != NULL);
  CHECK (strstr (check (f, empty, 1, &msg), ".linux.uidMappings[0].size: must be > 0") != NULL);
  /* no file: only one's own id */
  CHECK_STR (check ("/nonexistent/subuid", own, 1, &msg), "ok");
  CHECK (strstr (check ("/nonexistent/subuid", two, 2, &msg), "[1]: range 200000-200999") != NULL);
  unlink (f);
}

static void
test_plan_privileged (void)
{
  oci_id_mapping u[] = { { 0, 100000, 65536 } };
  oci_linux lx = { 0 };
  idmap_plan p;
  ocisbx_err *e = NULL;

  if (!rootless_has_cap (CAP_SETUID) || !rootless_has_cap (CAP_SETGID))
    return; /* as an unprivileged user the plan depends on /etc/subuid */
  lx.uid_mappings = u;
  lx.uid_mappings_len = 1;
  lx.gid_mappings = u;
  lx.gid_mappings_len = 1;
  CHECK (idmap_prepare (&lx, &p, &e) == 0);
  CHECK (!p.uid_helper && !p.gid_helper && !p.deny_setgroups);
  idmap_plan_free (&p);
  err_free (e);
}

/* In a child as uid/gid 65534: what rootless_default_root makes of TMP and XDG. */
static int
child_root (const char *xdg, const char *tmp, char *out, size_t outlen)
{
  int p[2], status;
  pid_t pid;
  ssize_t n;

  if (pipe (p) < 0)
    return -1;
  pid = fork ();
  if (pid == 0)
    {
      char *root = NULL;
      ocisbx_err *e = NULL;
      close (p[0]);
      if (setresgid (65534, 65534, 65534) < 0 || setresuid (65534, 65534, 65534) < 0)
        _exit (2);
      if (rootless_default_root (xdg, tmp, &root, &e) < 0)
        {
          dprintf (p[1], "error: %s", e->msg);
          _exit (1);
        }
      dprintf (p[1], "%s", root ? root : "(null)");
      _exit (0);
    }
  close (p[1]);
  n = read (p[0], out, outlen - 1);
  out[n > 0 ? n : 0] = '\0';
  close (p[0]);
  waitpid (pid, &status, 0);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static void
test_default_root (void)
{
  cleanup_free char *tmp = xasprintf ("%s/tmp", tmpdir);
  cleanup_free char *xdg = xasprintf ("%s/xdg", tmpdir);
  cleanup_free char *want = xasprintf ("%s/ocisbx-65534", tmp);
  cleanup_free char *want_xdg = xasprintf ("%s/ocisbx", xdg);
  cleanup_free char *evil = xasprintf ("%s/evil", tmpdir);
  char out[512];
  struct stat st;

  if (geteuid () != 0)
    return; /* needs to become another uid */
  chmod (tmpdir, 0755);
  mkdir (tmp, 01777);
  chmod (tmp, 01777);
  /* made 0700, owned by the user */
  CHECK (child_root (NULL, tmp, out, sizeof out) == 0);
  CHECK_STR (out, want);
  CHECK (lstat (want, &st) == 0 && S_ISDIR (st.st_mode) && st.st_uid == 65534 && (st.st_mode & 07777) == 0700);
  /* again: reused */
  CHECK (child_root ("", tmp, out, sizeof out) == 0);
  CHECK_STR (out, want);
  /* XDG_RUNTIME_DIR of ours wins; one not ours is ignored */
  mkdir (xdg, 0700);
  CHECK (chown (xdg, 65534, 65534) == 0);
  CHECK (child_root (xdg, tmp, out, sizeof out) == 0);
  CHECK_STR (out, want_xdg);
  CHECK (child_root (tmpdir, tmp, out, sizeof out) == 0);
  CHECK_STR (out, want);
  /* someone else's directory, or a symlink planted there: refused */
  rmdir (want);
  CHECK (mkdir (want, 0700) == 0); /* root's */
  CHECK (child_root (NULL, tmp, out, sizeof out) == 1);
  CHECK (strstr (out, "is not a directory owned by uid 65534") != NULL);
  rmdir (want);
  mkdir (evil, 0777);
  CHECK (chown (evil, 65534, 65534) == 0);
  CHECK (symlink (evil, want) == 0);
  CHECK (child_root (NULL, tmp, out, sizeof out) == 1);
  CHECK (strstr (out, "is not a directory owned by uid 65534") != NULL);
  unlink (want);
  /* a directory of ours that others may write */
  CHECK (mkdir (want, 0777) == 0 && chmod (want, 0777) == 0 && chown (want, 65534, 65534) == 0);
  CHECK (child_root (NULL, tmp, out, sizeof out) == 1);
  CHECK (strstr (out, "writable by others") != NULL);
  rmdir (want);
  rmdir (evil);
  rmdir (want_xdg);
  rmdir (xdg);
  rmdir (tmp);
}

static void
test_setup (void)
{
  CHECK (mkdtemp (tmpdir) != NULL);
}

static void
test_teardown (void)
{
  CHECK (rmdir (tmpdir) == 0);
}

UNIT_MAIN (T (test_setup), T (test_subids), T (test_plan_privileged), T (test_default_root), T (test_teardown))
