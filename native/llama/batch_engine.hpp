// Several generations on one model as sequences of ONE llama_context: a decode thread puts, each
// step, the next token of every running sequence (and a chunk of the prompt of newly admitted
// ones) into one llama_batch, decodes once, and samples each sequence with its own sampler chain
// at its own output row. Requests beyond the free sequence slots wait in a queue. Knows nothing of
// Node: results and tokens leave through the callbacks of a JobSink, called on the decode thread.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "generation.hpp"
#include "model.hpp"

namespace toolmask::llama {

struct EngineConfig {
  uint32_t slots = 4;           // sequences decoded together (llama_context n_seq_max)
  uint32_t contextSize = 4096;  // tokens per sequence (prompt + output)
  int32_t threads = 1;
  uint32_t batchTokens = 512;  // tokens per decode step: running sequences first, then prompt chunks
  // true: a prompt's logits are those a decode of it alone from an empty cache gives, whatever the
  // prompt cache holds and whatever else runs (prompt_cache.hpp: each prompt chunk decoded alone,
  // cached rows reused only where their batch class matches, the previous answer's rows decoded
  // again). false: llama-server's way: every sequence's tokens in one llama_decode and any cached
  // prefix reused, the previous answer's rows included (logits off a fresh decode in the last bits).
  bool exactPrompts = true;
};

// Called on the decode thread; must not throw. Exactly one of onDone / onError ends a job.
struct JobSink {
  std::function<void(llama_token)> onToken;
  std::function<void(GenerationResult&&)> onDone;
  std::function<void(const std::string&)> onError;
};

class Job {
 public:
  Job(GenerationRequest req, JobSink sink) : request(std::move(req)), sink(std::move(sink)) {}
  // Any thread: the job ends "aborted" before its next token (or before it starts, when queued),
  // and its sequence slot is freed.
  void abort() {
    int32_t none = -1;
    sampledAtAbort.compare_exchange_strong(none, sampled.load());
    aborted.store(true, std::memory_order_relaxed);
  }
  bool isAborted() const { return aborted.load(std::memory_order_relaxed); }
  // Decode thread: one more token was sampled (what an abort is measured against).
  void countSampled() { sampled.fetch_add(1); }
  // Tokens sampled after the first abort() (-1 when never aborted): 0 or 1 by design.
  int32_t sampledAfterAbort() const {
    const int32_t at = sampledAtAbort.load();
    return at < 0 ? -1 : sampled.load() - at;
  }

  const GenerationRequest request;
  const JobSink sink;
  const std::chrono::steady_clock::time_point submitted = std::chrono::steady_clock::now();

 private:
  std::atomic<bool> aborted{false};
  std::atomic<int32_t> sampled{0};
  std::atomic<int32_t> sampledAtAbort{-1};
};

class BatchEngine {
 public:
  // Starts the decode thread; the context is created when the first job arrives.
  BatchEngine(std::shared_ptr<const Model> model, EngineConfig config);
  // Aborts what still runs or waits, and joins the thread.
  ~BatchEngine();
  BatchEngine(const BatchEngine&) = delete;
  BatchEngine& operator=(const BatchEngine&) = delete;

  // Throws std::runtime_error after close().
  std::shared_ptr<Job> submit(GenerationRequest req, JobSink sink);
  // Refuses new jobs; the thread finishes the running and queued ones, then frees the context and
  // its reference to the model.
  void close();
  const EngineConfig& config() const { return config_; }

 private:
  void run();

  const EngineConfig config_;
  std::shared_ptr<const Model> model_;  // released by the thread when it ends
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> incoming_;  // guarded by mutex_
  bool closing_ = false;                       // guarded by mutex_
  bool stopping_ = false;                      // guarded by mutex_
  std::thread thread_;
};

}  // namespace toolmask::llama
