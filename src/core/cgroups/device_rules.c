/* cgroups: the device rules (resources.devices, then the default allow list) and
   their v1 form (devices.allow / devices.deny). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/utils.h"
#include "core/cgroups/cgroups_internal.h"

/* What every container may use, as runc allows it (after the config's rules, so they
   cannot take it away): mknod of any node, and the nodes every container has.  Not
   the nodes of linux.devices: creating a node is not allowing it, resources.devices
   says what may be used (runc and crun do the same). */
static const cg_dev_rule default_rules[] = {
  { true, 'c', -1, -1, CG_DEV_MKNOD },
  { true, 'b', -1, -1, CG_DEV_MKNOD },
  { true, 'c', 1, 3, CG_DEV_ALL },   /* /dev/null */
  { true, 'c', 1, 8, CG_DEV_ALL },   /* /dev/random */
  { true, 'c', 1, 7, CG_DEV_ALL },   /* /dev/full */
  { true, 'c', 5, 0, CG_DEV_ALL },   /* /dev/tty */
  { true, 'c', 1, 5, CG_DEV_ALL },   /* /dev/zero */
  { true, 'c', 1, 9, CG_DEV_ALL },   /* /dev/urandom */
  { true, 'c', 136, -1, CG_DEV_ALL }, /* /dev/pts/N */
  { true, 'c', 5, 2, CG_DEV_ALL },   /* /dev/ptmx */
};

int
cg_parse_access (const char *s, unsigned *out)
{
  unsigned a = 0;
  if (s == NULL || s[0] == '\0')
    {
      *out = CG_DEV_ALL;
      return 0;
    }
  for (const char *p = s; *p; p++)
    switch (*p)
      {
      case 'r':
        a |= CG_DEV_READ;
        break;
      case 'w':
        a |= CG_DEV_WRITE;
        break;
      case 'm':
        a |= CG_DEV_MKNOD;
        break;
      default:
        return -1;
      }
  *out = a;
  return 0;
}

static void
push_dev_rule (cg_dev_rule **v, size_t *n, cg_dev_rule r)
{
  *v = realloc (*v, (*n + 1) * sizeof **v);
  if (*v == NULL)
    abort ();
  (*v)[(*n)++] = r;
}

int
cg_dev_rules (const oci_resources *r, bool defaults, cg_dev_rule **out, size_t *n, ocisbx_err **err)
{
  cleanup_free cg_dev_rule *v = NULL;
  size_t len = 0;

  for (size_t i = 0; r && i < r->devices_len; i++)
    {
      const oci_device_cgroup *d = &r->devices[i];
      cg_dev_rule rule = { .allow = d->allow, .type = 'a', .major = -1, .minor = -1 };
      if (d->type && d->type[0])
        {
          if (strlen (d->type) != 1 || strchr ("acb", d->type[0]) == NULL)
            return err_set (err, 0, ".linux.resources.devices[%zu].type: invalid \"%s\"", i, d->type);
          rule.type = d->type[0];
        }
      if (cg_parse_access (d->access, &rule.access) < 0)
        return err_set (err, 0, ".linux.resources.devices[%zu].access: invalid \"%s\"", i, d->access);
      if (d->major && *d->major >= 0)
        rule.major = *d->major;
      if (d->minor && *d->minor >= 0)
        rule.minor = *d->minor;
      push_dev_rule (&v, &len, rule);
    }
  for (size_t i = 0; defaults && i < sizeof default_rules / sizeof default_rules[0]; i++)
    push_dev_rule (&v, &len, default_rules[i]);
  *out = steal_ptr (&v);
  *n = len;
  return 0;
}

bool
cg_dev_is_reset (const cg_dev_rule *r)
{
  return r->access != 0 && r->type == 'a' && r->major < 0 && r->minor < 0;
}

size_t
cg_dev_last_reset (const cg_dev_rule *rules, size_t n, bool *allow)
{
  size_t k = 0;
  *allow = false;
  for (size_t i = 0; i < n; i++)
    if (cg_dev_is_reset (&rules[i]))
      {
        k = i + 1;
        *allow = rules[i].allow;
      }
  return k;
}

static void
fmt_num (char *buf, size_t len, int64_t v)
{
  if (v < 0)
    snprintf (buf, len, "*");
  else
    snprintf (buf, len, "%" PRId64, v);
}

