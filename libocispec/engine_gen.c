/* The generator: typed structs -> JSON text with yajl_gen, driven by the same
   field tables as the parser, so parse(generate(x)) == x. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>

#include "internal.h"

typedef struct gctx
{
  yajl_gen g;
  ocispec_path path;
  char *err;
} gctx;

static int __attribute__ ((format (printf, 2, 3)))
gfail (gctx *c, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ocispec_path_failv (&c->err, "generate", &c->path, fmt, ap);
  va_end (ap);
  return -1;
}

static int
check (gctx *c, yajl_gen_status st)
{
  switch (st)
    {
    case yajl_gen_status_ok:
      return 0;
    case yajl_gen_invalid_string:
      return gfail (c, "invalid UTF-8 in a string");
    case yajl_max_depth_exceeded:
      return gfail (c, "nested too deep");
    default:
      return gfail (c, "yajl_gen error %d", (int) st);
    }
}

static int
gen_string (gctx *c, const char *s)
{
  return check (c, yajl_gen_string (c->g, (const unsigned char *) s, strlen (s)));
}

static int
gen_key (gctx *c, const char *key)
{
  return gen_string (c, key);
}

static int
gen_integer (gctx *c, ocispec_kind kind, const void *p)
{
  char buf[32];
  switch (kind)
    {
    case OCISPEC_INT32:
      snprintf (buf, sizeof buf, "%" PRId32, *(const int32_t *) p);
      break;
    case OCISPEC_UINT16:
      snprintf (buf, sizeof buf, "%" PRIu16, *(const uint16_t *) p);
      break;
    case OCISPEC_UINT32:
      snprintf (buf, sizeof buf, "%" PRIu32, *(const uint32_t *) p);
      break;
    case OCISPEC_INT64:
      snprintf (buf, sizeof buf, "%" PRId64, *(const int64_t *) p);
      break;
    default:
      snprintf (buf, sizeof buf, "%" PRIu64, *(const uint64_t *) p);
      break;
    }
  return check (c, yajl_gen_number (c->g, buf, strlen (buf)));
}

static int gen_object (gctx *c, const ocispec_type *t, const void *obj);

/* The scalar at P is zero: false, 0 (OCISPEC_F_OMITEMPTY). */
static bool
is_zero (ocispec_kind kind, const void *p)
{
  switch (kind)
    {
    case OCISPEC_BOOL:
      return !*(const bool *) p;
    case OCISPEC_INT32:
    case OCISPEC_UINT32:
      return *(const uint32_t *) p == 0;
    case OCISPEC_UINT16:
      return *(const uint16_t *) p == 0;
    default:
      return *(const uint64_t *) p == 0;
    }
}

/* Whether the field is written at all. */
static bool
present (const ocispec_field *f, const void *obj)
{
  const void *p = OCISPEC_FIELD_PTR (obj, f);
  bool required = f->flags & OCISPEC_F_REQUIRED;
  bool omitempty = f->flags & OCISPEC_F_OMITEMPTY;
  switch (f->kind)
    {
    case OCISPEC_STRING:
      if (omitempty && *(char *const *) p != NULL && **(char *const *) p == '\0')
        return false;
      return *(void *const *) p != NULL || required; /* required NULL: reported as an error */
    case OCISPEC_OBJ:
      return *(void *const *) p != NULL || required; /* required NULL: reported as an error */
    case OCISPEC_BOOL:
    case OCISPEC_INT32:
    case OCISPEC_UINT16:
    case OCISPEC_UINT32:
    case OCISPEC_INT64:
    case OCISPEC_UINT64:
      if (f->flags & OCISPEC_F_PTR)
        return *(void *const *) p != NULL; /* Go's omitempty on a pointer: nil alone */
      return !omitempty || !is_zero (f->kind, p);
    case OCISPEC_STRARR:
    case OCISPEC_UINT32ARR:
    case OCISPEC_UINT64ARR:
    case OCISPEC_OBJARR:
    case OCISPEC_OBJMAP:
      return *OCISPEC_LEN_PTR (obj, f) > 0 || required;
    case OCISPEC_MAP:
      return ((const ocispec_map *) p)->len > 0 || required;
    case OCISPEC_UINT64MAP:
      return ((const ocispec_u64map *) p)->len > 0 || required;
    case OCISPEC_INLINE:
    case OCISPEC_NULL:
      return true;
    }
  return false;
}

