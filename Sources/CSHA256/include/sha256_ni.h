#ifndef SHA256_NI_H
#define SHA256_NI_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has the x86 SHA extensions (and the SSSE3 / SSE4.1 the rounds need), else 0;
/// always 0 on other architectures. Asked once by the caller, not per block.
int sha256_ni_available(void);

/// SHA-256's compression function (FIPS 180-4, 6.2.2) over `blocks` 64-byte blocks at `data`, updating
/// the eight state words `state` (a..h, host order) in place, with the SHA-NI instructions. Call only
/// when sha256_ni_available() said 1.
void sha256_ni_compress(uint32_t state[8], const uint8_t *data, size_t blocks);

#endif