/* "c 1:3 rwm" */
void
cg_dev_rule_v1 (const cg_dev_rule *r, char type, char *buf, size_t len)
{
  char ma[24], mi[24], acc[4];
  size_t k = 0;
  fmt_num (ma, sizeof ma, r->major);
  fmt_num (mi, sizeof mi, r->minor);
  if (r->access & CG_DEV_READ)
    acc[k++] = 'r';
  if (r->access & CG_DEV_WRITE)
    acc[k++] = 'w';
  if (r->access & CG_DEV_MKNOD)
    acc[k++] = 'm';
  acc[k] = '\0';
  snprintf (buf, len, "%c %s:%s %s", type, ma, mi, acc);
}

/* devices.allow or devices.deny of the container's cgroup, opened at its first write
   and kept open for the next ones (the kernel takes one rule per write ()). */
static int
dev_write (const cgroup_manager *m, const cg_hier *h, const char *file, int *fd, const char *rule,
           ocisbx_err **err)
{
  cleanup_free char *path = cg_file (h, file);
  ocisbx_err *e = NULL;

  if (*fd < 0)
    *fd = cg_open_file (m, path, &e);
  if (*fd >= 0 && cg_write_fd (m, *fd, path, rule, &e) == 0)
    return 0;
  return cg_set_error (e, "devices", file, rule, false, ".linux.resources.devices", err);
}

/* The default in one write ("a" to devices.allow or devices.deny), then each rule after
   the last reset in order: never a moment of deny-all for a cgroup that ends
   allow-by-default.  A rule with numbers but type "a" applies to both char and block
   devices. */
int
cg_devices_v1 (const cgroup_manager *m, const cg_dev_rule *rules, size_t n, ocisbx_err **err)
{
  const cg_hier *h = cg_find (m, "devices");
  cleanup_close int deny = -1;
  cleanup_close int allow = -1;
  bool allow_all;
  size_t k = cg_dev_last_reset (rules, n, &allow_all);

  if (h == NULL)
    return cg_set_h (m, h, "devices", "devices.deny", "a", false, ".linux.resources.devices", err);
  if (dev_write (m, h, allow_all ? "devices.allow" : "devices.deny", allow_all ? &allow : &deny, "a", err) < 0)
    return -1;
  for (size_t i = k; i < n; i++)
    {
      const cg_dev_rule *r = &rules[i];
      const char *file = r->allow ? "devices.allow" : "devices.deny";
      int *fd = r->allow ? &allow : &deny;
      char buf[96];
      if (r->access == 0)
        continue;
      for (const char *t = r->type == 'a' ? "cb" : (r->type == 'c' ? "c" : "b"); *t; t++)
        {
          cg_dev_rule_v1 (r, *t, buf, sizeof buf);
          if (dev_write (m, h, file, fd, buf, err) < 0)
            return -1;
        }
    }
  return 0;
}

/* ---- update without a moment of "deny all" ---- */

static dev_exc *
exc_find (dev_exc *v, size_t n, const char *key)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp (v[i].key, key) == 0)
      return &v[i];
  return NULL;
}

static dev_exc *
exc_get (dev_exc **v, size_t *n, const char *key)
{
  dev_exc *e = exc_find (*v, *n, key);
  if (e)
    return e;
  *v = realloc (*v, (*n + 1) * sizeof **v);
  if (*v == NULL)
    abort ();
  e = &(*v)[(*n)++];
  snprintf (e->key, sizeof e->key, "%s", key);
  e->access = 0;
  return e;
}

/* The exception list the kernel keeps after "deny all" and RULES, in a deny-by-default
   cgroup (an allow adds access to the entry of exactly that type:major:minor, a deny
   removes it).  False when the rules end in allow-by-default: no list to compare. */
bool
cg_dev_emulate_v1 (const cg_dev_rule *rules, size_t n, cg_dev_exc_list *out)
{
  dev_exc *v = NULL;
  size_t len = 0;

  for (size_t i = 0; i < n; i++)
    {
      const cg_dev_rule *r = &rules[i];
      if (r->access == 0)
        continue;
      if (cg_dev_is_reset (r))
        {
          len = 0;
          if (r->allow)
            {
              free (v);
              return false;
            }
          continue;
        }
      for (const char *t = r->type == 'a' ? "cb" : (r->type == 'c' ? "c" : "b"); *t; t++)
        {
          char buf[96], key[48];
          cg_dev_rule_v1 (r, *t, buf, sizeof buf);
          snprintf (key, sizeof key, "%.*s", (int) (strrchr (buf, ' ') - buf), buf);
          if (r->allow)
            exc_get (&v, &len, key)->access |= r->access;
          else
            {
              dev_exc *e = exc_find (v, len, key);
              if (e)
                e->access &= ~r->access;
            }
        }
    }
  out->v = v;
  out->n = len;
  return true;
}

