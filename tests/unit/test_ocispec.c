/* libocispec: parse errors (exact messages), the runtime-spec's own example
   documents, round trips, generation rules, the resources document
   (test_ocispec_docs.c: the features document and spec's default config). */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <linux/magic.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yajl/yajl_tree.h>

#include "unit.h"
#include "ocispec.h"
#include "internal.h"
#include "ocispec_check.h"
#include "core/features.h"
#include "core/process/process.h"
#include "core/rootfs/mount_options.h"

#define NELEMS(a) (sizeof (a) / sizeof ((a)[0]))

/* ------------------------------------------------------------------ helpers */

static char *
case_path (const char *name)
{
  char *src = unit_srcdir ();
  char *p = ocispec_strdup_printf ("%s/tests/unit/ocispec_cases/%s", src, name);
  free (src);
  return p;
}

static char *
read_case (const char *name, size_t *len)
{
  char *p = case_path (name);
  char *data = read_whole (p, len);
  if (data == NULL)
    fprintf (stderr, "  cannot read %s: %s\n", p, strerror (errno));
  free (p);
  return data;
}

/* The runtime-spec's example documents are not packaged by Debian: they are read from
   $OCI_SCHEMA_DIR/test, else $OCISBX_SRCDIR/../shared/oci-schema/test.  Returns the
   schema directory when its test/ is there, else NULL with *tried set (a skip). */
static char *
schema_dir (char **tried)
{
  const char *env = getenv ("OCI_SCHEMA_DIR");
  char *src = unit_srcdir ();
  char *p = env && *env ? strdup (env) : ocispec_strdup_printf ("%s/../shared/oci-schema", src);
  char *test = ocispec_strdup_printf ("%s/test", p);
  struct stat st;
  bool found = stat (test, &st) == 0 && S_ISDIR (st.st_mode);
  free (src);
  free (test);
  if (found)
    return p;
  *tried = p;
  return NULL;
}

static void
check_case_covers_type (const char *name, const ocispec_type *t)
{
  char *data = read_case (name, NULL);
  char ebuf[256];
  CHECK (data != NULL);
  if (data == NULL)
    return;
  yajl_val tree = yajl_tree_parse (data, ebuf, sizeof ebuf);
  CHECK (tree != NULL);
  if (tree)
    CHECK (check_covered (t, &tree, 1, "") == 0);
  yajl_tree_free (tree);
  free (data);
}

/* ------------------------------------------------------------------ errors */

typedef struct bad_case
{
  const char *json;
  const char *error;
} bad_case;

/* Cases that need bytes the data file cannot hold (a raw newline). */
static const bad_case config_cases_inline[] = {
  { "{\"ociVersion\": \"1.0.0\", \"a\": \"x\ny\"}", "config.json: invalid JSON: lexical error: invalid character inside string" },
  { "{\"ociVersion\": \"1.0.0\",\n \"root\": {\"path\": [\"x\"]}}", "config.json: .root.path: expected a string, got an array" },
};

static void
check_bad (const ocispec_type *t, const char *doc, const bad_case *cases, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      void *out = NULL;
      char *err = NULL;
      int r = ocispec_parse (t, doc, cases[i].json, strlen (cases[i].json), &out, &err);
      if (r == 0)
        {
          fprintf (stderr, "  case %zu parsed, expected: %s\n", i, cases[i].error);
          CHECK (r < 0);
          ocispec_free (t, out);
          continue;
        }
      CHECK (out == NULL);
      if (err == NULL || strcmp (err, cases[i].error) != 0)
        fprintf (stderr, "  case %zu: %s\n", i, cases[i].json);
      CHECK_STR (err, cases[i].error);
      free (err);
    }
}

/* ocispec_cases/config-errors.txt: "in: JSON" and "err: MESSAGE" lines. */
static void
test_config_errors (void)
{
  size_t len = 0, n = 0;
  char *data = read_case ("config-errors.txt", &len);
  CHECK (data != NULL);
  if (data == NULL)
    return;
  bad_case *cases = calloc (len / 8 + 1, sizeof *cases);
  const char *in = NULL;
  for (char *line = data, *next; line && *line; line = next)
    {
      next = strchr (line, '\n');
      if (next)
        *next++ = '\0';
      if (strncmp (line, "in:", 3) == 0)
        in = line[3] == ' ' ? line + 4 : line + 3;
      else if (strncmp (line, "err: ", 5) == 0 && in)
        {
          cases[n++] = (bad_case) { in, line + 5 };
          in = NULL;
        }
      else
        CHECK (line[0] == '#' || line[0] == '\0');
    }
  check_bad (&oci_config_type, "config.json", cases, n);
  check_bad (&oci_config_type, "config.json", config_cases_inline, NELEMS (config_cases_inline));
  printf ("# %zu malformed config.json documents\n", n + NELEMS (config_cases_inline));
  CHECK (n >= 90);
  free (cases);
  free (data);
}

