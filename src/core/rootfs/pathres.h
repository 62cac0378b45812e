/* Resolve a path inside a directory tree (the container's rootfs) so that nothing
 * the tree contains (absolute symlinks, `..` chains, magic links) can send the
 * lookup, or a file/directory creation, outside of it.
 *
 *   fd = pathres_open (rootfd, "/dev/shm", err);                  // O_PATH fd, or -1
 *   fd = pathres_create (rootfd, "/etc/x", PATHRES_FILE, 0644, err); // creates what is missing
 *   mount (src, pathres_fd_path (fd, buf), ...);                  // "/proc/self/fd/N"
 *
 * The fast path is openat2 (RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS); without it
 * (old kernels), and for creation, a component-by-component walk opens each
 * component with O_NOFOLLOW and resolves symlinks itself, relative to the root.
 * Every fd returned is O_PATH | O_CLOEXEC.  On failure *err->errnum is the errno
 * (ENOENT for a missing path, ENOTDIR, ELOOP, ...).
 */
#ifndef OCISBX_PATHRES_H
#define OCISBX_PATHRES_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/error.h"

#define PATHRES_MAX_SYMLINKS 40

typedef enum pathres_create_kind
{
  PATHRES_NONE = 0, /* open only */
  PATHRES_DIR,      /* create missing components; the last one is a directory */
  PATHRES_FILE,     /* create missing components; the last one is an empty file */
} pathres_create_kind;

/* Open PATH (absolute or relative, both taken from ROOTFD) as O_PATH. */
int pathres_open (int rootfd, const char *path, ocisbx_err **err);
/* Open PATH (absolute, taken from ROOTFD) following no symlink at all, `..` taken
   lexically: ELOOP when a component is a symlink.  For the paths whose place matters
   (where a procfs or sysfs was mounted). */
int pathres_open_plain (int rootfd, const char *path, ocisbx_err **err);
/* Open PATH, creating the missing parents (0755) and the last component (MODE). */
int pathres_create (int rootfd, const char *path, pathres_create_kind kind, mode_t mode, ocisbx_err **err);
/* The walk alone, no openat2: the fallback, exported for the unit tests. */
int pathres_walk (int rootfd, const char *path, pathres_create_kind kind, mode_t mode, ocisbx_err **err);

/* Is PATH DIR or below it?  Lexically: both clean and absolute. */
bool pathres_under (const char *dir, const char *path);
/* Is any existing component of PATH (cleaned lexically, taken from ROOTFD) a symlink? */
bool pathres_has_symlink (int rootfd, const char *path);

/* "/proc/self/fd/N" into BUF (at least PATHRES_FD_PATH_MAX bytes); returns BUF. */
#define PATHRES_FD_PATH_MAX 32
char *pathres_fd_path (int fd, char *buf);

/* The directory part and last component of PATH, for *at calls: "/a/b/c" -> "/a/b", "c".
   "/" and "" give "/", ".".  Both are malloc'd. */
void pathres_split (const char *path, char **dir, char **base);

/* PATH cleaned lexically: "//a/./b/../c/" -> "/a/c" (`..` never climbs above "/");
   malloc'd. */
char *pathres_clean (const char *path);
/* Does PATH have a `..` component? */
bool pathres_has_dotdot (const char *path);

#endif
