// One job running as sequence `id` of the engine's shared llama_context: its prompt (decoded in
// chunks), its own sampler chain (attached to the context for backend sampling when asked), its
// position and its result. Internal to the batching engine; used on the decode thread only.
#pragma once
#include <chrono>
#include <memory>
#include <vector>

#include "batch_engine.hpp"
#include "mask_sampler.hpp"

namespace toolmask::llama {

class Sequence {
 public:
  // Tokenizes and checks the prompt, builds the chain and attaches it when the request asks for
  // backend sampling. Throws std::runtime_error with what to do on bad input.
  Sequence(std::shared_ptr<Job> job, llama_seq_id id, const Model& model, llama_context* ctx, uint32_t contextSize,
           uint64_t serial);
  ~Sequence();  // detaches and frees the chain, and removes the sequence from the KV cache
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
  // The result so far, ended with `reason` ("stop", "length", "aborted").
  GenerationResult finish(const char* reason);

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
  size_t promptDone_ = 0;
  llama_pos pos_ = 0;                 // tokens of this sequence in the KV cache
  std::vector<llama_token> pending_;  // generated (sampled, then any fast-forwarded), not yet decoded
  int32_t outIndex_ = -1;             // this step's output row in the batch
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
