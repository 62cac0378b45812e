/* SHA-256 after FIPS 180-4, section 6.2; with the x86 SHA extensions when the CPU has
   them (about ten times faster: the seccomp cache hashes a profile and a filter of some
   10 KiB on every create and exec of a podman container). */
#include <config.h>
#include "core/seccomp/sha256.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>) && __has_include(<immintrin.h>)
#define SHA256_X86 1
#include <immintrin.h>
#include <sys/platform/x86.h>
#endif
#endif

static const uint32_t K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static inline uint32_t
ror (uint32_t x, unsigned n)
{
  return (x >> n) | (x << (32 - n));
}

static void
compress (uint32_t h[8], const uint8_t block[64])
{
  uint32_t w[64], a, b, c, d, e, f, g, hh;

  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t) block[4 * i] << 24 | (uint32_t) block[4 * i + 1] << 16
           | (uint32_t) block[4 * i + 2] << 8 | (uint32_t) block[4 * i + 3];
  for (int i = 16; i < 64; i++)
    {
      uint32_t s0 = ror (w[i - 15], 7) ^ ror (w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ror (w[i - 2], 17) ^ ror (w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
  a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++)
    {
      uint32_t t1 = hh + (ror (e, 6) ^ ror (e, 11) ^ ror (e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      uint32_t t2 = (ror (a, 2) ^ ror (a, 13) ^ ror (a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

#ifdef SHA256_X86
/* N blocks with SHA256RNDS2 (two rounds each), SHA256MSG1/MSG2 for the message
   schedule.  The instructions keep the state as {A,B,E,F} and {C,D,G,H}. */
__attribute__ ((target ("sha,sse4.1,ssse3"))) static void
compress_x86 (uint32_t h[8], const uint8_t *p, size_t n)
{
  const __m128i bswap = _mm_set_epi64x (0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i dcba = _mm_loadu_si128 ((const __m128i *) &h[0]);
  __m128i hgfe = _mm_loadu_si128 ((const __m128i *) &h[4]);
  __m128i cdab = _mm_shuffle_epi32 (dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32 (hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8 (cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16 (efgh, cdab, 0xF0);

  for (; n > 0; n--, p += 64)
    {
      __m128i abef0 = abef, cdgh0 = cdgh, w[4];

      for (int j = 0; j < 4; j++)
        w[j] = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *) (p + 16 * j)), bswap);
      for (int i = 0; i < 16; i++)
        {
          __m128i m = _mm_add_epi32 (w[i & 3], _mm_loadu_si128 ((const __m128i *) &K[4 * i]));
          cdgh = _mm_sha256rnds2_epu32 (cdgh, abef, m);
          abef = _mm_sha256rnds2_epu32 (abef, cdgh, _mm_shuffle_epi32 (m, 0x0E));
          if (i < 12)
            {
              /* W[4i+16..4i+19] from W[4i..4i+15], into the slot just used */
              __m128i t = _mm_sha256msg1_epu32 (w[i & 3], w[(i + 1) & 3]);
              t = _mm_add_epi32 (t, _mm_alignr_epi8 (w[(i + 3) & 3], w[(i + 2) & 3], 4));
              w[i & 3] = _mm_sha256msg2_epu32 (t, w[(i + 3) & 3]);
            }
        }
      abef = _mm_add_epi32 (abef, abef0);
      cdgh = _mm_add_epi32 (cdgh, cdgh0);
    }
  {
    __m128i feba = _mm_shuffle_epi32 (abef, 0x1B);
    __m128i dchg = _mm_shuffle_epi32 (cdgh, 0xB1);
    _mm_storeu_si128 ((__m128i *) &h[0], _mm_blend_epi16 (feba, dchg, 0xF0));
    _mm_storeu_si128 ((__m128i *) &h[4], _mm_alignr_epi8 (dchg, feba, 8));
  }
}
#endif

static void
compress_blocks (const sha256_ctx *c, uint32_t h[8], const uint8_t *p, size_t n)
{
#ifdef SHA256_X86
  if (c->hw)
    {
      compress_x86 (h, p, n);
      return;
    }
#else
  (void) c;
#endif
  for (; n > 0; n--, p += 64)
    compress (h, p);
}

void
sha256_init (sha256_ctx *c)
{
  static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
  memcpy (c->h, iv, sizeof iv);
  c->total = 0;
  c->buf_len = 0;
#ifdef SHA256_X86
  c->hw = CPU_FEATURE_ACTIVE (SHA) && CPU_FEATURE_ACTIVE (SSE4_1) && CPU_FEATURE_ACTIVE (SSSE3);
#else
  c->hw = false;
#endif
}

void
sha256_update (sha256_ctx *c, const void *data, size_t len)
{
  const uint8_t *p = data;

  c->total += len;
  if (c->buf_len > 0)
    {
      size_t take = 64 - c->buf_len < len ? 64 - c->buf_len : len;
      memcpy (c->buf + c->buf_len, p, take);
      c->buf_len += take, p += take, len -= take;
      if (c->buf_len < 64)
        return;
      compress_blocks (c, c->h, c->buf, 1);
      c->buf_len = 0;
    }
  compress_blocks (c, c->h, p, len / 64);
  p += len / 64 * 64;
  len %= 64;
  memcpy (c->buf, p, len);
  c->buf_len = len;
}

void
sha256_final (sha256_ctx *c, uint8_t out[SHA256_DIGEST_LEN])
{
  uint64_t bits = c->total * 8;
  uint8_t pad[72] = { 0x80 };
  size_t padlen = (c->buf_len < 56 ? 56 : 120) - c->buf_len;

  for (int i = 0; i < 8; i++)
    pad[padlen + i] = (uint8_t) (bits >> (56 - 8 * i));
  sha256_update (c, pad, padlen + 8);
  for (int i = 0; i < 8; i++)
    {
      out[4 * i] = (uint8_t) (c->h[i] >> 24);
      out[4 * i + 1] = (uint8_t) (c->h[i] >> 16);
      out[4 * i + 2] = (uint8_t) (c->h[i] >> 8);
      out[4 * i + 3] = (uint8_t) c->h[i];
    }
}

void
sha256 (const void *data, size_t len, uint8_t out[SHA256_DIGEST_LEN])
{
  sha256_ctx c;
  sha256_init (&c);
  sha256_update (&c, data, len);
  sha256_final (&c, out);
}

void
sha256_hex (const uint8_t digest[SHA256_DIGEST_LEN], char hex[2 * SHA256_DIGEST_LEN + 1])
{
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < SHA256_DIGEST_LEN; i++)
    {
      hex[2 * i] = digits[digest[i] >> 4];
      hex[2 * i + 1] = digits[digest[i] & 15];
    }
  hex[2 * SHA256_DIGEST_LEN] = '\0';
}
