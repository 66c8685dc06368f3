// Mask bits packed into F32 words and turned back into 0 / -inf by graph ops, for the packed and
// resident representations of the backend mask (mask_backend.cpp, mask_resident.cpp).
//
// A word holds `bits` mask bits (bits <= 24) as the exact integer sum of bit_j · 2^j; an F32 holds
// every integer below 2^24 exactly. Bit j of word w is floor(w·2^-j) − 2·floor(w·2^-(j+1)): each
// product scales by a power of two (exact), so each floor is exact, and log(bit) is 0 (allowed) or
// -inf (rejected). The logits are padded to a multiple of `bits` for the unpacking and cut back after.
#pragma once
#include <cstddef>
#include <cstdint>

#include "llama_api.hpp"

namespace toolmask::llama {

// The logits (any shape, n elements) plus the mask in `words` ([1, ceil(n / bits)] F32), with the
// scales packScales writes at byte `scalesOffset` of `scales`. Returns the masked logits, same shape.
ggml_tensor* addPackedMask(const Api& a, ggml_context* ctx, ggml_tensor* logits, ggml_tensor* words,
                           ggml_tensor* scales, size_t scalesOffset, int64_t bits);

// The unpacking's scales: [2^-j for j < bits] then [2^-(j+1) for j < bits] (2 · bits floats).
void packScales(float* out, int64_t bits);

// Packs ids [0, vocabSize) of the 32-bit bitmask `mask` (bit id & 31 of word id >> 5) into `words`
// F32 words of `bits` bits each; ids from vocabSize on are 0 (rejected).
void packBits(const uint32_t* mask, uint32_t vocabSize, float* out, size_t words, int64_t bits);

// Every bit set, ids past the vocabulary included: the mask that masks nothing (a dead end, as the
// other representations and the CPU path leave the logits alone there).
void packAllowAll(float* out, size_t words, int64_t bits);

}  // namespace toolmask::llama
