/* Small helpers shared by the runtime: cleanup attributes, allocation that aborts on
   ENOMEM, checked I/O, fd ranges, running a helper program, a monotonic clock, a
   heap-free directory walk, passwd lookup. */
#ifndef OCISBX_UTILS_H
#define OCISBX_UTILS_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "core/error.h"

/* 1 in a build with AddressSanitizer (configure --enable-asan; gcc names it
   __SANITIZE_ADDRESS__, clang __has_feature), whose LeakSanitizer checks at exit. */
#if defined(__SANITIZE_ADDRESS__)
#define OCISBX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OCISBX_ASAN 1
#endif
#endif
#ifndef OCISBX_ASAN
#define OCISBX_ASAN 0
#endif

void cleanup_freep (void *p);
void cleanup_closep (int *fd);
void cleanup_fclosep (FILE **f);
void cleanup_closedirp (DIR **d);
void cleanup_strvp (char ***v); /* NULL-terminated vector of strings */

#define cleanup_free __attribute__ ((cleanup (cleanup_freep)))
#define cleanup_close __attribute__ ((cleanup (cleanup_closep)))
#define cleanup_fclose __attribute__ ((cleanup (cleanup_fclosep)))
#define cleanup_dir __attribute__ ((cleanup (cleanup_closedirp)))
#define cleanup_strv __attribute__ ((cleanup (cleanup_strvp)))

/* Close *FD unless it is -1, keeping errno, and set it to -1. */
void close_fd (int *fd);

/* Hand an fd out of a cleanup_close variable. */
static inline int
steal_fd (int *fd)
{
  int r = *fd;
  *fd = -1;
  return r;
}
static inline void *
steal_ptr (void *pp)
{
  void **p = (void **) pp;
  void *r = *p;
  *p = NULL;
  return r;
}

void *xmalloc (size_t n);  /* uninitialised: for large buffers only partly filled */
void *xmalloc0 (size_t n);
char *xstrdup (const char *s);
/* KEY set to VALUE in the string map M (config.json's annotations): replaced, or added
   at the end; both copied. */
struct ocispec_map;
void map_set (struct ocispec_map *m, const char *key, const char *value);
char *xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Retry on EINTR, loop on short writes. */
ssize_t write_all (int fd, const void *buf, size_t len);
ssize_t read_all (int fd, void *buf, size_t len);

/* Read a whole file (relative to dirfd, or AT_FDCWD); *out is NUL-terminated. */
int read_file_at (int dirfd, const char *path, char **out, size_t *len, ocisbx_err **err);
/* Write DATA to PATH (relative to dirfd) atomically: tmp file + fsync-less rename. */
int write_file_atomic_at (int dirfd, const char *path, const char *data, size_t len, mode_t mode,
                          ocisbx_err **err);

/* Opens PATH for writing (O_WRONLY|O_CLOEXEC|O_NOFOLLOW) and checks with fstatfs
   that the file really is on procfs, sysfs or a cgroup file system, so a
   container-controlled mount or symlink cannot redirect a write.  Returns the fd,
   or -1 with *err set. */
int open_proc_file (const char *path, ocisbx_err **err);
/* The same for other file systems (resctrl): PATH opened for writing and refused unless
   it is on one of the N MAGICS; WHAT names them in the error. */
int open_write_on_fs (const char *path, const long *magics, size_t n, const char *what, ocisbx_err **err);
/* Writes into /proc or /sys: open_proc_file, then DATA in full. */
int write_proc_file (const char *path, const char *data, size_t len, ocisbx_err **err);

/* chmod of the file FD itself (an O_PATH fd too), never of a path looked up again:
   fchmodat2 (FD, "", AT_EMPTY_PATH) on Linux >= 6.6, else through the magic link
   /proc/self/fd/N of a procfs checked with fstatfs.  -1 with errno. */
int fd_chmod (int fd, mode_t mode);

/* Close every fd >= FROM but the N (at most 16) fds of KEEP (those below FROM are
   ignored). */
int close_fds_except (int from, const int *keep, size_t n, ocisbx_err **err);
/* Mark every fd >= FROM close-on-exec. */
int cloexec_fds_from (int from, ocisbx_err **err);

/* Run the helper program PATH with ARGV (NULL-terminated) and wait for it: no signal
   blocked, stdin from IN (-1: /dev/null), stdout and stderr read into OUT (at most
   OUT_LEN - 1 bytes kept, NUL-terminated, trailing newlines and blanks cut), no other fd
   of ours.  Returns its wait status; -1 with *ERR when it cannot be started or waited
   for (an exec failure is its exit 127, the reason in OUT). */
int run_program (const char *path, char *const argv[], int in, char *out, size_t out_len, ocisbx_err **err);

/* CLOCK_MONOTONIC in milliseconds. */
long long monotonic_ms (void);

/* PATH (relative to DIRFD; "." for DIRFD itself, which may be O_PATH) opened for
   readdir on an fd of its own, close-on-exec; NULL with errno. */
DIR *opendir_at (int dirfd, const char *path);

/* FN (NAME, D_TYPE, ARG) for each entry of the directory FD (open for reading) but
   "." and "..", read with getdents64 into a stack buffer: no heap, for the container
   init, whose every new heap page is charged to the container's memory cgroup.  A
   negative return of FN stops the walk and is returned; -1 with errno if reading fails. */
int dir_each (int fd, int (*fn) (const char *name, unsigned char type, void *arg), void *arg);

/* FN (LINE, ARG) for each line of the file PATH, its newline cut, read through BUF (SIZE
   bytes, the caller's: on its stack in the container init, whose every new heap page is
   charged to the container's memory cgroup), not stdio.  A line longer than SIZE - 2
   bytes is not read: FN gets NULL in its place.  A non-zero return of FN stops the walk
   and is returned; 0 at the end; -1 with errno if PATH cannot be opened or read. */
int lines_each (const char *path, char *buf, size_t size, int (*fn) (char *line, void *arg), void *arg);
/* The same over the open file FD, of which at most MAX bytes are read (what follows is
   taken as the end of the file). */
int lines_each_fd (int fd, size_t max, char *buf, size_t size, int (*fn) (char *line, void *arg), void *arg);

/* PATH opened for reading (close-on-exec) only if it is a file whose reads end: a
   regular file (opened O_NONBLOCK, so that a FIFO does not wait for a writer), not on
   procfs or sysfs; else -1 with errno (EINVAL: not such a file). */
int open_plain_file (const char *path);

/* What passwd_field reads of a passwd file at most. */
#define PASSWD_MAX (4u << 20)

/* Field FIELD (0 name ... 5 home, 6 shell) of UID's first entry in the passwd-format
   FILE (a plain file: open_plain_file; its first PASSWD_MAX bytes), malloc'd; NULL when
   there is none or it is empty, or FILE is not a plain file.  Files only, no NSS: the
   binary may be linked statically, and in a container only the file is meaningful. */
char *passwd_field (const char *file, uid_t uid, int field);

#endif
