/* A tiny unit-test harness: TEST(name) functions registered by RUN(); output
   ends with "N passed, N failed" and the exit code is non-zero on failure. */
#ifndef OCISBX_UNIT_H
#define OCISBX_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_failed_checks;

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
  int passed = 0, failed = 0;
  for (size_t i = 0; i < n; i++)
    {
      int before = unit_failed_checks;
      tests[i].fn ();
      if (unit_failed_checks == before)
        {
          passed++;
          printf ("ok %zu - %s\n", i + 1, tests[i].name);
        }
      else
        {
          failed++;
          printf ("not ok %zu - %s\n", i + 1, tests[i].name);
        }
    }
  printf ("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

#define UNIT_MAIN(...)                                                                             \
  int main (void)                                                                                  \
  {                                                                                                \
    static const unit_test tests[] = { __VA_ARGS__ };                                              \
    return unit_run (tests, sizeof tests / sizeof tests[0]);                                       \
  }
#define T(fn) { #fn, fn }

#endif