static int
gen_field (gctx *c, const ocispec_field *f, const void *obj)
{
  const void *p = OCISPEC_FIELD_PTR (obj, f);
  switch (f->kind)
    {
    case OCISPEC_STRING:
      if (*(char *const *) p == NULL)
        return gfail (c, "missing required field");
      return gen_string (c, *(char *const *) p);

    case OCISPEC_BOOL:
      {
        const bool *b = (f->flags & OCISPEC_F_PTR) ? *(bool *const *) p : p;
        return check (c, yajl_gen_bool (c->g, *b));
      }

    case OCISPEC_INT32:
    case OCISPEC_UINT16:
    case OCISPEC_UINT32:
    case OCISPEC_INT64:
    case OCISPEC_UINT64:
      return gen_integer (c, f->kind, (f->flags & OCISPEC_F_PTR) ? *(void *const *) p : p);

    case OCISPEC_STRARR:
      {
        char *const *a = *(char **const *) p;
        size_t n = *OCISPEC_LEN_PTR (obj, f);
        if (check (c, yajl_gen_array_open (c->g)) < 0)
          return -1;
        for (size_t i = 0; i < n; i++)
          {
            size_t old = ocispec_path_index (&c->path, i);
            if (a[i] == NULL)
              return gfail (c, "NULL string in an array");
            if (gen_string (c, a[i]) < 0)
              return -1;
            ocispec_path_pop (&c->path, old);
          }
        return check (c, yajl_gen_array_close (c->g));
      }

    case OCISPEC_UINT32ARR:
    case OCISPEC_UINT64ARR:
      {
        ocispec_kind elem = f->kind == OCISPEC_UINT32ARR ? OCISPEC_UINT32 : OCISPEC_UINT64;
        size_t size = elem == OCISPEC_UINT32 ? sizeof (uint32_t) : sizeof (uint64_t);
        const char *a = *(char *const *) p;
        size_t n = *OCISPEC_LEN_PTR (obj, f);
        if (check (c, yajl_gen_array_open (c->g)) < 0)
          return -1;
        for (size_t i = 0; i < n; i++)
          if (gen_integer (c, elem, a + i * size) < 0)
            return -1;
        return check (c, yajl_gen_array_close (c->g));
      }

    case OCISPEC_MAP:
    case OCISPEC_UINT64MAP:
      {
        bool ints = f->kind == OCISPEC_UINT64MAP;
        const ocispec_map *m = ints ? NULL : p;
        const ocispec_u64map *u = ints ? p : NULL;
        char *const *keys = ints ? u->keys : m->keys;
        size_t n = ints ? u->len : m->len;
        if (check (c, yajl_gen_map_open (c->g)) < 0)
          return -1;
        for (size_t i = 0; i < n; i++)
          {
            if (keys[i] == NULL || (!ints && m->values[i] == NULL))
              return gfail (c, "NULL key or value in a map");
            size_t old = ocispec_path_key (&c->path, keys[i]);
            if (gen_key (c, keys[i]) < 0
                || (ints ? gen_integer (c, OCISPEC_UINT64, &u->values[i]) : gen_string (c, m->values[i])) < 0)
              return -1;
            ocispec_path_pop (&c->path, old);
          }
        return check (c, yajl_gen_map_close (c->g));
      }

    case OCISPEC_NULL:
      return check (c, yajl_gen_null (c->g));

    case OCISPEC_OBJ:
      if (*(void *const *) p == NULL)
        return gfail (c, "missing required field");
      return gen_object (c, f->sub, *(void *const *) p);

    case OCISPEC_INLINE:
      return gen_object (c, f->sub, p);

    case OCISPEC_OBJARR:
    case OCISPEC_OBJMAP:
      {
        const char *a = *(char *const *) p;
        size_t n = *OCISPEC_LEN_PTR (obj, f);
        bool is_map = f->kind == OCISPEC_OBJMAP;
        if (check (c, is_map ? yajl_gen_map_open (c->g) : yajl_gen_array_open (c->g)) < 0)
          return -1;
        for (size_t i = 0; i < n; i++)
          {
            const char *elem = a + i * f->sub->size;
            size_t old;
            if (is_map)
              {
                const char *key = *(char *const *) elem;
                if (key == NULL)
                  return gfail (c, "NULL key in an object");
                old = ocispec_path_key (&c->path, key);
                if (gen_key (c, key) < 0)
                  return -1;
              }
            else
              old = ocispec_path_index (&c->path, i);
            if (gen_object (c, f->sub, elem) < 0)
              return -1;
            ocispec_path_pop (&c->path, old);
          }
        return check (c, is_map ? yajl_gen_map_close (c->g) : yajl_gen_array_close (c->g));
      }
    }
  return gfail (c, "internal error: unknown field kind %d", (int) f->kind);
}

