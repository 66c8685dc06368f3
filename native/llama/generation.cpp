#include "generation.hpp"

#include <chrono>
#include <stdexcept>

#include "mask_sampler.hpp"

namespace toolmask::llama {
namespace {

using Clock = std::chrono::steady_clock;

double millisSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Owns the context and the chain; frees both on every exit path.
struct Resources {
  const Api& a;
  llama_context* ctx = nullptr;
  llama_sampler* chain = nullptr;
  ~Resources() {
    if (ctx) a.llama_free(ctx);  // first: an attached chain is still referenced by the context
    if (chain) a.llama_sampler_free(chain);
  }
};

std::vector<llama_token> tokenize(const Api& a, const llama_vocab* vocab, const std::string& text) {
  std::vector<llama_token> out(text.size() + 8);
  // add_special false: the chat template writes the BOS text itself where the model wants one.
  int32_t n = a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false, true);
  if (n < 0) {
    out.resize(size_t(-n));
    n = a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false, true);
  }
  if (n < 0) throw std::runtime_error("could not tokenize the prompt");
  out.resize(size_t(n));
  return out;
}

llama_sampler* buildChain(const Api& a, const GenerationRequest& req, int32_t nVocab, MaskStats* stats, llama_sampler** mask) {
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
    a.llama_sampler_chain_add(chain, a.llama_sampler_init_penalties(nVocab, s.penaltyLastN, s.repeatPenalty, s.frequencyPenalty, s.presencePenalty));
  if (!s.logitBias.empty())
    a.llama_sampler_chain_add(chain, a.llama_sampler_init_logit_bias(nVocab, int32_t(s.logitBias.size()), s.logitBias.data()));
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

void decodeOrThrow(const Api& a, llama_context* ctx, llama_token* tokens, int32_t n, const char* what) {
  int32_t rc = a.llama_decode(ctx, a.llama_batch_get_one(tokens, n));
  if (rc != 0) {
    std::string log = takeLlamaLog();
    throw std::runtime_error(std::string("llama_decode failed on the ") + what + " (code " + std::to_string(rc) + ")" +
                             (log.empty() ? "" : ":\n" + log));
  }
}

}  // namespace

GenerationResult generate(const Model& model, const GenerationRequest& req, const TokenSink& sink,
                          const std::atomic<bool>& abort) {
  const Api& a = api();
  GenerationResult res;
  const int32_t nVocab = a.llama_vocab_n_tokens(model.vocab());
  if (req.grammar && req.grammar->vocab().size() != uint32_t(nVocab))
    throw std::runtime_error("the grammar was compiled for a vocabulary of " + std::to_string(req.grammar->vocab().size()) +
                             " tokens, the model has " + std::to_string(nVocab) + "; compile it on model.vocabulary");

  std::vector<llama_token> prompt = tokenize(a, model.vocab(), req.prompt);
  if (prompt.empty()) throw std::runtime_error("the prompt is empty");
  res.promptTokens = int32_t(prompt.size());
  if (prompt.size() >= req.contextSize)
    throw std::runtime_error("the prompt has " + std::to_string(prompt.size()) + " tokens but the context holds " +
                             std::to_string(req.contextSize) + "; load the model with a larger contextSize or shorten the messages");

  Resources r{a};
  MaskStats stats;
  llama_sampler* mask = nullptr;
  r.chain = buildChain(a, req, nVocab, &stats, &mask);
  llama_context_params cp = a.llama_context_default_params();
  cp.n_ctx = req.contextSize;
  cp.n_batch = req.contextSize;  // the whole prompt in one llama_decode
  cp.n_seq_max = 1;
  cp.n_threads = req.threads;
  cp.n_threads_batch = req.threads;
  cp.no_perf = true;
  llama_sampler_seq_config attach{0, r.chain};
  if (req.backendSampling) {
    cp.samplers = &attach;
    cp.n_samplers = 1;
    cp.n_outputs_max_per_seq = 1;  // one sampled row per step; more makes chain init probe per row
  }
  r.ctx = a.llama_init_from_model(model.get(), cp);
  if (!r.ctx) {
    std::string log = takeLlamaLog();
    throw std::runtime_error("llama.cpp could not create a context of " + std::to_string(req.contextSize) + " tokens" +
                             (log.empty() ? "" : ":\n" + log) + "\n(try a smaller contextSize)");
  }

  auto t0 = Clock::now();
  decodeOrThrow(a, r.ctx, prompt.data(), int32_t(prompt.size()), "prompt");
  res.promptMillis = millisSince(t0);

  auto t1 = Clock::now();
  const uint32_t nCtx = a.llama_n_ctx(r.ctx);
  uint32_t position = uint32_t(prompt.size());
  res.finishReason = "length";
  while (int32_t(res.tokens.size()) < req.maxTokens) {
    if (abort.load(std::memory_order_relaxed)) {
      res.finishReason = "aborted";
      break;
    }
    llama_token tok = a.llama_sampler_sample(r.chain, r.ctx, -1);
    if (stats.noTokenAllowed)
      throw std::runtime_error("the grammar allows no token here (after " + std::to_string(res.tokens.size()) +
                               " tokens); this is a toolmask bug, please report it with the tools used");
    if (stats.rejectedToken)
      throw std::runtime_error("the sampler chain picked token " + std::to_string(tok) + " that the grammar refuses; this is a toolmask bug");
    res.tokens.push_back(tok);
    sink(tok);
    if (a.llama_vocab_is_eog(model.vocab(), tok)) {
      res.finishReason = "stop";
      break;
    }
    if (position + 1 >= nCtx) break;  // "length": the context is full
    decodeOrThrow(a, r.ctx, &tok, 1, "generated token");
    position++;
  }
  res.decodeMillis = millisSince(t1);
  res.maskApplyCount = stats.applyCount;
  res.maskApplyNanos = stats.applyNanos;
  res.maskBackendSteps = stats.backendInputs;
  if (mask) res.grammarComplete = maskMatcher(mask).isComplete();
  return res;
}

}  // namespace toolmask::llama
