/* A tiny unit-test harness: test functions registered by UNIT_MAIN (T (fn), ...).
   Its output is TAP (automake's tap-driver.sh reads it: each test PASS, FAIL or SKIP
   by name), closed by "N passed, N failed, N skipped"; the exit code is non-zero on
   failure.  A test that cannot check anything here calls UNIT_SKIP (reason) and
   returns: it is reported as a skip with that reason, never as a pass. */
#ifndef OCISBX_UNIT_H
#define OCISBX_UNIT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_checks;
static char unit_skip_reason[256];

/* UNIT_SKIP (fmt, ...): the current test is a skip, for the reason given (name the
   missing thing and the Debian package that brings it).  The test then returns. */
#define UNIT_SKIP(...) snprintf (unit_skip_reason, sizeof unit_skip_reason, __VA_ARGS__)

#define CHECK(cond)                                                                                \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          fprintf (stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);              \
          unit_failed_checks++;                                                                    \
        }                                                                                          \
    }                                                                                              \
  while (0)

#define CHECK_STR(a, b)                                                                            \
  do                                                                                               \
    {                                                                                              \
      const char *_a = (a), *_b = (b);                                                             \
      if (_a == NULL || _b == NULL || strcmp (_a, _b) != 0)                                        \
        {                                                                                          \
          fprintf (stderr, "  %s:%d: expected \"%s\"\n  %*s      got \"%s\"\n", __FILE__, __LINE__,  \
                   _b ? _b : "(null)", (int) strlen (__FILE__) + 4, "", _a ? _a : "(null)");       \
          unit_failed_checks++;                                                                    \
        }                                                                                          \
    }                                                                                              \
  while (0)

typedef struct
{
  const char *name;
  void (*fn) (void);
} unit_test;

static inline int
unit_run (const unit_test *tests, size_t n)
{
  int passed = 0, failed = 0, skipped = 0;
  printf ("1..%zu\n", n);
  fflush (stdout);
  for (size_t i = 0; i < n; i++)
    {
      int before = unit_failed_checks;
      unit_skip_reason[0] = '\0';
      tests[i].fn ();
      if (unit_failed_checks != before)
        {
          failed++;
          printf ("not ok %zu - %s\n", i + 1, tests[i].name);
        }
      else if (unit_skip_reason[0])
        {
          skipped++;
          printf ("ok %zu - %s # SKIP %s\n", i + 1, tests[i].name, unit_skip_reason);
        }
      else
        {
          passed++;
          printf ("ok %zu - %s\n", i + 1, tests[i].name);
        }
      fflush (stdout);
    }
  printf ("# %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

#define UNIT_MAIN(...)                                                                             \
  int main (void)                                                                                  \
  {                                                                                                \
    static const unit_test tests[] = { __VA_ARGS__ };                                              \
    return unit_run (tests, sizeof tests / sizeof tests[0]);                                       \
  }
#define T(fn) { #fn, fn }

/* The source tree (malloc'd): $OCISBX_SRCDIR (set by `make check`), else from __FILE__. */
static inline char *
unit_srcdir (void)
{
  const char *env = getenv ("OCISBX_SRCDIR");
  const char *tail = strstr (__FILE__, "/tests/unit/unit.h");
  if (env && *env)
    return strdup (env);
  if (tail && __FILE__[0] == '/')
    return strndup (__FILE__, (size_t) (tail - __FILE__));
  return strdup (".");
}

/* Appends FMT's text and a newline to LOG (SIZE bytes, NUL-terminated), truncating: the
   call log a test's fake system calls keep. */
static inline void __attribute__ ((format (printf, 3, 0)))
unit_vlog (char *log, size_t size, const char *fmt, va_list ap)
{
  size_t n = strlen (log);
  vsnprintf (log + n, size - n, fmt, ap);
  n = strlen (log);
  if (n + 1 < size)
    strcpy (log + n, "\n");
}

#endif
