/* The parser: JSON text -> yajl tree -> typed structs, driven by the field
   tables.  Every error is one malloc'd line "DOC: .json.path: what". */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "internal.h"

typedef struct pctx
{
  const char *doc;
  ocispec_path path;
  char *err;
} pctx;

static int __attribute__ ((format (printf, 2, 3)))
fail (pctx *c, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  ocispec_path_failv (&c->err, c->doc, &c->path, fmt, ap);
  va_end (ap);
  return -1;
}

/* ---- typed walk ---- */

/* "a string", "an array", ...; numbers show their text when NUMERIC. */
static const char *
describe (yajl_val v, bool numeric, char *buf, size_t size)
{
  switch (v->type)
    {
    case yajl_t_string:
      return "a string";
    case yajl_t_number:
      if (!numeric)
        return "a number";
      {
        const char *r = v->u.number.r;
        if (strlen (r) > 40)
          snprintf (buf, size, "%.40s...", r);
        else
          snprintf (buf, size, "%s", r);
        return buf;
      }
    case yajl_t_object:
      return "an object";
    case yajl_t_array:
      return "an array";
    case yajl_t_true:
    case yajl_t_false:
      return "a boolean";
    case yajl_t_null:
      return "null";
    default:
      return "something else";
    }
}

static int
type_error (pctx *c, const char *expected, yajl_val v, bool numeric)
{
  char buf[64];
  return fail (c, "expected %s, got %s", expected, describe (v, numeric, buf, sizeof buf));
}

typedef struct int_range
{
  const char *expected;
  bool is_signed;
  int64_t min;
  uint64_t max;
} int_range;

static const int_range *
range_of (ocispec_kind k)
{
  static const int_range r_i32 = { "an integer between -2147483648 and 2147483647", true, INT32_MIN, INT32_MAX };
  static const int_range r_u16 = { "an integer between 0 and 65535", false, 0, UINT16_MAX };
  static const int_range r_u32 = { "an integer between 0 and 4294967295", false, 0, UINT32_MAX };
  static const int_range r_i64
      = { "an integer between -9223372036854775808 and 9223372036854775807", true, INT64_MIN, INT64_MAX };
  static const int_range r_u64 = { "an integer between 0 and 18446744073709551615", false, 0, UINT64_MAX };
  switch (k)
    {
    case OCISPEC_INT32:
      return &r_i32;
    case OCISPEC_UINT16:
      return &r_u16;
    case OCISPEC_UINT32:
    case OCISPEC_UINT32ARR:
      return &r_u32;
    case OCISPEC_INT64:
      return &r_i64;
    default:
      return &r_u64;
    }
}

/* Parse an integer from the number's raw text (yajl only keeps a long long). */
static int
get_integer (pctx *c, ocispec_kind kind, yajl_val v, int64_t *sval, uint64_t *uval)
{
  const int_range *r = range_of (kind);
  if (!YAJL_IS_NUMBER (v))
    return type_error (c, r->expected, v, true);

  const char *raw = v->u.number.r;
  const char *digits = raw[0] == '-' ? raw + 1 : raw;
  if (*digits == '\0' || !ocispec_only_chars (digits, "0123456789"))
    return type_error (c, r->expected, v, true);

  char *end = NULL;
  errno = 0;
  if (raw[0] == '-')
    {
      long long n = strtoll (raw, &end, 10);
      if (errno != 0 || *end != '\0' || n < r->min)
        return type_error (c, r->expected, v, true);
      *sval = n;
      *uval = (uint64_t) n;
    }
  else
    {
      unsigned long long n = strtoull (raw, &end, 10);
      if (errno != 0 || *end != '\0' || n > r->max)
        return type_error (c, r->expected, v, true);
      *uval = n;
      *sval = (int64_t) n;
    }
  return 0;
}

static void
store_integer (ocispec_kind kind, void *p, int64_t s, uint64_t u)
{
  switch (kind)
    {
    case OCISPEC_INT32:
      *(int32_t *) p = (int32_t) s;
      break;
    case OCISPEC_UINT16:
      *(uint16_t *) p = (uint16_t) u;
      break;
    case OCISPEC_UINT32:
      *(uint32_t *) p = (uint32_t) u;
      break;
    case OCISPEC_INT64:
      *(int64_t *) p = s;
      break;
    default:
      *(uint64_t *) p = u;
      break;
    }
}

static size_t
scalar_size (ocispec_kind kind)
{
  switch (kind)
    {
    case OCISPEC_BOOL:
      return sizeof (bool);
    case OCISPEC_INT32:
      return sizeof (int32_t);
    case OCISPEC_UINT16:
      return sizeof (uint16_t);
    case OCISPEC_UINT32:
      return sizeof (uint32_t);
    default:
      return sizeof (uint64_t);
    }
}

