// The mask on llama.cpp's backend sampling path: the host writes the matcher's bitmask into an
// input tensor before every graph run (backend_set_input); graph ops turn it into 0 / -inf and add
// it to the logits where they live. accept() on the host advances the matcher, as
// llama_sampler_sample calls it for backend-sampled tokens too.
//
// llama.cpp reuses a built graph while the samplers stay the same, so the input's shape is fixed at
// build time (backend_apply) and only its contents change per step. Three representations:
// - Dense: one F32 per logit, 0 or -inf (n_vocab * 4 bytes per step, ~600 KB for Qwen3).
// - Packed: 16 bits per F32 word (1/16 of the upload), unpacked by graph ops (mask_unpack.hpp).
// - Resident: the states' masks in a table on the device, a row index per step (mask_resident.hpp).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "mask_state.hpp"
#include "mask_unpack.hpp"

namespace toolmask::llama {
namespace {

constexpr int64_t kBits = 16;

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

// Dense and packed: the whole mask into this graph's input.
void fillInput(MaskState& st) {
  const Api& a = *st.api;
  const size_t n = size_t(a.ggml_nelements(st.input));
  st.staging.resize(n);
  // A dead end: mask nothing (sampling from all -inf is undefined); the decode loop reports it.
  st.matcher.fillNextTokenBitmask(st.bitmask.data(), st.bitmask.size(), st.tokensLeft);
  const bool deadEnd = std::all_of(st.bitmask.begin(), st.bitmask.end(), [](uint32_t w) { return w == 0; });
  if (deadEnd) st.stats->noTokenAllowed = true;
  if (st.representation == BackendMask::Packed) {
    fillPacked(st, st.staging.data(), n, deadEnd);
    packScales(&st.staging[n - 2 * kBits], kBits);
  } else {
    fillDense(st, st.staging.data(), n, deadEnd);
  }
  a.ggml_backend_tensor_set(st.input, st.staging.data(), 0, n * sizeof(float));
}

}  // namespace

BackendMask chooseBackendMask(const Api& a, ggml_backend_buffer_type_t logitsBuffer) {
  // TOOLMASK_BACKEND_MASK=dense|packed|resident overrides (the benchmark and the tests compare them).
  // generate() refuses any other non-empty value before decoding (src/engine/options-check.ts),
  // so the default below is what unset or empty means.
  const char* v = std::getenv("TOOLMASK_BACKEND_MASK");
  if (v && std::strcmp(v, "dense") == 0) return BackendMask::Dense;
  if (v && std::strcmp(v, "packed") == 0) return BackendMask::Packed;
  if (v && std::strcmp(v, "resident") == 0) return BackendMask::Resident;
  // Measured (docs/decoding.md): packing saves ~120-220 µs of host work per token everywhere, but
  // on the CPU backend the unpacking ops compete with the model for the same cores and cost more
  // than they save; on a GPU they are a few µs and the upload shrinks 16-fold.
  return a.ggml_backend_buft_is_host(logitsBuffer) ? BackendMask::Dense : BackendMask::Packed;
}

bool maskBackendInit(llama_sampler* s, ggml_backend_buffer_type_t buft, uint32_t nOutputsMaxPerSeq) {
  MaskState& st = maskState(s);
  st.representation = chooseBackendMask(*st.api, buft);
  // One input serves every output row of a sequence: only one row per sequence is supported.
  if (nOutputsMaxPerSeq > 1) return false;
  if (st.representation != BackendMask::Resident) return true;
  // A table that cannot be allocated: the chain samples on the host (results then say maskPath "cpu").
  st.resident = ResidentTable::create(*st.api, buft, st.vocabSize, st.stats);
  return st.resident != nullptr;
}

void maskBackendApply(llama_sampler* s, ggml_context* ctx, ggml_cgraph*, llama_sampler_data* data) {
  MaskState& st = maskState(s);
  const Api& a = *st.api;
  // Sized from the logits, not the vocabulary: chain init probes with 1,048,576 fake logits.
  const int64_t n = a.ggml_nelements(data->logits);
  if (st.representation == BackendMask::Resident) {
    data->logits = st.resident->apply(ctx, data->logits);
    return;
  }
  if (st.representation == BackendMask::Packed) {
    // Input layout: [words (n / 16)] [packScales' 2 · 16 floats].
    const int64_t words = (n + kBits - 1) / kBits;
    st.input = a.ggml_new_tensor_1d(ctx, GGML_TYPE_F32, words + 2 * kBits);
    a.ggml_set_name(st.input, "toolmask_mask_packed");
    a.ggml_set_input(st.input);
    ggml_tensor* w = a.ggml_view_2d(ctx, st.input, 1, words, sizeof(float), 0);
    data->logits = addPackedMask(a, ctx, data->logits, w, st.input, size_t(words) * sizeof(float), kBits);
    return;
  }
  st.input = a.ggml_new_tensor(ctx, GGML_TYPE_F32, a.ggml_n_dims(data->logits), data->logits->ne);
  a.ggml_set_name(st.input, "toolmask_mask");
  a.ggml_set_input(st.input);
  data->logits = a.ggml_add(ctx, data->logits, st.input);
}

void maskBackendSetInput(llama_sampler* s) {
  const CountLockWaits counting(&maskState(s).stats->lockWaits);
  MaskState& st = maskState(s);
  auto t0 = std::chrono::steady_clock::now();
  if (st.representation == BackendMask::Resident) {
    if (!st.resident->setInput(st.matcher, st.tokensLeft, st.bitmask)) return;
  } else if (st.input) {
    fillInput(st);
  } else {
    return;
  }
  st.stats->applyNanos +=
      uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  st.stats->applyCount++;
  st.stats->backendInputs++;
}

void maskBackendReset(llama_sampler* s) {
  MaskState& st = maskState(s);
  st.input = nullptr;
  if (st.resident) st.resident->resetGraph();
}

}  // namespace toolmask::llama
