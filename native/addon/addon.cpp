// N-API surface: thin wrappers that validate JS arguments and call the core.
#include <napi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "../core/matcher.hpp"
#include "../core/walk.hpp"
#include "wraps.hpp"

using namespace toolmask;

namespace {

template <typename F>
auto guard(const Napi::Env& env, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Napi::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, e.what());
  }
}

// A number as JavaScript writes it (0, 1, 0.5, 1000000000), where std::to_string writes 0.000000.
std::string numberText(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
  if (d == 0) return "0";
  char buf[32];
  if (d == std::floor(d) && std::fabs(d) < 1e21) {
    snprintf(buf, sizeof buf, "%.0f", d);
    return buf;
  }
  // The fewest significant digits that read back as the same double.
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, d);
    if (std::strtod(buf, nullptr) == d) break;
  }
  return buf;
}

Napi::String hexHash(Napi::Env env, uint64_t h) {
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return Napi::String::New(env, buf);
}

uint32_t tokenId(const Napi::Value& v, const char* what) {
  if (!v.IsNumber()) throw Napi::TypeError::New(v.Env(), std::string(what) + " must be a number");
  double d = v.As<Napi::Number>().DoubleValue();
  if (!(d >= 0) || d != std::floor(d) || d > 4294967295.0)
    throw Napi::RangeError::New(v.Env(), std::string(what) + " must be a non-negative integer");
  return uint32_t(d);
}

class VocabWrap : public Napi::ObjectWrap<VocabWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeVocabulary",
                       {InstanceAccessor<&VocabWrap::Size>("size"), InstanceAccessor<&VocabWrap::Hash>("hash"),
                        InstanceAccessor<&VocabWrap::Memory>("memoryBytes")});
  }
  VocabWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<VocabWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 3 || !info[0].IsTypedArray() || !info[1].IsTypedArray() || !info[2].IsTypedArray())
      throw Napi::TypeError::New(env, "NativeVocabulary(bytes: Uint8Array, offsets: Uint32Array, kinds: Uint8Array)");
    auto bytes = info[0].As<Napi::TypedArray>();
    auto offs = info[1].As<Napi::TypedArray>();
    auto kinds = info[2].As<Napi::TypedArray>();
    if (bytes.TypedArrayType() != napi_uint8_array || offs.TypedArrayType() != napi_uint32_array ||
        kinds.TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(env, "NativeVocabulary expects Uint8Array, Uint32Array, Uint8Array");
    size_t n = kinds.ElementLength();
    if (n == 0 || offs.ElementLength() != n + 1)
      throw Napi::RangeError::New(env, "offsets must have one more entry than kinds, and the vocabulary cannot be empty");
    auto b = bytes.As<Napi::Uint8Array>();
    auto o = offs.As<Napi::Uint32Array>();
    auto k = kinds.As<Napi::Uint8Array>();
    vocab = guard(env, [&] {
      return std::make_shared<const Vocabulary>(b.Data(), b.ElementLength(), o.Data(), k.Data(), uint32_t(n));
    });
  }
  std::shared_ptr<const Vocabulary> vocab;

 private:
  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), vocab->size()); }
  Napi::Value Hash(const Napi::CallbackInfo& info) { return hexHash(info.Env(), vocab->hash()); }
  Napi::Value Memory(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(vocab->memoryBytes())); }
};

// Per-environment constructors, so the addon also works in worker threads.
struct Ctors {
  Napi::FunctionReference vocab, grammar;
};
Napi::Function ctorOf(Napi::Env env, bool grammar) {
  auto* c = env.GetInstanceData<Ctors>();
  return grammar ? c->grammar.Value() : c->vocab.Value();
}

