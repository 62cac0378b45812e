/* One error type for the whole runtime: an errno plus a message chain.
 *
 *   if (mount (...) < 0)
 *     return err_set (err, errno, "mount `%s`", dest);       // "mount `/proc`: Permission denied"
 *   if (setup_mounts (..., err) < 0)
 *     return err_wrap (err, "rootfs");                       // "rootfs: mount `/proc`: ..."
 *
 * Functions that can fail take `ocisbx_err **err` last and return -1 (or NULL)
 * with *err set.  The CLI prints the chain once, as text or as a JSON log line.
 */
#ifndef OCISBX_ERROR_H
#define OCISBX_ERROR_H

#include <stdarg.h>

typedef struct ocisbx_err
{
  int errnum; /* errno of the innermost failure, 0 when not a syscall error */
  char *msg;  /* "outer: inner: strerror(errnum)" */
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
/* Prefix the existing message with "context: ".  Returns -1. */
int err_wrap (ocisbx_err **err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Take ownership of a malloc'd message (e.g. from libocispec). Returns -1. */
int err_take (ocisbx_err **err, int errnum, char *msg);
void err_free (ocisbx_err *err);
void err_freep (ocisbx_err **err);
#define cleanup_err __attribute__ ((cleanup (err_freep)))

#endif
