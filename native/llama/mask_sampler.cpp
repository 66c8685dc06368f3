#include "mask_sampler.hpp"
#include "mask_state.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace toolmask::llama {
namespace {

MaskState& state(const llama_sampler* s) { return *static_cast<MaskState*>(s->ctx); }

const char* maskName(const llama_sampler*) { return "toolmask"; }

void maskAccept(llama_sampler* s, llama_token token) {
  MaskState& st = state(s);
  if (token < 0 || !st.matcher.acceptToken(uint32_t(token))) st.stats->rejectedToken = true;
}

// Generic path: the array may be sorted or cut by earlier samplers, so each entry is looked up
// by its token id.
bool maskById(const uint32_t* mask, uint32_t vocabSize, llama_token_data_array* cur) {
  bool any = false;
  for (size_t i = 0; i < cur->size; i++) {
    const llama_token id = cur->data[i].id;
    const bool allowed = id >= 0 && uint32_t(id) < vocabSize && (mask[uint32_t(id) >> 5] >> (uint32_t(id) & 31)) & 1u;
    if (!allowed) cur->data[i].logit = -INFINITY;
    any = any || allowed;
  }
  return any;
}

// Fast path for the array llama_sampler_sample builds (entry i is token i), seen only by the first
// sampler of a chain: whole words of the mask at once, so free text (nearly everything allowed)
// costs a pass over ~4,700 words, not over every candidate.
bool maskByPosition(const uint32_t* mask, uint32_t vocabSize, llama_token_data_array* cur) {
  llama_token_data* d = cur->data;
  const size_t n = cur->size;
  const size_t covered = std::min<size_t>(n, vocabSize);
  bool any = false;
  for (size_t w = 0; w * 32 < covered; w++) {
    const uint32_t bits = mask[w];
    const size_t base = w * 32, end = std::min(base + 32, covered);
    if (bits == ~0u && end - base == 32) {
      any = true;
      continue;
    }
    for (size_t i = base; i < end; i++) {
      if ((bits >> (i - base)) & 1u) any = true;
      else d[i].logit = -INFINITY;
    }
  }
  for (size_t i = covered; i < n; i++) d[i].logit = -INFINITY;  // ids past the grammar's vocabulary
  return any;
}

bool inIdOrder(const llama_token_data_array* cur) {
  // Cheap spot checks of the layout llama_sampler_sample writes; anything else takes the generic path.
  const size_t n = cur->size;
  return !cur->sorted && n > 0 && cur->data[0].id == 0 && cur->data[n - 1].id == llama_token(n - 1) &&
         cur->data[n / 2].id == llama_token(n / 2);
}

void maskApply(llama_sampler* s, llama_token_data_array* cur) {
  MaskState& st = state(s);
  auto t0 = std::chrono::steady_clock::now();
  // Nothing allowed (a dead end): leave the logits alone, since sampling from all -inf is
  // undefined, and report it; the decode loop stops with an error.
  if (!st.matcher.grammar().hasAllowedToken(st.matcher.state())) {
    st.stats->noTokenAllowed = true;
    return;
  }
  st.matcher.fillNextTokenBitmask(st.bitmask.data(), st.bitmask.size());
  const bool fast = st.firstInChain && inIdOrder(cur);
  if (!(fast ? maskByPosition : maskById)(st.bitmask.data(), st.vocabSize, cur)) st.stats->noTokenAllowed = true;
  st.stats->applyNanos += uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  st.stats->applyCount++;
}

void maskReset(llama_sampler* s) { state(s).matcher.reset(); }

void maskFree(llama_sampler* s) { delete static_cast<MaskState*>(s->ctx); }

// No clone: a chain holding this sampler is never cloned here.
llama_sampler_i cpuInterface = {
    /* .name              = */ maskName,
    /* .accept            = */ maskAccept,
    /* .apply             = */ maskApply,
    /* .reset             = */ maskReset,
    /* .clone             = */ nullptr,
    /* .free              = */ maskFree,
    /* .backend_init      = */ nullptr,
    /* .backend_accept    = */ nullptr,
    /* .backend_apply     = */ nullptr,
    /* .backend_set_input = */ nullptr,
    /* .backend_reset     = */ nullptr,
    /* .copy_state        = */ nullptr,
};

// The same sampler with the backend hooks (mask_backend.cpp): inside the graph when the chain is
// attached to a context; apply() still serves a chain sampled on the host.
llama_sampler_i backendInterface = {
    /* .name              = */ maskName,
    /* .accept            = */ maskAccept,
    /* .apply             = */ maskApply,
    /* .reset             = */ maskReset,
    /* .clone             = */ nullptr,
    /* .free              = */ maskFree,
    /* .backend_init      = */ maskBackendInit,
    /* .backend_accept    = */ nullptr,  // never called by this llama.cpp; accept() carries the state
    /* .backend_apply     = */ maskBackendApply,
    /* .backend_set_input = */ maskBackendSetInput,
    /* .backend_reset     = */ maskBackendReset,
    /* .copy_state        = */ nullptr,
};

}  // namespace

llama_sampler* makeMaskSampler(const Api& a, std::shared_ptr<CompiledGrammar> grammar, MaskStats* stats, bool firstInChain,
                               bool backendHooks) {
  const uint32_t n = grammar->vocab().size();
  // TOOLMASK_MASK_BY_ID=1 forces the generic path (tests compare the two paths' tokens).
  const char* byId = std::getenv("TOOLMASK_MASK_BY_ID");
  const bool fast = firstInChain && !(byId && *byId && *byId != '0');
  auto* st = new MaskState{Matcher(std::move(grammar)), std::vector<uint32_t>((n + 31) / 32), n, fast, stats, &a, BackendMask::Dense, nullptr, false, {}};
  return a.llama_sampler_init(backendHooks ? &backendInterface : &cpuInterface, st);
}

Matcher& maskMatcher(llama_sampler* sampler) { return state(sampler).matcher; }

}  // namespace toolmask::llama
