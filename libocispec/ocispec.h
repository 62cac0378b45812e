/* libocispec: a typed model of the OCI runtime-spec 1.3 documents, on yajl.
 *
 * Every document type (config.json, state, features, process.json) is described
 * by a table of fields (ocispec_field) that drives both parsing and generation, so
 * the two can never disagree.  The runtime (src/) only sees the typed structs in
 * runtime_spec.h; it never walks JSON.
 *
 * Conventions of the typed model:
 *   - strings are NUL-terminated, NULL when absent;
 *   - an array field FOO is `T *FOO; size_t FOO_len;`;
 *   - optional scalars whose absence matters are pointers (NULL when absent);
 *   - string maps are ocispec_map, integer maps ocispec_u64map; objects keyed by
 *     name ("rdma", "timeOffsets", "netDevices") become arrays of structs whose
 *     first member is `char *key`.
 *
 * libocispec knows nothing of the runtime: it includes nothing from src/.
 */
#ifndef OCISPEC_H
#define OCISPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ocispec_map
{
  char **keys;
  char **values;
  size_t len;
} ocispec_map;

/* A JSON object of integers (string -> uint64), in the order given. */
typedef struct ocispec_u64map
{
  char **keys;
  uint64_t *values;
  size_t len;
} ocispec_u64map;

/* What a field holds. */
typedef enum ocispec_kind
{
  OCISPEC_STRING,   /* char * */
  OCISPEC_BOOL,     /* bool (or bool * with OCISPEC_F_PTR) */
  OCISPEC_INT32,    /* int32_t */
  OCISPEC_UINT16,   /* uint16_t */
  OCISPEC_UINT32,   /* uint32_t */
  OCISPEC_INT64,    /* int64_t */
  OCISPEC_UINT64,   /* uint64_t */
  OCISPEC_STRARR,   /* char **, size_t len */
  OCISPEC_UINT32ARR,/* uint32_t *, size_t len */
  OCISPEC_UINT64ARR,/* uint64_t *, size_t len */
  OCISPEC_MAP,      /* ocispec_map (string -> string) */
  OCISPEC_UINT64MAP,/* ocispec_u64map (string -> uint64) */
  OCISPEC_OBJ,      /* struct * (pointer to a sub type) */
  OCISPEC_INLINE,   /* struct embedded by value */
  OCISPEC_OBJARR,   /* struct *, size_t len: a JSON array of objects */
  OCISPEC_OBJMAP,   /* struct *, size_t len: a JSON object of objects; member 0 is char *key */
  OCISPEC_NULL,     /* nothing stored (offset unused): always written as null, only null read
                       (a member the model does not carry, as Go writes a nil slice) */
} ocispec_kind;

enum
{
  OCISPEC_F_REQUIRED = 1 << 0, /* missing is an error */
  OCISPEC_F_PTR = 1 << 1,      /* scalar stored through a pointer, NULL when absent */
  /* Length limits of what the kernel takes, checked at parse time so that an overlong
     value is refused naming its field, never carried into the container's set-up. */
  OCISPEC_F_PATH = 1 << 2,     /* a path (each string of an array): < PATH_MAX (4096) bytes */
  OCISPEC_F_UTSNAME = 1 << 3,  /* hostname, domainname: at most 64 bytes */
  OCISPEC_F_SOCKET = 1 << 4,   /* a unix socket path: < 108 bytes (sun_path) */
  /* Generation: Go's `omitempty` also for values: a 0 number, a false bool and an empty
     string are left out (NULL pointers, empty arrays and maps always are). */
  OCISPEC_F_OMITEMPTY = 1 << 5,
};

struct ocispec_type;

typedef struct ocispec_field
{
  const char *name;          /* JSON key */
  ocispec_kind kind;
  unsigned flags;
  size_t offset;             /* of the value in the struct */
  size_t len_offset;         /* of the size_t length, for arrays */
  const struct ocispec_type *sub; /* OBJ, INLINE, OBJARR, OBJMAP */
  const char *const *one_of; /* NULL-terminated allowed string values, or NULL */
  const char *what;          /* noun used in "unknown <what> \"x\"" */
} ocispec_field;

typedef struct ocispec_type
{
  const char *name;
  size_t size;
  const ocispec_field *fields;
  size_t n_fields;
  /* Optional semantic check after the fields parsed; path is the JSON path of
     the object (".linux"); on error returns -1 and sets *err (malloc'd). */
  int (*validate) (void *obj, const char *path, char **err);
} ocispec_type;

/* Parse DATA (LEN bytes, need not be NUL-terminated) as a document of type T.
   DOC names the document in errors ("config.json").  On error returns -1 and
   sets *ERR to a malloc'd message "DOC: .json.path: what is wrong". */
int ocispec_parse (const ocispec_type *t, const char *doc, const char *data, size_t len, void **out,
                   char **err);
/* The same for a part of a larger document: errors name the path AT (a NULL-terminated
   list of keys: {"linux", "resources", NULL} gives ".linux.resources.memory.limit"). */
int ocispec_parse_at (const ocispec_type *t, const char *doc, const char *const *at, const char *data, size_t len,
                      void **out, char **err);
int ocispec_parse_file (const ocispec_type *t, const char *path, const char *doc, void **out, char **err);
/* Generate JSON; *JSON is malloc'd and NUL-terminated. */
int ocispec_generate (const ocispec_type *t, const void *obj, bool pretty, char **json, size_t *len,
                      char **err);
/* Generate the value of field F of OBJ alone (its key left out): a document that is not
   an object, such as an array of objects (OCISPEC_OBJARR) or of numbers. */
int ocispec_generate_value (const ocispec_field *f, const void *obj, bool pretty, char **json, size_t *len,
                            char **err);
void ocispec_free (const ocispec_type *t, void *obj);
/* Free what OBJ holds (not OBJ itself: a value on the stack or inside another) and
   zero it. */
void ocispec_clear (const ocispec_type *t, void *obj);

/* True when S is in the NULL-terminated SET. */
bool ocispec_in_list (const char *const *set, const char *s);

#include "runtime_spec.h"

#endif