/* A string value: one of the allowed, within the kernel's length limit. */
static int
check_string (pctx *c, const ocispec_field *f, const char *s)
{
  char q[OCISPEC_QUOTE_MAX];
  size_t max = f->flags & OCISPEC_F_UTSNAME ? 64 : f->flags & OCISPEC_F_SOCKET ? 107 : f->flags & OCISPEC_F_PATH ? 4095 : 0;
  size_t n;

  if (max && (n = strlen (s)) > max)
    return fail (c, "%zu bytes, longer than the kernel takes (%zu): %s", n, max, ocispec_quote (q, s));
  if (f->one_of == NULL || ocispec_in_list (f->one_of, s))
    return 0;
  return fail (c, "unknown %s %s", f->what ? f->what : "value", ocispec_quote (q, s));
}

static yajl_val
object_get (yajl_val obj, const char *key)
{
  for (size_t i = 0; i < obj->u.object.len; i++)
    if (strcmp (obj->u.object.keys[i], key) == 0)
      return obj->u.object.values[i];
  return NULL;
}

static int parse_object (pctx *c, const ocispec_type *t, yajl_val v, void *dst);

static int
parse_strarr (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  if (!YAJL_IS_ARRAY (v))
    return type_error (c, "an array of strings", v, false);
  size_t n = v->u.array.len;
  if (n == 0)
    return 0;
  char **a = ocispec_xcalloc (n, sizeof *a);
  *(char ***) OCISPEC_FIELD_PTR (dst, f) = a;
  *OCISPEC_LEN_PTR (dst, f) = n;
  for (size_t i = 0; i < n; i++)
    {
      yajl_val e = v->u.array.values[i];
      if (!YAJL_IS_STRING (e))
        {
          /* Named at the array: "expected an array of strings, got a number at index 1". */
          char buf[64];
          return fail (c, "expected an array of strings, got %s at index %zu", describe (e, false, buf, sizeof buf), i);
        }
      size_t old = ocispec_path_index (&c->path, i);
      if (check_string (c, f, e->u.string) < 0)
        return -1;
      a[i] = ocispec_xstrdup (e->u.string);
      ocispec_path_pop (&c->path, old);
    }
  return 0;
}

/* UINT32ARR, UINT64ARR: an array of integers of the element kind. */
static int
parse_intarr (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  ocispec_kind elem = f->kind == OCISPEC_UINT32ARR ? OCISPEC_UINT32 : OCISPEC_UINT64;
  size_t size = scalar_size (elem);
  if (!YAJL_IS_ARRAY (v))
    return type_error (c, "an array of integers", v, false);
  size_t n = v->u.array.len;
  if (n == 0)
    return 0;
  char *a = ocispec_xcalloc (n, size);
  *(void **) OCISPEC_FIELD_PTR (dst, f) = a;
  *OCISPEC_LEN_PTR (dst, f) = n;
  for (size_t i = 0; i < n; i++)
    {
      int64_t s;
      uint64_t u;
      size_t old = ocispec_path_index (&c->path, i);
      if (get_integer (c, elem, v->u.array.values[i], &s, &u) < 0)
        return -1;
      store_integer (elem, a + i * size, s, u);
      ocispec_path_pop (&c->path, old);
    }
  return 0;
}

/* MAP (ocispec_map, string values) and UINT64MAP (ocispec_u64map, integers). */
static int
parse_map (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  bool ints = f->kind == OCISPEC_UINT64MAP;
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, ints ? "an object of integers" : "an object of strings", v, false);
  size_t n = v->u.object.len;
  if (n == 0)
    return 0;
  char **keys = ocispec_xcalloc (n, sizeof (char *));
  char **strings = ints ? NULL : ocispec_xcalloc (n, sizeof (char *));
  uint64_t *numbers = ints ? ocispec_xcalloc (n, sizeof (uint64_t)) : NULL;
  if (ints)
    *(ocispec_u64map *) OCISPEC_FIELD_PTR (dst, f) = (ocispec_u64map) { keys, numbers, n };
  else
    *(ocispec_map *) OCISPEC_FIELD_PTR (dst, f) = (ocispec_map) { keys, strings, n };
  for (size_t i = 0; i < n; i++)
    {
      yajl_val e = v->u.object.values[i];
      int64_t s;
      size_t old = ocispec_path_key (&c->path, v->u.object.keys[i]);
      if (ints ? get_integer (c, OCISPEC_UINT64, e, &s, &numbers[i]) < 0
               : !YAJL_IS_STRING (e) && type_error (c, "a string", e, false) < 0)
        return -1;
      keys[i] = ocispec_xstrdup (v->u.object.keys[i]);
      if (!ints)
        strings[i] = ocispec_xstrdup (e->u.string);
      ocispec_path_pop (&c->path, old);
    }
  return 0;
}

