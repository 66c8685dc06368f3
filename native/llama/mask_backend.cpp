// The mask on llama.cpp's backend sampling path: a dense F32 input of the logits' shape holding 0
// for allowed tokens and -inf for the rest, added to the logits inside the graph. The host fills
// it before every graph run (backend_set_input) from the matcher's bitmask; accept() on the host
// advances the matcher, as llama_sampler_sample calls it for backend-sampled tokens too.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "mask_state.hpp"

namespace toolmask::llama {
namespace {

MaskState& state(llama_sampler* s) { return *static_cast<MaskState*>(s->ctx); }

}  // namespace

bool maskBackendInit(llama_sampler*, ggml_backend_buffer_type_t, uint32_t nOutputsMaxPerSeq) {
  // One input serves every output row of a sequence: only one row per sequence is supported.
  return nOutputsMaxPerSeq <= 1;
}

void maskBackendApply(llama_sampler* s, ggml_context* ctx, ggml_cgraph*, llama_sampler_data* data) {
  MaskState& st = state(s);
  const Api& a = *st.api;
  if (!st.input) {
    // Sized from the logits, not the vocabulary: chain init probes with 1,048,576 fake logits.
    st.input = a.ggml_new_tensor(ctx, GGML_TYPE_F32, a.ggml_n_dims(data->logits), data->logits->ne);
    a.ggml_set_name(st.input, "toolmask_mask");
    a.ggml_set_input(st.input);
  }
  data->logits = a.ggml_add(ctx, data->logits, st.input);
}

void maskBackendSetInput(llama_sampler* s) {
  MaskState& st = state(s);
  if (!st.input) return;
  auto t0 = std::chrono::steady_clock::now();
  const Api& a = *st.api;
  const size_t n = size_t(a.ggml_nelements(st.input));
  st.staging.resize(n);
  float* out = st.staging.data();
  if (!st.matcher.grammar().hasAllowedToken(st.matcher.state())) {
    // A dead end: mask nothing (sampling from all -inf is undefined); the decode loop reports it.
    st.stats->noTokenAllowed = true;
    std::fill(out, out + n, 0.0f);
  } else {
    st.matcher.fillNextTokenBitmask(st.bitmask.data(), st.bitmask.size());
    const size_t covered = std::min<size_t>(n, st.vocabSize);
    for (size_t w = 0; w * 32 < covered; w++) {
      const uint32_t bits = st.bitmask[w];
      const size_t base = w * 32, end = std::min(base + 32, covered);
      if (bits == ~0u && end - base == 32) std::fill(out + base, out + end, 0.0f);
      else if (bits == 0) std::fill(out + base, out + end, -INFINITY);
      else for (size_t i = base; i < end; i++) out[i] = (bits >> (i - base)) & 1u ? 0.0f : -INFINITY;
    }
    std::fill(out + covered, out + n, -INFINITY);
  }
  a.ggml_backend_tensor_set(st.input, out, 0, n * sizeof(float));
  st.stats->applyNanos += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  st.stats->applyCount++;
  st.stats->backendInputs++;
}

void maskBackendReset(llama_sampler* s) { state(s).input = nullptr; }

}  // namespace toolmask::llama
