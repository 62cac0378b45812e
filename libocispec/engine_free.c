/* Freeing what the parser made: every kind of field, driven by the same field tables
   (ocispec_free for a value on the heap, ocispec_clear for one in place). */
#include <config.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void free_fields (const ocispec_type *t, void *obj);

static void
free_field (const ocispec_field *f, void *obj)
{
  void *p = OCISPEC_FIELD_PTR (obj, f);
  switch (f->kind)
    {
    case OCISPEC_STRING:
      free (*(char **) p);
      break;
    case OCISPEC_BOOL:
    case OCISPEC_INT32:
    case OCISPEC_UINT16:
    case OCISPEC_UINT32:
    case OCISPEC_INT64:
    case OCISPEC_UINT64:
      if (f->flags & OCISPEC_F_PTR)
        free (*(void **) p);
      break;
    case OCISPEC_STRARR:
      {
        char **a = *(char ***) p;
        size_t n = *OCISPEC_LEN_PTR (obj, f);
        for (size_t i = 0; a && i < n; i++)
          free (a[i]);
        free (a);
        break;
      }
    case OCISPEC_UINT32ARR:
    case OCISPEC_UINT64ARR:
      free (*(void **) p);
      break;
    case OCISPEC_MAP:
    case OCISPEC_UINT64MAP:
      {
        bool ints = f->kind == OCISPEC_UINT64MAP;
        ocispec_map *m = ints ? NULL : p;
        ocispec_u64map *u = ints ? p : NULL;
        char **keys = ints ? u->keys : m->keys;
        char **strings = ints ? NULL : m->values;
        size_t n = ints ? u->len : m->len;
        for (size_t i = 0; i < n; i++)
          {
            if (keys)
              free (keys[i]);
            if (strings)
              free (strings[i]);
          }
        free (keys);
        free (ints ? (void *) u->values : (void *) strings);
        break;
      }
    case OCISPEC_OBJ:
      if (*(void **) p)
        {
          free_fields (f->sub, *(void **) p);
          free (*(void **) p);
        }
      break;
    case OCISPEC_INLINE:
      free_fields (f->sub, p);
      break;
    case OCISPEC_OBJARR:
    case OCISPEC_OBJMAP:
      {
        char *a = *(char **) p;
        size_t n = *OCISPEC_LEN_PTR (obj, f);
        for (size_t i = 0; a && i < n; i++)
          {
            char *elem = a + i * f->sub->size;
            if (f->kind == OCISPEC_OBJMAP)
              free (*(char **) elem);
            free_fields (f->sub, elem);
          }
        free (a);
        break;
      }
    case OCISPEC_NULL:
      break;
    }
}

static void
free_fields (const ocispec_type *t, void *obj)
{
  for (size_t i = 0; i < t->n_fields; i++)
    free_field (&t->fields[i], obj);
}

void
ocispec_free (const ocispec_type *t, void *obj)
{
  if (obj == NULL)
    return;
  free_fields (t, obj);
  free (obj);
}

void
ocispec_clear (const ocispec_type *t, void *obj)
{
  free_fields (t, obj);
  memset (obj, 0, t->size);
}