static void
test_config_wrapper_errors (void)
{
  oci_config *c = (oci_config *) 1;
  char *err = NULL;
  CHECK (oci_config_parse_data ("{\"ociVersion\": \"2.0.0\"}", 23, &c, &err) < 0);
  CHECK (c == NULL);
  CHECK_STR (err, "config.json: .ociVersion: unsupported major version \"2.0.0\" (ocisbx supports 1.0.0 to 1.3.x)");
  free (err);
  /* DATA need not be NUL-terminated: LEN is what counts. */
  CHECK (oci_config_parse_data ("{\"ociVersion\": \"1.0.0\"}garbage", 23, &c, &err) == 0);
  oci_config_free (c);
  /* ... and a NUL inside it is an error, not the end of the input. */
  CHECK (oci_config_parse_data ("{\"ociVersion\": \"1.0.0\"}\0 x", 26, &c, &err) < 0);
  CHECK_STR (err, "config.json: invalid JSON: NUL byte at offset 23");
  free (err);
}

static void
test_parse_file_errors (void)
{
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_file ("/nonexistent-ocisbx/config.json", &c, &err) < 0);
  CHECK_STR (err, "open /nonexistent-ocisbx/config.json: No such file or directory");
  free (err);
  CHECK (oci_config_parse_file ("/", &c, &err) < 0);
  CHECK_STR (err, "read /: Is a directory");
  free (err);

  char tmp[] = "/tmp/ocisbx-test-ocispec-XXXXXX";
  int fd = mkstemp (tmp);
  CHECK (fd >= 0);
  const char text[] = "{\"ociVersion\": \"1.0.0\", \"root\": {\"path\": 7}}";
  CHECK (write (fd, text, sizeof text - 1) == (ssize_t) sizeof text - 1);
  close (fd);
  CHECK (oci_config_parse_file (tmp, &c, &err) < 0);
  CHECK_STR (err, "config.json: .root.path: expected a string, got a number");
  free (err);

  oci_process *p = NULL;
  CHECK (oci_process_parse_file (tmp, &p, &err) < 0);
  char *want = ocispec_strdup_printf ("%s: .cwd: missing required field", strrchr (tmp, '/') + 1);
  CHECK_STR (err, want);
  free (want);
  free (err);
  unlink (tmp);
}

static void
test_state_errors (void)
{
  static const bad_case cases[] = {
    { "{\"ociVersion\": \"1.0.0\", \"status\": \"running\", \"bundle\": \"/b\"}", "state: .id: missing required field" },
    { "{\"ociVersion\": \"1.0.0\", \"id\": \"c\", \"status\": \"sleeping\", \"bundle\": \"/b\"}",
      "state: .status: unknown status \"sleeping\"" },
    { "{\"ociVersion\": \"1.0.0\", \"id\": \"c\", \"status\": \"running\", \"bundle\": \"/b\", \"pid\": -1}",
      "state: .pid: must not be negative, got -1" },
    { "{\"ociVersion\": \"1.0.0\", \"id\": \"c\", \"status\": \"running\", \"bundle\": \"/b\", \"pid\": 1.0}",
      "state: .pid: expected an integer between -2147483648 and 2147483647, got 1.0" },
    { "{\"ociVersion\": \"1.0.0\", \"id\": [], \"status\": \"running\", \"bundle\": \"/b\"}",
      "state: .id: expected a string, got an array" },
  };
  check_bad (&oci_state_type, "state", cases, NELEMS (cases));
}

static void
test_features_errors (void)
{
  static const bad_case cases[] = {
    { "{\"ociVersionMin\": \"1.0.0\"}", "features: .ociVersionMax: missing required field" },
    { "{\"ociVersionMin\": \"1.0.0\", \"ociVersionMax\": \"1.3.0\", \"linux\": {\"cgroup\": {\"v2\": \"yes\"}}}",
      "features: .linux.cgroup.v2: expected a boolean, got a string" },
    { "{\"ociVersionMin\": \"1.0.0\", \"ociVersionMax\": \"1.3.0\", \"hooks\": [\"prestart\", {}]}",
      "features: .hooks: expected an array of strings, got an object at index 1" },
  };
  check_bad (&oci_features_type, "features", cases, NELEMS (cases));
}

