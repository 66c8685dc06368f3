#include "mask_sampler.hpp"
#include "mask_state.hpp"
#include "toolmask/bits.hpp"
#include "toolmask/mask_prefetch.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace toolmask::llama {
namespace {

const char* maskName(const llama_sampler*) { return "toolmask"; }

void maskAccept(llama_sampler* s, llama_token token) {
  MaskState& st = maskState(s);
  if (token < 0 || !st.matcher.acceptToken(uint32_t(token))) {
    st.stats->rejectedToken = true;
    return;
  }
  // The next mask is wanted after the next forward pass: build it meanwhile (with the budget's
  // searches for one token fewer left).
  if (st.prefetch && !st.held)
    prefetchMask(st.matcher.sharedGrammar(), st.matcher.state(), st.tokensLeft > 1 ? st.tokensLeft - 1 : 0);
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
// sampler of a chain. Work in proportion to the smaller side: when most tokens are allowed, only
// the rejected ones are set to -inf (whole allowed words skipped); when most are rejected, the
// allowed entries are moved to the front in id order and the array is cut to them, which later
// samplers read exactly as the -inf entries (probability 0) they replace.
bool maskByPosition(const uint32_t* mask, uint32_t vocabSize, llama_token_data_array* cur) {
  llama_token_data* d = cur->data;
  const size_t n = cur->size;
  const size_t covered = std::min<size_t>(n, vocabSize);
  if (covered == 0) return false;
  const size_t words = (covered + 31) / 32;
  // Bits of the last word past `covered` are not candidates.
  const uint32_t tail = covered % 32 ? (1u << (covered % 32)) - 1u : ~0u;
  const auto bitsAt = [&](size_t w) { return w + 1 < words ? mask[w] : mask[w] & tail; };
  // Words are nearly all full (free text) or nearly all empty (structure): count those with a
  // compare and only the mixed ones bit by bit.
  size_t allowed = 0;
  for (size_t w = 0; w < words; w++) {
    const uint32_t bits = bitsAt(w);
    allowed += bits == ~0u ? 32 : bits == 0 ? 0 : size_t(setBits(bits));
  }
  if (allowed == 0) return false;
  if (allowed * 2 >= covered) {
    for (size_t w = 0; w < words; w++) {
      uint32_t rejected = ~bitsAt(w) & (w + 1 < words ? ~0u : tail);
      for (; rejected; rejected &= rejected - 1) d[w * 32 + size_t(lowestBit(rejected))].logit = -INFINITY;
    }
    for (size_t i = covered; i < n; i++) d[i].logit = -INFINITY;  // ids past the grammar's vocabulary
  } else {
    size_t k = 0;
    for (size_t w = 0; w < words; w++)
      for (uint32_t bits = bitsAt(w); bits; bits &= bits - 1) d[k++] = d[w * 32 + size_t(lowestBit(bits))];
    cur->size = k;
  }
  return true;
}

bool inIdOrder(const llama_token_data_array* cur) {
  // Cheap spot checks of the layout llama_sampler_sample writes; anything else takes the generic path.
  const size_t n = cur->size;
  return !cur->sorted && n > 0 && cur->data[0].id == 0 && cur->data[n - 1].id == llama_token(n - 1) &&
         cur->data[n / 2].id == llama_token(n / 2);
}

void maskApply(llama_sampler* s, llama_token_data_array* cur) {
  MaskState& st = maskState(s);
  auto t0 = std::chrono::steady_clock::now();
  // The bitmask says by itself whether anything is allowed (asking the grammar first would build
  // the mask twice for states with per-place exceptions). A dead end leaves the logits alone,
  // since sampling from all -inf is undefined, and is reported: the decode loop stops with an error.
  st.matcher.fillNextTokenBitmask(st.bitmask.data(), st.bitmask.size(), st.tokensLeft);
  const bool fast = st.firstInChain && inIdOrder(cur);
  if (!(fast ? maskByPosition : maskById)(st.bitmask.data(), st.vocabSize, cur)) st.stats->noTokenAllowed = true;
  st.stats->applyNanos +=
      uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0).count());
  st.stats->applyCount++;
}

void maskReset(llama_sampler* s) { maskState(s).matcher.reset(); }

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

llama_sampler* makeMaskSampler(const Api& a, std::shared_ptr<CompiledGrammar> grammar, MaskStats* stats,
                               bool firstInChain, bool backendHooks) {
  const uint32_t n = vocabularySize(grammarVocabulary(*grammar));
  // TOOLMASK_MASK_BY_ID=1 forces the generic path (tests compare the two paths' tokens).
  const char* byId = std::getenv("TOOLMASK_MASK_BY_ID");
  const bool fast = firstInChain && !(byId && *byId && *byId != '0');
  auto* st = new MaskState{Matcher(std::move(grammar)),
                           std::vector<uint32_t>((n + 31) / 32),
                           n,
                           fast,
                           stats,
                           &a,
                           BackendMask::Dense,
                           nullptr,
                           {},
                           true,
                           false,
                           0,
                           nullptr};
  // TOOLMASK_MASK_PREFETCH=0 builds every mask when sampling asks for it (to compare).
  const char* prefetch = std::getenv("TOOLMASK_MASK_PREFETCH");
  st->prefetch = !(prefetch && *prefetch == '0');
  return a.llama_sampler_init(backendHooks ? &backendInterface : &cpuInterface, st);
}

Matcher& maskMatcher(llama_sampler* sampler) { return maskState(sampler).matcher; }

void setTokensLeft(llama_sampler* mask, int64_t tokensLeft) {
  maskState(mask).tokensLeft = uint32_t(std::clamp<int64_t>(tokensLeft, 0, INT32_MAX));
}

void prefetchFirstStep(llama_sampler* mask) {
  MaskState& st = maskState(mask);
  if (st.prefetch) prefetchMask(st.matcher.sharedGrammar(), st.matcher.state(), st.tokensLeft);
}

bool acceptUnsampled(const Api& a, llama_sampler* chain, llama_sampler* mask, const llama_token* tokens, size_t n) {
  MaskState& st = maskState(mask);
  for (size_t i = 0; i < n && !st.stats->rejectedToken; i++) a.llama_sampler_accept(chain, tokens[i]);
  return !st.stats->rejectedToken;
}

PrefetchHold::PrefetchHold(llama_sampler* mask) : mask_(mask) {
  if (mask_) maskState(mask_).held = true;
}

PrefetchHold::~PrefetchHold() {
  if (!mask_) return;
  MaskState& st = maskState(mask_);
  st.held = false;
  if (st.prefetch) prefetchMask(st.matcher.sharedGrammar(), st.matcher.state(), st.tokensLeft);
}

}  // namespace toolmask::llama
