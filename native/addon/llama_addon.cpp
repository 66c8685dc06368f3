// N-API bindings of native/llama: load llama.cpp at run time, load a model off the JS thread,
// generate off the JS thread with tokens streamed back as they are sampled.
#include <napi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <thread>

#include "../llama/batch_engine.hpp"
#include "../llama/sampler_chain.hpp"
#include "js_job.hpp"
#include "wraps.hpp"

namespace toolmask::addon {
namespace {

using toolmask::llama::Model;

std::string stringProp(const Napi::Object& o, const char* key) {
  Napi::Value v = o.Get(key);
  if (!v.IsString()) throw Napi::TypeError::New(o.Env(), std::string(key) + " must be a string");
  return v.As<Napi::String>().Utf8Value();
}

double numberProp(const Napi::Object& o, const char* key, double fallback) {
  Napi::Value v = o.Get(key);
  if (v.IsUndefined() || v.IsNull()) return fallback;
  if (!v.IsNumber()) throw Napi::TypeError::New(o.Env(), std::string(key) + " must be a number");
  return v.As<Napi::Number>().DoubleValue();
}

Napi::Value LoadLibrary(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsObject())
    throw Napi::TypeError::New(info.Env(), "llamaLoadLibrary({ llama, ggml, backendsDir })");
  auto o = info[0].As<Napi::Object>();
  llama::LibraryPaths paths{stringProp(o, "llama"), stringProp(o, "ggml"), stringProp(o, "backendsDir")};
  try {
    llama::loadApi(paths);
  } catch (const std::exception& e) { throw Napi::Error::New(info.Env(), e.what()); }
  return info.Env().Undefined();
}

Napi::Value SupportsGpuOffload(const Napi::CallbackInfo& info) {
  try {
    return Napi::Boolean::New(info.Env(), llama::api().llama_supports_gpu_offload());
  } catch (const std::exception& e) { throw Napi::Error::New(info.Env(), e.what()); }
}

class ModelWrap : public Napi::ObjectWrap<ModelWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(
        env, "NativeLlamaModel",
        {InstanceMethod<&ModelWrap::Vocabulary>("vocabulary"), InstanceMethod<&ModelWrap::Metadata>("metadata"),
         InstanceMethod<&ModelWrap::TokenText>("tokenText"), InstanceMethod<&ModelWrap::Tokenize>("tokenize"),
         InstanceMethod<&ModelWrap::TokenizePrompt>("tokenizePrompt"),
         InstanceMethod<&ModelWrap::TokenizeText>("tokenizeText"),
         InstanceMethod<&ModelWrap::LlamaTokenize>("llamaTokenize"),
         InstanceMethod<&ModelWrap::StartDecoding>("startDecoding"), InstanceMethod<&ModelWrap::Dispose>("dispose"),
         InstanceAccessor<&ModelWrap::ChatTemplate>("chatTemplate"),
         InstanceAccessor<&ModelWrap::TrainedContext>("trainedContext"), InstanceAccessor<&ModelWrap::Bos>("bosToken"),
         InstanceAccessor<&ModelWrap::Eos>("eosToken")});
  }
  ModelWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ModelWrap>(info) {}
  std::shared_ptr<Model> model;
  // Decodes every generation on this model; kept after dispose() until this object goes, so that
  // its destructor can join the decode thread (which by then has finished or is aborted).
  std::unique_ptr<llama::BatchEngine> engine;

  static llama::BatchEngine& engineOf(const Napi::Value& v, Napi::FunctionReference* ctor) {
    if (!v.IsObject() || !v.As<Napi::Object>().InstanceOf(ctor->Value()))
      throw Napi::TypeError::New(v.Env(), "expected a model from loadModel");
    ModelWrap* w = Unwrap(v.As<Napi::Object>());
    if (!w || !w->model) throw Napi::Error::New(v.Env(), "the model was disposed; load it again");
    if (!w->engine) throw Napi::Error::New(v.Env(), "the model has no decoder yet (startDecoding)");
    return *w->engine;
  }

 private:
  Model& live(const Napi::Env& env) {
    if (!model) throw Napi::Error::New(env, "the model was disposed; load it again");
    return *model;
  }
  Napi::Value Vocabulary(const Napi::CallbackInfo& info) {
    const auto& v = live(info.Env()).vocabulary();
    Napi::Env env = info.Env();
    auto bytes = Napi::Uint8Array::New(env, v.bytes.size());
    std::copy(v.bytes.begin(), v.bytes.end(), bytes.Data());
    auto offsets = Napi::Uint32Array::New(env, v.offsets.size());
    std::copy(v.offsets.begin(), v.offsets.end(), offsets.Data());
    auto kinds = Napi::Uint8Array::New(env, v.kinds.size());
    std::copy(v.kinds.begin(), v.kinds.end(), kinds.Data());
    auto attrs = Napi::Uint32Array::New(env, v.attrs.size());
    std::copy(v.attrs.begin(), v.attrs.end(), attrs.Data());
    auto pieces = Napi::Array::New(env, v.pieces.size());
    for (size_t i = 0; i < v.pieces.size(); i++) pieces.Set(uint32_t(i), Napi::String::New(env, v.pieces[i]));
    auto out = Napi::Object::New(env);
    out.Set("bytes", bytes);
    out.Set("offsets", offsets);
    out.Set("kinds", kinds);
    out.Set("pieces", pieces);
    out.Set("attrs", attrs);
    return out;
  }
  Napi::Value Metadata(const Napi::CallbackInfo& info) {
    if (!info[0].IsString()) throw Napi::TypeError::New(info.Env(), "metadata(key: string)");
    return Napi::String::New(info.Env(), live(info.Env()).metadata(info[0].As<Napi::String>().Utf8Value().c_str()));
  }
  Napi::Value TokenText(const Napi::CallbackInfo& info) {
    if (!info[0].IsNumber()) throw Napi::TypeError::New(info.Env(), "tokenText(id: number)");
    return Napi::String::New(info.Env(), live(info.Env()).tokenText(info[0].As<Napi::Number>().Int32Value()));
  }
  // tokenize(text, { special, maxTokens? }) → { done: Promise<outcome>, cancel() }: on a worker
  // thread (prompt_tokenizer.hpp); cancel() stops it between pieces. The outcome: { tokens
  // (Int32Array, null when refused or cancelled), tooLong, atLeast, cancelled, work }.
  // tokenizePrompt(text) / tokenizeText(text) → Promise<Int32Array>: the same without a limit.
  // TOOLMASK_TEST_TOKENIZE_HOLD=<mark> (tests): a tokenize() whose text holds <mark> waits for its
  // cancel() before it starts, so that only a cancel ends it.
  class TokenizeWorker : public Napi::AsyncWorker {
   public:
    TokenizeWorker(Napi::Env env, std::shared_ptr<Model> model, std::string text, bool special, int64_t maxTokens,
                   bool outcome, std::string hold)
        : Napi::AsyncWorker(env, "toolmask.tokenize"),
          deferred_(Napi::Promise::Deferred::New(env)),
          model_(std::move(model)),
          text_(std::move(text)),
          special_(special),
          maxTokens_(maxTokens),
          outcome_(outcome),
          hold_(std::move(hold)) {}
    Napi::Promise promise() { return deferred_.Promise(); }
    std::shared_ptr<std::atomic<bool>> cancel = std::make_shared<std::atomic<bool>>(false);

   protected:
    void Execute() override {
      try {
        if (!hold_.empty() && text_.find(hold_) != std::string::npos)
          while (!cancel->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        out_ = model_->tokenizer().tokenize(text_, special_, {maxTokens_, cancel.get()});
      } catch (const std::exception& e) { SetError(e.what()); }
    }
    void OnOK() override {
      Napi::Env env = Env();
      auto tokens = Napi::Int32Array::New(env, out_.tokens.size());
      std::copy(out_.tokens.begin(), out_.tokens.end(), tokens.Data());
      if (!outcome_) return deferred_.Resolve(tokens);
      auto o = Napi::Object::New(env);
      const bool refused = out_.tooLong || out_.cancelled;
      o.Set("tokens", refused ? env.Null() : Napi::Value(tokens));
      o.Set("tooLong", out_.tooLong);
      o.Set("atLeast", double(out_.atLeast));
      o.Set("cancelled", out_.cancelled);
      auto w = Napi::Object::New(env);
      const llama::TokenizeWork& k = out_.work;
      w.Set("scannedBytes", double(k.scannedBytes));
      w.Set("occurrences", double(k.occurrences));
      w.Set("checkedBytes", double(k.checkedBytes));
      w.Set("pieces", double(k.pieces));
      w.Set("llamaCalls", double(k.llamaCalls));
      w.Set("llamaBytes", double(k.llamaBytes));
      o.Set("work", w);
      deferred_.Resolve(o);
    }
    void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

   private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<Model> model_;
    std::string text_;
    bool special_;
    int64_t maxTokens_;
    bool outcome_;
    std::string hold_;
    llama::TokenizeOutcome out_;
  };
  Napi::Value Tokenize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsString() || !info[1].IsObject())
      throw Napi::TypeError::New(env, "tokenize(text: string, { special: boolean, maxTokens?: number })");
    live(env);
    auto o = info[1].As<Napi::Object>();
    const double maxTokens = numberProp(o, "maxTokens", -1);
    if (maxTokens != -1 && !(maxTokens >= 0 && maxTokens <= 9007199254740991.0 && maxTokens == std::floor(maxTokens)))
      throw Napi::RangeError::New(env, "maxTokens must be a non-negative integer");
    const char* hold = std::getenv("TOOLMASK_TEST_TOKENIZE_HOLD");
    auto* w = new TokenizeWorker(env, model, info[0].As<Napi::String>().Utf8Value(),
                                 o.Get("special").ToBoolean().Value(), int64_t(maxTokens), true, hold ? hold : "");
    auto out = Napi::Object::New(env);
    out.Set("done", w->promise());
    std::shared_ptr<std::atomic<bool>> cancel = w->cancel;
    out.Set("cancel", Napi::Function::New(env, [cancel](const Napi::CallbackInfo& i) {
              cancel->store(true);
              return i.Env().Undefined();
            }));
    w->Queue();
    return out;
  }
  Napi::Value TokenizePrompt(const Napi::CallbackInfo& info) { return tokenizeWith(info, "tokenizePrompt", true); }
  Napi::Value TokenizeText(const Napi::CallbackInfo& info) { return tokenizeWith(info, "tokenizeText", false); }
  Napi::Value tokenizeWith(const Napi::CallbackInfo& info, const char* name, bool special) {
    if (!info[0].IsString()) throw Napi::TypeError::New(info.Env(), std::string(name) + "(text: string)");
    live(info.Env());
    auto* w = new TokenizeWorker(info.Env(), model, info[0].As<Napi::String>().Utf8Value(), special, -1, false, "");
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
  }
  // llamaTokenize(text, parseSpecial) → Int32Array, on this thread: llama.cpp's own llama_tokenize,
  // the oracle tests compare tokenize() with (its special-token split is quadratic).
  Napi::Value LlamaTokenize(const Napi::CallbackInfo& info) {
    if (!info[0].IsString() || !info[1].IsBoolean())
      throw Napi::TypeError::New(info.Env(), "llamaTokenize(text: string, parseSpecial: boolean)");
    Model& m = live(info.Env());
    std::vector<llama_token> t;
    try {
      t = llama::llamaTokenize(llama::api(), m.vocab(), info[0].As<Napi::String>().Utf8Value(),
                               info[1].As<Napi::Boolean>().Value());
    } catch (const std::exception& e) { throw Napi::Error::New(info.Env(), e.what()); }
    auto out = Napi::Int32Array::New(info.Env(), t.size());
    std::copy(t.begin(), t.end(), out.Data());
    return out;
  }
  // startDecoding({ parallel, contextSize, threads, batchTokens?, exactPrompts? }): once, after loading.
  Napi::Value StartDecoding(const Napi::CallbackInfo& info) {
    live(info.Env());
    if (engine) throw Napi::Error::New(info.Env(), "startDecoding was already called on this model");
    if (info.Length() < 1 || !info[0].IsObject())
      throw Napi::TypeError::New(info.Env(), "startDecoding({ parallel, contextSize, threads })");
    auto o = info[0].As<Napi::Object>();
    llama::EngineConfig c;
    c.slots = uint32_t(numberProp(o, "parallel", c.slots));
    c.contextSize = uint32_t(numberProp(o, "contextSize", c.contextSize));
    c.threads = int32_t(numberProp(o, "threads", c.threads));
    c.batchTokens = uint32_t(numberProp(o, "batchTokens", std::max<double>(c.batchTokens, c.slots)));
    if (o.Has("exactPrompts") && !o.Get("exactPrompts").IsUndefined())
      c.exactPrompts = o.Get("exactPrompts").ToBoolean();
    if (c.slots < 1 || c.slots > 256) throw Napi::RangeError::New(info.Env(), "parallel must be in 1..256");
    if (c.threads < 1) throw Napi::RangeError::New(info.Env(), "threads must be at least 1");
    if (c.contextSize < 16) throw Napi::RangeError::New(info.Env(), "contextSize must be at least 16");
    if (c.batchTokens < c.slots) throw Napi::RangeError::New(info.Env(), "batchTokens must be at least parallel");
    try {
      engine = std::make_unique<llama::BatchEngine>(model, c);
    } catch (const std::exception& e) { throw Napi::Error::New(info.Env(), e.what()); }
    return info.Env().Undefined();
  }
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    if (engine) engine->close();  // running and queued generations finish; then the context goes
    model.reset();                // the engine keeps the weights until then
    return info.Env().Undefined();
  }
  Napi::Value ChatTemplate(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), live(info.Env()).chatTemplate());
  }
  Napi::Value TrainedContext(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), live(info.Env()).trainedContext());
  }
  Napi::Value Bos(const Napi::CallbackInfo& info) {
    Model& m = live(info.Env());
    return Napi::String::New(info.Env(), m.tokenText(llama::api().llama_vocab_bos(m.vocab())));
  }
  Napi::Value Eos(const Napi::CallbackInfo& info) {
    Model& m = live(info.Env());
    return Napi::String::New(info.Env(), m.tokenText(llama::api().llama_vocab_eos(m.vocab())));
  }
};

