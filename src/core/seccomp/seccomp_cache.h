/* The compiled seccomp filter cache under --root: <dir>/<sha256>.bpf.
 *
 * The key is the SHA-256 of a canonical serialization of everything that shapes
 * the BPF program: the linux.seccomp object (minus flags and listener fields, which
 * do not change the program), the native architecture, the libseccomp version and
 * API level, and the cache format version.  An entry holds a header (magic,
 * version, instruction count, its key, the SHA-256 of the instructions) and the
 * raw `struct sock_filter` array.  Writes are atomic (tmp + rename); an entry
 * that fails any check is ignored (and rewritten by the caller). */
#ifndef OCISBX_SECCOMP_CACHE_H
#define OCISBX_SECCOMP_CACHE_H

#include <linux/filter.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "ocispec.h"
#include "core/seccomp/sha256.h"

/* Keep at most this many entries (least recently used go first). */
#define SECCOMP_CACHE_MAX_ENTRIES 256

void seccomp_cache_key (const oci_seccomp *sc, uint8_t key[SHA256_DIGEST_LEN]);

/* Opens (creating it 0700 when missing) the cache directory; -1 with *err when
   it cannot be used (e.g. not owned by us or writable by others). */
int seccomp_cache_open_dir (const char *dir, ocisbx_err **err);

/* 1 and a malloc'd *insns on a valid hit, 0 on a miss or a corrupt entry. */
int seccomp_cache_lookup (int dirfd, const uint8_t key[SHA256_DIGEST_LEN], struct sock_filter **insns,
                          size_t *n);
int seccomp_cache_store (int dirfd, const uint8_t key[SHA256_DIGEST_LEN], const struct sock_filter *insns,
                         size_t n, ocisbx_err **err);

#endif
