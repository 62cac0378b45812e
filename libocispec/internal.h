/* Shared between the libocispec parser, generator and the type tables. */
#ifndef OCISPEC_INTERNAL_H
#define OCISPEC_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "ocispec.h"

#define OCISPEC_FIELD_PTR(obj, f) ((void *) ((char *) (obj) + (f)->offset))
#define OCISPEC_LEN_PTR(obj, f) ((size_t *) ((char *) (obj) + (f)->len_offset))

/* Deepest JSON nesting accepted (the tree builder keeps a slot per open level; the
   typed walk recurses). */
#define OCISPEC_MAX_DEPTH 256

/* ---- field-table builders (types_*.c) ----
   ST is the C struct, M the member; arrays use M and M##_len. */
#define OCISPEC_FIELD_(json, kind, fl, st, m, lenoff, sub, set, what)                               \
  { json, kind, fl, offsetof (st, m), lenoff, sub, set, what }
#define F_STR(json, st, m, fl) OCISPEC_FIELD_ (json, OCISPEC_STRING, fl, st, m, 0, NULL, NULL, NULL)
#define F_ENUM(json, st, m, fl, set, what)                                                          \
  OCISPEC_FIELD_ (json, OCISPEC_STRING, fl, st, m, 0, NULL, set, what)
#define F_BOOL(json, st, m, fl) OCISPEC_FIELD_ (json, OCISPEC_BOOL, fl, st, m, 0, NULL, NULL, NULL)
#define F_NUM(json, kind, st, m, fl) OCISPEC_FIELD_ (json, kind, fl, st, m, 0, NULL, NULL, NULL)
#define F_STRARR(json, st, m, fl)                                                                   \
  OCISPEC_FIELD_ (json, OCISPEC_STRARR, fl, st, m, offsetof (st, m##_len), NULL, NULL, NULL)
#define F_ENUMARR(json, st, m, fl, set, what)                                                       \
  OCISPEC_FIELD_ (json, OCISPEC_STRARR, fl, st, m, offsetof (st, m##_len), NULL, set, what)
#define F_U32ARR(json, st, m, fl)                                                                   \
  OCISPEC_FIELD_ (json, OCISPEC_UINT32ARR, fl, st, m, offsetof (st, m##_len), NULL, NULL, NULL)
#define F_MAP(json, st, m, fl) OCISPEC_FIELD_ (json, OCISPEC_MAP, fl, st, m, 0, NULL, NULL, NULL)
#define F_OBJ(json, st, m, fl, sub) OCISPEC_FIELD_ (json, OCISPEC_OBJ, fl, st, m, 0, sub, NULL, NULL)
#define F_INLINE(json, st, m, fl, sub)                                                              \
  OCISPEC_FIELD_ (json, OCISPEC_INLINE, fl, st, m, 0, sub, NULL, NULL)
#define F_OBJARR(json, st, m, fl, sub)                                                              \
  OCISPEC_FIELD_ (json, OCISPEC_OBJARR, fl, st, m, offsetof (st, m##_len), sub, NULL, NULL)
/* SET/WHAT (may be NULL) restrict the keys of the JSON object. */
#define F_OBJMAP(json, st, m, fl, sub, set, what)                                                   \
  OCISPEC_FIELD_ (json, OCISPEC_OBJMAP, fl, st, m, offsetof (st, m##_len), sub, set, what)

#define OCISPEC_N(a) (sizeof (a) / sizeof ((a)[0]))
#define OCISPEC_TYPE(st, fields, validate) { #st, sizeof (st), fields, OCISPEC_N (fields), validate }

/* ---- helpers (util.c) ---- */

static inline void
ocispec_freep (void *p)
{
  free (*(void **) p);
}
#define ocispec_cleanup_free __attribute__ ((cleanup (ocispec_freep)))

/* A growable JSON path: ".linux.namespaces[2].type". */
typedef struct ocispec_path
{
  char *s;
  size_t len, cap;
} ocispec_path;

/* Each returns the previous length, to give back to ocispec_path_pop. */
size_t ocispec_path_key (ocispec_path *p, const char *key);
size_t ocispec_path_index (ocispec_path *p, size_t i);
void ocispec_path_pop (ocispec_path *p, size_t old_len);
void ocispec_path_free (ocispec_path *p);

/* Quote S for a one-line message: "..." with escapes, truncated to ~64 bytes. */
#define OCISPEC_QUOTE_MAX 96
const char *ocispec_quote (char buf[OCISPEC_QUOTE_MAX], const char *s);

/* malloc'd printf; aborts on ENOMEM. */
char *ocispec_strdup_printf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
char *ocispec_xstrdup (const char *s);
/* The first error of a walk: *ERR = "PREFIX: .json.path: message" (no path at the top);
   a later error is dropped.  Returns -1. */
int ocispec_path_failv (char **err, const char *prefix, const ocispec_path *path, const char *fmt,
                        va_list ap);
void *ocispec_xcalloc (size_t n, size_t size);

/* For validate hooks: set *ERR to PATH followed by the formatted text, which
   starts with a sub-path (".cwd: must be absolute", "[2]: ...") or with ": "
   for the object itself (dropped when PATH is empty).  Returns -1. */
int ocispec_fail (char **err, const char *path, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Every byte of S is in ALLOWED. */
bool ocispec_only_chars (const char *s, const char *allowed);

/* Shared sub types (types_linux.c). */
extern const ocispec_type ocispec_id_mapping_type;
extern const ocispec_type ocispec_linux_type;

/* engine_scan.c: what yajl's tree parser does not check.
   NULL when DATA may go to yajl, else a malloc'd "invalid JSON: ..." */
char *ocispec_prescan (const char *data, size_t len);
/* The first line of yajl's (multi-line) message, malloc'd. */
char *ocispec_yajl_message (const char *msg);
/* 0; or -1 with PATH at the offending object and *MSG "duplicated key ...". */
struct yajl_val_s;
int ocispec_check_duplicates (struct yajl_val_s *v, ocispec_path *path, char **msg);

/* tree.c: yajl_tree_parse (same nodes, settings and error text in EBUF) over LEN bytes,
   with all the nodes in *ARENA (NULL on error), freed at once by ocispec_arena_free. */
typedef struct ocispec_arena ocispec_arena;
struct yajl_val_s *ocispec_tree_parse (const char *text, size_t len, char *ebuf, size_t ebuf_size,
                                       ocispec_arena **arena);
void ocispec_arena_free (ocispec_arena *a);

#endif
