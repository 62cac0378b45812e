#include <config.h>
#include "paths.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mounts.h"
#include "pathres.h"
#include "utils.h"

/* Open PATH in the root; 0 with *fd = -1 when it does not exist (skipped silently). */
static int
open_existing (int rootfd, const char *path, int *fd, ocisbx_err **err)
{
  ocisbx_err *e = NULL;

  *fd = pathres_open (rootfd, path, &e);
  if (*fd >= 0)
    return 0;
  if (e->errnum == ENOENT || e->errnum == ENOTDIR)
    {
      err_free (e);
      return 0;
    }
  *err = e;
  return -1;
}

/* The container's /dev/null, refusing anything but the real char device 1:3. */
static int
open_dev_null (int rootfd, ocisbx_err **err)
{
  cleanup_close int fd = pathres_open (rootfd, "/dev/null", err);
  struct stat st;

  if (fd < 0)
    return -1;
  if (fstat (fd, &st) < 0)
    return err_set (err, errno, "stat /dev/null");
  if (!S_ISCHR (st.st_mode) || st.st_rdev != makedev (1, 3))
    return err_set (err, EPERM, "/dev/null in the container is not the null device (1:3)");
  return steal_fd (&fd);
}

int
paths_mask (const oci_config *cfg, int rootfd, ocisbx_err **err)
{
  cleanup_close int null = -1;

  if (cfg->linux_ == NULL)
    return 0;
  for (size_t i = 0; i < cfg->linux_->masked_paths_len; i++)
    {
      const char *path = cfg->linux_->masked_paths[i];
      cleanup_close int fd = -1;
      struct stat st;

      if (open_existing (rootfd, path, &fd, err) < 0)
        return err_wrap (err, "masked path");
      if (fd < 0)
        continue;
      if (fstat (fd, &st) < 0)
        return err_set (err, errno, "masked path: stat `%s`", path);
      if (S_ISDIR (st.st_mode))
        {
          if (mount_tmpfs_fd (fd, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "0755", path, err) < 0)
            return err_wrap (err, "masked path");
          continue;
        }
      if (null < 0 && (null = open_dev_null (rootfd, err)) < 0)
        return err_wrap (err, "masked path `%s`", path);
      if (mount_bind_fd (null, fd, 0, path, err) < 0)
        return err_wrap (err, "masked path");
    }
  return 0;
}

int
paths_readonly (const oci_config *cfg, int rootfd, ocisbx_err **err)
{
  if (cfg->linux_ == NULL)
    return 0;
  for (size_t i = 0; i < cfg->linux_->readonly_paths_len; i++)
    {
      const char *path = cfg->linux_->readonly_paths[i];
      cleanup_close int fd = -1;
      cleanup_close int top = -1;

      if (open_existing (rootfd, path, &fd, err) < 0)
        return err_wrap (err, "readonly path");
      if (fd < 0)
        continue;
      if (mount_bind_fd (fd, fd, MS_REC, path, err) < 0)
        return err_wrap (err, "readonly path");
      top = pathres_open (rootfd, path, err);
      if (top < 0 || mount_remount_bind (top, MS_RDONLY, 0, false, path, err) < 0)
        return err_wrap (err, "readonly path");
    }
  return 0;
}

static int
check_list (char *const *paths, size_t n, const char *field, ocisbx_err **err)
{
  for (size_t i = 0; i < n; i++)
    if (paths[i] == NULL || paths[i][0] != '/')
      return err_set (err, 0, "config.json: .linux.%s[%zu]: \"%s\" is not an absolute path", field, i,
                      paths[i] ? paths[i] : "");
  return 0;
}

int
paths_validate (const oci_config *cfg, ocisbx_err **err)
{
  if (cfg->linux_ == NULL)
    return 0;
  if (check_list (cfg->linux_->masked_paths, cfg->linux_->masked_paths_len, "maskedPaths", err) < 0)
    return -1;
  return check_list (cfg->linux_->readonly_paths, cfg->linux_->readonly_paths_len, "readonlyPaths",
                     err);
}
