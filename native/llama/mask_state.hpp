// The mask sampler's state, shared by its CPU hooks (mask_sampler.cpp) and its backend hooks
// (mask_backend.cpp). Internal to native/llama.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "llama_api.hpp"
#include "mask_resident.hpp"
#include "mask_sampler.hpp"
#include "toolmask/matcher.hpp"

namespace toolmask::llama {

// Dense: one F32 per logit (0 or -inf), added to the logits. Packed: 16 mask bits per F32 (exact
// integers below 2^16), 1/16 of the upload, unpacked into 0 / -inf by graph ops. Resident: each
// state's mask uploaded once into a table on the device (mask_resident.hpp); a row index per step.
enum class BackendMask { Dense, Packed, Resident };

struct MaskState {
  Matcher matcher;
  std::vector<uint32_t> bitmask;
  uint32_t vocabSize;
  bool firstInChain;
  MaskStats* stats;
  const Api* api;
  // Backend path: how the mask travels into the graph (mask_backend.cpp), its input tensor in the
  // current sampling graph, and the host copy of that input.
  BackendMask representation = BackendMask::Dense;
  ggml_tensor* input = nullptr;
  std::vector<float> staging;
  bool prefetch = true;     // build the next state's mask on the prefetch thread after each accept
  bool held = false;        // a PrefetchHold is open: accept() queues nothing
  uint32_t tokensLeft = 0;  // tokens the request may still generate, the next one included (0: no budget)
  std::unique_ptr<ResidentTable> resident;  // Resident: the table (made by backend_init)
};

inline MaskState& maskState(const llama_sampler* s) { return *static_cast<MaskState*>(s->ctx); }

bool maskBackendInit(llama_sampler* s, ggml_backend_buffer_type_t buft, uint32_t nOutputsMaxPerSeq);
void maskBackendApply(llama_sampler* s, ggml_context* ctx, ggml_cgraph* gf, llama_sampler_data* data);
void maskBackendSetInput(llama_sampler* s);
void maskBackendReset(llama_sampler* s);

}  // namespace toolmask::llama
