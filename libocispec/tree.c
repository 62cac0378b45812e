/* The JSON tree of a document, as yajl_tree_parse () builds it (the same yajl_val
   nodes, the same parser settings and error text), but with every node, key, string and
   array in one arena: a config.json is hundreds of values, and one malloc and free per
   value and key (plus a realloc per object member) was half of the parse time.

   yajl's callbacks push each value on a scratch stack; a closing brace or bracket moves
   its members from the stack into arrays of their exact size in the arena. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "internal.h"

typedef struct chunk
{
  struct chunk *next;
  size_t used, size;
  /* max_align_t-aligned bytes follow */
} chunk;

struct ocispec_arena
{
  chunk *head;
};

#define CHUNK_HDR ((sizeof (chunk) + 15) & ~(size_t) 15)

static void *
arena_alloc (ocispec_arena *a, size_t n)
{
  chunk *c = a->head;

  n = (n + 15) & ~(size_t) 15;
  if (c == NULL || c->size - c->used < n)
    {
      size_t size = n > 16384 ? n : 16384;
      c = malloc (CHUNK_HDR + size);
      if (c == NULL)
        return NULL;
      c->size = size;
      c->used = 0;
      c->next = a->head;
      a->head = c;
    }
  c->used += n;
  return (char *) c + CHUNK_HDR + c->used - n;
}

void
ocispec_arena_free (ocispec_arena *a)
{
  if (a == NULL)
    return;
  for (chunk *c = a->head, *next; c; c = next)
    {
      next = c->next;
      free (c);
    }
  free (a);
}

/* One member of the container being built: KEY is NULL in an array. */
typedef struct slot
{
  const char *key;
  yajl_val value;
} slot;

typedef struct builder
{
  ocispec_arena *arena;
  slot *stack; /* members of every open container, innermost last */
  size_t top, cap;
  size_t open[OCISPEC_MAX_DEPTH + 2]; /* stack index where each open container's members start */
  yajl_val node[OCISPEC_MAX_DEPTH + 2];
  size_t depth;
  const char *key; /* an object's key waiting for its value */
  yajl_val root;
} builder;

static char *
arena_str (builder *b, const unsigned char *s, size_t len)
{
  char *p = arena_alloc (b->arena, len + 1);
  if (p)
    {
      memcpy (p, s, len);
      p[len] = '\0';
    }
  return p;
}

static yajl_val
new_value (builder *b, yajl_type t)
{
  yajl_val v = arena_alloc (b->arena, sizeof *v);
  if (v)
    {
      memset (v, 0, sizeof *v);
      v->type = t;
    }
  return v;
}

/* V is the next member of the innermost open container (or the document). */
static int
add (builder *b, yajl_val v)
{
  if (v == NULL)
    return 0;
  if (b->depth == 0)
    {
      b->root = v;
      return 1;
    }
  if (b->top == b->cap)
    {
      size_t cap = b->cap ? 2 * b->cap : 256;
      slot *s = realloc (b->stack, cap * sizeof *s);
      if (s == NULL)
        return 0;
      b->stack = s;
      b->cap = cap;
    }
  b->stack[b->top++] = (slot){ b->key, v };
  b->key = NULL;
  return 1;
}

static int
on_null (void *ctx)
{
  builder *b = ctx;
  return add (b, new_value (b, yajl_t_null));
}

static int
on_boolean (void *ctx, int value)
{
  builder *b = ctx;
  return add (b, new_value (b, value ? yajl_t_true : yajl_t_false));
}

/* As yajl_tree: the text, and the integer and double it reads as when they are exact. */
static int
on_number (void *ctx, const char *s, size_t len)
{
  builder *b = ctx;
  yajl_val v = new_value (b, yajl_t_number);
  char *end = NULL;

  if (v == NULL || (v->u.number.r = arena_str (b, (const unsigned char *) s, len)) == NULL)
    return 0;
  errno = 0;
  v->u.number.i = strtoll (v->u.number.r, &end, 10);
  if (errno == 0 && end && *end == '\0')
    v->u.number.flags |= YAJL_NUMBER_INT_VALID;
  errno = 0;
  v->u.number.d = strtod (v->u.number.r, &end);
  if (errno == 0 && end && *end == '\0')
    v->u.number.flags |= YAJL_NUMBER_DOUBLE_VALID;
  return add (b, v);
}

