/* The compiled seccomp filter cache: see seccomp_cache.h. */
#include <config.h>
#include "core/seccomp/seccomp_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/log.h"
#include "core/utils.h"

#define CACHE_MAGIC "OCISBXBF"
/* 2: the programs begin with the -ENOSYS stub (seccomp_enosys.c) */
#define CACHE_VERSION 2u
#define CACHE_SUFFIX ".bpf"
/* The kernel refuses longer programs (BPF_MAXINSNS). */
#define CACHE_MAX_INSNS 4096u

struct cache_header
{
  char magic[8];
  uint32_t version;
  uint32_t n_insns;
  uint8_t key[SHA256_DIGEST_LEN];
  uint8_t sum[SHA256_DIGEST_LEN]; /* of the instructions */
};

/* --- the key: a length-prefixed serialization, so no two profiles collide --- */

static void
put_u64 (sha256_ctx *c, uint64_t v)
{
  uint8_t b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (uint8_t) (v >> (8 * i));
  sha256_update (c, b, sizeof b);
}

static void
put_str (sha256_ctx *c, const char *s)
{
  if (s == NULL)
    {
      put_u64 (c, UINT64_MAX);
      return;
    }
  put_u64 (c, strlen (s));
  sha256_update (c, s, strlen (s));
}

static void
put_opt_u32 (sha256_ctx *c, const uint32_t *v)
{
  put_u64 (c, v ? 1 : 0);
  put_u64 (c, v ? *v : 0);
}

void
seccomp_cache_key (const oci_seccomp *sc, uint8_t key[SHA256_DIGEST_LEN])
{
  const struct scmp_version *v = seccomp_version ();
  sha256_ctx c;

  sha256_init (&c);
  put_str (&c, "ocisbx seccomp bpf");
  put_u64 (&c, CACHE_VERSION);
  put_u64 (&c, seccomp_arch_native ());
  put_u64 (&c, v->major);
  put_u64 (&c, v->minor);
  put_u64 (&c, v->micro);
  put_u64 (&c, seccomp_api_get ());

  put_str (&c, sc->default_action);
  put_opt_u32 (&c, sc->default_errno_ret);
  put_u64 (&c, sc->architectures_len);
  for (size_t i = 0; i < sc->architectures_len; i++)
    put_str (&c, sc->architectures[i]);
  put_u64 (&c, sc->syscalls_len);
  for (size_t i = 0; i < sc->syscalls_len; i++)
    {
      const oci_syscall *s = &sc->syscalls[i];
      put_u64 (&c, s->names_len);
      for (size_t j = 0; j < s->names_len; j++)
        put_str (&c, s->names[j]);
      put_str (&c, s->action);
      put_opt_u32 (&c, s->errno_ret);
      put_u64 (&c, s->args_len);
      for (size_t j = 0; j < s->args_len; j++)
        {
          put_u64 (&c, s->args[j].index);
          put_u64 (&c, s->args[j].value);
          put_u64 (&c, s->args[j].value_two);
          put_str (&c, s->args[j].op);
        }
    }
  sha256_final (&c, key);
}

/* --- the directory --- */

int
seccomp_cache_open_dir (const char *dir, ocisbx_err **err)
{
  cleanup_close int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st;

  if (fd < 0 && errno == ENOENT)
    {
      if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        return err_set (err, errno, "create seccomp cache `%s`", dir);
      fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    }
  if (fd < 0)
    return err_set (err, errno, "open seccomp cache `%s`", dir);
  if (fstat (fd, &st) < 0)
    return err_set (err, errno, "stat seccomp cache `%s`", dir);
  /* Whoever can write here can choose the filters of our containers. */
  if (st.st_uid != geteuid () || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return err_set (err, 0, "seccomp cache `%s`: not owned by uid %d or writable by others: not used", dir,
                    (int) geteuid ());
  return steal_fd (&fd);
}

static char *
entry_name (const uint8_t key[SHA256_DIGEST_LEN])
{
  char hex[2 * SHA256_DIGEST_LEN + 1];
  sha256_hex (key, hex);
  return xasprintf ("%s" CACHE_SUFFIX, hex);
}

/* --- lookup --- */

/* Reads and checks one entry; returns its instructions (malloc'd) or NULL. */
static struct sock_filter *
read_entry (int fd, const uint8_t key[SHA256_DIGEST_LEN], size_t *n)
{
  cleanup_free char *buf = NULL;
  struct cache_header h;
  uint8_t sum[SHA256_DIGEST_LEN];
  struct sock_filter *insns;
  struct stat st;
  size_t body;

  if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode) || (size_t) st.st_size < sizeof h
      || (size_t) st.st_size > sizeof h + CACHE_MAX_INSNS * sizeof (struct sock_filter))
    return NULL;
  buf = xmalloc0 (st.st_size);
  if (read_all (fd, buf, st.st_size) != st.st_size)
    return NULL;
  memcpy (&h, buf, sizeof h);
  body = st.st_size - sizeof h;
  if (memcmp (h.magic, CACHE_MAGIC, sizeof h.magic) != 0 || h.version != CACHE_VERSION || h.n_insns == 0
      || h.n_insns > CACHE_MAX_INSNS || body != h.n_insns * sizeof (struct sock_filter)
      || memcmp (h.key, key, SHA256_DIGEST_LEN) != 0)
    return NULL;
  sha256 (buf + sizeof h, body, sum);
  if (memcmp (sum, h.sum, sizeof sum) != 0)
    return NULL;
  insns = xmalloc0 (body);
  memcpy (insns, buf + sizeof h, body);
  *n = h.n_insns;
  return insns;
}

