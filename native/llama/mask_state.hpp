// The mask sampler's state, shared by its CPU hooks (mask_sampler.cpp) and its backend hooks
// (mask_backend.cpp). Internal to native/llama.
#pragma once
#include <cstdint>
#include <vector>

#include "../core/matcher.hpp"
#include "llama_api.hpp"
#include "mask_sampler.hpp"

namespace toolmask::llama {

struct MaskState {
  Matcher matcher;
  std::vector<uint32_t> bitmask;
  uint32_t vocabSize;
  bool firstInChain;
  MaskStats* stats;
  const Api* api;
  ggml_tensor* input = nullptr;  // backend path: 0 / -inf per logit, in the current sampling graph
  std::vector<float> staging;    // host copy of that input
};

bool maskBackendInit(llama_sampler* s, ggml_backend_buffer_type_t buft, uint32_t nOutputsMaxPerSeq);
void maskBackendApply(llama_sampler* s, ggml_context* ctx, ggml_cgraph* gf, llama_sampler_data* data);
void maskBackendSetInput(llama_sampler* s);
void maskBackendReset(llama_sampler* s);

}  // namespace toolmask::llama
