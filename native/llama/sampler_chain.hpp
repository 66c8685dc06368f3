// The pieces of one sequence's sampling set up from a request: its prompt as tokens and its own
// sampler chain (mask → penalties → logit bias → top-k → top-p → min-p → temp → dist, or greedy).
#pragma once
#include <string>
#include <vector>

#include "generation.hpp"
#include "mask_sampler.hpp"

namespace toolmask::llama {

// Special-token text in `text` is parsed as those tokens; no BOS is added (the template writes it).
std::vector<llama_token> tokenizePrompt(const Api& a, const llama_vocab* vocab, const std::string& text);
// Plain text as the model's tokenizer splits it (special-token text stays text, no BOS).
std::vector<llama_token> tokenizeText(const Api& a, const llama_vocab* vocab, const std::string& text);

// A new chain the caller frees with llama_sampler_free (after detaching it from any context).
// *mask is set to the mask sampler inside it (owned by the chain), or left null when unmasked.
llama_sampler* buildSamplerChain(const Api& a, const GenerationRequest& req, int32_t nVocab, MaskStats* stats,
                                 llama_sampler** mask);

}  // namespace toolmask::llama