static void
test_process_errors (void)
{
  static const bad_case cases[] = {
    { "{\"args\": [\"sh\"]}", "process.json: .cwd: missing required field" },
    { "{\"cwd\": \"/\", \"user\": {\"uid\": -1}}",
      "process.json: .user.uid: expected an integer between 0 and 4294967295, got -1" },
    { "{\"cwd\": \"relative\"}", "process.json: .cwd: must be an absolute path, got \"relative\"" },
  };
  check_bad (&oci_process_type, "process.json", cases, NELEMS (cases));
}

/* ------------------------------------------------------------------ nesting, duplicates */

static char *
nested (size_t depth_inside, char open, char close)
{
  /* {"ociVersion": "1.0.0", "x": <depth_inside brackets>} */
  const char *head = "{\"ociVersion\": \"1.0.0\", \"x\": ";
  size_t hl = strlen (head);
  char *s = malloc (hl + 2 * depth_inside + 2);
  memcpy (s, head, hl);
  memset (s + hl, open, depth_inside);
  memset (s + hl + depth_inside, close, depth_inside);
  s[hl + 2 * depth_inside] = '}';
  s[hl + 2 * depth_inside + 1] = '\0';
  return s;
}

static void
test_deep_nesting (void)
{
  oci_config *c = NULL;
  char *err = NULL;

  /* 1 (root) + 255 = 256 levels: accepted. */
  char *ok = nested (255, '[', ']');
  CHECK (oci_config_parse_data (ok, strlen (ok), &c, &err) == 0);
  oci_config_free (c);
  free (ok);

  char *bad = nested (256, '[', ']');
  CHECK (oci_config_parse_data (bad, strlen (bad), &c, &err) < 0);
  CHECK_STR (err, "config.json: invalid JSON: nested deeper than 256 levels at offset 284");
  free (err);
  free (bad);

  /* 100000 levels, closed or truncated, arrays or objects: an error, no crash. */
  char *deep = nested (100000, '[', ']');
  CHECK (oci_config_parse_data (deep, strlen (deep), &c, &err) < 0);
  CHECK_STR (err, "config.json: invalid JSON: nested deeper than 256 levels at offset 284");
  free (err);
  CHECK (oci_config_parse_data (deep, 100028, &c, &err) < 0);
  CHECK_STR (err, "config.json: invalid JSON: nested deeper than 256 levels at offset 284");
  free (err);
  free (deep);

  size_t n = 100000;
  char *objs = malloc (6 * n + 1);
  for (size_t i = 0; i < n; i++)
    memcpy (objs + 6 * i, "{\"a\": ", 6);
  objs[6 * n] = '\0';
  CHECK (oci_config_parse_data (objs, 6 * n, &c, &err) < 0);
  CHECK_STR (err, "config.json: invalid JSON: nested deeper than 256 levels at offset 1536");
  free (err);
  free (objs);

  /* Brackets inside strings do not count. */
  const char *str = "{\"ociVersion\": \"1.0.0\", \"hostname\": \"[[[[{{{{\\\"[[[[\"}";
  CHECK (oci_config_parse_data (str, strlen (str), &c, &err) == 0);
  CHECK_STR (c ? c->hostname : NULL, "[[[[{{{{\"[[[[");
  oci_config_free (c);
}

static void
test_duplicate_in_large_object (void)
{
  /* > 16 keys takes the sorting path; the first repeat in document order is named. */
  char buf[4096];
  size_t o = (size_t) snprintf (buf, sizeof buf, "{\"ociVersion\": \"1.0.0\", \"annotations\": {");
  for (int i = 0; i < 40; i++)
    o += (size_t) snprintf (buf + o, sizeof buf - o, "\"k%02d\": \"v\", ", i);
  o += (size_t) snprintf (buf + o, sizeof buf - o, "\"k39\": \"v\", \"k07\": \"v\"}}");
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_data (buf, o, &c, &err) < 0);
  CHECK_STR (err, "config.json: .annotations: duplicated key \"k39\"");
  free (err);
}

static void
test_annotation_empty_key (void)
{
  static const char doc[] = "{\"ociVersion\": \"1.0.0\", \"annotations\": {\"a\": \"1\", \"\": \"2\"}}";
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_data (doc, sizeof doc - 1, &c, &err) < 0);
  CHECK_STR (err, "config.json: .annotations: a key is empty");
  free (err);
}

/* ------------------------------------------------------------------ values */

