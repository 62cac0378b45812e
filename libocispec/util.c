/* Small helpers shared by the parser, the generator and the type tables. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void
oom (void)
{
  fputs ("libocispec: out of memory\n", stderr);
  abort ();
}

char *
ocispec_xstrdup (const char *s)
{
  char *r = strdup (s);
  if (r == NULL)
    oom ();
  return r;
}

void *
ocispec_xcalloc (size_t n, size_t size)
{
  void *r = calloc (n ? n : 1, size ? size : 1);
  if (r == NULL)
    oom ();
  return r;
}

static char *
ocispec_strdup_vprintf (const char *fmt, va_list ap)
{
  char *r = NULL;
  if (vasprintf (&r, fmt, ap) < 0)
    oom ();
  return r;
}

int
ocispec_path_failv (char **err, const char *prefix, const ocispec_path *path, const char *fmt, va_list ap)
{
  char *msg;

  if (*err != NULL)
    return -1;
  msg = ocispec_strdup_vprintf (fmt, ap);
  if (path->len > 0)
    *err = ocispec_strdup_printf ("%s: %s: %s", prefix, path->s, msg);
  else
    *err = ocispec_strdup_printf ("%s: %s", prefix, msg);
  free (msg);
  return -1;
}

char *
ocispec_strdup_printf (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *r = ocispec_strdup_vprintf (fmt, ap);
  va_end (ap);
  return r;
}

static void
path_reserve (ocispec_path *p, size_t extra)
{
  if (p->len + extra + 1 <= p->cap)
    return;
  size_t cap = p->cap ? p->cap : 64;
  while (cap < p->len + extra + 1)
    cap *= 2;
  char *s = realloc (p->s, cap);
  if (s == NULL)
    oom ();
  p->s = s;
  p->cap = cap;
}

static bool
is_identifier (const char *k)
{
  if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || *k == '_'))
    return false;
  for (k++; *k; k++)
    if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9')
          || *k == '_'))
      return false;
  return true;
}

static void
path_append (ocispec_path *p, const char *s)
{
  size_t n = strlen (s);
  path_reserve (p, n);
  memcpy (p->s + p->len, s, n + 1);
  p->len += n;
}

size_t
ocispec_path_key (ocispec_path *p, const char *key)
{
  size_t old = p->len;
  if (is_identifier (key))
    {
      path_reserve (p, strlen (key) + 1);
      p->s[p->len++] = '.';
      p->s[p->len] = '\0';
      path_append (p, key);
    }
  else
    {
      char q[OCISPEC_QUOTE_MAX];
      path_append (p, "[");
      path_append (p, ocispec_quote (q, key));
      path_append (p, "]");
    }
  return old;
}

size_t
ocispec_path_index (ocispec_path *p, size_t i)
{
  size_t old = p->len;
  char buf[32], *d = buf + sizeof buf;

  /* by hand: every array element of every document passes here */
  *--d = '\0';
  *--d = ']';
  do
    *--d = (char) ('0' + i % 10);
  while ((i /= 10) > 0);
  *--d = '[';
  path_append (p, d);
  return old;
}

void
ocispec_path_pop (ocispec_path *p, size_t old_len)
{
  p->len = old_len;
  if (p->s)
    p->s[old_len] = '\0';
}

void
ocispec_path_free (ocispec_path *p)
{
  free (p->s);
  p->s = NULL;
  p->len = p->cap = 0;
}

const char *
ocispec_quote (char buf[OCISPEC_QUOTE_MAX], const char *s)
{
  static const char hex[] = "0123456789abcdef";
  const size_t limit = 64; /* content bytes before "..."; a step adds at most 4 */
  size_t o = 0;

  buf[o++] = '"';
  for (const unsigned char *c = (const unsigned char *) s; *c; c++)
    {
      if (o - 1 >= limit)
        {
          /* Do not cut a UTF-8 sequence in the middle. */
          if ((*c & 0xc0) == 0x80)
            {
              while (o > 1 && ((unsigned char) buf[o - 1] & 0xc0) == 0x80)
                o--;
              if (o > 1 && ((unsigned char) buf[o - 1] & 0xc0) == 0xc0)
                o--;
            }
          memcpy (buf + o, "\"...", 5);
          return buf;
        }
      if (*c == '"' || *c == '\\')
        {
          buf[o++] = '\\';
          buf[o++] = *c;
        }
      else if (*c < 0x20 || *c == 0x7f)
        {
          buf[o++] = '\\';
          buf[o++] = 'x';
          buf[o++] = hex[*c >> 4];
          buf[o++] = hex[*c & 15];
        }
      else
        buf[o++] = *c;
    }
  buf[o++] = '"';
  buf[o] = '\0';
  return buf;
}

int
ocispec_fail (char **err, const char *path, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  char *msg = ocispec_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (path == NULL)
    path = "";
  const char *m = msg;
  if (*path == '\0' && strncmp (m, ": ", 2) == 0)
    m += 2;
  *err = ocispec_strdup_printf ("%s%s", path, m);
  free (msg);
  return -1;
}

bool
ocispec_in_list (const char *const *set, const char *s)
{
  for (; *set; set++)
    if (strcmp (*set, s) == 0)
      return true;
  return false;
}

bool
ocispec_only_chars (const char *s, const char *allowed)
{
  return s[strspn (s, allowed)] == '\0';
}
