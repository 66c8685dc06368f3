#include "sampler_chain.hpp"

namespace toolmask::llama {

llama_sampler* buildSamplerChain(const Api& a, const GenerationRequest& req, int32_t nVocab, MaskStats* stats,
                                 llama_sampler** mask) {
  llama_sampler_chain_params cp = a.llama_sampler_chain_default_params();
  cp.no_perf = true;
  llama_sampler* chain = a.llama_sampler_chain_init(cp);
  const SamplingParams& s = req.sampling;
  // The mask first: every later sampler sees only what the grammar allows.
  if (req.grammar) {
    *mask = makeMaskSampler(a, req.grammar, stats, true, req.backendSampling);
    a.llama_sampler_chain_add(chain, *mask);  // the chain owns it from here
  }
  if (s.repeatPenalty != 1.0f || s.frequencyPenalty != 0.0f || s.presencePenalty != 0.0f)
    a.llama_sampler_chain_add(chain, a.llama_sampler_init_penalties(nVocab, s.penaltyLastN, s.repeatPenalty,
                                                                    s.frequencyPenalty, s.presencePenalty));
  if (!s.logitBias.empty())
    a.llama_sampler_chain_add(chain,
                              a.llama_sampler_init_logit_bias(nVocab, int32_t(s.logitBias.size()), s.logitBias.data()));
  if (s.temperature <= 0) {
    a.llama_sampler_chain_add(chain, a.llama_sampler_init_greedy());
    return chain;
  }
  if (s.topK > 0) a.llama_sampler_chain_add(chain, a.llama_sampler_init_top_k(s.topK));
  if (s.topP < 1.0f) a.llama_sampler_chain_add(chain, a.llama_sampler_init_top_p(s.topP, 1));
  if (s.minP > 0.0f) a.llama_sampler_chain_add(chain, a.llama_sampler_init_min_p(s.minP, 1));
  a.llama_sampler_chain_add(chain, a.llama_sampler_init_temp(s.temperature));
  a.llama_sampler_chain_add(chain, a.llama_sampler_init_dist(s.seed));
  return chain;
}

}  // namespace toolmask::llama
