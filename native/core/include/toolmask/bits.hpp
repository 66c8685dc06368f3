// Bit tricks GCC/Clang spell as builtins and MSVC as intrinsics; same results on every compiler.
#pragma once

#include <cstdint>
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#endif

namespace toolmask {

/** Index of the lowest set bit; `x` must not be 0. */
inline int lowestBit(uint64_t x) {
#if defined(_MSC_VER) && !defined(__clang__)
  unsigned long i;
  _BitScanForward64(&i, x);
  return int(i);
#else
  return __builtin_ctzll(x);
#endif
}

/** The high 64 bits of a × b (maps a uniform 64-bit draw onto [0, b) without division). */
inline uint64_t mulHigh(uint64_t a, uint64_t b) {
#if defined(_MSC_VER) && !defined(__clang__)
  return __umulh(a, b);
#else
  return uint64_t((unsigned __int128)a * b >> 64);
#endif
}

/** Set bits in a 32-bit word, without the popcnt instruction (not in the baseline x86-64 target). */
inline int setBits(uint32_t x) {
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  return int((((x + (x >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

}  // namespace toolmask