static void
test_full_config_values (void)
{
  size_t len = 0;
  char *data = read_case ("full-config.json", &len);
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (data != NULL);
  if (data == NULL)
    return;
  if (oci_config_parse_data (data, len, &c, &err) < 0)
    {
      fprintf (stderr, "  %s\n", err);
      CHECK (!"full-config.json parses");
      free (err);
      free (data);
      return;
    }
  CHECK_STR (c->oci_version, "1.3.0");
  CHECK (c->process->user.uid == UINT32_MAX);
  CHECK (c->process->user.umask && *c->process->user.umask == 18);
  CHECK (c->process->user.additional_gids_len == 3 && c->process->user.additional_gids[2] == UINT32_MAX);
  CHECK_STR (c->process->args[2], "echo \"hi\" \\ \xc3\xa9 \xf0\x9f\x98\x80");
  CHECK (c->process->rlimits_len == 2);
  CHECK (c->process->rlimits[1].hard == UINT64_MAX);
  CHECK (c->process->rlimits[1].soft == (uint64_t) INT64_MAX + 1);
  CHECK (c->process->oom_score_adj && *c->process->oom_score_adj == -1000);
  CHECK (c->process->scheduler->nice && *c->process->scheduler->nice == -20);
  CHECK (c->process->console_size->width == 80);
  CHECK (c->root->readonly);
  CHECK (c->mounts_len == 2 && c->mounts[1].uid_mappings_len == 1 && c->mounts[1].uid_mappings[0].host_id == 100000);
  CHECK (c->hooks->poststop_len == 2 && *c->hooks->poststop[1].timeout == INT64_MAX);
  CHECK (c->annotations.len == 2);
  CHECK_STR (c->annotations.keys[0], "com.example.key");
  CHECK_STR (c->annotations.values[1], "");
  oci_linux *l = c->linux_;
  CHECK (l->resources->cpu->quota && *l->resources->cpu->quota == -1);
  CHECK (l->resources->block_io->weight_device[0].major == INT64_MIN);
  CHECK (l->resources->memory->disable_oom_killer && !*l->resources->memory->disable_oom_killer);
  CHECK (l->resources->memory->use_hierarchy && *l->resources->memory->use_hierarchy);
  CHECK (l->resources->pids->limit == -1);
  CHECK (l->resources->block_io->leaf_weight && *l->resources->block_io->leaf_weight == 65535);
  CHECK (l->resources->block_io->throttle_write_bps_device[0].rate == UINT64_MAX);
  CHECK (l->resources->rdma_len == 2);
  CHECK_STR (l->resources->rdma[0].key, "mlx5_1");
  CHECK (l->resources->rdma[0].hca_objects && *l->resources->rdma[0].hca_objects == 10000);
  CHECK (l->resources->rdma[1].hca_handles == NULL);
  CHECK (l->namespaces_len == 8);
  CHECK_STR (l->namespaces[1].path, "/proc/1/ns/net");
  CHECK (l->devices[0].file_mode && *l->devices[0].file_mode == 0666);
  CHECK (l->devices[1].file_mode == NULL);
  CHECK (l->net_devices_len == 2);
  CHECK_STR (l->net_devices[0].key, "eth1");
  CHECK_STR (l->net_devices[0].name, "eth0");
  CHECK (l->net_devices[1].name == NULL);
  CHECK (l->seccomp->syscalls[1].args[1].value == UINT64_MAX);
  CHECK (l->seccomp->syscalls[1].errno_ret && *l->seccomp->syscalls[1].errno_ret == 38);
  CHECK (l->seccomp->syscalls[0].errno_ret == NULL);
  CHECK (l->time_offsets_len == 2);
  CHECK_STR (l->time_offsets[1].key, "monotonic");
  CHECK (l->time_offsets[0].secs == -10 && l->time_offsets[0].nanosecs == 999999999);
  CHECK (l->personality->flags_len == 0);
  CHECK (l->intel_rdt->enable_monitoring);
  oci_config_free (c);
  free (data);
}

static void
test_null_means_absent (void)
{
  const char *json = "{\"ociVersion\": \"1.0.0\", \"hostname\": null, \"process\": {\"cwd\": \"/\", \"args\": null, "
                     "\"oomScoreAdj\": null, \"terminal\": null}, \"linux\": null}";
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_data (json, strlen (json), &c, &err) == 0);
  CHECK (c && c->hostname == NULL && c->linux_ == NULL);
  CHECK (c && c->process->args == NULL && c->process->oom_score_adj == NULL && !c->process->terminal);
  oci_config_free (c);
}