// The NativeLlamaModel constructor of one environment (main thread or a worker), given to the
// functions that need it as their data.
Napi::FunctionReference* ctorOf(const Napi::CallbackInfo& info) {
  return static_cast<Napi::FunctionReference*>(info.Data());
}

// Loads off the JS thread; llama.cpp's load progress streams back to onProgress (if given).
class LoadModelWorker : public Napi::AsyncProgressQueueWorker<float> {
 public:
  LoadModelWorker(Napi::Function onProgress, Napi::FunctionReference* ctor, std::string path, int gpuLayers,
                  bool vocabOnly)
      : Napi::AsyncProgressQueueWorker<float>(onProgress),
        deferred_(Napi::Promise::Deferred::New(onProgress.Env())),
        ctor_(ctor),
        path_(std::move(path)),
        gpuLayers_(gpuLayers),
        vocabOnly_(vocabOnly) {}
  Napi::Promise promise() { return deferred_.Promise(); }

 protected:
  void Execute(const ExecutionProgress& progress) override {
    try {
      model_ = std::make_shared<Model>(path_, gpuLayers_, [&](float p) { progress.Send(&p, 1); }, vocabOnly_);
    } catch (const std::exception& e) { SetError(e.what()); }
  }
  void OnProgress(const float* data, size_t count) override {
    Napi::HandleScope scope(Env());
    for (size_t i = 0; i < count; i++) Callback().Call({Napi::Number::New(Env(), data[i])});
  }
  void OnOK() override {
    Napi::Object obj = ctor_->New({});
    ModelWrap::Unwrap(obj)->model = std::move(model_);
    deferred_.Resolve(obj);
  }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::FunctionReference* ctor_;
  std::string path_;
  int gpuLayers_;
  bool vocabOnly_;
  std::shared_ptr<Model> model_;
};

Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsNumber() || !info[2].IsFunction())
    throw Napi::TypeError::New(
        info.Env(), "llamaLoadModel(path: string, gpuLayers: number, onProgress: (fraction) => void, vocabOnly?)");
  try {
    llama::api();
  } catch (const std::exception& e) { throw Napi::Error::New(info.Env(), e.what()); }
  int gpuLayers = info[1].As<Napi::Number>().Int32Value();
  auto* w = new LoadModelWorker(info[2].As<Napi::Function>(), ctorOf(info), info[0].As<Napi::String>().Utf8Value(),
                                gpuLayers, info[3].ToBoolean().Value());
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

