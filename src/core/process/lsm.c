/* AppArmor and SELinux exec labels: see lsm.h. */
#include <config.h>
#include "core/process/lsm.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"

#ifndef SELINUX_MAGIC
#define SELINUX_MAGIC 0xf97cff8c
#endif

/* /sys/module/apparmor/parameters/enabled reads "Y" when AppArmor is on.  Where /sys is
   not mounted (a container child), AppArmor's own /proc attribute answers instead: it
   can be read only when AppArmor is the active LSM. */
bool
lsm_apparmor_enabled (void)
{
  char c = 0;
  int fd = open ("/sys/module/apparmor/parameters/enabled", O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      bool on = read (fd, &c, 1) == 1 && c == 'Y';
      close (fd);
      return on;
    }
  if (errno == ENOENT && access ("/sys/module", F_OK) == 0)
    return false; /* /sys is there and has no AppArmor */
  fd = open ("/proc/self/attr/apparmor/current", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  {
    char buf[64];
    bool on = read (fd, buf, sizeof buf) > 0;
    close (fd);
    return on;
  }
}

/* selinuxfs is mounted on /sys/fs/selinux; where it is not (a container child),
   /proc/filesystems lists selinuxfs only when SELinux was enabled at boot. */
bool
lsm_selinux_enabled (void)
{
  cleanup_free char *fs = NULL;
  cleanup_err ocisbx_err *err = NULL;
  struct statfs sfs;

  if (statfs ("/sys/fs/selinux", &sfs) == 0 && (unsigned long) sfs.f_type == SELINUX_MAGIC)
    return true;
  if (read_file_at (AT_FDCWD, "/proc/filesystems", &fs, NULL, &err) < 0)
    return false;
  return strstr (fs, "\tselinuxfs\n") != NULL;
}

int
lsm_validate (const char *apparmor_profile, const char *selinux_label, const char *mount_label,
              ocisbx_err **err)
{
  if (apparmor_profile && apparmor_profile[0] && !lsm_apparmor_enabled ())
    return err_set (err, 0, "config.json: .process.apparmorProfile: AppArmor is not enabled on this host (profile \"%s\")",
                    apparmor_profile);
  if (selinux_label && selinux_label[0] && !lsm_selinux_enabled ())
    return err_set (err, 0, "config.json: .process.selinuxLabel: SELinux is not enabled on this host (label \"%s\")",
                    selinux_label);
  if (mount_label && mount_label[0] && !lsm_selinux_enabled ())
    return err_set (err, 0, "config.json: .linux.mountLabel: SELinux is not enabled on this host (label \"%s\")",
                    mount_label);
  return 0;
}

static int
apply_apparmor (const char *profile, ocisbx_err **err)
{
  cleanup_free char *cmd = xasprintf ("exec %s", profile);
  cleanup_err ocisbx_err *first = NULL;

  /* Linux 5.8+ has a per-LSM directory; the shared attr/exec is the older interface. */
  if (write_proc_file ("/proc/self/attr/apparmor/exec", cmd, strlen (cmd), &first) == 0)
    return 0;
  if (first->errnum != ENOENT)
    return err_take (err, first->errnum, xasprintf ("apparmor profile \"%s\": %s", profile, first->msg));
  if (write_proc_file ("/proc/self/attr/exec", cmd, strlen (cmd), err) < 0)
    return err_wrap (err, "apparmor profile \"%s\"", profile);
  return 0;
}

int
lsm_apply_exec_label (const char *apparmor_profile, const char *selinux_label, ocisbx_err **err)
{
  if (apparmor_profile && apparmor_profile[0])
    {
      if (!lsm_apparmor_enabled ())
        return err_set (err, 0, "apparmor profile \"%s\" requested, but AppArmor is not enabled", apparmor_profile);
      if (apply_apparmor (apparmor_profile, err) < 0)
        return -1;
    }
  if (selinux_label && selinux_label[0] && lsm_selinux_enabled ())
    {
      if (write_proc_file ("/proc/self/attr/exec", selinux_label, strlen (selinux_label), err) < 0)
        return err_wrap (err, "selinux label \"%s\"", selinux_label);
    }
  return 0;
}
