/* libocispec: the kinds and flags runc's events need (cgroups/stats_json.c) on a table
   of their own: uint64 arrays and maps, the always-null member, Go's omitempty for
   values, and ocispec_clear.  Generated text, round trips, parse errors. */
#include <config.h>

#include <stdint.h>

#include "unit.h"
#include "ocispec.h"
#include "internal.h"
#include "ocispec_check.h"

typedef struct kinds_inner
{
  uint64_t n;
} kinds_inner;

typedef struct kinds_doc
{
  uint64_t *nums;
  size_t nums_len;
  uint32_t *small;
  size_t small_len;
  ocispec_u64map counts;
  uint64_t zero_u64; /* omitempty */
  int64_t zero_i64;  /* omitempty */
  int32_t zero_i32;  /* omitempty */
  uint16_t zero_u16; /* omitempty */
  bool flag;         /* omitempty */
  char *name;        /* omitempty */
  uint64_t always;   /* printed when 0 */
  uint64_t *boxed;   /* omitempty on a pointer: NULL alone left out */
  kinds_inner inner;
} kinds_doc;

static const ocispec_field inner_fields[] = {
  { "n", OCISPEC_UINT64, OCISPEC_F_OMITEMPTY, offsetof (kinds_inner, n), 0, NULL, NULL, NULL },
};
static const ocispec_type inner_type = { "kinds_inner", sizeof (kinds_inner), inner_fields, 1, NULL };
static const ocispec_type empty_type = { "empty", 0, NULL, 0, NULL };

#define KF(json, kind, fl, m) { json, kind, fl, offsetof (kinds_doc, m), 0, NULL, NULL, NULL }
#define KA(json, kind, m) { json, kind, 0, offsetof (kinds_doc, m), offsetof (kinds_doc, m##_len), NULL, NULL, NULL }
#define OMIT OCISPEC_F_OMITEMPTY
static const ocispec_field kinds_fields[] = {
  KA ("nums", OCISPEC_UINT64ARR, nums),
  KA ("small", OCISPEC_UINT32ARR, small),
  KF ("counts", OCISPEC_UINT64MAP, 0, counts),
  KF ("zeroU64", OCISPEC_UINT64, OMIT, zero_u64),
  KF ("zeroI64", OCISPEC_INT64, OMIT, zero_i64),
  KF ("zeroI32", OCISPEC_INT32, OMIT, zero_i32),
  KF ("zeroU16", OCISPEC_UINT16, OMIT, zero_u16),
  KF ("flag", OCISPEC_BOOL, OMIT, flag),
  KF ("name", OCISPEC_STRING, OMIT, name),
  KF ("always", OCISPEC_UINT64, 0, always),
  KF ("boxed", OCISPEC_UINT64, OMIT | OCISPEC_F_PTR, boxed),
  { "inner", OCISPEC_INLINE, 0, offsetof (kinds_doc, inner), 0, &inner_type, NULL, NULL },
  { "empty", OCISPEC_INLINE, 0, 0, 0, &empty_type, NULL, NULL },
  { "gone", OCISPEC_NULL, 0, 0, 0, NULL, NULL, NULL },
};
static const ocispec_type kinds_type
    = { "kinds_doc", sizeof (kinds_doc), kinds_fields, sizeof kinds_fields / sizeof kinds_fields[0], NULL };

static char *
gen (const void *obj)
{
  char *json = NULL, *err = NULL;
  if (ocispec_generate (&kinds_type, obj, false, &json, NULL, &err) < 0)
    {
      fprintf (stderr, "  generate: %s\n", err);
      free (err);
    }
  return json;
}

/* what the generator writes: zeros, empties and NULLs left out where omitempty, the
   null member always, full uint64 range in arrays and maps, map order kept */
static void
test_generate_kinds (void)
{
  uint64_t nums[] = { 0, 18446744073709551615ULL };
  uint32_t small[] = { 4294967295U };
  char *keys[] = { (char *) "zz", (char *) "aa" };
  uint64_t values[] = { 0, 9223372036854775808ULL };
  uint64_t zero = 0;
  kinds_doc d = { 0 };
  char *j;

  j = gen (&d);
  CHECK_STR (j, "{\"always\":0,\"inner\":{},\"empty\":{},\"gone\":null}\n");
  free (j);

  d = (kinds_doc) { .nums = nums, .nums_len = 2, .small = small, .small_len = 1,
                    .counts = { keys, values, 2 }, .zero_u64 = 1, .zero_i64 = -1, .zero_i32 = -2, .zero_u16 = 3,
                    .flag = true, .name = (char *) "x", .always = 5, .boxed = &zero, .inner = { 7 } };
  j = gen (&d);
  CHECK_STR (j, "{\"nums\":[0,18446744073709551615],\"small\":[4294967295],"
                "\"counts\":{\"zz\":0,\"aa\":9223372036854775808},\"zeroU64\":1,\"zeroI64\":-1,\"zeroI32\":-2,"
                "\"zeroU16\":3,\"flag\":true,\"name\":\"x\",\"always\":5,\"boxed\":0,\"inner\":{\"n\":7},"
                "\"empty\":{},\"gone\":null}\n");
  free (j);

  /* an empty string is empty (Go's omitempty); a NULL key is an error naming the map */
  d = (kinds_doc) { .name = (char *) "" };
  j = gen (&d);
  CHECK_STR (j, "{\"always\":0,\"inner\":{},\"empty\":{},\"gone\":null}\n");
  free (j);
  char *nokey[] = { NULL };
  d.counts = (ocispec_u64map) { nokey, values, 1 };
  char *json = NULL, *err = NULL;
  CHECK (ocispec_generate (&kinds_type, &d, false, &json, NULL, &err) < 0 && json == NULL);
  CHECK_STR (err, "generate: .counts: NULL key or value in a map");
  free (err);

  /* the field alone: a uint64 array, the null */
  d = (kinds_doc) { .nums = nums, .nums_len = 2 };
  CHECK (ocispec_generate_value (&kinds_fields[0], &d, false, &json, NULL, &err) == 0);
  CHECK_STR (json, "[0,18446744073709551615]\n");
  free (json);
  CHECK (ocispec_generate_value (&kinds_fields[13], &d, false, &json, NULL, &err) == 0);
  CHECK_STR (json, "null\n");
  free (json);
}