llama::GenerationRequest readRequest(const Napi::Object& o) {
  llama::GenerationRequest r;
  r.prompt = stringProp(o, "prompt");
  Napi::Value tokens = o.Get("promptTokens");
  if (!tokens.IsUndefined() && !tokens.IsNull()) {
    if (!tokens.IsTypedArray() || tokens.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
      throw Napi::TypeError::New(o.Env(), "promptTokens must be an Int32Array (from tokenizePrompt)");
    auto t = tokens.As<Napi::Int32Array>();
    r.tokens.assign(t.Data(), t.Data() + t.ElementLength());
  }
  const double maxTokens = numberProp(o, "maxTokens", r.maxTokens);
  if (!(maxTokens >= 1 && maxTokens <= 2147483647.0) || maxTokens != std::floor(maxTokens))
    throw Napi::RangeError::New(o.Env(), "maxTokens must be an integer from 1 to 2147483647");
  r.maxTokens = int32_t(maxTokens);
  auto& s = r.sampling;
  s.temperature = float(numberProp(o, "temperature", s.temperature));
  s.topK = int32_t(numberProp(o, "topK", s.topK));
  s.topP = float(numberProp(o, "topP", s.topP));
  s.minP = float(numberProp(o, "minP", s.minP));
  s.seed = uint32_t(numberProp(o, "seed", s.seed));
  s.penaltyLastN = int32_t(numberProp(o, "penaltyLastN", s.penaltyLastN));
  s.repeatPenalty = float(numberProp(o, "repeatPenalty", s.repeatPenalty));
  s.frequencyPenalty = float(numberProp(o, "frequencyPenalty", s.frequencyPenalty));
  s.presencePenalty = float(numberProp(o, "presencePenalty", s.presencePenalty));
  Napi::Value bias = o.Get("logitBias");
  if (bias.IsArray()) {
    auto arr = bias.As<Napi::Array>();
    for (uint32_t i = 0; i < arr.Length(); i++) {
      Napi::Value pair = arr.Get(i);
      if (!pair.IsArray() || pair.As<Napi::Array>().Length() != 2)
        throw Napi::TypeError::New(o.Env(), "logitBias must be an array of [tokenId, bias] pairs");
      auto p = pair.As<Napi::Array>();
      s.logitBias.push_back({p.Get(0u).As<Napi::Number>().Int32Value(), p.Get(1u).As<Napi::Number>().FloatValue()});
    }
  }
  r.backendSampling = o.Get("backendSampling").ToBoolean().Value();
  r.fastForward = o.Get("fastForward").ToBoolean().Value();
  r.recordStepTimes = o.Get("recordStepTimes").ToBoolean().Value();
  Napi::Value cache = o.Get("cachePrompt");
  r.cachePrompt = cache.IsUndefined() || cache.ToBoolean().Value();  // on unless asked off, as GenerateOptions
  Napi::Value g = o.Get("grammar");
  if (!g.IsUndefined() && !g.IsNull()) r.grammar = unwrapGrammar(g, "grammar");
  return r;
}

// llamaGenerate(model, request, onTokens) → { done: Promise<result>, abort(): void }. The request
// joins the model's decoding engine (queued while every sequence slot is busy).
Napi::Value Generate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[1].IsObject() || !info[2].IsFunction())
    throw Napi::TypeError::New(env, "llamaGenerate(model, request, onTokens)");
  llama::BatchEngine& engine = ModelWrap::engineOf(info[0], ctorOf(info));
  auto req = readRequest(info[1].As<Napi::Object>());
  auto js = JsJob::create(env, info[2].As<Napi::Function>());
  std::shared_ptr<llama::Job> job;
  try {
    job = engine.submit(std::move(req), js->sink());
  } catch (const std::exception& e) {
    js->cancel();
    throw Napi::Error::New(env, e.what());
  }
  js->attach(job);
  auto out = Napi::Object::New(env);
  out.Set("done", js->promise());
  // A weak reference: a finished job (and the grammar its request holds) is freed when the engine
  // lets go of it, not when this function is garbage collected.
  std::weak_ptr<llama::Job> weak = job;
  out.Set("abort", Napi::Function::New(env, [weak](const Napi::CallbackInfo& i) {
            if (auto j = weak.lock()) j->abort();
            return i.Env().Undefined();
          }));
  return out;
}

}  // namespace

void registerLlama(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = ModelWrap::Init(env);
  auto* ref = new Napi::FunctionReference(Napi::Persistent(ctor));
  env.AddCleanupHook([ref] { delete ref; });
  exports.Set("NativeLlamaModel", ctor);
  exports.Set("llamaLoadLibrary", Napi::Function::New(env, LoadLibrary));
  exports.Set("llamaSupportsGpuOffload", Napi::Function::New(env, SupportsGpuOffload));
  exports.Set("llamaLoadModel", Napi::Function::New(env, LoadModel, "llamaLoadModel", ref));
  exports.Set("llamaGenerate", Napi::Function::New(env, Generate, "llamaGenerate", ref));
}

}  // namespace toolmask::addon
