/* One error type for the whole runtime: a kind, an errno and a message chain.
 *
 *   if (mount (...) < 0)
 *     return err_set (err, errno, "mount `%s`", dest);       // "mount `/proc`: Permission denied"
 *   if (setup_mounts (..., err) < 0)
 *     return err_wrap (err, "rootfs");                       // "rootfs: mount `/proc`: ..."
 *
 * Functions that can fail take `ocisbx_err **err` last and return -1 (or NULL)
 * with *err set.  The CLI prints the chain once, as text or as a JSON log line.
 *
 * The kind is set where the error is made (err_setk, err_engine) and kept through
 * err_wrap and the sync channel: exit codes and the words engines read are chosen
 * from it, never from the message's text.
 */
#ifndef OCISBX_ERROR_H
#define OCISBX_ERROR_H

#include <stdarg.h>

typedef enum err_kind
{
  ERR_SYSTEM = 0,     /* anything not classified below: the host or a syscall failed */
  ERR_USAGE,          /* the command line */
  ERR_INVALID_CONFIG, /* config.json, process.json, a resources document */
  ERR_NOT_FOUND,      /* no such container; the process's program not found (exec: 127) */
  ERR_EXISTS,         /* the container id is taken */
  ERR_PERMISSION,     /* the process's program found but not runnable (exec: 126) */
  ERR_NOT_RUNNING,    /* the container is not running (stopped, not started yet) */
  ERR_PAUSED,         /* the container is paused */
  ERR_UNSUPPORTED,    /* this host or build cannot do it */
} err_kind;

typedef struct ocisbx_err
{
  int errnum;    /* errno of the innermost failure, 0 when not a syscall error */
  err_kind kind; /* ERR_SYSTEM unless the maker said otherwise */
  char *msg;     /* "outer: inner: strerror(errnum)" */
} ocisbx_err;

/* Set *err (which must be NULL) from a format; when errnum != 0 append
   ": strerror(errnum)".  Returns -1. */
int err_set (ocisbx_err **err, int errnum, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
/* Messages are never sized by their input: whatever a config or a peer puts into one,
   each formatted part stays within ERR_MSG_MAX bytes, cut with "..." (err_set, err_wrap
   and the log's messages alike).  Fields with a kernel limit are checked at parse time
   and echo a short prefix (libocispec). */
#define ERR_MSG_MAX 1024
/* FMT formatted into a malloc'd string of at most ERR_MSG_MAX bytes. */
char *err_format (const char *fmt, va_list ap);
int err_setv (ocisbx_err **err, int errnum, const char *fmt, va_list ap);
/* err_set with a kind. */
int err_setk (ocisbx_err **err, err_kind kind, int errnum, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));
/* An error an engine reads: FMT followed by ": " and the kind's words, runc's, which the
   engines match (err_kind_words).  Returns -1. */
int err_engine (ocisbx_err **err, err_kind kind, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));
/* The words of KIND that engines match, or NULL: "container not running" (containerd
   takes a kill error with them for "already gone"), "permission denied" and
   "executable file not found in $PATH" (podman's 126 and 127 for the process's
   program). */
const char *err_kind_words (err_kind kind);
/* ERR's kind (ERR_SYSTEM for NULL). */
err_kind err_kind_of (const ocisbx_err *err);
/* What a process that failed to start exits with, as a shell: 127 when its program was
   not found, 126 when it cannot run, else FALLBACK. */
int err_exec_exit_code (const ocisbx_err *err, int fallback);
/* Prefix the existing message with "context: ".  Returns -1. */
int err_wrap (ocisbx_err **err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Take ownership of a malloc'd message (e.g. from libocispec). Returns -1. */
int err_take (ocisbx_err **err, int errnum, char *msg);
/* err_take with a kind (an error passed on from another process or libocispec). */
int err_takek (ocisbx_err **err, err_kind kind, int errnum, char *msg);
void err_free (ocisbx_err *err);
void err_freep (ocisbx_err **err);
#define cleanup_err __attribute__ ((cleanup (err_freep)))

#endif
