// UTF-8 facts shared by the NFA builder (code point ranges → byte sequences)
// and the vocabulary (is a token's tail a valid UTF-8 continuation?).
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace toolmask::utf8 {

using ByteRange = std::pair<uint8_t, uint8_t>;

// Writes code point `cp`'s UTF-8 bytes (cp <= 0x10FFFF) into `out` (room for 4); returns how many.
int encode(uint32_t cp, uint8_t* out);

// Appends byte-range sequences that together match exactly the UTF-8 encodings
// of code points in [lo, hi] (surrogates excluded).
void encodeRange(uint32_t lo, uint32_t hi, std::vector<std::vector<ByteRange>>& out);

// A validator over 8 phases: Boundary, then the constraints on the next byte.
enum Phase : uint8_t { Boundary = 0, Cont1, Cont2, Cont3, AfterE0, AfterED, AfterF0, AfterF4, Invalid = 255 };
constexpr int kPhases = 8;

// Next phase after `b`, or Invalid.
uint8_t stepSlow(uint8_t phase, uint8_t b);
extern const uint8_t (&kStep)[kPhases][256];
inline uint8_t step(uint8_t phase, uint8_t b) { return phase < kPhases ? kStep[phase][b] : uint8_t(Invalid); }

}  // namespace toolmask::utf8
