#include <config.h>
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ocisbx_err *
err_new (int errnum, char *msg)
{
  ocisbx_err *e = malloc (sizeof *e);
  if (e == NULL)
    abort ();
  e->errnum = errnum;
  e->msg = msg;
  return e;
}

int
err_setv (ocisbx_err **err, int errnum, const char *fmt, va_list ap)
{
  char *msg = NULL;
  /* Nobody to tell (ERR NULL), or the first failure is kept: no message to format. */
  if (err == NULL || *err != NULL)
    return -1;
  if (vasprintf (&msg, fmt, ap) < 0)
    abort ();
  if (errnum != 0)
    {
      char *full = NULL;
      if (asprintf (&full, "%s: %s", msg, strerror (errnum)) < 0)
        abort ();
      free (msg);
      msg = full;
    }
  *err = err_new (errnum, msg);
  return -1;
}

int
err_set (ocisbx_err **err, int errnum, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  err_setv (err, errnum, fmt, ap);
  va_end (ap);
  return -1;
}

int
err_take (ocisbx_err **err, int errnum, char *msg)
{
  if (err == NULL || *err != NULL)
    {
      free (msg);
      return -1;
    }
  *err = err_new (errnum, msg);
  return -1;
}

int
err_wrap (ocisbx_err **err, const char *fmt, ...)
{
  char *ctx = NULL, *full = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  if (vasprintf (&ctx, fmt, ap) < 0)
    abort ();
  va_end (ap);
  if (asprintf (&full, "%s: %s", ctx, (*err)->msg) < 0)
    abort ();
  free (ctx);
  free ((*err)->msg);
  (*err)->msg = full;
  return -1;
}

void
err_free (ocisbx_err *err)
{
  if (err == NULL)
    return;
  free (err->msg);
  free (err);
}

void
err_freep (ocisbx_err **err)
{
  err_free (*err);
  *err = NULL;
}
