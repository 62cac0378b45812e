/* Messages to the user: stderr, plus --log FILE as text or as JSON lines
   ({"level":"error","msg":"...","time":"..."}), the format conmon reads; text lines are
   logrus's as runc writes them: time="..." level=debug msg="...".  Without --log
   everything goes to stderr ("ocisbx: warning: ..."; debug lines as in the log); with
   it only errors do too.
   The sink is configured once from the CLI's global options. */
#ifndef OCISBX_LOG_H
#define OCISBX_LOG_H

#include <stdbool.h>

#include "core/error.h"

typedef enum
{
  LOG_FMT_TEXT,
  LOG_FMT_JSON
} log_format;

int log_init (const char *path, log_format fmt, bool debug, ocisbx_err **err);
bool log_debug_enabled (void);
/* The --log file's fd, or -1 (kept open by whoever closes the fds it does not know). */
int log_fd (void);
void log_msg (const char *level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
#define log_error(...) log_msg ("error", __VA_ARGS__)
#define log_warning(...) log_msg ("warning", __VA_ARGS__)
#define log_info(...) log_msg ("info", __VA_ARGS__)
#define log_debug(...)                                                                             \
  do                                                                                               \
    {                                                                                              \
      if (log_debug_enabled ())                                                                    \
        log_msg ("debug", __VA_ARGS__);                                                            \
    }                                                                                              \
  while (0)
/* Report an error chain (does not free it). */
void log_err (const ocisbx_err *err);

#endif
