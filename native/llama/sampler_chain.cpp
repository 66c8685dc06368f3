#include "sampler_chain.hpp"

#include <stdexcept>

namespace toolmask::llama {

namespace {

std::vector<llama_token> tokenize(const Api& a, const llama_vocab* vocab, const std::string& text, bool parseSpecial) {
  std::vector<llama_token> out(text.size() + 8);
  int32_t n =
      a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false, parseSpecial);
  if (n < 0) {
    out.resize(size_t(-n));
    n = a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false,
                         parseSpecial);
  }
  if (n < 0) throw std::runtime_error("could not tokenize the text");
  out.resize(size_t(n));
  return out;
}

}  // namespace

// add_special false: the chat template writes the BOS text itself where the model wants one.
std::vector<llama_token> tokenizePrompt(const Api& a, const llama_vocab* vocab, const std::string& text) {
  return tokenize(a, vocab, text, true);
}

std::vector<llama_token> tokenizeText(const Api& a, const llama_vocab* vocab, const std::string& text) {
  return tokenize(a, vocab, text, false);
}

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
