/* SHA-256 (FIPS 180-4), small and dependency-free: the seccomp cache key. */
#ifndef OCISBX_SHA256_H
#define OCISBX_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_LEN 32

typedef struct sha256_ctx
{
  uint32_t h[8];
  uint64_t total; /* bytes hashed so far */
  uint8_t buf[64];
  size_t buf_len;
  bool hw; /* the CPU's SHA instructions (x86 SHA-NI), as sha256_init finds; a test may
              clear it after init for the portable code */
} sha256_ctx;

void sha256_init (sha256_ctx *c);
void sha256_update (sha256_ctx *c, const void *data, size_t len);
void sha256_final (sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN]);
/* One shot. */
void sha256 (const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN]);
/* 64 lowercase hex digits + NUL into HEX. */
void sha256_hex (const uint8_t digest[SHA256_DIGEST_LEN], char hex[2 * SHA256_DIGEST_LEN + 1]);

#endif
