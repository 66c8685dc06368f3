// One sequence's own sampler chain, set up from a request (mask → penalties → logit bias → top-k →
// top-p → min-p → temp → dist, or greedy). Prompts are tokenized by prompt_tokenizer.hpp.
#pragma once
#include <string>
#include <vector>

#include "generation.hpp"
#include "mask_sampler.hpp"

namespace toolmask::llama {

// A new chain the caller frees with llama_sampler_free (after detaching it from any context).
// *mask is set to the mask sampler inside it (owned by the chain), or left null when unmasked.
llama_sampler* buildSamplerChain(const Api& a, const GenerationRequest& req, int32_t nVocab, MaskStats* stats,
                                 llama_sampler** mask);

}  // namespace toolmask::llama
