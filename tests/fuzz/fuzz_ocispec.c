/* libFuzzer targets for the parsers of the OCI documents (tests/fuzz/run.sh builds one
   binary per document, with -DFUZZ_DOC=config, process, state or resources).

   Each input is parsed; one that parses is generated back to JSON, which must parse
   again and generate the same JSON (parse and generate agree on every document the
   parser accepts).  The state target parses each input both as the runtime-spec's state
   document and as ocisbx's own state.json (state_doc.c), which delete must read even
   when a crash or a disk fault left it cut or garbled. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/container/state_store.h"
#include "ocispec.h"
#include "runtime_spec.h"

#define DOC_config oci_config_type
#define DOC_process oci_process_type
#define DOC_state oci_state_type
#define DOC_resources oci_resources_type
#define TYPE_OF(d) DOC_##d
#define TYPE(d) TYPE_OF (d)

static void
round_trip (const ocispec_type *t, const char *doc, const uint8_t *data, size_t size)
{
  void *a = NULL, *b = NULL;
  char *msg = NULL, *ja = NULL, *jb = NULL;
  size_t la = 0, lb = 0;

  if (ocispec_parse (t, doc, (const char *) data, size, &a, &msg) < 0)
    {
      if (msg == NULL || strncmp (msg, doc, strlen (doc)) != 0)
        {
          fprintf (stderr, "%s: an error that does not name the document: %s\n", doc, msg ? msg : "(none)");
          abort ();
        }
      free (msg);
      return;
    }
  if (ocispec_generate (t, a, false, &ja, &la, &msg) < 0)
    {
      fprintf (stderr, "%s: parsed, but cannot be generated: %s\n", doc, msg);
      abort ();
    }
  if (ocispec_parse (t, doc, ja, la, &b, &msg) < 0)
    {
      fprintf (stderr, "%s: generated JSON does not parse: %s\n%s\n", doc, msg, ja);
      abort ();
    }
  if (ocispec_generate (t, b, false, &jb, &lb, &msg) < 0 || la != lb || memcmp (ja, jb, la) != 0)
    {
      fprintf (stderr, "%s: generated twice, differently:\n%s\n%s\n", doc, ja, jb ? jb : "(none)");
      abort ();
    }
  ocispec_free (t, a);
  ocispec_free (t, b);
  free (ja);
  free (jb);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  round_trip (&TYPE (FUZZ_DOC), "doc.json", data, size);
#ifdef FUZZ_STATE_FILE
  round_trip (&container_state_type, STATE_FILE, data, size);
#endif
  return 0;
}