static int
on_string (void *ctx, const unsigned char *s, size_t len)
{
  builder *b = ctx;
  yajl_val v = new_value (b, yajl_t_string);
  if (v == NULL || (v->u.string = arena_str (b, s, len)) == NULL)
    return 0;
  return add (b, v);
}

static int
on_key (void *ctx, const unsigned char *s, size_t len)
{
  builder *b = ctx;
  b->key = arena_str (b, s, len);
  return b->key != NULL;
}

static int
open_container (builder *b, yajl_type t)
{
  yajl_val v = new_value (b, t);
  if (v == NULL || b->depth > OCISPEC_MAX_DEPTH || !add (b, v))
    return 0;
  b->node[b->depth] = v;
  b->open[b->depth] = b->top;
  b->depth++;
  return 1;
}

static int
on_start_map (void *ctx)
{
  return open_container (ctx, yajl_t_object);
}

static int
on_start_array (void *ctx)
{
  return open_container (ctx, yajl_t_array);
}

/* The innermost container is complete: its members leave the stack for the arena. */
static int
close_container (void *ctx)
{
  builder *b = ctx;
  size_t d = --b->depth, from = b->open[d], n = b->top - from;
  yajl_val v = b->node[d];
  yajl_val *values = n ? arena_alloc (b->arena, n * sizeof *values) : NULL;

  if (n && values == NULL)
    return 0;
  for (size_t i = 0; i < n; i++)
    values[i] = b->stack[from + i].value;
  if (v->type == yajl_t_object)
    {
      const char **keys = n ? arena_alloc (b->arena, n * sizeof *keys) : NULL;
      if (n && keys == NULL)
        return 0;
      for (size_t i = 0; i < n; i++)
        keys[i] = b->stack[from + i].key;
      v->u.object.keys = keys;
      v->u.object.values = values;
      v->u.object.len = n;
    }
  else
    {
      v->u.array.values = values;
      v->u.array.len = n;
    }
  b->top = from;
  return 1;
}

static const yajl_callbacks callbacks = {
  .yajl_null = on_null,
  .yajl_boolean = on_boolean,
  .yajl_number = on_number,
  .yajl_string = on_string,
  .yajl_start_map = on_start_map,
  .yajl_map_key = on_key,
  .yajl_end_map = close_container,
  .yajl_start_array = on_start_array,
  .yajl_end_array = close_container,
};

yajl_val
ocispec_tree_parse (const char *text, size_t len, char *ebuf, size_t ebuf_size, ocispec_arena **arena)
{
  builder b = { 0 };
  yajl_handle h;
  yajl_status st;

  *arena = NULL;
  b.arena = calloc (1, sizeof *b.arena);
  h = b.arena ? yajl_alloc (&callbacks, NULL, &b) : NULL;
  if (h == NULL)
    {
      free (b.arena);
      snprintf (ebuf, ebuf_size, "out of memory");
      return NULL;
    }
  yajl_config (h, yajl_allow_comments, 1); /* as yajl_tree_parse (the pre-scan refuses them) */
  st = yajl_parse (h, (const unsigned char *) text, len);
  if (st == yajl_status_ok)
    st = yajl_complete_parse (h);
  if (st != yajl_status_ok)
    {
      unsigned char *m = yajl_get_error (h, 1, (const unsigned char *) text, len);
      snprintf (ebuf, ebuf_size, "%s", m ? (const char *) m : "parse error");
      if (m)
        yajl_free_error (h, m);
      yajl_free (h);
      free (b.stack);
      ocispec_arena_free (b.arena);
      return NULL;
    }
  yajl_free (h);
  free (b.stack);
  *arena = b.arena;
  return b.root;
}