static void
test_unknown_fields_ignored (void)
{
  const char *json = "{\"ociVersion\": \"1.2.0\", \"solaris\": {\"milestone\": 1}, \"process\": {\"cwd\": \"/\", "
                     "\"futureField\": [1, {\"x\": null}]}, \"linux\": {\"newThing\": true}}";
  oci_config *c = NULL;
  char *err = NULL;
  CHECK (oci_config_parse_data (json, strlen (json), &c, &err) == 0);
  CHECK (c && c->process && c->linux_);
  oci_config_free (c);
  /* A future 1.x is accepted, and so are pre-releases and build metadata. */
  const char *versions[] = { "1.0.0", "1.0.0-rc5", "1.3.0", "1.2.1+dev", "1.9.0" };
  for (size_t i = 0; i < NELEMS (versions); i++)
    {
      char *doc = ocispec_strdup_printf ("{\"ociVersion\": \"%s\"}", versions[i]);
      CHECK (oci_config_parse_data (doc, strlen (doc), &c, &err) == 0);
      oci_config_free (c);
      free (doc);
    }
}

/* ------------------------------------------------------------------ round trips */

static void
test_roundtrip_config (void)
{
  size_t len = 0;
  char *data = read_case ("full-config.json", &len);
  CHECK (data != NULL);
  if (data)
    CHECK (roundtrip_equal (&oci_config_type, "config.json", data, len));
  free (data);
  check_case_covers_type ("full-config.json", &oci_config_type);
}

static void
test_roundtrip_state (void)
{
  size_t len = 0;
  char *data = read_case ("full-state.json", &len);
  CHECK (data != NULL);
  if (data)
    CHECK (roundtrip_equal (&oci_state_type, "state", data, len));
  free (data);
  check_case_covers_type ("full-state.json", &oci_state_type);

  /* The typed wrappers, from a struct built in code: no pid, no annotations. */
  oci_state s = { .oci_version = "1.3.0", .id = "c1", .status = "created", .bundle = "/b" };
  char *json = NULL, *err = NULL;
  size_t n = 0;
  CHECK (oci_state_generate (&s, false, &json, &n, &err) == 0);
  CHECK_STR (json, "{\"ociVersion\":\"1.3.0\",\"id\":\"c1\",\"status\":\"created\",\"bundle\":\"/b\"}\n");
  oci_state *back = NULL;
  CHECK (json && oci_state_parse_data (json, n, &back, &err) == 0);
  CHECK (back && back->pid == NULL && equal_obj (&oci_state_type, &s, back, ""));
  oci_state_free (back);
  free (json);
}

static void
test_roundtrip_features (void)
{
  size_t len = 0;
  char *data = read_case ("full-features.json", &len);
  CHECK (data != NULL);
  if (data)
    CHECK (roundtrip_equal (&oci_features_type, "features", data, len));
  free (data);
  check_case_covers_type ("full-features.json", &oci_features_type);
}

/* ------------------------------------------------------------------ generation */

static void
test_generate_rules (void)
{
  char *json = NULL, *err = NULL;
  size_t n = 0;
  bool yes = true;
  uint32_t zero = 0;
  char *args[] = { "sh" };
  oci_process p = { .cwd = "/", .args = args, .args_len = 1, .no_new_privileges = true };

  /* Bools always, NULL pointers and empty arrays never; the inline user always. */
  CHECK (oci_process_generate (&p, false, &json, &n, &err) == 0);
  CHECK_STR (json, "{\"terminal\":false,\"user\":{\"uid\":0,\"gid\":0},\"args\":[\"sh\"],\"cwd\":\"/\","
                   "\"noNewPrivileges\":true}\n");
  free (json);

  /* Optional scalars through pointers: written when set, even when 0/false. */
  oci_memory mem = { .disable_oom_killer = &yes };
  oci_resources res = { .memory = &mem };
  oci_linux l = { .resources = &res };
  oci_config c = { .oci_version = "1.0.0", .linux_ = &l };
  p.user.umask = &zero;
  c.process = &p;
  CHECK (oci_config_generate (&c, false, &json, &n, &err) == 0);
  CHECK (json && strstr (json, "\"memory\":{\"disableOOMKiller\":true}") != NULL);
  CHECK (json && strstr (json, "\"user\":{\"uid\":0,\"gid\":0,\"umask\":0}") != NULL);
  free (json);

  /* A required array is written even when empty. */
  oci_syscall sys = { .action = "SCMP_ACT_ALLOW" };
  oci_seccomp sc = { .default_action = "SCMP_ACT_ERRNO", .syscalls = &sys, .syscalls_len = 1 };
  oci_linux l2 = { .seccomp = &sc };
  oci_config c2 = { .oci_version = "1.0.0", .linux_ = &l2 };
  CHECK (oci_config_generate (&c2, false, &json, &n, &err) == 0);
  CHECK (json && strstr (json, "\"syscalls\":[{\"names\":[],\"action\":\"SCMP_ACT_ALLOW\"}]") != NULL);
  free (json);

  /* Pretty output is indented with tabs. */
  oci_state s = { .oci_version = "1.3.0", .id = "c", .status = "stopped", .bundle = "/b" };
  CHECK (oci_state_generate (&s, true, &json, &n, &err) == 0);
  CHECK_STR (json, "{\n\t\"ociVersion\": \"1.3.0\",\n\t\"id\": \"c\",\n\t\"status\": \"stopped\",\n"
                   "\t\"bundle\": \"/b\"\n}\n");
  free (json);
}