class GrammarWrap : public Napi::ObjectWrap<GrammarWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeGrammar",
                       {InstanceAccessor<&GrammarWrap::States>("stateCount"),
                        InstanceAccessor<&GrammarWrap::Memory>("memoryBytes"),
                        InstanceAccessor<&GrammarWrap::CompileMs>("compileMillis"),
                        InstanceAccessor<&GrammarWrap::Hash>("vocabularyHash")});
  }
  GrammarWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GrammarWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(ctorOf(env, false)) ||
        !info[1].IsString())
      throw Napi::TypeError::New(env, "NativeGrammar(vocabulary: NativeVocabulary, irJson: string, options?)");
    auto vocab = VocabWrap::Unwrap(info[0].As<Napi::Object>())->vocab;
    CompileOptions opts;
    if (info.Length() > 2 && info[2].IsObject()) {
      auto o = info[2].As<Napi::Object>();
      if (o.Has("maxRecursionDepth") && o.Get("maxRecursionDepth").IsNumber())
        opts.maxRecursionDepth = o.Get("maxRecursionDepth").As<Napi::Number>().Int32Value();
      if (o.Has("precomputeStates") && o.Get("precomputeStates").IsNumber())
        opts.precomputeStates = size_t(std::max(0.0, o.Get("precomputeStates").As<Napi::Number>().DoubleValue()));
      if (o.Has("precomputeBytes") && o.Get("precomputeBytes").IsNumber())
        opts.precomputeBytes = size_t(std::max(0.0, o.Get("precomputeBytes").As<Napi::Number>().DoubleValue()));
      if (o.Has("precomputeMillis") && o.Get("precomputeMillis").IsNumber())
        opts.precomputeMillis = o.Get("precomputeMillis").As<Napi::Number>().DoubleValue();
    }
    std::string ir = info[1].As<Napi::String>().Utf8Value();
    grammar = guard(env, [&] { return std::make_shared<CompiledGrammar>(ir, vocab, opts); });
  }
  std::shared_ptr<CompiledGrammar> grammar;

 private:
  Napi::Value States(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(grammar->stateCount())); }
  Napi::Value Memory(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(grammar->memoryBytes())); }
  Napi::Value CompileMs(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), grammar->compileMillis()); }
  Napi::Value Hash(const Napi::CallbackInfo& info) { return hexHash(info.Env(), grammar->vocab().hash()); }
};

