#include "sequence.hpp"

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include "prompt_cache.hpp"
#include "sampler_chain.hpp"
#include "toolmask/fast_forward.hpp"

namespace toolmask::llama {
namespace {

double millis(std::chrono::steady_clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

// CPU time of the calling thread (time it ran, not time it waited or was preempted), in µs; 0
// where the platform has no per-thread clock.
double threadCpuMicros() {
#ifdef CLOCK_THREAD_CPUTIME_ID
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
#endif
  return 0;
}

// Forced bytes looked at after one sampled token: a bound on the tokenizer's work per step.
constexpr size_t kMaxForcedBytes = 1024;
// Forced tokens taken after one sampled token: a bound on what one sequence adds to a step's batch
// (the batch is shared; the rest of a longer run is taken after the next sampled token).
constexpr int64_t kMaxForcedTokens = 64;

void put(llama_batch& b, llama_token tok, llama_pos pos, llama_seq_id seq, bool output) {
  const int32_t i = b.n_tokens++;
  b.token[i] = tok;
  b.pos[i] = pos;
  b.n_seq_id[i] = 1;
  b.seq_id[i][0] = seq;
  b.logits[i] = output;
}

}  // namespace

std::vector<llama_token> Sequence::checkedPrompt(const GenerationRequest& req, const Model& model,
                                                 uint32_t contextSize) {
  const Api& a = api();
  const int32_t nVocab = a.llama_vocab_n_tokens(model.vocab());
  if (req.grammar && vocabularySize(grammarVocabulary(*req.grammar)) != uint32_t(nVocab))
    throw std::runtime_error("the grammar was compiled for a vocabulary of " +
                             std::to_string(vocabularySize(grammarVocabulary(*req.grammar))) +
                             " tokens, the model has " + std::to_string(nVocab) + "; compile it on model.vocabulary");
  std::vector<llama_token> prompt = req.tokens.empty() ? model.tokenizer().tokenize(req.prompt, true).tokens
                                                       : std::vector<llama_token>(req.tokens.begin(), req.tokens.end());
  for (llama_token t : prompt)
    if (t < 0 || t >= nVocab)
      throw std::runtime_error("prompt token " + std::to_string(t) + " is outside the vocabulary");
  if (prompt.empty()) throw std::runtime_error("the prompt is empty");
  if (prompt.size() >= contextSize)
    throw std::runtime_error("the prompt has " + std::to_string(prompt.size()) + " tokens but the context holds " +
                             std::to_string(contextSize) +
                             "; load the model with a larger contextSize or shorten the messages");
  return prompt;
}

Sequence::Sequence(std::shared_ptr<Job> j, llama_seq_id seqId, const Model& model, llama_context* ctx,
                   uint32_t contextSize, uint64_t order, std::vector<llama_token> prompt, size_t cached, uint32_t chunk)
    : job(std::move(j)),
      id(seqId),
      serial(order),
      a_(api()),
      model_(model),
      ctx_(ctx),
      contextSize_(contextSize),
      prompt_(std::move(prompt)),
      promptDone_(cached),
      pos_(llama_pos(cached)),
      chunk_(chunk) {
  const GenerationRequest& req = job->request;
  if (cached >= prompt_.size()) throw std::logic_error("at least the prompt's last token is decoded");
  res_.promptTokens = int32_t(prompt_.size());
  res_.promptCachedTokens = int32_t(cached);
  res_.queueMillis = millis(Clock::now() - job->submitted);
  const int32_t nVocab = a_.llama_vocab_n_tokens(model.vocab());
  chain_ = buildSamplerChain(a_, req, nVocab, &stats_, &mask_);
  // A fresh chain per request: llama.cpp initialises a chain's backend part once, on attach.
  if (mask_) {
    setTokensLeft(mask_, std::min<int64_t>(req.maxTokens, int64_t(contextSize) - int64_t(prompt_.size())));
    prefetchFirstStep(mask_);
  }
  if (req.backendSampling) attached_ = a_.llama_set_sampler(ctx_, id, chain_);
}

Sequence::~Sequence() {
  if (attached_) a_.llama_set_sampler(ctx_, id, nullptr);  // before the free: the context holds the chain
  a_.llama_sampler_free(chain_);
}

std::vector<llama_token> Sequence::tokensInCache() const {
  std::vector<llama_token> out(prompt_.begin(), prompt_.begin() + std::ptrdiff_t(promptDone_));
  if (prefilling()) return out;
  // Generated tokens: all of res_.tokens but the pending ones (sampled or forced, not yet decoded).
  const size_t decodedOut = res_.tokens.size() - std::min(res_.tokens.size(), pending_.size());
  out.insert(out.end(), res_.tokens.begin(), res_.tokens.begin() + std::ptrdiff_t(decodedOut));
  out.resize(std::min(out.size(), size_t(pos_)));  // what the cells hold, no more
  return out;
}

void Sequence::decoded(int32_t batchRows) {
  promptRows_.insert(promptRows_.end(), size_t(stepPromptRows_), PromptCache::rowClass(batchRows));
  stepPromptRows_ = 0;
}

int32_t Sequence::addTo(llama_batch& batch, int32_t room) {
  outIndex_ = -1;
  stepPromptRows_ = 0;
  if (room <= 0) return 0;
  if (!prefilling()) {
    const size_t n = std::min(pending_.size(), size_t(room));
    for (size_t i = 0; i < n; i++) {
      const bool last = i + 1 == pending_.size();
      if (last) outIndex_ = batch.n_tokens;
      put(batch, pending_[i], pos_++, id, last);
    }
    pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(n));
    if (!pending_.empty()) res_.decodeSteps++;  // a pass without this sequence's output (the batch was full)
    return int32_t(n);
  }
  if (!promptStarted_) {
    promptStarted_ = true;
    promptStart_ = Clock::now();
  }
  // Cut so that each row gets the batch class a decode from an empty cache gives it (prompt_cache.hpp),
  // or, without that rule, as much as fits.
  const int32_t n = chunk_ ? int32_t(PromptCache::chunkRows(promptDone_, prompt_.size(), size_t(room), chunk_))
                           : int32_t(std::min(prompt_.size() - promptDone_, size_t(room)));
  stepPromptRows_ = n;
  for (int32_t i = 0; i < n; i++) {
    const bool last = promptDone_ + 1 == prompt_.size();
    if (last) outIndex_ = batch.n_tokens;
    put(batch, prompt_[promptDone_++], pos_++, id, last);
  }
  return n;
}

bool Sequence::sampleNext() {
  const CountLockWaits counting(&stats_.lockWaits);
  if (!job->request.recordStepTimes) return sampleStep();
  const auto t0 = Clock::now();
  const double cpu0 = threadCpuMicros();
  const LockWaits before = stats_.lockWaits;
  const bool done = sampleStep();
  res_.stepHostCpuMicros.push_back(float(threadCpuMicros() - cpu0));
  // What the step made itself: 1 a state mask, 2 a budget walk.
  res_.stepDecodeWork.push_back(uint8_t((stats_.lockWaits.masksBuilt > before.masksBuilt ? 1 : 0) |
                                        (stats_.lockWaits.budgetWalks > before.budgetWalks ? 2 : 0)));
  res_.stepHostMicros.push_back(float(std::chrono::duration<double, std::micro>(Clock::now() - t0).count()));
  return done;
}

bool Sequence::sampleStep() {
  const PrefetchHold hold(mask_);
  const int32_t row = outIndex_;
  outIndex_ = -1;
  if (res_.tokens.empty()) {
    decodeStart_ = Clock::now();
    res_.promptMillis = millis(decodeStart_ - promptStart_);
  }
  const llama_token tok = a_.llama_sampler_sample(chain_, ctx_, row);
  res_.decodeSteps++;
  if (stats_.noTokenAllowed)
    throw std::runtime_error("the grammar allows no token here (after " + std::to_string(res_.tokens.size()) +
                             " tokens); this is a toolmask bug, please report it with the tools used");
  if (stats_.rejectedToken)
    throw std::runtime_error("the sampler chain picked token " + std::to_string(tok) +
                             " that the grammar refuses; this is a toolmask bug");
  res_.tokens.push_back(tok);
  job->countSampled();
  job->sink.onToken(tok);
  if (a_.llama_vocab_is_eog(model_.vocab(), tok)) {
    res_.finishReason = "stop";
    return true;
  }
  pending_.assign(1, tok);
  // Room for forced tokens: within maxTokens, and within the context with one more token to sample.
  const int64_t room = std::min<int64_t>({int64_t(job->request.maxTokens) - int64_t(res_.tokens.size()),
                                          int64_t(contextSize_) - 2 - int64_t(pos_), kMaxForcedTokens});
  if (job->request.fastForward && mask_ && room > 0) fastForward(tok, size_t(room));
  if (int32_t(res_.tokens.size()) >= job->request.maxTokens || uint64_t(pos_) + pending_.size() >= contextSize_) {
    res_.finishReason = "length";  // maxTokens, or the sequence's context is full
    return true;
  }
  // What the next steps may still add: within maxTokens and the sequence's context.
  if (mask_)
    setTokensLeft(mask_, std::min<int64_t>(int64_t(job->request.maxTokens) - int64_t(res_.tokens.size()),
                                           int64_t(contextSize_) - int64_t(pos_) - int64_t(pending_.size())));
  return false;
}

void Sequence::fastForward(llama_token tok, size_t room) {
  Matcher& m = maskMatcher(mask_);
  CompiledGrammar& g = m.grammar();
  const ForcedRun run = forcedRun(g, m.state(), kMaxForcedBytes);
  if (run.bytes.empty()) return;
  size_t len = 0;
  const uint8_t* p = vocabularyTokenBytes(grammarVocabulary(g), uint32_t(tok), len);
  const std::vector<llama_token> ids =
      model_.tokenizer().tokenize(std::string(reinterpret_cast<const char*>(p), len) + run.bytes, false).tokens;
  const std::vector<uint32_t> forced =
      fastForwardTokens(g, m.state(), uint32_t(tok), run, std::vector<uint32_t>(ids.begin(), ids.end()), room);
  const std::vector<llama_token> toks(forced.begin(), forced.end());
  if (!acceptUnsampled(a_, chain_, mask_, toks.data(), toks.size()))
    throw std::runtime_error(
        "the grammar refused a fast-forwarded token; this is a toolmask bug, please report it with the tools used");
  for (llama_token t : toks) {
    res_.forcedAt.push_back(int32_t(res_.tokens.size()));
    res_.tokens.push_back(t);
    pending_.push_back(t);
    job->sink.onToken(t);
  }
}

GenerationResult Sequence::finish(const char* reason) {
  if (res_.finishReason.empty()) res_.finishReason = reason;
  if (!res_.tokens.empty()) res_.decodeMillis = millis(Clock::now() - decodeStart_);
  res_.maskApplyCount = stats_.applyCount;
  res_.maskApplyNanos = stats_.applyNanos;
  res_.maskBackendSteps = stats_.backendInputs;
  res_.maskTable = stats_.table;
  res_.maskLockWaits = stats_.lockWaits;
  if (mask_) res_.grammarComplete = maskMatcher(mask_).isComplete();
  res_.tokensAfterAbort = job->sampledAfterAbort();
  return std::move(res_);
}

}  // namespace toolmask::llama
