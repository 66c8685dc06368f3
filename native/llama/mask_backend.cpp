// The mask on llama.cpp's backend sampling path: the host writes the matcher's bitmask into an
// input tensor before every graph run (backend_set_input); graph ops turn it into 0 / -inf and add
// it to the logits where they live. accept() on the host advances the matcher, as
// llama_sampler_sample calls it for backend-sampled tokens too.
//
// llama.cpp reuses a built graph while the samplers stay the same, so the input's shape is fixed at
// build time (backend_apply) and only its contents change per step. Two representations:
// - Dense: one F32 per logit, 0 or -inf (n_vocab * 4 bytes per step, ~600 KB for Qwen3).
// - Packed: 16 bits per F32 word (1/16 of the upload), unpacked in the graph as
//   bit_j(w) = floor(w / 2^j) - 2 floor(w / 2^(j+1)); all values are exact in F32, and log(bit)
//   gives 0 / -inf. The logits are padded to a multiple of 16 for the unpacking and cut back after.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "mask_state.hpp"

namespace toolmask::llama {
namespace {

constexpr int64_t kBits = 16;

// Packed input layout: [words (n / 16)] [2^-j, j < 16] [2^-(j+1), j < 16].
ggml_tensor* packedMask(const Api& a, ggml_context* ctx, ggml_tensor* input, ggml_tensor* logits2d) {
  const int64_t words = logits2d->ne[1];
  const size_t f = sizeof(float);
  ggml_tensor* w = a.ggml_view_2d(ctx, input, 1, words, f, 0);
  ggml_tensor* low = a.ggml_view_2d(ctx, input, kBits, 1, kBits * f, size_t(words) * f);
  ggml_tensor* high = a.ggml_view_2d(ctx, input, kBits, 1, kBits * f, size_t(words + kBits) * f);
  ggml_tensor* spread = a.ggml_repeat(ctx, w, logits2d);  // [16, words]: each word 16 times
  ggml_tensor* bit = a.ggml_sub(ctx, a.ggml_floor(ctx, a.ggml_mul(ctx, spread, low)),
                                a.ggml_scale(ctx, a.ggml_floor(ctx, a.ggml_mul(ctx, spread, high)), 2.0f));
  return a.ggml_log(ctx, bit);  // 1 → 0, 0 → -inf
}

void fillDense(MaskState& st, float* out, size_t n, bool maskNothing) {
  if (maskNothing) return std::fill(out, out + n, 0.0f);
  const size_t covered = std::min<size_t>(n, st.vocabSize);
  for (size_t w = 0; w * 32 < covered; w++) {
    const uint32_t bits = st.bitmask[w];
    const size_t base = w * 32, end = std::min(base + 32, covered);
    if (bits == ~0u && end - base == 32)
      std::fill(out + base, out + end, 0.0f);
    else if (bits == 0)
      std::fill(out + base, out + end, -INFINITY);
    else
      for (size_t i = base; i < end; i++) out[i] = (bits >> (i - base)) & 1u ? 0.0f : -INFINITY;
  }
  std::fill(out + covered, out + n, -INFINITY);
}

void fillPacked(MaskState& st, float* out, size_t n, bool maskNothing) {
  const size_t words = (n - 2 * kBits);
  for (size_t k = 0; k < words; k++) {
    // Ids past the grammar's vocabulary stay masked: their bits are 0 (or past the bitmask).
    const size_t w32 = k >> 1;
    const uint32_t bits = maskNothing               ? 0xFFFFu
                          : w32 < st.bitmask.size() ? (st.bitmask[w32] >> (16 * (k & 1))) & 0xFFFFu
                                                    : 0u;
    out[k] = float(bits);
  }
  if (maskNothing) return;
  // Bits past vocabSize inside the last word must not unmask ids the grammar does not know.
  for (size_t id = st.vocabSize; id < words * kBits && id < st.vocabSize + 32; id++)
    out[id / kBits] = float(uint32_t(out[id / kBits]) & ~(1u << (id % kBits)));
}

}  // namespace

BackendMask chooseBackendMask(const Api& a, ggml_backend_buffer_type_t logitsBuffer) {
  // TOOLMASK_BACKEND_MASK=dense|packed overrides (the benchmark and the tests compare the two).
  // generate() refuses any other non-empty value before decoding (src/engine/options-check.ts),
  // so the default below is what unset or empty means.
  const char* v = std::getenv("TOOLMASK_BACKEND_MASK");
  if (v && std::strcmp(v, "dense") == 0) return BackendMask::Dense;
  if (v && std::strcmp(v, "packed") == 0) return BackendMask::Packed;
  // Measured (docs/decoding.md): packing saves ~120-220 µs of host work per token everywhere, but
  // on the CPU backend the unpacking ops compete with the model for the same cores and cost more
  // than they save; on a GPU they are a few µs and the upload shrinks 16-fold.
  return a.ggml_backend_buft_is_host(logitsBuffer) ? BackendMask::Dense : BackendMask::Packed;
}

bool maskBackendInit(llama_sampler* s, ggml_backend_buffer_type_t buft, uint32_t nOutputsMaxPerSeq) {
  MaskState& st = maskState(s);
  st.representation = chooseBackendMask(*st.api, buft);
  // One input serves every output row of a sequence: only one row per sequence is supported.
  return nOutputsMaxPerSeq <= 1;
}

void maskBackendApply(llama_sampler* s, ggml_context* ctx, ggml_cgraph*, llama_sampler_data* data) {
  MaskState& st = maskState(s);
  const Api& a = *st.api;
  // Sized from the logits, not the vocabulary: chain init probes with 1,048,576 fake logits.
  const int64_t n = a.ggml_nelements(data->logits);
  if (st.representation == BackendMask::Packed) {
    const int64_t words = (n + kBits - 1) / kBits;
    st.input = a.ggml_new_tensor_1d(ctx, GGML_TYPE_F32, words + 2 * kBits);
    a.ggml_set_name(st.input, "toolmask_mask_packed");
    a.ggml_set_input(st.input);
    ggml_tensor* flat = a.ggml_reshape_1d(ctx, data->logits, n);
    if (words * kBits != n) flat = a.ggml_pad(ctx, flat, int(words * kBits - n), 0, 0, 0);
    ggml_tensor* logits2d = a.ggml_reshape_2d(ctx, flat, kBits, words);
    ggml_tensor* masked = a.ggml_add(ctx, logits2d, packedMask(a, ctx, st.input, logits2d));
    ggml_tensor* cut = words * kBits == n ? masked : a.ggml_view_1d(ctx, masked, n, 0);
    data->logits = a.ggml_reshape(ctx, cut, data->logits);
    return;
  }
  st.input = a.ggml_new_tensor(ctx, GGML_TYPE_F32, a.ggml_n_dims(data->logits), data->logits->ne);
  a.ggml_set_name(st.input, "toolmask_mask");
  a.ggml_set_input(st.input);
  data->logits = a.ggml_add(ctx, data->logits, st.input);
}

void maskBackendSetInput(llama_sampler* s) {
  MaskState& st = maskState(s);
  if (!st.input) return;
  auto t0 = std::chrono::steady_clock::now();
  const Api& a = *st.api;
  const size_t n = size_t(a.ggml_nelements(st.input));
  st.staging.resize(n);
  // A dead end: mask nothing (sampling from all -inf is undefined); the decode loop reports it.
  st.matcher.fillNextTokenBitmask(st.bitmask.data(), st.bitmask.size(), st.tokensLeft);
  const bool deadEnd = std::all_of(st.bitmask.begin(), st.bitmask.end(), [](uint32_t w) { return w == 0; });
  if (deadEnd) st.stats->noTokenAllowed = true;
  if (st.representation == BackendMask::Packed) {
    fillPacked(st, st.staging.data(), n, deadEnd);
    for (int64_t j = 0; j < kBits; j++) {
      st.staging[n - 2 * kBits + j] = std::ldexp(1.0f, int(-j));
      st.staging[n - kBits + j] = std::ldexp(1.0f, int(-j - 1));
    }
  } else {
    fillDense(st, st.staging.data(), n, deadEnd);
  }
  a.ggml_backend_tensor_set(st.input, st.staging.data(), 0, n * sizeof(float));
  st.stats->applyNanos +=
      uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  st.stats->applyCount++;
  st.stats->backendInputs++;
}

void maskBackendReset(llama_sampler* s) { maskState(s).input = nullptr; }

}  // namespace toolmask::llama
