// SHA-256 blocks with the x86 SHA extensions (sha256rnds2 / sha256msg1 / sha256msg2), for the source
// files' digests an index build checks (Storage/SHA256.swift keeps the portable Swift rounds for other
// CPUs and as the tests' reference). The scalar rounds cost 22 instructions a byte, 13 % of a bundled
// build; these about 2.
//
// The instructions keep the eight working words in two registers, ABEF and CDGH (highest lane first),
// and sha256rnds2(cdgh, abef, wk) runs two rounds with the two message-plus-constant words in wk's low
// half, returning the new ABEF (the old ABEF is then the new CDGH). Four rounds are two such calls, the
// second with wk's high half moved down; the roles of the two registers swap back after each pair.
// sha256msg1 / sha256msg2 compute four new schedule words W[t] = s1(W[t-2]) + W[t-7] + s0(W[t-15]) +
// W[t-16]: msg1 adds s0 of the next word to each of W[t-16..t-13], the caller adds W[t-7..t-4], and
// msg2 adds s1(W[t-2]), the two last lanes depending on the two first it produces.
#include "sha256_ni.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>

int sha256_ni_available(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    int sha = (b >> 29) & 1;
    return ssse3 && sse41 && sha;
}

static const uint32_t k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

__attribute__((target("sha,sse4.1,ssse3")))
void sha256_ni_compress(uint32_t state[8], const uint8_t *data, size_t blocks) {
    // The message is big-endian words: reverse the bytes of each 32-bit lane.
    const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    // state lanes (lowest first) a b c d / e f g h  ->  ABEF = f e b a, CDGH = h g d c.
    __m128i abcd = _mm_loadu_si128((const __m128i *)&state[0]);
    __m128i efgh = _mm_loadu_si128((const __m128i *)&state[4]);
    __m128i badc = _mm_shuffle_epi32(abcd, 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(efgh, 0x1B);
    __m128i abef = _mm_alignr_epi8(badc, hgfe, 8);
    __m128i cdgh = _mm_blend_epi16(hgfe, badc, 0xF0);

    for (size_t b = 0; b < blocks; b++, data += 64) {
        const __m128i saved_abef = abef, saved_cdgh = cdgh;
        __m128i m[4];
        for (int g = 0; g < 16; g++) {
            if (g < 4) {
                m[g] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(data + 16 * g)), byteswap);
            } else {
                // m[g % 4] holds W[4g-16..4g-13]; the next three groups follow it cyclically.
                __m128i w16 = m[g & 3], w12 = m[(g + 1) & 3], w8 = m[(g + 2) & 3], w4 = m[(g + 3) & 3];
                __m128i t = _mm_add_epi32(_mm_sha256msg1_epu32(w16, w12), _mm_alignr_epi8(w4, w8, 4));
                m[g & 3] = _mm_sha256msg2_epu32(t, w4);
            }
            __m128i wk = _mm_add_epi32(m[g & 3], _mm_loadu_si128((const __m128i *)&k[4 * g]));
            cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
            abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
        }
        abef = _mm_add_epi32(abef, saved_abef);
        cdgh = _mm_add_epi32(cdgh, saved_cdgh);
    }

    // Back: ABEF = f e b a, CDGH = h g d c  ->  a b c d / e f g h.
    __m128i feba = abef;
    __m128i abfe = _mm_shuffle_epi32(feba, 0x1B);   // lanes a b e f
    __m128i ghcd = _mm_shuffle_epi32(cdgh, 0xB1);   // lanes g h c d
    abcd = _mm_blend_epi16(abfe, ghcd, 0xF0);       // a b c d
    efgh = _mm_alignr_epi8(ghcd, abfe, 8);          // e f g h
    _mm_storeu_si128((__m128i *)&state[0], abcd);
    _mm_storeu_si128((__m128i *)&state[4], efgh);
}

#else

int sha256_ni_available(void) { return 0; }
void sha256_ni_compress(uint32_t state[8], const uint8_t *data, size_t blocks) { (void)state; (void)data; (void)blocks; }

#endif