static int
parse_objarr (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  if (!YAJL_IS_ARRAY (v))
    return type_error (c, "an array of objects", v, false);
  size_t n = v->u.array.len;
  if (n == 0)
    return 0;
  char *a = ocispec_xcalloc (n, f->sub->size);
  *(void **) OCISPEC_FIELD_PTR (dst, f) = a;
  *OCISPEC_LEN_PTR (dst, f) = n;
  for (size_t i = 0; i < n; i++)
    {
      yajl_val e = v->u.array.values[i];
      size_t old = ocispec_path_index (&c->path, i);
      if (!YAJL_IS_OBJECT (e))
        return type_error (c, "an object", e, false);
      if (parse_object (c, f->sub, e, a + i * f->sub->size) < 0)
        return -1;
      ocispec_path_pop (&c->path, old);
    }
  return 0;
}

static int
parse_objmap (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  if (!YAJL_IS_OBJECT (v))
    return type_error (c, "an object", v, false);
  size_t n = v->u.object.len;
  if (n == 0)
    return 0;
  char *a = ocispec_xcalloc (n, f->sub->size);
  *(void **) OCISPEC_FIELD_PTR (dst, f) = a;
  *OCISPEC_LEN_PTR (dst, f) = n;
  for (size_t i = 0; i < n; i++)
    {
      const char *key = v->u.object.keys[i];
      yajl_val e = v->u.object.values[i];
      char *elem = a + i * f->sub->size;
      size_t old = ocispec_path_key (&c->path, key);
      if (check_string (c, f, key) < 0)
        return -1;
      if (!YAJL_IS_OBJECT (e))
        return type_error (c, "an object", e, false);
      *(char **) elem = ocispec_xstrdup (key); /* member 0 is the key */
      if (parse_object (c, f->sub, e, elem) < 0)
        return -1;
      ocispec_path_pop (&c->path, old);
    }
  return 0;
}

static int
parse_field (pctx *c, const ocispec_field *f, yajl_val v, void *dst)
{
  void *p = OCISPEC_FIELD_PTR (dst, f);
  switch (f->kind)
    {
    case OCISPEC_STRING:
      if (!YAJL_IS_STRING (v))
        return type_error (c, "a string", v, false);
      if (check_string (c, f, v->u.string) < 0)
        return -1;
      *(char **) p = ocispec_xstrdup (v->u.string);
      return 0;

    case OCISPEC_BOOL:
      if (!YAJL_IS_TRUE (v) && !YAJL_IS_FALSE (v))
        return type_error (c, "a boolean", v, false);
      if (f->flags & OCISPEC_F_PTR)
        {
          bool *b = ocispec_xcalloc (1, sizeof *b);
          *b = YAJL_IS_TRUE (v);
          *(bool **) p = b;
        }
      else
        *(bool *) p = YAJL_IS_TRUE (v);
      return 0;

    case OCISPEC_INT32:
    case OCISPEC_UINT16:
    case OCISPEC_UINT32:
    case OCISPEC_INT64:
    case OCISPEC_UINT64:
      {
        int64_t s;
        uint64_t u;
        if (get_integer (c, f->kind, v, &s, &u) < 0)
          return -1;
        if (f->flags & OCISPEC_F_PTR)
          {
            void *box = ocispec_xcalloc (1, scalar_size (f->kind));
            store_integer (f->kind, box, s, u);
            *(void **) p = box;
          }
        else
          store_integer (f->kind, p, s, u);
        return 0;
      }

    case OCISPEC_STRARR:
      return parse_strarr (c, f, v, dst);
    case OCISPEC_UINT32ARR:
    case OCISPEC_UINT64ARR:
      return parse_intarr (c, f, v, dst);
    case OCISPEC_MAP:
    case OCISPEC_UINT64MAP:
      return parse_map (c, f, v, dst);

    case OCISPEC_OBJ:
      {
        if (!YAJL_IS_OBJECT (v))
          return type_error (c, "an object", v, false);
        void *sub = ocispec_xcalloc (1, f->sub->size);
        *(void **) p = sub;
        return parse_object (c, f->sub, v, sub);
      }
    case OCISPEC_INLINE:
      if (!YAJL_IS_OBJECT (v))
        return type_error (c, "an object", v, false);
      return parse_object (c, f->sub, v, p);
    case OCISPEC_OBJARR:
      return parse_objarr (c, f, v, dst);
    case OCISPEC_OBJMAP:
      return parse_objmap (c, f, v, dst);
    case OCISPEC_NULL:
      return type_error (c, "null", v, false); /* null itself is taken as absent */
    }
  return fail (c, "internal error: unknown field kind %d", (int) f->kind);
}

