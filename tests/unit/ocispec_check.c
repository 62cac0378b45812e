/* Checks over libocispec's field tables, for test_ocispec.c: structural
   equality, coverage of a table by a JSON document, coverage of a struct by
   its table.  They print what differs and return a verdict (no CHECK here:
   unit.h's counter is per file). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ocispec_check.h"

#define NELEMS(a) (sizeof (a) / sizeof ((a)[0]))

char *
read_whole (const char *path, size_t *len)
{
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc (cap + 1);
  size_t r;
  while (buf && (r = fread (buf + n, 1, cap - n, f)) > 0)
    {
      n += r;
      if (n == cap)
        {
          cap *= 2;
          char *nb = realloc (buf, cap + 1);
          if (nb == NULL)
            free (buf);
          buf = nb;
        }
    }
  fclose (f);
  if (buf == NULL)
    return NULL;
  buf[n] = '\0';
  if (len)
    *len = n;
  return buf;
}

/* Structural equality of two typed objects, through the field tables.
   Prints the first difference. */
static bool
differ (const char *path, const char *name, const char *what)
{
  fprintf (stderr, "  %s.%s: %s differ\n", path, name, what);
  return false;
}

static bool
equal_str (const char *a, const char *b)
{
  return (a == NULL && b == NULL) || (a && b && strcmp (a, b) == 0);
}

static bool
equal_field (const ocispec_field *f, const void *oa, const void *ob, const char *path)
{
  const void *a = OCISPEC_FIELD_PTR (oa, f), *b = OCISPEC_FIELD_PTR (ob, f);
  bool ok = true;
  char sub[512];
  snprintf (sub, sizeof sub, "%s.%s", path, f->name);

  switch (f->kind)
    {
    case OCISPEC_STRING:
      return equal_str (*(char *const *) a, *(char *const *) b) || differ (path, f->name, "strings");
    case OCISPEC_BOOL:
    case OCISPEC_INT32:
    case OCISPEC_UINT16:
    case OCISPEC_UINT32:
    case OCISPEC_INT64:
    case OCISPEC_UINT64:
      {
        size_t size = f->kind == OCISPEC_BOOL     ? sizeof (bool)
                      : f->kind == OCISPEC_INT32  ? 4
                      : f->kind == OCISPEC_UINT16 ? 2
                      : f->kind == OCISPEC_UINT32 ? 4
                                                  : 8;
        if (f->flags & OCISPEC_F_PTR)
          {
            const void *pa = *(void *const *) a, *pb = *(void *const *) b;
            if ((pa == NULL) != (pb == NULL))
              return differ (path, f->name, "presence");
            return pa == NULL || memcmp (pa, pb, size) == 0 || differ (path, f->name, "values");
          }
        return memcmp (a, b, size) == 0 || differ (path, f->name, "values");
      }
    case OCISPEC_STRARR:
      {
        size_t na = *OCISPEC_LEN_PTR (oa, f), nb = *OCISPEC_LEN_PTR (ob, f);
        if (na != nb)
          return differ (path, f->name, "lengths");
        for (size_t i = 0; i < na; i++)
          ok = ok && equal_str ((*(char **const *) a)[i], (*(char **const *) b)[i]);
        return ok || differ (path, f->name, "elements");
      }
    case OCISPEC_UINT32ARR:
    case OCISPEC_UINT64ARR:
      {
        size_t na = *OCISPEC_LEN_PTR (oa, f), nb = *OCISPEC_LEN_PTR (ob, f);
        if (na != nb)
          return differ (path, f->name, "lengths");
        return na == 0
               || memcmp (*(void *const *) a, *(void *const *) b, na * (f->kind == OCISPEC_UINT32ARR ? 4 : 8)) == 0
               || differ (path, f->name, "elements");
      }
    case OCISPEC_UINT64MAP:
      {
        const ocispec_u64map *ma = a, *mb = b;
        if (ma->len != mb->len)
          return differ (path, f->name, "map sizes");
        for (size_t i = 0; i < ma->len; i++)
          ok = ok && equal_str (ma->keys[i], mb->keys[i]) && ma->values[i] == mb->values[i];
        return ok || differ (path, f->name, "map entries");
      }
    case OCISPEC_NULL:
      return true;
    case OCISPEC_MAP:
      {
        const ocispec_map *ma = a, *mb = b;
        if (ma->len != mb->len)
          return differ (path, f->name, "map sizes");
        for (size_t i = 0; i < ma->len; i++)
          ok = ok && equal_str (ma->keys[i], mb->keys[i]) && equal_str (ma->values[i], mb->values[i]);
        return ok || differ (path, f->name, "map entries");
      }
    case OCISPEC_OBJ:
      {
        const void *pa = *(void *const *) a, *pb = *(void *const *) b;
        if ((pa == NULL) != (pb == NULL))
          return differ (path, f->name, "presence");
        return pa == NULL || equal_obj (f->sub, pa, pb, sub);
      }
    case OCISPEC_INLINE:
      return equal_obj (f->sub, a, b, sub);
    case OCISPEC_OBJARR:
    case OCISPEC_OBJMAP:
      {
        size_t na = *OCISPEC_LEN_PTR (oa, f), nb = *OCISPEC_LEN_PTR (ob, f);
        if (na != nb)
          return differ (path, f->name, "lengths");
        for (size_t i = 0; i < na && ok; i++)
          {
            const char *ea = *(char *const *) a + i * f->sub->size;
            const char *eb = *(char *const *) b + i * f->sub->size;
            if (f->kind == OCISPEC_OBJMAP && !equal_str (*(char *const *) ea, *(char *const *) eb))
              return differ (path, f->name, "keys");
            ok = equal_obj (f->sub, ea, eb, sub);
          }
        return ok;
      }
    }
  return false;
}

