#include <config.h>
#include "core/error.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static ocisbx_err *
err_new (err_kind kind, int errnum, char *msg)
{
  ocisbx_err *e = malloc (sizeof *e);
  if (e == NULL)
    abort ();
  e->errnum = errnum;
  e->kind = kind;
  e->msg = msg;
  return e;
}

char *
err_format (const char *fmt, va_list ap)
{
  char *msg = malloc (ERR_MSG_MAX + 1);
  int n;

  if (msg == NULL)
    abort ();
  n = vsnprintf (msg, ERR_MSG_MAX + 1, fmt, ap);
  if (n < 0)
    abort ();
  if ((size_t) n > ERR_MSG_MAX)
    {
      /* cut before a whole UTF-8 character, then "..." */
      size_t k = ERR_MSG_MAX - 3;
      while (k > 0 && ((unsigned char) msg[k] & 0xc0) == 0x80)
        k--;
      memcpy (msg + k, "...", 4);
    }
  return msg;
}

static int
err_setkv (ocisbx_err **err, err_kind kind, int errnum, const char *words, const char *fmt, va_list ap)
{
  char *msg = NULL;
  /* Nobody to tell (ERR NULL), or the first failure is kept: no message to format. */
  if (err == NULL || *err != NULL)
    return -1;
  msg = err_format (fmt, ap);
  if (errnum != 0 || words != NULL)
    {
      char *full = NULL;
      if (asprintf (&full, "%s: %s", msg, words ? words : strerror (errnum)) < 0)
        abort ();
      free (msg);
      msg = full;
    }
  *err = err_new (kind, errnum, msg);
  return -1;
}

int
err_setv (ocisbx_err **err, int errnum, const char *fmt, va_list ap)
{
  return err_setkv (err, ERR_SYSTEM, errnum, NULL, fmt, ap);
}

int
err_setk (ocisbx_err **err, err_kind kind, int errnum, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  err_setkv (err, kind, errnum, NULL, fmt, ap);
  va_end (ap);
  return -1;
}

int
err_engine (ocisbx_err **err, err_kind kind, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  err_setkv (err, kind, 0, err_kind_words (kind), fmt, ap);
  va_end (ap);
  return -1;
}

const char *
err_kind_words (err_kind kind)
{
  switch (kind)
    {
    case ERR_NOT_RUNNING:
      return "container not running";
    case ERR_PERMISSION:
      return "permission denied";
    case ERR_NOT_FOUND:
      return "executable file not found in $PATH";
    default:
      return NULL;
    }
}

err_kind
err_kind_of (const ocisbx_err *err)
{
  return err ? err->kind : ERR_SYSTEM;
}

int
err_exec_exit_code (const ocisbx_err *err, int fallback)
{
  switch (err_kind_of (err))
    {
    case ERR_NOT_FOUND:
      return 127;
    case ERR_PERMISSION:
      return 126;
    default:
      return fallback;
    }
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
err_takek (ocisbx_err **err, err_kind kind, int errnum, char *msg)
{
  if (err == NULL || *err != NULL)
    {
      free (msg);
      return -1;
    }
  *err = err_new (kind, errnum, msg);
  return -1;
}

int
err_take (ocisbx_err **err, int errnum, char *msg)
{
  return err_takek (err, ERR_SYSTEM, errnum, msg);
}

int
err_wrap (ocisbx_err **err, const char *fmt, ...)
{
  char *ctx = NULL, *full = NULL;
  va_list ap;

  if (err == NULL || *err == NULL)
    return -1;
  va_start (ap, fmt);
  ctx = err_format (fmt, ap);
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