static void
test_generate_errors (void)
{
  char *json = NULL, *err = NULL;
  size_t n = 0;

  oci_state s = { .oci_version = "1.3.0", .status = "stopped", .bundle = "/b" };
  CHECK (oci_state_generate (&s, false, &json, &n, &err) < 0);
  CHECK (json == NULL);
  CHECK_STR (err, "generate: .id: missing required field");
  free (err);

  oci_root root = { .path = NULL };
  oci_config c = { .oci_version = "1.0.0", .root = &root };
  CHECK (oci_config_generate (&c, true, &json, &n, &err) < 0);
  CHECK_STR (err, "generate: .root.path: missing required field");
  free (err);

  char *env[] = { "GOOD=1", "BAD=\xff" };
  oci_process p = { .cwd = "/", .env = env, .env_len = 2 };
  CHECK (oci_process_generate (&p, false, &json, &n, &err) < 0);
  CHECK_STR (err, "generate: .env[1]: invalid UTF-8 in a string");
  free (err);
}

/* ------------------------------------------------------------------ the spec's documents */

/* What we do with the schema's example documents where we differ from the
   schema.  Any file not listed must: good -> parse, bad -> be rejected. */
typedef struct doc_expect
{
  const char *file;   /* kind/good|bad/name.json */
  const char *error;  /* NULL: parses */
} doc_expect;

static const doc_expect doc_expectations[] = {
  /* Bad ones, with the exact error. */
  { "config/bad/invalid-json.json", "config.json: invalid JSON: parse error: invalid object key (must be a string)" },
  { "config/bad/linux-hugepage.json",
    "config.json: .linux.resources.hugepageLimits[0].pageSize: invalid page size \"64kB\" (want a size like \"2MB\")" },
  { "config/bad/linux-netdevice.json", "config.json: .linux.netDevices.eth0.name: expected a string, got a number" },
  { "config/bad/linux-rdma.json",
    "config.json: .linux.resources.rdma.mlx5_1.hcaHandles: expected an integer between 0 and 4294967295, got a string" },
  /* The schema rejects .freebsd.jail.vnet "disable"; ocisbx is Linux-only and
     ignores the freebsd object (unknown fields are ignored), so it parses. */
  { "config/bad/freebsd-vnet-disable.json", NULL },
  /* Good for the schema (ociVersion is any string), rejected by ocisbx on
     purpose: a 0.x config predates runtime-spec 1.0.  With the version set to
     1.0.0 they parse (checked below). */
  { "config/good/spec-example.json",
    "config.json: .ociVersion: unsupported major version \"0.5.0-dev\" (ocisbx supports 1.0.0 to 1.3.x)" },
  { "config/good/zos-example.json",
    "config.json: .ociVersion: unsupported major version \"0.5.0-dev\" (ocisbx supports 1.0.0 to 1.3.x)" },
  { "state/bad/invalid-json.json", "state: invalid JSON: parse error: invalid object key (must be a string)" },
  { "features/bad/missing-ociVersionMax.json", "features: .ociVersionMax: missing required field" },
};

static const doc_expect *
find_expectation (const char *rel)
{
  for (size_t i = 0; i < NELEMS (doc_expectations); i++)
    if (strcmp (doc_expectations[i].file, rel) == 0)
      return &doc_expectations[i];
  return NULL;
}

/* Replace the first "ociVersion": "0..." value by "1.0.0". */
static char *
with_version_1 (const char *data)
{
  const char *k = strstr (data, "\"ociVersion\"");
  const char *q1 = k ? strchr (k + 12, '"') : NULL;
  const char *q2 = q1 ? strchr (q1 + 1, '"') : NULL;
  if (q2 == NULL)
    return NULL;
  return ocispec_strdup_printf ("%.*s\"1.0.0\"%s", (int) (q1 - data), data, q2 + 1);
}