bool
equal_obj (const ocispec_type *t, const void *a, const void *b, const char *path)
{
  bool ok = true;
  for (size_t i = 0; i < t->n_fields; i++)
    ok = equal_field (&t->fields[i], a, b, path) && ok;
  return ok;
}

/* Every field of T (recursively) appears in at least one of OBJS: proves a
   test document exercises the whole table. */
int
check_covered (const ocispec_type *t, yajl_val *objs, size_t n, const char *path)
{
  int missing = 0;
  for (size_t i = 0; i < t->n_fields; i++)
    {
      const ocispec_field *f = &t->fields[i];
      const char *key[] = { f->name, NULL };
      yajl_val vals[256];
      size_t nv = 0;
      char sub[512];
      snprintf (sub, sizeof sub, "%s.%s", path, f->name);
      for (size_t j = 0; j < n; j++)
        {
          yajl_val v = yajl_tree_get (objs[j], key, yajl_t_any);
          if (v == NULL)
            continue;
          if (f->kind == OCISPEC_OBJARR && YAJL_IS_ARRAY (v))
            for (size_t k = 0; k < v->u.array.len && nv < NELEMS (vals); k++)
              vals[nv++] = v->u.array.values[k];
          else if (f->kind == OCISPEC_OBJMAP && YAJL_IS_OBJECT (v))
            for (size_t k = 0; k < v->u.object.len && nv < NELEMS (vals); k++)
              vals[nv++] = v->u.object.values[k];
          else if (nv < NELEMS (vals))
            vals[nv++] = v;
        }
      if (nv == 0)
        {
          fprintf (stderr, "  not covered: %s\n", sub);
          missing++;
        }
      else if (f->sub)
        missing += check_covered (f->sub, vals, nv, sub);
    }
  return missing;
}

typedef struct span
{
  size_t off, size, align;
} span;

