// The mask as a llama_sampler (CPU path): apply() sets the logit of every token the matcher
// rejects to -INFINITY, accept() advances the matcher. It goes first in the chain, so the
// temperature, top-k/p and the final pick only ever see tokens the grammar allows.
#pragma once
#include <cstdint>
#include <memory>

#include "generation.hpp"
#include "llama_api.hpp"
#include "toolmask/matcher.hpp"

namespace toolmask::llama {

struct MaskStats {
  uint64_t applyCount = 0;
  uint64_t applyNanos = 0;      // filling the bitmask and masking the candidates (or filling the backend input)
  uint64_t backendInputs = 0;   // of applyCount, steps masked inside the graph (backend path)
  bool rejectedToken = false;   // accept() saw a token the grammar refused (a bug, or the mask was bypassed)
  bool noTokenAllowed = false;  // apply() found nothing allowed (the grammar is a dead end here)
  MaskTableStats table;         // the resident representation's table (backend path)
  // The grammar lock's contended acquisitions on the decode thread (grammar_lock.hpp): counted while
  // the sequence samples (Sequence::sampleNext) and while the backend input is filled.
  LockWaits lockWaits;
};

// The sampler owns a matcher on `grammar`; `stats` must outlive it. Free it with
// llama_sampler_free, or let the chain it was added to free it. firstInChain: it sees the
// candidate array exactly as llama_sampler_sample builds it (entry i is token i), which allows
// masking whole 32-token words at once.
// backendHooks: also implement llama.cpp's [EXPERIMENTAL] backend sampling, so that a chain
// attached to a context masks the logits as ggml ops inside the graph (mask_backend.cpp).
llama_sampler* makeMaskSampler(const Api& a, std::shared_ptr<CompiledGrammar> grammar, MaskStats* stats,
                               bool firstInChain, bool backendHooks = false);

// The matcher inside a sampler made by makeMaskSampler (to ask isComplete after decoding).
Matcher& maskMatcher(llama_sampler* sampler);

// The tokens the request may still generate, the next one included: masks leave out what could
// not finish within them where the answer may end now (CompiledGrammar::limitToBudget).
void setTokensLeft(llama_sampler* mask, int64_t tokensLeft);

// Queues what the first step needs (its mask and budget searches, mask_prefetch.hpp) on the prefetch
// thread, to be made while the prompt is decoded.
void prefetchFirstStep(llama_sampler* mask);

// Accepts tokens appended without sampling (fast-forward) through the whole `chain`, so that its
// penalties see them as output. False when the grammar refused one (the rest are not accepted).
bool acceptUnsampled(const Api& a, llama_sampler* chain, llama_sampler* mask, const llama_token* tokens, size_t n);

// While one is open, the mask sampler `mask` (null: none) queues no mask prefetch on accept; when
// it closes, it queues what the next step needs at the state it is in, with the tokens left then
// (setTokensLeft). Each sampling step holds one: with fast-forward the states passed on the way are
// never sampled at, and building their masks would only keep the prefetch thread from the next
// step's; and the budget's searches are made for the tokens the next step will have left.
class PrefetchHold {
 public:
  explicit PrefetchHold(llama_sampler* mask);
  ~PrefetchHold();
  PrefetchHold(const PrefetchHold&) = delete;
  PrefetchHold& operator=(const PrefetchHold&) = delete;

 private:
  llama_sampler* mask_;
};

}  // namespace toolmask::llama
