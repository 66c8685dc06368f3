// One generation as JS sees it: a promise for the result and a callback for sampled tokens, fed
// from the engine's decode thread through a thread-safe function. Tokens that arrive while JS is
// busy are delivered together in one call.
#pragma once
#include <napi.h>

#include <memory>
#include <optional>

#include "../llama/batch_engine.hpp"
#include "job_mailbox.hpp"

namespace toolmask::addon {

class JsJob : public std::enable_shared_from_this<JsJob> {
 public:
  // onTokens(ids: number[]) is called on the JS thread.
  static std::shared_ptr<JsJob> create(Napi::Env env, Napi::Function onTokens);
  Napi::Promise promise() const { return deferred_.Promise(); }
  // Callbacks for the decode thread; they hold this object until its promise settles.
  llama::JobSink sink();
  // The engine's handle, to abort the job when the JS callback throws.
  void attach(const std::shared_ptr<llama::Job>& job) { job_ = job; }
  // Frees the thread-safe function when the job never reached the engine.
  void cancel() { tsfn_.Release(); }

 private:
  explicit JsJob(Napi::Env env) : deferred_(Napi::Promise::Deferred::New(env)) {}
  void post();                                         // schedules a drain (when the mailbox said one is due)
  void drain(Napi::Env env, Napi::Function onTokens);  // on the JS thread

  Napi::Promise::Deferred deferred_;
  Napi::ThreadSafeFunction tsfn_;
  std::weak_ptr<llama::Job> job_;
  std::optional<Napi::Error> callbackError_;  // JS thread only
  JobMailbox<llama::GenerationResult> mailbox_;
};

}  // namespace toolmask::addon