class MatcherWrap : public Napi::ObjectWrap<MatcherWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(env, "NativeMatcher",
                       {InstanceMethod<&MatcherWrap::AcceptToken>("acceptToken"),
                        InstanceMethod<&MatcherWrap::AcceptBytes>("acceptBytes"),
                        InstanceMethod<&MatcherWrap::Fill>("fillNextTokenBitmask"),
                        InstanceMethod<&MatcherWrap::IsComplete>("isComplete"),
                        InstanceMethod<&MatcherWrap::IsTerminated>("isTerminated"),
                        InstanceMethod<&MatcherWrap::Rollback>("rollback"),
                        InstanceMethod<&MatcherWrap::Reset>("reset"),
                        InstanceMethod<&MatcherWrap::HasAllowed>("hasAllowedToken"),
                        InstanceMethod<&MatcherWrap::RandomWalks>("randomWalks"),
                        InstanceAccessor<&MatcherWrap::Steps>("steps")});
  }
  MatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MatcherWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(ctorOf(env, true)))
      throw Napi::TypeError::New(env, "NativeMatcher(grammar: NativeGrammar)");
    matcher = std::make_unique<Matcher>(GrammarWrap::Unwrap(info[0].As<Napi::Object>())->grammar);
  }

 private:
  std::unique_ptr<Matcher> matcher;

  Napi::Value AcceptToken(const Napi::CallbackInfo& info) {
    uint32_t id = tokenId(info[0], "token id");
    return Napi::Boolean::New(info.Env(), guard(info.Env(), [&] { return matcher->acceptToken(id); }));
  }
  Napi::Value AcceptBytes(const Napi::CallbackInfo& info) {
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(info.Env(), "acceptBytes expects a Uint8Array");
    auto b = info[0].As<Napi::Uint8Array>();
    return Napi::Boolean::New(info.Env(), matcher->acceptBytes(b.Data(), b.ElementLength()));
  }
  Napi::Value Fill(const Napi::CallbackInfo& info) {
    if (!info[0].IsTypedArray()) throw Napi::TypeError::New(info.Env(), "fillNextTokenBitmask expects a Uint32Array or Int32Array");
    auto t = info[0].As<Napi::TypedArray>();
    if (t.TypedArrayType() != napi_uint32_array && t.TypedArrayType() != napi_int32_array)
      throw Napi::TypeError::New(info.Env(), "fillNextTokenBitmask expects a Uint32Array or Int32Array");
    auto* data = reinterpret_cast<uint32_t*>(static_cast<uint8_t*>(t.ArrayBuffer().Data()) + t.ByteOffset());
    guard(info.Env(), [&] { matcher->fillNextTokenBitmask(data, t.ElementLength()); return 0; });
    return info.Env().Undefined();
  }
  Napi::Value IsComplete(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), matcher->isComplete()); }
  Napi::Value IsTerminated(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), matcher->isTerminated()); }
  Napi::Value Rollback(const Napi::CallbackInfo& info) {
    uint32_t n = tokenId(info[0], "rollback count");
    guard(info.Env(), [&] { matcher->rollback(n); return 0; });
    return info.Env().Undefined();
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) { matcher->reset(); return info.Env().Undefined(); }
  Napi::Value HasAllowed(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), matcher->grammar().hasAllowedToken(matcher->state()));
  }
  Napi::Value RandomWalks(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    WalkOptions o;
    double count = 1;
    if (info.Length() > 0 && info[0].IsObject()) {
      auto obj = info[0].As<Napi::Object>();
      auto num = [&](const char* key, double lo, double hi, double& out) {
        if (!obj.Has(key) || obj.Get(key).IsUndefined()) return false;
        if (!obj.Get(key).IsNumber()) throw Napi::TypeError::New(env, std::string("randomWalks: ") + key + " must be a number");
        double d = obj.Get(key).As<Napi::Number>().DoubleValue();
        if (!(d >= lo && d <= hi))
          throw Napi::RangeError::New(env, std::string("randomWalks: ") + key + " must be between " + numberText(lo) + " and " + numberText(hi) + ", got " + numberText(d));
        out = d;
        return true;
      };
      double d;
      if (num("seed", 0, 9007199254740991.0, d)) o.seed = uint64_t(d);
      if (num("maxTokens", 0, 1e9, d)) o.maxTokens = size_t(d);
      num("count", 0, 1e9, count);
      num("endProbability", 0, 1, o.endProbability);
      num("specialProbability", 0, 1, o.specialProbability);
      num("leaveProbability", 0, 1, o.leaveProbability);
      num("shortProbability", 0, 1, o.shortProbability);
      if (num("probes", 0, 1e6, d)) o.probes = unsigned(d);
    }
    auto walks = guard(env, [&] { return randomWalks(*matcher, o, size_t(count)); });
    auto out = Napi::Array::New(env, walks.size());
    for (size_t w = 0; w < walks.size(); w++) {
      auto tokens = Napi::Uint32Array::New(env, walks[w].tokens.size());
      std::copy(walks[w].tokens.begin(), walks[w].tokens.end(), tokens.Data());
      auto o1 = Napi::Object::New(env);
      o1.Set("tokens", tokens);
      o1.Set("terminated", Napi::Boolean::New(env, walks[w].terminated));
      o1.Set("stuck", Napi::Boolean::New(env, walks[w].stuck));
      out.Set(uint32_t(w), o1);
    }
    return out;
  }
  Napi::Value Steps(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), double(matcher->steps())); }
};

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto v = VocabWrap::Init(env);
  auto g = GrammarWrap::Init(env);
  auto* c = new Ctors{Napi::Persistent(v), Napi::Persistent(g)};
  env.SetInstanceData<Ctors>(c);
  exports.Set("NativeVocabulary", v);
  exports.Set("NativeGrammar", g);
  exports.Set("NativeMatcher", MatcherWrap::Init(env));
  addon::registerLlama(env, exports);
  return exports;
}

}  // namespace

std::shared_ptr<CompiledGrammar> addon::unwrapGrammar(const Napi::Value& value, const char* what) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctorOf(env, true)))
    throw Napi::TypeError::New(env, std::string(what) + " must be a NativeGrammar (compileGrammar(...).native)");
  return GrammarWrap::Unwrap(value.As<Napi::Object>())->grammar;
}

NODE_API_MODULE(toolmask, Init)
