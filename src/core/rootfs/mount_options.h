/* The OCI mount option table: an options array -> mount(2) flags, propagation
 * changes, recursive attributes (mount_setattr AT_RECURSIVE), id-mapping requests,
 * and the filesystem data (every option not in the table, comma-joined).
 */
#ifndef OCISBX_MOUNT_OPTIONS_H
#define OCISBX_MOUNT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define MOUNT_OPTS_MAX_PROPAGATION 8

typedef struct mount_opts
{
  unsigned long flags;   /* MS_* to set (MS_BIND, MS_REC, MS_RDONLY, ...) */
  unsigned long cleared; /* MS_* explicitly cleared by an option ("rw", "suid", "atime", ...) */
  bool atime_set;        /* an atime option was given (atime noatime relatime strictatime ...) */
  unsigned long propagation[MOUNT_OPTS_MAX_PROPAGATION]; /* MS_SHARED|MS_REC, ... in order */
  size_t n_propagation;
  uint64_t attr_set;     /* recursive attributes: MOUNT_ATTR_* to set */
  uint64_t attr_clr;     /* MOUNT_ATTR_* to clear */
  bool recursive;        /* any recursive attribute option was given */
  bool idmap;            /* "idmap" */
  bool ridmap;           /* "ridmap" */
  bool tmpcopyup;        /* "tmpcopyup" (crun/runc extension): fill a new tmpfs with what it covers */
  char *data;            /* unknown options, comma-joined (NULL when none) */
} mount_opts;

/* Parse OPTIONS (never fails on unknown options: they are fs data). */
void mount_opts_parse (char *const *options, size_t n, mount_opts *out);
void mount_opts_free (mount_opts *o);
#define cleanup_mount_opts __attribute__ ((cleanup (mount_opts_free)))

/* True for a name in the table (for the features list / validation). */
bool mount_opt_known (const char *name);
/* The table's names, NULL-terminated (for `ocisbx features`). */
extern const char *const mount_opt_names[];

#endif
