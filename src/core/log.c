#include <config.h>
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/utils.h"
#include "ocispec.h"

/* The CLI's logging options: set once by log_init (). */
static struct
{
  int fd;
  log_format fmt;
  bool debug;
} log_opts = { -1, LOG_FMT_TEXT, false };

int
log_init (const char *path, log_format fmt, bool debug, ocisbx_err **err)
{
  log_opts.fmt = fmt;
  log_opts.debug = debug;
  if (path == NULL || path[0] == '\0')
    return 0;
  log_opts.fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_opts.fd < 0)
    return err_set (err, errno, "open log file `%s`", path);
  return 0;
}

int
log_fd (void)
{
  return log_opts.fd;
}

bool
log_debug_enabled (void)
{
  return log_opts.debug;
}

/* S quoted for the text form's msg="..." (logrus quotes it the same way). */
static char *
text_quote (const char *s)
{
  size_t n = strlen (s);
  char *out = xmalloc0 (n * 6 + 1), *o = out;
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    {
      switch (*p)
        {
        case '"':
          *o++ = '\\', *o++ = '"';
          break;
        case '\\':
          *o++ = '\\', *o++ = '\\';
          break;
        case '\n':
          *o++ = '\\', *o++ = 'n';
          break;
        case '\t':
          *o++ = '\\', *o++ = 't';
          break;
        case '\r':
          *o++ = '\\', *o++ = 'r';
          break;
        default:
          if (*p < 0x20)
            o += sprintf (o, "\\u%04x", *p);
          else
            *o++ = *p;
        }
    }
  *o = '\0';
  return out;
}

/* A JSON log line {level,msg,time}, generated from this table. */
typedef struct log_entry
{
  char *level;
  char *msg;
  char *time;
} log_entry;

static const ocispec_field log_entry_fields[] = {
  { "level", OCISPEC_STRING, 0, offsetof (log_entry, level), 0, NULL, NULL, NULL },
  { "msg", OCISPEC_STRING, 0, offsetof (log_entry, msg), 0, NULL, NULL, NULL },
  { "time", OCISPEC_STRING, 0, offsetof (log_entry, time), 0, NULL, NULL, NULL },
};
static const ocispec_type log_entry_type = { "log_entry", sizeof (log_entry), log_entry_fields,
                                             sizeof log_entry_fields / sizeof log_entry_fields[0], NULL };

static char *
log_json_line (const char *level, const char *msg, const char *time)
{
  log_entry e = { (char *) level, (char *) msg, (char *) time };
  cleanup_free char *ascii = NULL;
  char *json = NULL, *perr = NULL;

  if (ocispec_generate (&log_entry_type, &e, false, &json, NULL, &perr) == 0)
    return json;
  /* only a message that is not UTF-8 is refused: its other bytes written as '?' */
  free (perr);
  perr = NULL;
  ascii = xstrdup (msg);
  for (char *p = ascii; *p; p++)
    if ((unsigned char) *p >= 0x80)
      *p = '?';
  e.msg = ascii;
  if (ocispec_generate (&log_entry_type, &e, false, &json, NULL, &perr) == 0)
    return json;
  free (perr); /* ASCII is refused only when out of memory: no line then */
  return xstrdup ("");
}

/* One line as logrus writes it, the form of runc's logs: JSON, or
   time="..." level=debug msg="..." as text. */
static char *
log_line (log_format fmt, const char *level, const char *msg)
{
  char ts[64];
  struct timespec now;
  struct tm tm;
  cleanup_free char *esc = NULL;

  clock_gettime (CLOCK_REALTIME, &now);
  gmtime_r (&now.tv_sec, &tm);
  strftime (ts, sizeof ts, "%Y-%m-%dT%H:%M:%S", &tm);
  if (fmt == LOG_FMT_JSON)
    {
      char time[96];
      snprintf (time, sizeof time, "%s.%09ldZ", ts, now.tv_nsec);
      return log_json_line (level, msg, time);
    }
  esc = text_quote (msg);
  return xasprintf ("time=\"%s.%09ldZ\" level=%s msg=\"%s\"\n", ts, now.tv_nsec, level, esc);
}

static void
log_write (const char *level, const char *msg)
{
  bool error = strcmp (level, "error") == 0, debug = strcmp (level, "debug") == 0;
  int saved = errno;

  if (log_opts.fd >= 0)
    {
      cleanup_free char *line = log_line (log_opts.fmt, level, msg);
      write_all (log_opts.fd, line, strlen (line));
    }
  /* Without --log everything goes to stderr; errors always do, so that the user sees
     them.  Debug lines there as runc writes them (level=debug). */
  if (log_opts.fd < 0 || error)
    {
      cleanup_free char *line = debug ? log_line (LOG_FMT_TEXT, level, msg)
                                      : xasprintf ("ocisbx: %s%s%s\n", error ? "" : level, error ? "" : ": ", msg);
      write_all (STDERR_FILENO, line, strlen (line));
    }
  errno = saved;
}

void
log_msg (const char *level, const char *fmt, ...)
{
  cleanup_free char *msg = NULL;
  va_list ap;
  va_start (ap, fmt);
  msg = err_format (fmt, ap);
  va_end (ap);
  log_write (level, msg);
}

void
log_err (const ocisbx_err *err)
{
  if (err)
    log_write ("error", err->msg);
}