static int
parse_object (pctx *c, const ocispec_type *t, yajl_val v, void *dst)
{
  for (size_t i = 0; i < t->n_fields; i++)
    {
      const ocispec_field *f = &t->fields[i];
      yajl_val fv = object_get (v, f->name);
      size_t old = ocispec_path_key (&c->path, f->name);

      if (fv == NULL || (YAJL_IS_NULL (fv) && !(f->flags & OCISPEC_F_REQUIRED)))
        {
          /* null stands for absent (as Go's encoding/json reads it). */
          if (fv == NULL && (f->flags & OCISPEC_F_REQUIRED))
            return fail (c, "missing required field");
        }
      else if (parse_field (c, f, fv, dst) < 0)
        return -1;
      ocispec_path_pop (&c->path, old);
    }

  if (t->validate)
    {
      char *msg = NULL;
      if (t->validate (dst, c->path.len ? c->path.s : "", &msg) < 0)
        {
          c->err = ocispec_strdup_printf ("%s: %s", c->doc, msg ? msg : "invalid");
          free (msg);
          return -1;
        }
    }
  return 0;
}

static void
arena_freep (ocispec_arena **a)
{
  ocispec_arena_free (*a);
}

static int
parse_text (pctx *c, const ocispec_type *t, const char *data, size_t len, void **out)
{
  __attribute__ ((cleanup (arena_freep))) ocispec_arena *arena = NULL;
  yajl_val tree;
  char ebuf[512] = "";

  ocispec_cleanup_free char *bad = ocispec_prescan (data, len);
  if (bad)
    return fail (c, "%s", bad);
  tree = ocispec_tree_parse (data, len, ebuf, sizeof ebuf, &arena);
  if (tree == NULL)
    {
      ocispec_cleanup_free char *m = ocispec_yajl_message (ebuf);
      return fail (c, "invalid JSON: %s", m);
    }
  ocispec_cleanup_free char *dup = NULL;
  size_t at = c->path.len; /* ocispec_parse_at's */
  if (ocispec_check_duplicates (tree, &c->path, &dup) < 0)
    return fail (c, "%s", dup);
  ocispec_path_pop (&c->path, at);
  if (!YAJL_IS_OBJECT (tree))
    return type_error (c, "an object", tree, false);

  void *obj = ocispec_xcalloc (1, t->size);
  if (parse_object (c, t, tree, obj) < 0)
    {
      ocispec_free (t, obj); /* partial objects are always consistent */
      return -1;
    }
  *out = obj;
  return 0;
}

int
ocispec_parse (const ocispec_type *t, const char *doc, const char *data, size_t len, void **out,
               char **err)
{
  return ocispec_parse_at (t, doc, NULL, data, len, out, err);
}

int
ocispec_parse_at (const ocispec_type *t, const char *doc, const char *const *at, const char *data, size_t len,
                  void **out, char **err)
{
  pctx c = { .doc = doc };

  for (; at && *at; at++)
    ocispec_path_key (&c.path, *at);
  *out = NULL;
  *err = NULL;
  int r = parse_text (&c, t, data, len, out);
  ocispec_path_free (&c.path);
  if (r < 0)
    *err = c.err ? c.err : ocispec_strdup_printf ("%s: parse failed", doc);
  else
    free (c.err);
  return r;
}

static void
closep (int *fd)
{
  if (*fd >= 0)
    close (*fd);
}

int
ocispec_parse_file (const ocispec_type *t, const char *path, const char *doc, void **out, char **err)
{
  __attribute__ ((cleanup (closep))) int fd = -1;
  ocispec_cleanup_free char *buf = NULL;
  struct stat st;
  size_t len = 0, cap;

  *out = NULL;
  *err = NULL;
  fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      *err = ocispec_strdup_printf ("open %s: %s", path, strerror (errno));
      return -1;
    }
  if (fstat (fd, &st) < 0)
    {
      *err = ocispec_strdup_printf ("stat %s: %s", path, strerror (errno));
      return -1;
    }
  if (S_ISDIR (st.st_mode))
    {
      *err = ocispec_strdup_printf ("read %s: %s", path, strerror (EISDIR));
      return -1;
    }
  cap = (st.st_size > 0 ? (size_t) st.st_size : 0) + 4096;
  buf = ocispec_xcalloc (cap, 1);
  for (;;)
    {
      if (len == cap)
        {
          char *nb = realloc (buf, cap * 2);
          if (nb == NULL)
            {
              *err = ocispec_strdup_printf ("read %s: %s", path, strerror (ENOMEM));
              return -1;
            }
          buf = nb;
          cap *= 2;
        }
      ssize_t r = read (fd, buf + len, cap - len);
      if (r < 0 && errno == EINTR)
        continue;
      if (r < 0)
        {
          *err = ocispec_strdup_printf ("read %s: %s", path, strerror (errno));
          return -1;
        }
      if (r == 0)
        break;
      len += (size_t) r;
    }
  return ocispec_parse (t, doc, buf, len, out, err);
}