/* devices.list of a deny-by-default cgroup ("c 1:3 rwm" lines).  False for an
   allow-by-default one ("a *:* rwm") or a line we do not understand. */
bool
cg_dev_parse_list_v1 (const char *text, cg_dev_exc_list *out)
{
  dev_exc *v = NULL;
  size_t len = 0;
  cleanup_free char *copy = xstrdup (text ? text : "");
  char *save = NULL;

  for (char *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    {
      char *sp = strrchr (line, ' ');
      unsigned acc;
      if (line[0] == 'a' || sp == NULL || (line[0] != 'c' && line[0] != 'b') || (size_t) (sp - line) >= 48
          || cg_parse_access (sp + 1, &acc) < 0)
        {
          free (v);
          return false;
        }
      *sp = '\0';
      exc_get (&v, &len, line)->access |= acc;
    }
  out->v = v;
  out->n = len;
  return true;
}

static void
acc_str (unsigned a, char *buf)
{
  size_t k = 0;
  if (a & CG_DEV_READ)
    buf[k++] = 'r';
  if (a & CG_DEV_WRITE)
    buf[k++] = 'w';
  if (a & CG_DEV_MKNOD)
    buf[k++] = 'm';
  buf[k] = '\0';
}

/* For each entry of FROM, the access that THAN lacks, written to FILE ("c 1:3 rw"). */
static int
write_missing (const cgroup_manager *m, const cg_hier *h, const char *file, int *fd, const cg_dev_exc_list *from,
               const cg_dev_exc_list *than, ocisbx_err **err)
{
  for (size_t i = 0; i < from->n; i++)
    {
      dev_exc *o = exc_find (than->v, than->n, from->v[i].key);
      unsigned missing = from->v[i].access & ~(o ? o->access : 0);
      char acc[4], line[64];
      if (missing == 0)
        continue;
      acc_str (missing, acc);
      snprintf (line, sizeof line, "%s %s", from->v[i].key, acc);
      if (dev_write (m, h, file, fd, line, err) < 0)
        return -1;
    }
  return 0;
}

/* cg_devices_v1, with an error that says why the kernel refused a reset: it takes
   none (EINVAL) while the cgroup has sub-cgroups (a container running systemd or its
   own containers). */
static int
devices_reset (const cgroup_manager *m, const cg_dev_rule *rules, size_t n, ocisbx_err **err)
{
  const cg_hier *h = cg_find (m, "devices");
  cleanup_dir DIR *d = NULL;
  struct dirent *de;

  if (cg_devices_v1 (m, rules, n, err) == 0)
    return 0;
  if ((*err)->errnum != EINVAL || h == NULL || (d = opendir (h->dir)) == NULL)
    return -1;
  while ((de = readdir (d)))
    if (de->d_type == DT_DIR && de->d_name[0] != '.')
      return err_wrap (err, "the container has sub-cgroups (`%s`): its device cgroup cannot switch between "
                            "allow-all and deny-all, nor forget the devices it denies while allowing all",
                       de->d_name);
  return -1;
}

/* An update of a running container's device rules.  Rewriting them the create way
   would deny, for a moment, devices that stay allowed when the default is deny-all: a
   process of the container opening /dev/null then fails.  When the cgroup and the new
   rules are both deny-by-default, only the difference is written: access that is
   added first (devices.allow), then access that goes (devices.deny).  Otherwise (a
   switch of the default; an allow-by-default cgroup, whose denied devices devices.list
   does not show; a list we cannot read) the create way, as runc's transitions. */
int
cg_devices_v1_update (const cgroup_manager *m, const cg_dev_rule *rules, size_t n, ocisbx_err **err)
{
  const cg_hier *h = cg_find (m, "devices");
  cleanup_free char *list = NULL;
  cg_dev_exc_list cur = { 0 }, tgt = { 0 };
  cleanup_close int allow = -1;
  cleanup_close int deny = -1;
  ocisbx_err *ignored = NULL;
  int ret = 0;

  if (h == NULL || cg_read_h (h, "devices.list", &list, &ignored) < 0)
    {
      err_free (ignored);
      return devices_reset (m, rules, n, err);
    }
  if (!cg_dev_parse_list_v1 (list, &cur) || !cg_dev_emulate_v1 (rules, n, &tgt))
    {
      free (cur.v);
      free (tgt.v);
      return devices_reset (m, rules, n, err);
    }
  ret = write_missing (m, h, "devices.allow", &allow, &tgt, &cur, err);
  if (ret == 0)
    ret = write_missing (m, h, "devices.deny", &deny, &cur, &tgt, err);
  free (cur.v);
  free (tgt.v);
  return ret;
}