int
seccomp_cache_lookup (int dirfd, const uint8_t key[SHA256_DIGEST_LEN], struct sock_filter **insns, size_t *n)
{
  cleanup_free char *name = entry_name (key);
  cleanup_close int fd = openat (dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

  *insns = NULL;
  *n = 0;
  if (fd < 0)
    return 0;
  *insns = read_entry (fd, key, n);
  if (*insns == NULL)
    {
      log_debug ("seccomp cache: ignoring corrupt entry `%s`", name);
      return 0;
    }
  futimens (fd, NULL); /* recently used: evicted last */
  return 1;
}

/* --- store --- */

typedef struct
{
  char *name;
  struct timespec mtime;
} cache_entry;

static int
older_first (const void *a, const void *b)
{
  const cache_entry *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec)
    return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return 0;
}

/* Past SECCOMP_CACHE_MAX_ENTRIES, drop the least recently used quarter. */
static void
evict (int dirfd)
{
  cleanup_dir DIR *d = NULL;
  cleanup_free cache_entry *v = NULL;
  size_t n = 0, alloc = 0;
  struct dirent *de;

  d = opendir_at (dirfd, ".");
  if (d == NULL)
    return;
  while ((de = readdir (d)))
    {
      struct stat st;
      size_t len = strlen (de->d_name);
      if (len <= strlen (CACHE_SUFFIX) || strcmp (de->d_name + len - strlen (CACHE_SUFFIX), CACHE_SUFFIX) != 0)
        continue;
      if (fstatat (dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        continue;
      if (n == alloc)
        {
          alloc = alloc ? alloc * 2 : 64;
          v = realloc (v, alloc * sizeof *v);
          if (v == NULL)
            abort ();
        }
      v[n].name = xstrdup (de->d_name);
      v[n++].mtime = st.st_mtim;
    }
  if (n > SECCOMP_CACHE_MAX_ENTRIES)
    {
      size_t drop = n - SECCOMP_CACHE_MAX_ENTRIES * 3 / 4;
      qsort (v, n, sizeof *v, older_first);
      for (size_t i = 0; i < drop; i++)
        unlinkat (dirfd, v[i].name, 0);
      log_debug ("seccomp cache: evicted %zu old entries", drop);
    }
  for (size_t i = 0; i < n; i++)
    free (v[i].name);
}

int
seccomp_cache_store (int dirfd, const uint8_t key[SHA256_DIGEST_LEN], const struct sock_filter *insns, size_t n,
                     ocisbx_err **err)
{
  cleanup_free char *name = entry_name (key);
  cleanup_free char *buf = NULL;
  size_t body = n * sizeof *insns;
  struct cache_header h;

  if (n == 0 || n > CACHE_MAX_INSNS)
    return err_set (err, EINVAL, "seccomp cache: refusing a program of %zu instructions", n);
  memset (&h, 0, sizeof h);
  memcpy (h.magic, CACHE_MAGIC, sizeof h.magic);
  h.version = CACHE_VERSION;
  h.n_insns = (uint32_t) n;
  memcpy (h.key, key, SHA256_DIGEST_LEN);
  sha256 (insns, body, h.sum);
  buf = xmalloc0 (sizeof h + body);
  memcpy (buf, &h, sizeof h);
  memcpy (buf + sizeof h, insns, body);
  if (write_file_atomic_at (dirfd, name, buf, sizeof h + body, 0600, err) < 0)
    return err_wrap (err, "seccomp cache");
  evict (dirfd);
  return 0;
}
