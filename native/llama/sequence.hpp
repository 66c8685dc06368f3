// One job running as sequence `id` of the engine's shared llama_context: its prompt (the part not
// already in the slot's KV cells decoded in chunks), its own sampler chain (attached to the context
// for backend sampling when asked), its position and its result. Internal to the batching engine;
// used on the decode thread only.
#pragma once
#include <chrono>
#include <memory>
#include <vector>

#include "batch_engine.hpp"
#include "mask_sampler.hpp"

namespace toolmask::llama {

class Sequence {
 public:
  // The request's prompt tokens (tokenized here when it gave none), checked: not empty, within the
  // vocabulary, shorter than the context; and its grammar compiled for this vocabulary. Throws
  // std::runtime_error with what to do on bad input.
  static std::vector<llama_token> checkedPrompt(const GenerationRequest& req, const Model& model, uint32_t contextSize);
  // `prompt` from checkedPrompt; its first `cached` tokens (< its size) are already in the KV cache
  // as sequence `id` at positions 0..cached-1, and decoding starts after them, in chunks cut by
  // PromptCache::chunkRows (`chunk`: the engine's batch size; 0: as many as the batch has room for,
  // EngineConfig::exactPrompts false). Builds the chain and attaches it when the request asks for
  // backend sampling.
  Sequence(std::shared_ptr<Job> job, llama_seq_id id, const Model& model, llama_context* ctx, uint32_t contextSize,
           uint64_t serial, std::vector<llama_token> prompt, size_t cached, uint32_t chunk);
  ~Sequence();  // detaches and frees the chain; the KV cells stay (the engine keeps or removes them)
  Sequence(const Sequence&) = delete;
  Sequence& operator=(const Sequence&) = delete;

  // Appends this step's tokens (the generated ones not yet decoded, or the next prompt chunk) to
  // `batch`, at most `room`; returns how many. The last of them carries the output row.
  int32_t addTo(llama_batch& batch, int32_t room);
  bool prefilling() const { return promptDone_ < prompt_.size(); }
  bool hasOutput() const { return outIndex_ >= 0; }
  // After the decode: samples this sequence's token at its output row and streams it. Returns true
  // when the sequence has finished (end of generation, maxTokens, full context). Throws on a mask bug.
  bool sampleNext();
  // The result so far, ended with `reason` ("stop", "length", "aborted"); moved out: call once, last.
  GenerationResult finish(const char* reason);
  // After a successful decode of a batch of `batchRows` rows (this sequence's and the others'):
  // records the class of the batch (PromptCache::rowClass) for the prompt rows it added.
  void decoded(int32_t batchRows);
  const std::vector<llama_token>& prompt() const { return prompt_; }
  // The class of the batch that decoded each prompt row decoded here (from the cached ones on).
  const std::vector<uint16_t>& promptRows() const { return promptRows_; }
  // The tokens this sequence's KV cells hold, from position 0: the prompt's decoded part and, once
  // the prompt is in, the generated tokens decoded since (a last sampled token is not). Call before
  // finish().
  std::vector<llama_token> tokensInCache() const;

  const std::shared_ptr<Job> job;
  const llama_seq_id id;
  const uint64_t serial;  // admission order: earlier prompts get the step's room first

 private:
  using Clock = std::chrono::steady_clock;
  const Api& a_;
  const Model& model_;
  llama_context* ctx_;
  const uint32_t contextSize_;
  std::vector<llama_token> prompt_;
  size_t promptDone_ = 0;             // prompt tokens in the KV cache (reused or decoded)
  llama_pos pos_ = 0;                 // tokens of this sequence in the KV cache
  std::vector<llama_token> pending_;  // generated (sampled, then any fast-forwarded), not yet decoded
  const uint32_t chunk_;
  int32_t stepPromptRows_ = 0;  // prompt rows added to this step's batch
  std::vector<uint16_t> promptRows_;
  bool promptStarted_ = false;
  int32_t outIndex_ = -1;  // this step's output row in the batch
  MaskStats stats_;
  llama_sampler* chain_ = nullptr;
  llama_sampler* mask_ = nullptr;  // inside chain_
  bool attached_ = false;
  GenerationResult res_;
  Clock::time_point promptStart_, decodeStart_;

  bool sampleStep();  // sampleNext's work

  // After the sampled token `tok`: appends the tokens the grammar forces next (fastForwardTokens),
  // at most `room`, to the output and to pending_. Throws on a mask bug.
  void fastForward(llama_token tok, size_t room);
};

}  // namespace toolmask::llama