static int
gen_object (gctx *c, const ocispec_type *t, const void *obj)
{
  if (check (c, yajl_gen_map_open (c->g)) < 0)
    return -1;
  for (size_t i = 0; i < t->n_fields; i++)
    {
      const ocispec_field *f = &t->fields[i];
      if (!present (f, obj))
        continue;
      size_t old = ocispec_path_key (&c->path, f->name);
      if (gen_key (c, f->name) < 0 || gen_field (c, f, obj) < 0)
        return -1;
      ocispec_path_pop (&c->path, old);
    }
  return check (c, yajl_gen_map_close (c->g));
}

/* Generate what EMIT writes (one object or one value) into *JSON. */
static int
generate (const ocispec_field *f, const ocispec_type *t, const void *obj, bool pretty, char **json, size_t *len,
          char **err)
{
  gctx c = { 0 };
  int ret = -1;

  *json = NULL;
  *err = NULL;
  if (len)
    *len = 0;
  c.g = yajl_gen_alloc (NULL);
  if (c.g == NULL)
    {
      *err = ocispec_xstrdup ("generate: cannot allocate a yajl generator");
      return -1;
    }
  yajl_gen_config (c.g, yajl_gen_validate_utf8, 1);
  if (pretty)
    {
      yajl_gen_config (c.g, yajl_gen_beautify, 1);
      yajl_gen_config (c.g, yajl_gen_indent_string, "\t");
    }

  if ((f ? gen_field (&c, f, obj) : gen_object (&c, t, obj)) == 0)
    {
      const unsigned char *buf = NULL;
      size_t n = 0;
      yajl_gen_get_buf (c.g, &buf, &n);
      char *out = malloc (n + 2);
      if (out == NULL)
        gfail (&c, "out of memory");
      else
        {
          memcpy (out, buf, n);
          /* One trailing newline, pretty or not. */
          if (n == 0 || out[n - 1] != '\n')
            out[n++] = '\n';
          out[n] = '\0';
          *json = out;
          if (len)
            *len = n;
          ret = 0;
        }
    }
  yajl_gen_free (c.g);
  ocispec_path_free (&c.path);
  if (ret < 0)
    *err = c.err ? c.err : ocispec_xstrdup ("generate: failed");
  else
    free (c.err);
  return ret;
}

int
ocispec_generate (const ocispec_type *t, const void *obj, bool pretty, char **json, size_t *len,
                  char **err)
{
  return generate (NULL, t, obj, pretty, json, len, err);
}

int
ocispec_generate_value (const ocispec_field *f, const void *obj, bool pretty, char **json, size_t *len,
                        char **err)
{
  return generate (f, NULL, obj, pretty, json, len, err);
}