static void
test_schema_documents (void)
{
  static const struct
  {
    const char *kind;
    const ocispec_type *type;
    const char *doc;
  } kinds[] = {
    { "config", &oci_config_type, "config.json" },
    { "state", &oci_state_type, "state" },
    { "features", &oci_features_type, "features" },
  };
  char *tried = NULL;
  char *dir = schema_dir (&tried);
  size_t seen = 0, seen_expectations = 0;

  if (dir == NULL)
    {
      UNIT_SKIP ("no runtime-spec example documents in %s/test (set OCI_SCHEMA_DIR to a "
                 "runtime-spec checkout's schema/)", tried);
      free (tried);
      return;
    }
  for (size_t k = 0; k < NELEMS (kinds); k++)
    for (int good = 1; good >= 0; good--)
      {
        char *sub = ocispec_strdup_printf ("%s/test/%s/%s", dir, kinds[k].kind, good ? "good" : "bad");
        DIR *d = opendir (sub);
        CHECK (d != NULL);
        struct dirent *de;
        while (d && (de = readdir (d)) != NULL)
          {
            size_t nl = strlen (de->d_name);
            if (nl < 6 || strcmp (de->d_name + nl - 5, ".json") != 0)
              continue;
            char *rel = ocispec_strdup_printf ("%s/%s/%s", kinds[k].kind, good ? "good" : "bad", de->d_name);
            char *path = ocispec_strdup_printf ("%s/%s", sub, de->d_name);
            const doc_expect *x = find_expectation (rel);
            void *out = NULL;
            char *err = NULL;
            int r = ocispec_parse_file (kinds[k].type, path, kinds[k].doc, &out, &err);
            seen++;
            seen_expectations += x != NULL;
            if (x ? x->error == NULL : good)
              {
                if (r < 0)
                  fprintf (stderr, "  %s: %s\n", rel, err);
                CHECK (r == 0);
              }
            else
              {
                if (r == 0)
                  fprintf (stderr, "  %s: accepted\n", rel);
                CHECK (r < 0);
                if (x)
                  CHECK_STR (err, x->error);
              }
            /* Whatever parses must round-trip. */
            if (r == 0)
              {
                size_t len = 0;
                char *data = read_whole (path, &len);
                CHECK (roundtrip_equal (kinds[k].type, kinds[k].doc, data, len));
                free (data);
              }
            /* The 0.x examples otherwise parse. */
            if (r < 0 && good && x && x->error && strstr (x->error, "major version"))
              {
                char *data = read_whole (path, NULL);
                char *fixed = data ? with_version_1 (data) : NULL;
                CHECK (fixed != NULL);
                if (fixed)
                  CHECK (roundtrip_equal (kinds[k].type, kinds[k].doc, fixed, strlen (fixed)));
                free (fixed);
                free (data);
              }
            ocispec_free (kinds[k].type, out);
            free (err);
            free (path);
            free (rel);
          }
        if (d)
          closedir (d);
        free (sub);
      }
  printf ("# %zu runtime-spec example documents from %s\n", seen, dir);
  CHECK (seen >= 19);
  CHECK (seen_expectations == NELEMS (doc_expectations));
  free (dir);
}

static void
test_tables_cover_structs (void)
{
  CHECK (check_struct_covered (&oci_config_type, false) == 0);
  CHECK (check_struct_covered (&oci_process_type, false) == 0);
  CHECK (check_struct_covered (&oci_state_type, false) == 0);
  CHECK (check_struct_covered (&oci_features_type, false) == 0);
  CHECK (check_struct_covered (&oci_resources_type, false) == 0);
}

/* ------------------------------------------------------------------ helpers of the engine */

static void
test_quote_and_paths (void)
{
  char q[OCISPEC_QUOTE_MAX];
  CHECK_STR (ocispec_quote (q, "a\"b\\c\td"), "\"a\\\"b\\\\c\\x09d\"");
  char long_ctl[200];
  memset (long_ctl, '\x01', sizeof long_ctl - 1);
  long_ctl[sizeof long_ctl - 1] = '\0';
  const char *r = ocispec_quote (q, long_ctl);
  CHECK (strlen (r) < OCISPEC_QUOTE_MAX);
  CHECK (strcmp (r + strlen (r) - 4, "\"...") == 0);
  /* A UTF-8 sequence is never cut. */
  char utf[200] = "";
  for (int i = 0; i < 40; i++)
    strcat (utf, "\xc3\xa9");
  r = ocispec_quote (q, utf);
  CHECK (strlen (r) == 1 + 64 + 4);
  r = ocispec_quote (q, utf + 1); /* starts mid-character: 0xa9, then 63 bytes of whole ones */
  CHECK (strlen (r) == 1 + 63 + 4);

  ocispec_path p = { 0 };
  ocispec_path_key (&p, "linux");
  size_t old = ocispec_path_index (&p, 3);
  ocispec_path_key (&p, "a.b");
  CHECK_STR (p.s, ".linux[3][\"a.b\"]");
  ocispec_path_pop (&p, old);
  CHECK_STR (p.s, ".linux");
  ocispec_path_free (&p);
}