static int
span_cmp (const void *a, const void *b)
{
  const span *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

static size_t
type_align (const ocispec_type *t);

static void
field_spans (const ocispec_field *f, span *out, size_t *n)
{
  size_t size = 8;
  switch (f->kind)
    {
    case OCISPEC_BOOL:
      size = 1;
      break;
    case OCISPEC_UINT16:
      size = 2;
      break;
    case OCISPEC_INT32:
    case OCISPEC_UINT32:
      size = 4;
      break;
    case OCISPEC_MAP:
      size = sizeof (ocispec_map);
      break;
    case OCISPEC_UINT64MAP:
      size = sizeof (ocispec_u64map);
      break;
    case OCISPEC_NULL:
      return; /* stores nothing */
    case OCISPEC_INLINE:
      if (f->sub->size == 0)
        return; /* an empty struct: nothing stored */
      size = f->sub->size;
      break;
    default:
      break;
    }
  if (f->flags & OCISPEC_F_PTR)
    size = sizeof (void *);
  out[(*n)++] = (span) { f->offset, size,
                         f->kind == OCISPEC_INLINE ? type_align (f->sub) : (size > 8 ? 8 : size) };
  if (f->kind == OCISPEC_STRARR || f->kind == OCISPEC_UINT32ARR || f->kind == OCISPEC_UINT64ARR
      || f->kind == OCISPEC_OBJARR || f->kind == OCISPEC_OBJMAP)
    out[(*n)++] = (span) { f->len_offset, sizeof (size_t), sizeof (size_t) };
}

static size_t
type_align (const ocispec_type *t)
{
  span sp[128];
  size_t n = 0, a = 1;
  for (size_t i = 0; i < t->n_fields; i++)
    field_spans (&t->fields[i], sp, &n);
  for (size_t i = 0; i < n; i++)
    a = sp[i].align > a ? sp[i].align : a;
  return a;
}

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* Every byte of the struct is a member some field describes, or padding:
   a member missing from a table (say, one added to runtime_spec.h without a
   field) shows as a gap.  OBJMAP elements start with their key.  Limit: a
   4-byte member right before an 8-aligned one can pass for padding. */
int
check_struct_covered (const ocispec_type *t, bool keyed)
{
  span sp[130];
  size_t n = 0, end = 0;
  int bad = 0;
  if (keyed)
    sp[n++] = (span) { 0, sizeof (char *), sizeof (char *) };
  for (size_t i = 0; i < t->n_fields; i++)
    field_spans (&t->fields[i], sp, &n);
  qsort (sp, n, sizeof sp[0], span_cmp);
  for (size_t i = 0; i < n; i++)
    {
      if (sp[i].off < end)
        {
          fprintf (stderr, "  %s: fields overlap at offset %zu\n", t->name, sp[i].off);
          bad++;
        }
      else if (sp[i].off != ALIGN_UP (end, sp[i].align))
        {
          fprintf (stderr, "  %s: bytes %zu..%zu are described by no field\n", t->name, end, sp[i].off);
          bad++;
        }
      end = sp[i].off + sp[i].size;
    }
  if (ALIGN_UP (end, type_align (t)) != t->size)
    {
      fprintf (stderr, "  %s: bytes %zu..%zu are described by no field\n", t->name, end, t->size);
      bad++;
    }
  for (size_t i = 0; i < t->n_fields; i++)
    if (t->fields[i].sub)
      bad += check_struct_covered (t->fields[i].sub, t->fields[i].kind == OCISPEC_OBJMAP);
  return bad;
}

bool
roundtrip_equal (const ocispec_type *t, const char *doc, const char *data, size_t len)
{
  void *a = NULL, *b = NULL;
  char *err = NULL, *j1 = NULL, *j2 = NULL, *j3 = NULL;
  size_t n1 = 0, n2 = 0, n3 = 0;
  const char *failed = NULL;

  if (ocispec_parse (t, doc, data, len, &a, &err) < 0)
    failed = "parse";
  else if (ocispec_generate (t, a, false, &j1, &n1, &err) < 0 || j1 == NULL || strlen (j1) != n1)
    failed = "generate";
  else if (ocispec_parse (t, doc, j1, n1, &b, &err) < 0)
    failed = "parse of the generated text";
  else if (!equal_obj (t, a, b, ""))
    failed = "equal after the round trip";
  else if (ocispec_generate (t, b, true, &j2, &n2, &err) < 0 || ocispec_generate (t, a, true, &j3, &n3, &err) < 0)
    failed = "generate (pretty)";
  else if (strcmp (j2, j3) != 0)
    failed = "the same text generated again";
  if (failed)
    fprintf (stderr, "  round trip of %s: %s%s%s\n", doc, failed, err ? ": " : "", err ? err : "");
  if (a)
    ocispec_free (t, a);
  if (b)
    ocispec_free (t, b);
  free (err);
  free (j1);
  free (j2);
  free (j3);
  return failed == NULL;
}
