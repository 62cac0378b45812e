/* The file helpers of the unit tests, written once: scratch trees under /tmp, files
   put into them and read back, and a config.json parsed from a string. */
#ifndef OCISBX_UNIT_FILES_H
#define OCISBX_UNIT_FILES_H

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/utils.h"
#include "ocispec.h"

/* PATH (created or truncated, 0644) with CONTENT; false if it could not be written. */
static __attribute__ ((unused)) bool
write_text (const char *path, const char *content)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  bool ok = fd >= 0 && write_all (fd, content, strlen (content)) == (ssize_t) strlen (content);
  if (fd >= 0)
    close (fd);
  return ok;
}

/* ROOT/REL with CONTENT, the directories on the way created (0755). */
static __attribute__ ((unused)) void
put (const char *root, const char *rel, const char *content)
{
  char *p = xasprintf ("%s/%s", root, rel);
  char *d = xstrdup (p);
  for (char *s = d + strlen (root) + 1; (s = strchr (s, '/')); s++)
    {
      *s = '\0';
      mkdir (d, 0755);
      *s = '/';
    }
  write_text (p, content);
  free (d);
  free (p);
}

/* The directory ROOT/REL and those on the way. */
static __attribute__ ((unused)) void
mkdirs (const char *root, const char *rel)
{
  char *tmp = xasprintf ("%s/.keep", rel);
  put (root, tmp, "");
  free (tmp);
  tmp = xasprintf ("%s/%s/.keep", root, rel);
  unlink (tmp);
  free (tmp);
}

/* ROOT/REL's content (malloc'd), NULL when it cannot be read. */
static __attribute__ ((unused)) char *
slurp (const char *root, const char *rel)
{
  char *p = xasprintf ("%s/%s", root, rel);
  char *out = NULL;
  ocisbx_err *err = NULL;
  if (read_file_at (AT_FDCWD, p, &out, NULL, &err) < 0)
    {
      err_free (err);
      out = NULL;
    }
  free (p);
  return out;
}

#define CHECK_FILE(root, rel, want)                                                                \
  do                                                                                               \
    {                                                                                              \
      char *_c = slurp (root, rel);                                                                \
      CHECK_STR (_c, want);                                                                        \
      free (_c);                                                                                   \
    }                                                                                              \
  while (0)

static __attribute__ ((unused)) bool
exists (const char *root, const char *rel)
{
  char *p = xasprintf ("%s/%s", root, rel);
  bool r = access (p, F_OK) == 0;
  free (p);
  return r;
}

/* A new empty directory under /tmp (malloc'd), NULL on failure. */
static __attribute__ ((unused)) char *
mktree (void)
{
  char tmpl[] = "/tmp/ocisbx-unit.XXXXXX";
  char *d = mkdtemp (tmpl);
  return d ? xstrdup (d) : NULL;
}

/* Remove the tree D and free D. */
static __attribute__ ((unused)) void
rmtree (char *d)
{
  char *cmd = xasprintf ("rm -rf '%s'", d);
  if (system (cmd) != 0)
    fprintf (stderr, "cleanup of %s failed\n", d);
  free (cmd);
  free (d);
}

/* A config.json from JSON; NULL (the error printed) when it does not parse. */
static __attribute__ ((unused)) oci_config *
parse (const char *json)
{
  oci_config *c = NULL;
  char *perr = NULL;
  if (oci_config_parse_data (json, strlen (json), &c, &perr) < 0)
    {
      fprintf (stderr, "  parse: %s\n", perr);
      free (perr);
    }
  return c;
}

#endif
