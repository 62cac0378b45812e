#include <config.h>
#include "core/rootfs/mount_options.h"

#include <string.h>
#include <sys/mount.h>

#include "core/rootfs/mounts.h" /* MOUNT_ATTR_* fallbacks */
#include "core/utils.h"

typedef enum
{
  OPT_FLAG,        /* set (or clear) an MS_* flag */
  OPT_ATIME,       /* an atime mode: MS_* value among NOATIME/RELATIME/STRICTATIME */
  OPT_PROPAGATION, /* MS_SHARED/PRIVATE/SLAVE/UNBINDABLE [|MS_REC] */
  OPT_RATTR,       /* recursive attribute (MOUNT_ATTR_*) set or clear */
  OPT_RATIME,      /* recursive atime mode */
  OPT_IDMAP,
  OPT_RIDMAP,
  OPT_TMPCOPYUP,
} opt_kind;

typedef struct
{
  const char *name;
  opt_kind kind;
  bool clear;
  unsigned long value;
} opt_entry;

static const opt_entry table[] = {
  { "defaults", OPT_FLAG, false, 0 },
  { "ro", OPT_FLAG, false, MS_RDONLY },
  { "rw", OPT_FLAG, true, MS_RDONLY },
  { "nosuid", OPT_FLAG, false, MS_NOSUID },
  { "suid", OPT_FLAG, true, MS_NOSUID },
  { "nodev", OPT_FLAG, false, MS_NODEV },
  { "dev", OPT_FLAG, true, MS_NODEV },
  { "noexec", OPT_FLAG, false, MS_NOEXEC },
  { "exec", OPT_FLAG, true, MS_NOEXEC },
  { "sync", OPT_FLAG, false, MS_SYNCHRONOUS },
  { "async", OPT_FLAG, true, MS_SYNCHRONOUS },
  { "dirsync", OPT_FLAG, false, MS_DIRSYNC },
  { "remount", OPT_FLAG, false, MS_REMOUNT },
  { "mand", OPT_FLAG, false, MS_MANDLOCK },
  { "nomand", OPT_FLAG, true, MS_MANDLOCK },
  { "diratime", OPT_FLAG, true, MS_NODIRATIME },
  { "nodiratime", OPT_FLAG, false, MS_NODIRATIME },
  { "lazytime", OPT_FLAG, false, MS_LAZYTIME },
  { "nolazytime", OPT_FLAG, true, MS_LAZYTIME },
  { "iversion", OPT_FLAG, false, MS_I_VERSION },
  { "noiversion", OPT_FLAG, true, MS_I_VERSION },
  { "nosymfollow", OPT_FLAG, false, MS_NOSYMFOLLOW },
  { "symfollow", OPT_FLAG, true, MS_NOSYMFOLLOW },
  { "silent", OPT_FLAG, false, MS_SILENT },
  { "loud", OPT_FLAG, true, MS_SILENT },
  { "bind", OPT_FLAG, false, MS_BIND },
  { "rbind", OPT_FLAG, false, MS_BIND | MS_REC },

  /* atime modes replace each other; "atime" and "nostrictatime" mean the default (relatime) */
  { "atime", OPT_ATIME, false, 0 },
  { "noatime", OPT_ATIME, false, MS_NOATIME },
  { "relatime", OPT_ATIME, false, MS_RELATIME },
  { "norelatime", OPT_ATIME, false, MS_STRICTATIME },
  { "strictatime", OPT_ATIME, false, MS_STRICTATIME },
  { "nostrictatime", OPT_ATIME, false, 0 },

  { "private", OPT_PROPAGATION, false, MS_PRIVATE },
  { "rprivate", OPT_PROPAGATION, false, MS_PRIVATE | MS_REC },
  { "shared", OPT_PROPAGATION, false, MS_SHARED },
  { "rshared", OPT_PROPAGATION, false, MS_SHARED | MS_REC },
  { "slave", OPT_PROPAGATION, false, MS_SLAVE },
  { "rslave", OPT_PROPAGATION, false, MS_SLAVE | MS_REC },
  { "unbindable", OPT_PROPAGATION, false, MS_UNBINDABLE },
  { "runbindable", OPT_PROPAGATION, false, MS_UNBINDABLE | MS_REC },

  { "rro", OPT_RATTR, false, MOUNT_ATTR_RDONLY },
  { "rrw", OPT_RATTR, true, MOUNT_ATTR_RDONLY },
  { "rnosuid", OPT_RATTR, false, MOUNT_ATTR_NOSUID },
  { "rsuid", OPT_RATTR, true, MOUNT_ATTR_NOSUID },
  { "rnodev", OPT_RATTR, false, MOUNT_ATTR_NODEV },
  { "rdev", OPT_RATTR, true, MOUNT_ATTR_NODEV },
  { "rnoexec", OPT_RATTR, false, MOUNT_ATTR_NOEXEC },
  { "rexec", OPT_RATTR, true, MOUNT_ATTR_NOEXEC },
  { "rnodiratime", OPT_RATTR, false, MOUNT_ATTR_NODIRATIME },
  { "rdiratime", OPT_RATTR, true, MOUNT_ATTR_NODIRATIME },
  { "rnosymfollow", OPT_RATTR, false, MOUNT_ATTR_NOSYMFOLLOW },
  { "rsymfollow", OPT_RATTR, true, MOUNT_ATTR_NOSYMFOLLOW },
  { "rnoatime", OPT_RATIME, false, MOUNT_ATTR_NOATIME },
  { "ratime", OPT_RATIME, false, MOUNT_ATTR_RELATIME },
  { "rrelatime", OPT_RATIME, false, MOUNT_ATTR_RELATIME },
  { "rnorelatime", OPT_RATIME, false, MOUNT_ATTR_STRICTATIME },
  { "rstrictatime", OPT_RATIME, false, MOUNT_ATTR_STRICTATIME },
  { "rnostrictatime", OPT_RATIME, false, MOUNT_ATTR_RELATIME },

  { "idmap", OPT_IDMAP, false, 0 },
  { "ridmap", OPT_RIDMAP, false, 0 },
  { "tmpcopyup", OPT_TMPCOPYUP, false, 0 },
};