static void
test_resources_document (void)
{
  static const char *const bad[][2] = {
    { "{\"memory\": {\"limit\": -5}}",
      "resources: .linux.resources.memory.limit: -5 is not a limit (a number, or -1 for unlimited)" },
    { "{\"pids\": {\"limit\": \"x\"}}", "resources: .linux.resources.pids.limit: expected an integer" },
    { "{\"pids\": {}, \"pids\": {}}", "resources: .linux.resources: duplicated key \"pids\"" },
  };
  oci_resources *r = NULL;
  char *err = NULL;

  CHECK (oci_resources_parse_data ("{\"pids\": {\"limit\": 30}}", 23, &r, &err) == 0);
  CHECK (r && r->pids && r->pids->limit == 30);
  oci_resources_free (r);
  for (size_t i = 0; i < NELEMS (bad); i++)
    {
      r = NULL;
      CHECK (oci_resources_parse_data (bad[i][0], strlen (bad[i][0]), &r, &err) < 0 && r == NULL);
      if (err && strncmp (err, bad[i][1], strlen (bad[i][1])) != 0)
        {
          fprintf (stderr, "  got: %s\n  want: %s...\n", err, bad[i][1]);
          CHECK (false);
        }
      free (err);
      err = NULL;
    }
}

/* A document that is not an object: a field's value alone (list --format json, ps
   --format json). */
typedef struct gen_item
{
  char *path;
} gen_item;

static const ocispec_field gen_item_fields[]
    = { { "path", OCISPEC_STRING, OCISPEC_F_REQUIRED, offsetof (gen_item, path), 0, NULL, NULL, NULL } };
static const ocispec_type gen_item_type = { "gen_item", sizeof (gen_item), gen_item_fields, 1, NULL };

typedef struct gen_values
{
  uint32_t *nums;
  size_t nums_len;
  gen_item *hooks;
  size_t hooks_len;
} gen_values;

static void
test_generate_value (void)
{
  static const ocispec_field nums = { "", OCISPEC_UINT32ARR, 0, offsetof (gen_values, nums),
                                      offsetof (gen_values, nums_len), NULL, NULL, NULL };
  static const ocispec_field hooks = { "", OCISPEC_OBJARR, 0, offsetof (gen_values, hooks),
                                       offsetof (gen_values, hooks_len), &gen_item_type, NULL, NULL };
  uint32_t n[] = { 7, 42 };
  gen_item h[] = { { .path = (char *) "/a" }, { .path = (char *) "/b\xff" } };
  gen_values v = { n, 2, h, 1 };
  char *json = NULL, *err = NULL;

  CHECK (ocispec_generate_value (&nums, &v, false, &json, NULL, &err) == 0 && strcmp (json, "[7,42]\n") == 0);
  free (json);
  v.nums_len = 0;
  CHECK (ocispec_generate_value (&nums, &v, false, &json, NULL, &err) == 0 && strcmp (json, "[]\n") == 0);
  free (json);
  CHECK (ocispec_generate_value (&hooks, &v, false, &json, NULL, &err) == 0
         && strcmp (json, "[{\"path\":\"/a\"}]\n") == 0);
  free (json);
  v.hooks_len = 2; /* invalid UTF-8: an error naming the element */
  CHECK (ocispec_generate_value (&hooks, &v, false, &json, NULL, &err) < 0 && json == NULL && err
         && strstr (err, "[1].path") != NULL);
  free (err);
}

UNIT_MAIN (T (test_config_errors), T (test_config_wrapper_errors), T (test_parse_file_errors),
           T (test_state_errors), T (test_features_errors), T (test_process_errors), T (test_deep_nesting),
           T (test_duplicate_in_large_object), T (test_annotation_empty_key), T (test_full_config_values), T (test_null_means_absent),
           T (test_unknown_fields_ignored), T (test_roundtrip_config), T (test_roundtrip_state),
           T (test_roundtrip_features), T (test_generate_rules), T (test_generate_errors),
           T (test_schema_documents), T (test_tables_cover_structs), T (test_quote_and_paths),
           T (test_resources_document), T (test_generate_value))
