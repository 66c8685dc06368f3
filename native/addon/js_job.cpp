#include "js_job.hpp"

namespace toolmask::addon {
namespace {

Napi::Object resultObject(Napi::Env env, const llama::GenerationResult& r) {
  auto out = Napi::Object::New(env);
  auto tokens = Napi::Array::New(env, r.tokens.size());
  for (size_t i = 0; i < r.tokens.size(); i++) tokens.Set(uint32_t(i), Napi::Number::New(env, r.tokens[i]));
  out.Set("tokens", tokens);
  out.Set("finishReason", r.finishReason);
  out.Set("promptTokens", r.promptTokens);
  out.Set("promptCachedTokens", r.promptCachedTokens);
  out.Set("queueMillis", r.queueMillis);
  out.Set("promptMillis", r.promptMillis);
  out.Set("decodeMillis", r.decodeMillis);
  out.Set("maskApplyCount", double(r.maskApplyCount));
  out.Set("maskApplyNanos", double(r.maskApplyNanos));
  out.Set("maskBackendSteps", double(r.maskBackendSteps));
  if (r.maskTable.rows > 0) {
    const llama::MaskTableStats& t = r.maskTable;
    auto table = Napi::Object::New(env);
    table.Set("rows", t.rows);
    table.Set("capacity", t.capacity);
    table.Set("rowBytes", t.rowBytes);
    table.Set("stateRows", double(t.stateRows));
    table.Set("budgetSteps", double(t.budgetSteps));
    table.Set("budgetRows", double(t.budgetRows));
    table.Set("staleRows", double(t.staleRows));
    table.Set("growths", double(t.growths));
    table.Set("inputSteps", double(t.inputSteps));
    out.Set("maskTable", table);
  }
  out.Set("tokensAfterAbort", r.tokensAfterAbort);
  out.Set("grammarComplete", r.grammarComplete);
  out.Set("forcedTokens", uint32_t(r.forcedAt.size()));
  auto forcedAt = Napi::Array::New(env, r.forcedAt.size());
  for (size_t i = 0; i < r.forcedAt.size(); i++) forcedAt.Set(uint32_t(i), Napi::Number::New(env, r.forcedAt[i]));
  out.Set("forcedAt", forcedAt);
  if (!r.stepHostMicros.empty()) {
    auto steps = Napi::Float32Array::New(env, r.stepHostMicros.size());
    std::copy(r.stepHostMicros.begin(), r.stepHostMicros.end(), steps.Data());
    out.Set("stepHostMicros", steps);
  }
  if (!r.stepHostCpuMicros.empty()) {
    auto cpu = Napi::Float32Array::New(env, r.stepHostCpuMicros.size());
    std::copy(r.stepHostCpuMicros.begin(), r.stepHostCpuMicros.end(), cpu.Data());
    out.Set("stepHostCpuMicros", cpu);
    auto work = Napi::Uint8Array::New(env, r.stepDecodeWork.size());
    std::copy(r.stepDecodeWork.begin(), r.stepDecodeWork.end(), work.Data());
    out.Set("stepDecodeWork", work);
  }
  auto waits = Napi::Object::New(env);
  waits.Set("waits", double(r.maskLockWaits.waits));
  waits.Set("handoffs", double(r.maskLockWaits.handoffs));
  waits.Set("joins", double(r.maskLockWaits.joins));
  waits.Set("masksBuilt", double(r.maskLockWaits.masksBuilt));
  waits.Set("budgetWalks", double(r.maskLockWaits.budgetWalks));
  waits.Set("waitNanos", double(r.maskLockWaits.waitNanos));
  out.Set("maskLockWaits", waits);
  out.Set("decodeSteps", r.decodeSteps);
  return out;
}

}  // namespace

std::shared_ptr<JsJob> JsJob::create(Napi::Env env, Napi::Function onTokens) {
  std::shared_ptr<JsJob> job(new JsJob(env));
  // Keeps the process alive until released, as a queued AsyncWorker would.
  job->tsfn_ = Napi::ThreadSafeFunction::New(env, onTokens, "toolmask.generate", 0, 1);
  return job;
}

llama::JobSink JsJob::sink() {
  auto self = shared_from_this();
  return llama::JobSink{
      [self](llama_token t) {
        if (self->mailbox_.pushToken(t)) self->post();
      },
      [self](llama::GenerationResult&& r) {
        if (self->mailbox_.finish(std::move(r))) self->post();
      },
      [self](const std::string& why) {
        if (self->mailbox_.fail(why)) self->post();
      },
  };
}

void JsJob::post() {
  auto self = shared_from_this();
  // Fails only while the environment shuts down; nobody is left to tell then.
  tsfn_.NonBlockingCall([self](Napi::Env env, Napi::Function onTokens) { self->drain(env, onTokens); });
}

void JsJob::drain(Napi::Env env, Napi::Function onTokens) {
  auto batch = mailbox_.take();
  if (!batch.tokens.empty() && !callbackError_) {
    Napi::HandleScope scope(env);
    auto arr = Napi::Array::New(env, batch.tokens.size());
    for (size_t i = 0; i < batch.tokens.size(); i++) arr.Set(uint32_t(i), Napi::Number::New(env, batch.tokens[i]));
    try {
      onTokens.Call({arr});
    } catch (const Napi::Error& e) {
      callbackError_ = e;  // the job stops; its promise rejects with this error
      if (auto job = job_.lock()) job->abort();
    }
  }
  if (!batch.settle) return;
  if (callbackError_) {
    deferred_.Reject(callbackError_->Value());
    callbackError_.reset();  // here: its reference must be deleted on the JS thread
  } else if (batch.result)
    deferred_.Resolve(resultObject(env, *batch.result));
  else
    deferred_.Reject(Napi::Error::New(env, batch.error).Value());
  tsfn_.Release();
}

}  // namespace toolmask::addon