#define N_TABLE (sizeof table / sizeof table[0])

const char *const mount_opt_names[] = {
  "defaults", "ro", "rw", "nosuid", "suid", "nodev", "dev", "noexec", "exec", "sync", "async",
  "dirsync", "remount", "mand", "nomand", "diratime", "nodiratime", "lazytime", "nolazytime",
  "iversion", "noiversion",
  "nosymfollow", "symfollow", "silent", "loud", "bind", "rbind", "atime", "noatime", "relatime",
  "norelatime", "strictatime", "nostrictatime", "private", "rprivate", "shared", "rshared",
  "slave", "rslave", "unbindable", "runbindable", "rro", "rrw", "rnosuid", "rsuid", "rnodev",
  "rdev", "rnoexec", "rexec", "rnodiratime", "rdiratime", "rnosymfollow", "rsymfollow",
  "rnoatime", "ratime", "rrelatime", "rnorelatime", "rstrictatime", "rnostrictatime", "idmap",
  "ridmap", "tmpcopyup", NULL,
};

static const opt_entry *
lookup (const char *name)
{
  for (size_t i = 0; i < N_TABLE; i++)
    if (strcmp (table[i].name, name) == 0)
      return &table[i];
  return NULL;
}

bool
mount_opt_known (const char *name)
{
  return lookup (name) != NULL;
}

static void
append_data (char **data, const char *opt)
{
  char *n = *data ? xasprintf ("%s,%s", *data, opt) : xstrdup (opt);
  free (*data);
  *data = n;
}

void
mount_opts_parse (char *const *options, size_t n, mount_opts *o)
{
  memset (o, 0, sizeof *o);
  for (size_t i = 0; i < n; i++)
    {
      const opt_entry *e = lookup (options[i]);

      if (e == NULL)
        {
          if (options[i][0] != '\0')
            append_data (&o->data, options[i]);
          continue;
        }
      switch (e->kind)
        {
        case OPT_FLAG:
          if (e->clear)
            {
              o->flags &= ~e->value;
              o->cleared |= e->value;
            }
          else
            {
              o->flags |= e->value;
              o->cleared &= ~e->value;
            }
          break;
        case OPT_ATIME:
          o->flags &= ~MS_ATIME_MODES;
          o->flags |= e->value;
          o->cleared = (o->cleared & ~MS_ATIME_MODES) | (MS_ATIME_MODES & ~e->value);
          o->atime_set = true;
          break;
        case OPT_PROPAGATION:
          if (o->n_propagation < MOUNT_OPTS_MAX_PROPAGATION)
            o->propagation[o->n_propagation++] = e->value;
          break;
        case OPT_RATTR:
          if (e->clear)
            {
              o->attr_set &= ~e->value;
              o->attr_clr |= e->value;
            }
          else
            {
              o->attr_set |= e->value;
              o->attr_clr &= ~e->value;
            }
          o->recursive = true;
          break;
        case OPT_RATIME:
          /* The kernel wants the whole atime field cleared and exactly one mode set. */
          o->attr_clr |= MOUNT_ATTR__ATIME;
          o->attr_set = (o->attr_set & ~(uint64_t) MOUNT_ATTR__ATIME) | e->value;
          o->recursive = true;
          break;
        case OPT_IDMAP:
          o->idmap = true;
          break;
        case OPT_RIDMAP:
          o->ridmap = true;
          break;
        case OPT_TMPCOPYUP:
          o->tmpcopyup = true;
          break;
        }
    }
}

void
mount_opts_free (mount_opts *o)
{
  free (o->data);
  o->data = NULL;
}
