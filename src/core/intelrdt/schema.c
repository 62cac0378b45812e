/* Schema lines checked and compared (schema.h). */
#include <config.h>
#include "core/intelrdt/schema.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/utils.h"

static const char *
skip_blanks (const char *s, const char *end)
{
  while (s < end && (*s == ' ' || *s == '\t'))
    s++;
  return s;
}

static const char *
trim_end (const char *s, const char *end)
{
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    end--;
  return end;
}

/* Cache resources have bitmasks in hex. */
static bool
is_cache (const char *name, size_t len)
{
  return len >= 2 && name[0] == 'L' && (name[1] == '2' || name[1] == '3');
}

/* The number [S, END) in BASE, whole: false if it is not one. */
static bool
number (const char *s, const char *end, int base, unsigned long long *v)
{
  char buf[32];
  char *stop;

  if (end <= s || (size_t) (end - s) >= sizeof buf)
    return false;
  for (const char *p = s; p < end; p++)
    if (!(base == 16 ? isxdigit ((unsigned char) *p) : isdigit ((unsigned char) *p)))
      return false;
  memcpy (buf, s, (size_t) (end - s));
  buf[end - s] = '\0';
  errno = 0;
  *v = strtoull (buf, &stop, base);
  return errno == 0 && *stop == '\0';
}

/* One "ID=VALUE" of [S, END): false if it is not one. */
static bool
domain (const char *s, const char *end, int base, unsigned long long *id, unsigned long long *v)
{
  const char *eq;

  s = skip_blanks (s, end);
  end = trim_end (s, end);
  eq = memchr (s, '=', (size_t) (end - s));
  /* the kernel pads the values it shows: "MB:0= 20;1=100" */
  return eq && number (s, trim_end (s, eq), 10, id) && number (skip_blanks (eq + 1, end), end, base, v);
}

const char *
rdt_schema_check (const char *line, char *name, size_t size)
{
  const char *colon = strchr (line, ':');
  const char *end = line + strlen (line);
  size_t len = colon ? (size_t) (colon - line) : 0;
  int base;

  name[0] = '\0';
  if (strchr (line, '\n'))
    return "a schema line has no newline";
  if (colon == NULL || len == 0)
    return "not a schema line \"NAME:ID=VALUE;...\"";
  for (size_t i = 0; i < len; i++)
    if (!isalnum ((unsigned char) line[i]) && line[i] != '_')
      return "a resource name is letters, digits and `_`";
  if (len >= size)
    return "the resource name is too long";
  memcpy (name, line, len);
  name[len] = '\0';
  base = is_cache (name, len) ? 16 : 10;
  for (const char *s = colon + 1; s <= end;)
    {
      const char *semi = memchr (s, ';', (size_t) (end - s));
      const char *stop = semi ? semi : end;
      unsigned long long id, v;
      if (!domain (s, stop, base, &id, &v))
        return base == 16 ? "want ID=BITMASK (a cache id, a hex capacity bitmask) for each domain"
                          : "want ID=VALUE (a cache id, a decimal bandwidth) for each domain";
      s = stop + 1;
    }
  return NULL;
}

/* The line of SCHEMATA for the resource [NAME, NAME + LEN): its domains in *DOMS (up to
   *DEND), false if there is none. */
static bool
find_resource (const char *schemata, const char *name, size_t len, const char **doms, const char **dend)
{
  for (const char *l = schemata; l && *l;)
    {
      const char *nl = strchr (l, '\n');
      const char *end = nl ? nl : l + strlen (l);
      const char *s = skip_blanks (l, end);
      const char *colon = memchr (s, ':', (size_t) (end - s));
      if (colon && (size_t) (trim_end (s, colon) - s) == len && memcmp (s, name, len) == 0)
        {
          *doms = colon + 1;
          *dend = end;
          return true;
        }
      l = nl ? nl + 1 : NULL;
    }
  return false;
}

/* Whether [S, END), the domains of a line, has domain ID with the value V. */
static bool
has_domain (const char *s, const char *end, int base, unsigned long long id, unsigned long long v)
{
  while (s < end)
    {
      const char *semi = memchr (s, ';', (size_t) (end - s));
      const char *stop = semi ? semi : end;
      unsigned long long i, x;
      if (domain (s, stop, base, &i, &x) && i == id)
        return x == v;
      s = stop + 1;
    }
  return false;
}

bool
rdt_schema_matches (const char *line, const char *schemata)
{
  const char *colon = strchr (line, ':');
  const char *end = line + strlen (line);
  const char *doms, *dend;
  size_t len;
  int base;

  if (colon == NULL)
    return false;
  len = (size_t) (colon - line);
  base = is_cache (line, len) ? 16 : 10;
  if (!find_resource (schemata, line, len, &doms, &dend))
    return false;
  for (const char *s = colon + 1; s <= end;)
    {
      const char *semi = memchr (s, ';', (size_t) (end - s));
      const char *stop = semi ? semi : end;
      unsigned long long id, v;
      if (!domain (s, stop, base, &id, &v) || !has_domain (doms, dend, base, id, v))
        return false;
      s = stop + 1;
    }
  return true;
}

int
rdt_schema_each (const oci_intel_rdt *r, rdt_line_fn fn, void *arg, ocisbx_err **err)
{
  char field[48];

  if (r->l3_cache_schema)
    {
      cleanup_free char *copy = xstrdup (r->l3_cache_schema);
      char *save = NULL;
      if (copy[0] == '\0' && fn (".l3CacheSchema", copy, arg, err) < 0)
        return -1;
      for (char *l = strtok_r (copy, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
        if (fn (".l3CacheSchema", l, arg, err) < 0)
          return -1;
    }
  if (r->mem_bw_schema && fn (".memBwSchema", r->mem_bw_schema, arg, err) < 0)
    return -1;
  for (size_t i = 0; i < r->schemata_len; i++)
    {
      snprintf (field, sizeof field, ".schemata[%zu]", i);
      if (fn (field, r->schemata[i], arg, err) < 0)
        return -1;
    }
  return 0;
}

bool
rdt_schema_any (const oci_intel_rdt *r)
{
  return r->l3_cache_schema || r->mem_bw_schema || r->schemata_len > 0;
}
