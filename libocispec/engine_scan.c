/* The checks yajl's tree parser does not make: before it (nesting depth,
   comments, NUL) and after it (duplicated keys, anywhere in the tree). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "internal.h"

/* ---- before yajl: depth, comments, NUL ---- */

/* yajl_tree_parse accepts comments and stops at a NUL byte; yajl_tree_free
   recurses.  Reject what would be silently misread or could crash. */
char *
ocispec_prescan (const char *data, size_t len)
{
  size_t depth = 0;
  bool in_string = false;

  for (size_t i = 0; i < len; i++)
    {
      char ch = data[i];
      if (ch == '\0')
        return ocispec_strdup_printf ("invalid JSON: NUL byte at offset %zu", i);
      if (in_string)
        {
          /* plain string bytes in a tight loop: most of a document */
          while (ch != '"' && ch != '\\' && ch != '\0' && i + 1 < len)
            ch = data[++i];
          if (ch == '\0')
            return ocispec_strdup_printf ("invalid JSON: NUL byte at offset %zu", i);
          if (ch == '"')
            in_string = false;
          else if (ch == '\\' && i + 1 < len)
            {
              i++;
              if (data[i] == 'u' && i + 4 < len && memcmp (data + i + 1, "0000", 4) == 0)
                return ocispec_strdup_printf ("invalid JSON: \\u0000 in a string at offset %zu", i - 1);
            }
          continue;
        }
      switch (ch)
        {
        case '"':
          in_string = true;
          break;
        case '[':
        case '{':
          if (++depth > OCISPEC_MAX_DEPTH)
            return ocispec_strdup_printf ("invalid JSON: nested deeper than %d levels at offset %zu",
                                          OCISPEC_MAX_DEPTH, i);
          break;
        case ']':
        case '}':
          if (depth > 0)
            depth--;
          break;
        case '/':
          return ocispec_strdup_printf ("invalid JSON: comments are not allowed (offset %zu)", i);
        default:
          break;
        }
    }
  return NULL;
}

/* yajl's verbose message is several lines; keep the first, without the dot. */
char *
ocispec_yajl_message (const char *msg)
{
  size_t n = strcspn (msg, "\n");
  while (n > 0 && (msg[n - 1] == '.' || msg[n - 1] == ' '))
    n--;
  if (n == 0)
    return ocispec_xstrdup ("parse error");
  char *r = strndup (msg, n);
  if (r == NULL)
    abort ();
  return r;
}

/* ---- duplicated keys, anywhere in the tree ---- */

typedef struct key_ref
{
  const char *key;
  size_t index;
} key_ref;

static int
key_ref_cmp (const void *a, const void *b)
{
  const key_ref *x = a, *y = b;
  int r = strcmp (x->key, y->key);
  if (r != 0)
    return r;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* Returns the index of the first key (in document order) that repeats an
   earlier one, or (size_t) -1. */
static size_t
first_duplicate (const char **keys, size_t n)
{
  size_t best = (size_t) -1;
  if (n < 2)
    return best;
  if (n <= 16)
    {
      for (size_t j = 1; j < n && best == (size_t) -1; j++)
        for (size_t i = 0; i < j; i++)
          if (strcmp (keys[i], keys[j]) == 0)
            {
              best = j;
              break;
            }
      return best;
    }
  key_ref *refs = ocispec_xcalloc (n, sizeof *refs);
  for (size_t i = 0; i < n; i++)
    refs[i] = (key_ref) { keys[i], i };
  qsort (refs, n, sizeof *refs, key_ref_cmp);
  for (size_t i = 1; i < n; i++)
    if (strcmp (refs[i - 1].key, refs[i].key) == 0 && refs[i].index < best)
      best = refs[i].index;
  free (refs);
  return best;
}

/* The common case, without building paths: does any object under V repeat a key? */
static bool
any_duplicate (yajl_val v)
{
  if (YAJL_IS_OBJECT (v))
    {
      if (first_duplicate (v->u.object.keys, v->u.object.len) != (size_t) -1)
        return true;
      for (size_t i = 0; i < v->u.object.len; i++)
        if (any_duplicate (v->u.object.values[i]))
          return true;
    }
  else if (YAJL_IS_ARRAY (v))
    for (size_t i = 0; i < v->u.array.len; i++)
      if (any_duplicate (v->u.array.values[i]))
        return true;
  return false;
}

static int check_duplicates (yajl_val v, ocispec_path *path, char **msg);

int
ocispec_check_duplicates (yajl_val v, ocispec_path *path, char **msg)
{
  /* the walk with paths only to name the one found */
  return any_duplicate (v) ? check_duplicates (v, path, msg) : 0;
}

static int
check_duplicates (yajl_val v, ocispec_path *path, char **msg)
{
  if (YAJL_IS_OBJECT (v))
    {
      size_t d = first_duplicate (v->u.object.keys, v->u.object.len);
      if (d != (size_t) -1)
        {
          char q[OCISPEC_QUOTE_MAX];
          *msg = ocispec_strdup_printf ("duplicated key %s", ocispec_quote (q, v->u.object.keys[d]));
          return -1;
        }
      for (size_t i = 0; i < v->u.object.len; i++)
        {
          size_t old = ocispec_path_key (path, v->u.object.keys[i]);
          if (check_duplicates (v->u.object.values[i], path, msg) < 0)
            return -1;
          ocispec_path_pop (path, old);
        }
    }
  else if (YAJL_IS_ARRAY (v))
    for (size_t i = 0; i < v->u.array.len; i++)
      {
        size_t old = ocispec_path_index (path, i);
        if (check_duplicates (v->u.array.values[i], path, msg) < 0)
          return -1;
        ocispec_path_pop (path, old);
      }
  return 0;
}
