#include "batch_engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <vector>

#include "prompt_cache.hpp"
#include "sequence.hpp"

namespace toolmask::llama {
namespace {

// The decode thread's state: the shared context, the slots, the queue. Lives on that thread only.
class Decoder {
 public:
  Decoder(const Model& model, const EngineConfig& config)
      : a_(api()), model_(model), config_(config), slots_(config.slots) {}
  ~Decoder() {
    slots_.clear();  // sequences detach their chains from the context before it goes
    if (batchReady_) a_.llama_batch_free(batch_);
    if (ctx_) a_.llama_free(ctx_);
  }

  void enqueue(std::shared_ptr<Job> job) { queue_.push_back(std::move(job)); }
  bool idle() const { return queue_.empty() && running() == 0; }

  // One step: drop aborted jobs, admit queued ones into free slots, decode one batch, sample.
  void step() {
    for (auto& s : slots_)
      if (s && s->job->isAborted()) end(s, "aborted");
    for (auto it = queue_.begin(); it != queue_.end();) {
      if ((*it)->isAborted()) {
        GenerationResult r;
        r.finishReason = "aborted";
        r.tokensAfterAbort = (*it)->sampledAfterAbort();  // 0: it never sampled
        (*it)->sink.onDone(std::move(r));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    admit();
    if (running() == 0) return;
    decodeAndSample();
  }

  // Everything still running or waiting ends "aborted" (the engine is going away).
  void abortAll() {
    for (auto& s : slots_)
      if (s) {
        s->job->abort();  // counted as an abort: what it sampled after it, 0
        end(s, "aborted");
      }
    for (auto& job : queue_) {
      job->abort();
      GenerationResult r;
      r.finishReason = "aborted";
      r.tokensAfterAbort = job->sampledAfterAbort();
      job->sink.onDone(std::move(r));
    }
    queue_.clear();
  }

 private:
  size_t running() const {
    return size_t(std::count_if(slots_.begin(), slots_.end(), [](const auto& s) { return !!s; }));
  }

  void end(std::unique_ptr<Sequence>& s, const char* reason) {
    auto job = s->job;
    if (cache_.exact())
      cache_.release(s->id, job->request.cachePrompt, s->prompt(), s->promptRows());
    else
      cache_.releaseAll(s->id, job->request.cachePrompt, s->tokensInCache());
    GenerationResult r = s->finish(reason);
    s.reset();  // frees the slot (chain detached) before the caller hears of it
    job->sink.onDone(std::move(r));
  }

  void fail(std::unique_ptr<Sequence>& s, const std::string& why) {
    auto job = s->job;
    const llama_seq_id id = s->id;
    s.reset();
    cache_.release(id, false, {}, {});  // what a failed decode left in its cells is not known
    job->sink.onError(why);
  }

  void ensureContext() {
    if (ctx_) return;
    llama_context_params cp = a_.llama_context_default_params();
    cp.n_seq_max = config_.slots;
    cp.n_ctx = config_.contextSize * config_.slots;  // contextSize is per sequence; the cap is ours
    cp.kv_unified = false;  // a stream per slot: attention over the sequence's own cells (decodeAndSample)
    cp.n_batch = config_.batchTokens;
    cp.n_ubatch = config_.batchTokens;
    cp.n_threads = config_.threads;
    cp.n_threads_batch = config_.threads;
    cp.n_outputs_max = config_.slots;  // one sampled row per sequence per step, as llama-server sets it
    cp.n_outputs_max_per_seq = 1;      // (backend sampling needs it)
    cp.no_perf = true;
    takeLlamaLog();
    ctx_ = a_.llama_init_from_model(model_.get(), cp);
    if (!ctx_) {
      std::string log = takeLlamaLog();
      throw std::runtime_error("llama.cpp could not create a context of " + std::to_string(config_.slots) + " × " +
                               std::to_string(config_.contextSize) + " tokens" + (log.empty() ? "" : ":\n" + log) +
                               "\n(try a smaller contextSize or parallel)");
    }
    batch_ = a_.llama_batch_init(int32_t(config_.batchTokens), 0, 1);
    batchReady_ = true;
    cache_.attach(a_.llama_get_memory(ctx_));
  }

  // Queued jobs, in order, into free slots: each to the slot whose cached tokens serve its prompt
  // best (prompt_cache.hpp), the cache trimmed to the common prefix, the rest left to decode.
  void admit() {
    while (!queue_.empty() && running() < slots_.size()) {
      std::shared_ptr<Job> job = std::move(queue_.front());
      queue_.pop_front();
      try {
        ensureContext();
        std::vector<llama_token> prompt = Sequence::checkedPrompt(job->request, model_, config_.contextSize);
        std::vector<bool> idle(slots_.size());
        for (size_t i = 0; i < slots_.size(); i++) idle[i] = !slots_[i];
        const bool reuse = job->request.cachePrompt;
        const llama_seq_id id = cache_.choose(prompt, idle, reuse);
        const size_t cached = cache_.claim(id, prompt, reuse);
        slots_[size_t(id)] =
            std::make_unique<Sequence>(job, id, model_, ctx_, config_.contextSize, serial_++, std::move(prompt), cached,
                                       config_.exactPrompts ? config_.batchTokens : 0);
      } catch (const std::exception& e) { job->sink.onError(e.what()); }
    }
  }

  // Two kinds of llama_decode a step: the running sequences' tokens together (in slot order, so a
  // run of consecutive slots is one ubatch), then the next prompt chunk of the earliest admitted
  // sequence still reading its prompt, alone. The KV cache has one stream per slot (kv_unified
  // false: each row attends to its own sequence's cells only), and llama.cpp splits a batch of
  // several streams into ubatches of equal rows per sequence (split_equal): a chunk beside other
  // sequences' tokens would be cut into rows of other batch classes (prompt_cache.hpp). Alone, a
  // chunk has the class a decode from an empty cache gives it. Without exactPrompts, one llama_decode
  // a step: the running sequences' tokens, then prompt chunks in admission order while room lasts
  // (llama-server's batch).
  void decodeAndSample() {
    std::vector<Sequence*> running, reading;  // reading: sequences still reading their prompt
    for (auto& s : slots_) {
      if (!s) continue;
      (s->prefilling() ? reading : running).push_back(s.get());
    }
    std::sort(reading.begin(), reading.end(), [](Sequence* a, Sequence* b) { return a->serial < b->serial; });
    if (!config_.exactPrompts) {
      running.insert(running.end(), reading.begin(), reading.end());
      return decodeAndSample(running);
    }
    if (!running.empty()) decodeAndSample(running);
    if (!reading.empty()) decodeAndSample({reading.front()});  // the earliest admitted
  }

  // One llama_decode of `group`'s tokens for this step, then each one's sample.
  void decodeAndSample(const std::vector<Sequence*>& group) {
    batch_.n_tokens = 0;
    std::vector<bool> inBatch(slots_.size(), false);
    for (Sequence* s : group)
      inBatch[size_t(s->id)] = s->addTo(batch_, int32_t(config_.batchTokens) - batch_.n_tokens) > 0;
    if (batch_.n_tokens == 0) return;
    const int32_t rc = a_.llama_decode(ctx_, batch_);
    if (rc != 0) {
      std::string log = takeLlamaLog();
      const std::string why =
          "llama_decode failed (code " + std::to_string(rc) + ")" + (log.empty() ? "" : ":\n" + log);
      for (auto& s : slots_)
        if (s && inBatch[size_t(s->id)]) fail(s, why);  // its tokens are not in the cache: it cannot go on
      return;
    }
    for (auto& s : slots_)
      if (s && inBatch[size_t(s->id)]) s->decoded(batch_.n_tokens);
    for (auto& s : slots_) {
      if (!s || !inBatch[size_t(s->id)] || !s->hasOutput()) continue;
      try {
        if (s->sampleNext()) end(s, "stop");
      } catch (const std::exception& e) { fail(s, e.what()); }
    }
  }

  const Api& a_;
  const Model& model_;
  const EngineConfig config_;
  llama_context* ctx_ = nullptr;
  llama_batch batch_{};
  bool batchReady_ = false;
  std::vector<std::unique_ptr<Sequence>> slots_;                                 // index = llama_seq_id
  PromptCache cache_{config_.slots, config_.batchTokens, config_.exactPrompts};  // what each slot's KV cells hold
  std::deque<std::shared_ptr<Job>> queue_;
  uint64_t serial_ = 0;
};

}  // namespace

BatchEngine::BatchEngine(std::shared_ptr<const Model> model, EngineConfig config)
    : config_(config), model_(std::move(model)) {
  if (config_.slots < 1) throw std::runtime_error("parallel must be at least 1");
  if (config_.batchTokens < config_.slots) throw std::runtime_error("batchTokens must be at least the number of slots");
  thread_ = std::thread([this] { run(); });
}

BatchEngine::~BatchEngine() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::shared_ptr<Job> BatchEngine::submit(GenerationRequest req, JobSink sink) {
  auto job = std::make_shared<Job>(std::move(req), std::move(sink));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (closing_ || stopping_) throw std::runtime_error("the model was disposed; load it again");
    incoming_.push_back(job);
  }
  wake_.notify_all();
  return job;
}

void BatchEngine::close() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake_.notify_all();
}

void BatchEngine::run() {
  {
    Decoder decoder(*model_, config_);
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        // Sleep only when nothing runs or waits; a running sequence keeps the loop stepping.
        // A timed wait, not wait(): GCC 12 moved condition_variable::wait to libstdc++ 3.4.30, while
        // the timed one is inline, so the prebuild loads wherever node-llama-cpp's libraries do (3.4.29).
        auto ready = [&] { return stopping_ || closing_ || !incoming_.empty() || !decoder.idle(); };
        while (!wake_.wait_for(lock, std::chrono::hours(1), ready)) {}
        while (!incoming_.empty()) {
          decoder.enqueue(std::move(incoming_.front()));
          incoming_.pop_front();
        }
        if (stopping_) break;
        if (closing_ && decoder.idle()) break;
      }
      decoder.step();
    }
    decoder.abortAll();
  }  // the context goes here, on the thread that used it
  model_.reset();  // and the weights, when nothing else holds them
}

}  // namespace toolmask::llama
