#include "mask_unpack.hpp"

#include <cmath>

namespace toolmask::llama {

ggml_tensor* addPackedMask(const Api& a, ggml_context* ctx, ggml_tensor* logits, ggml_tensor* words,
                           ggml_tensor* scales, size_t scalesOffset, int64_t bits) {
  const int64_t n = a.ggml_nelements(logits);
  const int64_t nWords = words->ne[1];
  const size_t f = sizeof(float);
  ggml_tensor* flat = a.ggml_reshape_1d(ctx, logits, n);
  if (nWords * bits != n) flat = a.ggml_pad(ctx, flat, int(nWords * bits - n), 0, 0, 0);
  ggml_tensor* logits2d = a.ggml_reshape_2d(ctx, flat, bits, nWords);
  ggml_tensor* low = a.ggml_view_2d(ctx, scales, bits, 1, size_t(bits) * f, scalesOffset);
  ggml_tensor* high = a.ggml_view_2d(ctx, scales, bits, 1, size_t(bits) * f, scalesOffset + size_t(bits) * f);
  ggml_tensor* spread = a.ggml_repeat(ctx, words, logits2d);  // [bits, words]: each word `bits` times
  ggml_tensor* bit = a.ggml_sub(ctx, a.ggml_floor(ctx, a.ggml_mul(ctx, spread, low)),
                                a.ggml_scale(ctx, a.ggml_floor(ctx, a.ggml_mul(ctx, spread, high)), 2.0f));
  ggml_tensor* masked = a.ggml_add(ctx, logits2d, a.ggml_log(ctx, bit));  // log: 1 → 0, 0 → -inf
  ggml_tensor* cut = nWords * bits == n ? masked : a.ggml_view_1d(ctx, masked, n, 0);
  return a.ggml_reshape(ctx, cut, logits);
}

void packScales(float* out, int64_t bits) {
  for (int64_t j = 0; j < bits; j++) {
    out[j] = std::ldexp(1.0f, int(-j));
    out[bits + j] = std::ldexp(1.0f, int(-j - 1));
  }
}

void packBits(const uint32_t* mask, uint32_t vocabSize, float* out, size_t words, int64_t bits) {
  const size_t maskWords = (size_t(vocabSize) + 31) / 32;
  const uint32_t all = (1u << bits) - 1u;
  for (size_t k = 0; k < words; k++) {
    const uint64_t first = uint64_t(k) * uint64_t(bits);  // the id of bit 0
    uint32_t v = 0;
    if (first < vocabSize) {
      const size_t w = size_t(first >> 5);
      const unsigned shift = unsigned(first & 31);
      uint64_t x = uint64_t(mask[w]) >> shift;
      if (w + 1 < maskWords) x |= uint64_t(mask[w + 1]) << (32 - shift);
      v = uint32_t(x) & all;
      if (first + uint64_t(bits) > vocabSize) v &= (1u << (vocabSize - first)) - 1u;  // ids past the vocabulary
    }
    out[k] = float(v);
  }
}

void packAllowAll(float* out, size_t words, int64_t bits) {
  for (size_t k = 0; k < words; k++) out[k] = float((1u << bits) - 1u);
}

}  // namespace toolmask::llama