/* parse -> generate -> parse is the identity; ocispec_clear frees a value in place */
static void
test_roundtrip_kinds (void)
{
  static const char doc[]
      = "{\"nums\":[1,18446744073709551615],\"small\":[0,7],\"counts\":{\"b\":2,\"a\":18446744073709551615},"
        "\"zeroU64\":3,\"zeroI64\":-9223372036854775808,\"zeroI32\":-1,\"zeroU16\":65535,\"flag\":true,"
        "\"name\":\"n\",\"always\":0,\"boxed\":0,\"inner\":{\"n\":1},\"empty\":{},\"gone\":null}\n";
  kinds_doc *a = NULL, *b = NULL;
  char *err = NULL, *j = NULL;

  CHECK (ocispec_parse (&kinds_type, "k.json", doc, strlen (doc), (void **) &a, &err) == 0);
  if (a == NULL)
    {
      fprintf (stderr, "  %s\n", err);
      free (err);
      return;
    }
  CHECK (a->nums_len == 2 && a->nums[1] == UINT64_MAX && a->counts.len == 2 && strcmp (a->counts.keys[0], "b") == 0
         && a->counts.values[1] == UINT64_MAX && a->boxed && *a->boxed == 0);
  j = gen (a);
  CHECK_STR (j, doc); /* the document in its own order: the same text */
  CHECK (j && ocispec_parse (&kinds_type, "k.json", j, strlen (j), (void **) &b, &err) == 0);
  CHECK (b && equal_obj (&kinds_type, a, b, ""));
  free (j);
  ocispec_free (&kinds_type, b);

  /* ocispec_clear: the members freed (ASan's leak check), the value zeroed for reuse */
  kinds_doc copy = *a;
  free (a);
  ocispec_clear (&kinds_type, &copy);
  CHECK (copy.nums == NULL && copy.nums_len == 0 && copy.counts.keys == NULL && copy.counts.len == 0
         && copy.name == NULL && copy.boxed == NULL && copy.zero_u64 == 0);
  ocispec_clear (&kinds_type, &copy); /* twice: nothing left to free */

  /* the table describes every member (the null and the empty struct store nothing) */
  CHECK (check_struct_covered (&kinds_type, false) == 0);
}

static void
check_error (const char *doc, const char *want)
{
  kinds_doc *d = NULL;
  char *err = NULL;
  CHECK (ocispec_parse (&kinds_type, "k.json", doc, strlen (doc), (void **) &d, &err) < 0 && d == NULL);
  CHECK_STR (err, want);
  free (err);
}

static void
test_parse_errors_kinds (void)
{
  kinds_doc *d = NULL;
  char *err = NULL;

  check_error ("{\"nums\":\"1\"}", "k.json: .nums: expected an array of integers, got a string");
  check_error ("{\"nums\":[1,-1]}",
               "k.json: .nums[1]: expected an integer between 0 and 18446744073709551615, got -1");
  check_error ("{\"nums\":[18446744073709551616]}",
               "k.json: .nums[0]: expected an integer between 0 and 18446744073709551615, got 18446744073709551616");
  check_error ("{\"small\":[4294967296]}",
               "k.json: .small[0]: expected an integer between 0 and 4294967295, got 4294967296");
  check_error ("{\"counts\":[]}", "k.json: .counts: expected an object of integers, got an array");
  check_error ("{\"counts\":{\"a\":1,\"b\":\"2\"}}",
               "k.json: .counts.b: expected an integer between 0 and 18446744073709551615, got a string");
  check_error ("{\"counts\":{\"a\":1.5}}",
               "k.json: .counts.a: expected an integer between 0 and 18446744073709551615, got 1.5");
  check_error ("{\"gone\":[]}", "k.json: .gone: expected null, got an array");
  check_error ("{\"gone\":0}", "k.json: .gone: expected null, got a number");

  /* null for the others is absent, as elsewhere; absent omitempty values read as 0 */
  static const char nulls[] = "{\"nums\":null,\"counts\":null,\"gone\":null}";
  CHECK (ocispec_parse (&kinds_type, "k.json", nulls, strlen (nulls), (void **) &d, &err) == 0);
  CHECK (d && d->nums == NULL && d->counts.len == 0 && d->zero_u64 == 0 && d->name == NULL);
  ocispec_free (&kinds_type, d);
}

UNIT_MAIN (T (test_generate_kinds), T (test_roundtrip_kinds), T (test_parse_errors_kinds))
