// N-API surface: thin wrappers that validate JS arguments and call the core.
#include <napi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "memory.hpp"
#include "toolmask/mask_prefetch.hpp"
#include "toolmask/matcher.hpp"
#include "toolmask/walk.hpp"
#include "wraps.hpp"

using namespace toolmask;

namespace {

// The core's exceptions as JS errors: a grammar past a stated bound becomes an Error with code
// TOOLMASK_GRAMMAR_LIMIT and the bound's name in `limit` (src/grammar/compile.ts turns it into a
// GrammarLimitError); a grammar naming a rule its vocabulary's rule library lacks, one with code
// TOOLMASK_RULE_LIBRARY_MISS (src/grammar/rule-library.ts compiles it again with the rule's body).
Napi::Error jsError(const Napi::Env& env, const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const Napi::Error& e) { return e; } catch (const GrammarLimitError& e) {
    Napi::Error out = Napi::Error::New(env, e.what());
    out.Set("code", Napi::String::New(env, "TOOLMASK_GRAMMAR_LIMIT"));
    out.Set("limit", Napi::String::New(env, e.limit));
    return out;
  } catch (const RuleLibraryMiss& e) {
    Napi::Error out = Napi::Error::New(env, e.what());
    out.Set("code", Napi::String::New(env, "TOOLMASK_RULE_LIBRARY_MISS"));
    return out;
  } catch (const std::exception& e) { return Napi::Error::New(env, e.what()); }
}

template <typename F>
auto guard(const Napi::Env& env, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Napi::Error&) { throw; } catch (const std::exception&) {
    throw jsError(env, std::current_exception());
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
    return DefineClass(
        env, "NativeVocabulary",
        {InstanceAccessor<&VocabWrap::Size>("size"), InstanceAccessor<&VocabWrap::Hash>("hash"),
         InstanceAccessor<&VocabWrap::Memory>("memoryBytes"), InstanceAccessor<&VocabWrap::Shapes>("shapeCache"),
         InstanceMethod<&VocabWrap::ClearShapes>("clearShapeCache"), InstanceAccessor<&VocabWrap::Rules>("ruleLibrary"),
         InstanceMethod<&VocabWrap::ClearRules>("clearRuleLibrary")});
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
      throw Napi::RangeError::New(env,
                                  "offsets must have one more entry than kinds, and the vocabulary cannot be empty");
    auto b = bytes.As<Napi::Uint8Array>();
    auto o = offs.As<Napi::Uint32Array>();
    auto k = kinds.As<Napi::Uint8Array>();
    vocab = guard(env, [&] { return makeVocabulary(b.Data(), b.ElementLength(), o.Data(), k.Data(), uint32_t(n)); });
  }
  std::shared_ptr<const Vocabulary> vocab;
  std::shared_ptr<ShapeCache> shapes = makeShapeCache();   // shared by the grammars compiled for it
  std::shared_ptr<RuleLibrary> rules = makeRuleLibrary();  // likewise

 private:
  Napi::Value Size(const Napi::CallbackInfo& info) { return Napi::Number::New(info.Env(), vocabularySize(*vocab)); }
  Napi::Value Hash(const Napi::CallbackInfo& info) { return hexHash(info.Env(), vocabularyHash(*vocab)); }
  Napi::Value Memory(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(vocabularyMemoryBytes(*vocab)));
  }
  static Napi::Object counts(Napi::Env env, std::initializer_list<std::pair<const char*, size_t>> fields) {
    Napi::Object o = Napi::Object::New(env);
    for (auto& [name, n] : fields) o.Set(name, double(n));
    return o;
  }
  Napi::Value Shapes(const Napi::CallbackInfo& info) {
    const ShapeCacheStats s = shapeCacheStats(*shapes);
    return counts(info.Env(),
                  {{"shapes", s.shapes}, {"hits", s.hits}, {"misses", s.misses}, {"idleBytes", s.idleBytes}});
  }
  void ClearShapes(const Napi::CallbackInfo&) { clearShapeCache(*shapes); }
  Napi::Value Rules(const Napi::CallbackInfo& info) {
    const RuleLibraryStats s = ruleLibraryStats(*rules);
    return counts(info.Env(), {{"rules", s.rules}, {"bytes", s.bytes}, {"generation", s.generation}});
  }
  void ClearRules(const Napi::CallbackInfo&) { clearRuleLibrary(*rules); }
};

// Per-environment constructors, so the addon also works in worker threads.
struct Ctors {
  Napi::FunctionReference vocab, grammar;
};
Napi::Function ctorOf(Napi::Env env, bool grammar) {
  auto* c = env.GetInstanceData<Ctors>();
  return grammar ? c->grammar.Value() : c->vocab.Value();
}

CompileOptions compileOptions(const Napi::Value& v) {
  CompileOptions opts;
  opts.precomputeLater = true;  // the start mask now, the rest on the prefetch thread (compiled())
  if (!v.IsObject()) return opts;
  auto o = v.As<Napi::Object>();
  auto num = [&](const char* key) -> std::optional<double> {
    Napi::Value x = o.Get(key);
    if (!x.IsNumber()) return std::nullopt;
    return x.As<Napi::Number>().DoubleValue();
  };
  if (auto d = num("maxRecursionDepth")) opts.maxRecursionDepth = int(std::clamp(*d, 0.0, 1000.0));
  if (auto d = num("maxStates")) opts.maxStates = size_t(std::clamp(*d, 1.0, 1e9));
  if (auto d = num("maxTableBytes")) opts.maxTableBytes = size_t(std::clamp(*d, 0.0, 1e15));
  if (auto d = num("precomputeStates")) opts.precomputeStates = size_t(std::max(0.0, *d));
  if (auto d = num("precomputeBytes")) opts.precomputeBytes = size_t(std::max(0.0, *d));
  if (auto d = num("precomputeMillis")) opts.precomputeMillis = *d;
  return opts;
}

// A grammar as the addon compiles it: with the vocabulary's shape cache, its precompute carried on
// in the background once it is ready.
std::shared_ptr<CompiledGrammar> compiled(const std::string& ir, std::shared_ptr<const Vocabulary> vocab,
                                          std::shared_ptr<ShapeCache> shapes, std::shared_ptr<RuleLibrary> rules,
                                          const CompileOptions& opts) {
  auto g = compileGrammar(ir, std::move(vocab), opts, std::move(shapes), std::move(rules));
  precomputeInBackground(g);
  return g;
}

// What V8 has been told of one compiled grammar's bytes, shared by every NativeGrammar of it (all
// on the one JS thread that compiled it): a grammar counts once however many references JS holds,
// and its count goes when the last of them does.
struct Reported {
  int64_t bytes = 0;
};
struct Adopted {
  std::shared_ptr<CompiledGrammar> grammar;
  std::shared_ptr<Reported> reported;
};

// A NativeGrammar holds one reference to a compiled grammar; matchers and generations hold their
// own. Its native memory is reported to V8 (napi_adjust_external_memory, so garbage collection
// weighs it) each time it is measured, until the last NativeGrammar of it is disposed or collected;
// dispose() drops the reference at once, without waiting for a collection.
class GrammarWrap : public Napi::ObjectWrap<GrammarWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(
        env, "NativeGrammar",
        {InstanceMethod<&GrammarWrap::Share>("share"), InstanceMethod<&GrammarWrap::Dispose>("dispose"),
         InstanceAccessor<&GrammarWrap::States>("stateCount"), InstanceAccessor<&GrammarWrap::Memory>("memoryBytes"),
         InstanceAccessor<&GrammarWrap::MemoryNoWait>("measuredBytes"),
         InstanceAccessor<&GrammarWrap::CompileMs>("compileMillis"),
         InstanceAccessor<&GrammarWrap::CompileStates>("compileStates"),
         InstanceAccessor<&GrammarWrap::Flushes>("maskFlushes"), InstanceAccessor<&GrammarWrap::Disposed>("disposed"),
         InstanceAccessor<&GrammarWrap::InUse>("inUse"), InstanceAccessor<&GrammarWrap::Tables>("tableBytes"),
         InstanceAccessor<&GrammarWrap::Hash>("vocabularyHash"),
         StaticMethod<&GrammarWrap::CompileAsync>("compileAsync")});
  }
  // new NativeGrammar(vocabulary, irJson, options?) compiles on this thread;
  // NativeGrammar.compileAsync(...) compiles on a worker thread and resolves to one.
  GrammarWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<GrammarWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() == 1 && info[0].IsExternal()) {  // adopt (compileAsync, share)
      const Adopted& a = *info[0].As<Napi::External<Adopted>>().Data();
      grammar_ = a.grammar;
      reported_ = a.reported ? a.reported : std::make_shared<Reported>();
      report(env);
      return;
    }
    VocabWrap* vocab = vocabularyArg(info);
    CompileOptions opts = compileOptions(info.Length() > 2 ? info[2] : env.Undefined());
    std::string ir = info[1].As<Napi::String>().Utf8Value();
    grammar_ = guard(env, [&] { return compiled(ir, vocab->vocab, vocab->shapes, vocab->rules, opts); });
    reported_ = std::make_shared<Reported>();
    report(env);
  }
  ~GrammarWrap() override { unreport(Env()); }

  // A new NativeGrammar for `g`; `reported`: the count it shares with the other NativeGrammars of
  // `g` (none: `g` is new to JS).
  static Napi::Object adopt(Napi::Env env, std::shared_ptr<CompiledGrammar> g,
                            std::shared_ptr<Reported> reported = nullptr) {
    Adopted a{std::move(g), std::move(reported)};
    return ctorOf(env, true).New({Napi::External<Adopted>::New(env, &a)});
  }
  const std::shared_ptr<CompiledGrammar>& grammar(const Napi::Env& env) const {
    if (!grammar_) throw Napi::Error::New(env, "this grammar was disposed; compile it again");
    return grammar_;
  }

 private:
  std::shared_ptr<CompiledGrammar> grammar_;
  std::shared_ptr<Reported> reported_;  // null once disposed

  static VocabWrap* vocabularyArg(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(ctorOf(env, false)) ||
        !info[1].IsString())
      throw Napi::TypeError::New(env, "NativeGrammar(vocabulary: NativeVocabulary, irJson: string, options?)");
    return VocabWrap::Unwrap(info[0].As<Napi::Object>());
  }
  // Measures the grammar and brings V8's count of it up to date; returns the bytes.
  int64_t report(Napi::Env env, bool wait = false) {
    if (!grammar_) return 0;
    const int64_t now = int64_t(wait ? grammarMemoryBytes(*grammar_) : grammarMemoryBytesNoWait(*grammar_));
    if (now != reported_->bytes) Napi::MemoryManagement::AdjustExternalMemory(env, now - reported_->bytes);
    reported_->bytes = now;
    return now;
  }
  // This reference goes: the last one of the grammar takes its count back from V8.
  void unreport(Napi::Env env) {
    if (reported_ && reported_.use_count() == 1 && reported_->bytes)
      Napi::MemoryManagement::AdjustExternalMemory(env, -reported_->bytes);
    reported_.reset();
  }

  class CompileWorker : public Napi::AsyncWorker {
   public:
    CompileWorker(Napi::Env env, const VocabWrap& vocab, std::string ir, CompileOptions opts)
        : Napi::AsyncWorker(env, "toolmask.compileGrammar"),
          deferred_(Napi::Promise::Deferred::New(env)),
          vocab_(vocab.vocab),
          shapes_(vocab.shapes),
          rules_(vocab.rules),
          ir_(std::move(ir)),
          opts_(opts) {}
    Napi::Promise promise() { return deferred_.Promise(); }

   protected:
    void Execute() override {
      try {
        grammar_ = compiled(ir_, vocab_, shapes_, rules_, opts_);
      } catch (const std::exception& e) {
        error_ = std::current_exception();
        SetError(e.what());
      }
    }
    void OnOK() override { deferred_.Resolve(adopt(Env(), std::move(grammar_))); }
    void OnError(const Napi::Error& e) override {
      deferred_.Reject(error_ ? jsError(Env(), error_).Value() : e.Value());
    }

   private:
    Napi::Promise::Deferred deferred_;
    std::shared_ptr<const Vocabulary> vocab_;
    std::shared_ptr<ShapeCache> shapes_;
    std::shared_ptr<RuleLibrary> rules_;
    std::string ir_;
    CompileOptions opts_;
    std::shared_ptr<CompiledGrammar> grammar_;
    std::exception_ptr error_;  // what Execute() caught, turned into a JS error on the JS thread
  };

  static Napi::Value CompileAsync(const Napi::CallbackInfo& info) {
    auto vocab = vocabularyArg(info);
    auto* w = new CompileWorker(info.Env(), *vocab, info[1].As<Napi::String>().Utf8Value(),
                                compileOptions(info.Length() > 2 ? info[2] : info.Env().Undefined()));
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
  }
  Napi::Value Share(const Napi::CallbackInfo& info) { return adopt(info.Env(), grammar(info.Env()), reported_); }
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    unreport(info.Env());
    grammar_.reset();
    return info.Env().Undefined();
  }
  Napi::Value States(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(),
                             double(guard(info.Env(), [&] { return grammarStateCount(*grammar(info.Env())); })));
  }
  Napi::Value Memory(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(report(info.Env(), true)));
  }
  Napi::Value MemoryNoWait(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(report(info.Env())));
  }
  Napi::Value CompileStates(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(grammarCompileStates(*grammar(info.Env()))));
  }
  Napi::Value CompileMs(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), grammarCompileMillis(*grammar(info.Env())));
  }
  Napi::Value Flushes(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(grammarMaskFlushes(*grammar(info.Env()))));
  }
  Napi::Value Disposed(const Napi::CallbackInfo& info) { return Napi::Boolean::New(info.Env(), !grammar_); }
  Napi::Value Tables(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(grammarTableBytes(*grammar(info.Env()))));
  }
  Napi::Value InUse(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), grammarInUse(*grammar(info.Env())));
  }
  Napi::Value Hash(const Napi::CallbackInfo& info) {
    return hexHash(info.Env(), vocabularyHash(grammarVocabulary(*grammar(info.Env()))));
  }
};

class MatcherWrap : public Napi::ObjectWrap<MatcherWrap> {
 public:
  static Napi::Function Init(Napi::Env env) {
    return DefineClass(
        env, "NativeMatcher",
        {InstanceMethod<&MatcherWrap::AcceptToken>("acceptToken"),
         InstanceMethod<&MatcherWrap::AcceptBytes>("acceptBytes"),
         InstanceMethod<&MatcherWrap::Fill>("fillNextTokenBitmask"),
         InstanceMethod<&MatcherWrap::IsComplete>("isComplete"),
         InstanceMethod<&MatcherWrap::IsTerminated>("isTerminated"), InstanceMethod<&MatcherWrap::Rollback>("rollback"),
         InstanceMethod<&MatcherWrap::Reset>("reset"), InstanceMethod<&MatcherWrap::HasAllowed>("hasAllowedToken"),
         InstanceMethod<&MatcherWrap::Forced>("forcedBytes"),
         InstanceMethod<&MatcherWrap::MinTokens>("minTokensToFinish"),
         InstanceMethod<&MatcherWrap::RandomWalks>("randomWalks"), InstanceMethod<&MatcherWrap::Dispose>("dispose"),
         InstanceAccessor<&MatcherWrap::Steps>("steps")});
  }
  MatcherWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<MatcherWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 1 || !info[0].IsObject() || !info[0].As<Napi::Object>().InstanceOf(ctorOf(env, true)))
      throw Napi::TypeError::New(env, "NativeMatcher(grammar: NativeGrammar)");
    matcher_ = std::make_unique<Matcher>(GrammarWrap::Unwrap(info[0].As<Napi::Object>())->grammar(env));
  }

 private:
  std::unique_ptr<Matcher> matcher_;  // null once disposed (its grammar reference goes with it)

  Matcher& live(const Napi::Env& env) {
    if (!matcher_) throw Napi::Error::New(env, "this matcher was disposed; create another from its grammar");
    return *matcher_;
  }
  Napi::Value Dispose(const Napi::CallbackInfo& info) {
    matcher_.reset();
    return info.Env().Undefined();
  }

  Napi::Value AcceptToken(const Napi::CallbackInfo& info) {
    uint32_t id = tokenId(info[0], "token id");
    return Napi::Boolean::New(info.Env(), guard(info.Env(), [&] { return live(info.Env()).acceptToken(id); }));
  }
  Napi::Value AcceptBytes(const Napi::CallbackInfo& info) {
    if (!info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array)
      throw Napi::TypeError::New(info.Env(), "acceptBytes expects a Uint8Array");
    auto b = info[0].As<Napi::Uint8Array>();
    return Napi::Boolean::New(
        info.Env(), guard(info.Env(), [&] { return live(info.Env()).acceptBytes(b.Data(), b.ElementLength()); }));
  }
  Napi::Value Fill(const Napi::CallbackInfo& info) {
    // One napi_get_typedarray_info gives the type, the length and the first element (byte offset
    // applied); it fails on anything that is no typed array. Called once per decoding step.
    napi_typedarray_type type;
    size_t length = 0;
    void* data = nullptr;
    if (napi_get_typedarray_info(info.Env(), info[0], &type, &length, &data, nullptr, nullptr) != napi_ok ||
        (type != napi_uint32_array && type != napi_int32_array))
      throw Napi::TypeError::New(info.Env(), "fillNextTokenBitmask expects a Uint32Array or Int32Array");
    // An optional second argument: the tokens left, this step included (0 or absent: no budget).
    uint32_t left = info.Length() > 1 && !info[1].IsUndefined() ? tokenId(info[1], "tokensLeft") : 0;
    guard(info.Env(), [&] {
      live(info.Env()).fillNextTokenBitmask(static_cast<uint32_t*>(data), length, left);
      return 0;
    });
    return info.Env().Undefined();
  }
  Napi::Value IsComplete(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), guard(info.Env(), [&] { return live(info.Env()).isComplete(); }));
  }
  Napi::Value IsTerminated(const Napi::CallbackInfo& info) {
    return Napi::Boolean::New(info.Env(), live(info.Env()).isTerminated());
  }
  Napi::Value Rollback(const Napi::CallbackInfo& info) {
    uint32_t n = tokenId(info[0], "rollback count");
    guard(info.Env(), [&] {
      live(info.Env()).rollback(n);
      return 0;
    });
    return info.Env().Undefined();
  }
  Napi::Value Reset(const Napi::CallbackInfo& info) {
    guard(info.Env(), [&] {
      live(info.Env()).reset();
      return 0;
    });
    return info.Env().Undefined();
  }
  Napi::Value Forced(const Napi::CallbackInfo& info) {
    uint32_t max = tokenId(info[0], "forcedBytes max");
    std::string f = guard(info.Env(), [&] { return live(info.Env()).forcedBytes(max); });
    return Napi::Buffer<uint8_t>::Copy(info.Env(), reinterpret_cast<const uint8_t*>(f.data()), f.size());
  }
  Napi::Value MinTokens(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(),
                             double(guard(info.Env(), [&] { return live(info.Env()).minTokensToFinish(); })));
  }
  Napi::Value HasAllowed(const Napi::CallbackInfo& info) {
    Matcher& m = live(info.Env());
    return Napi::Boolean::New(info.Env(), guard(info.Env(), [&] { return hasAllowedToken(m.grammar(), m.state()); }));
  }
  Napi::Value RandomWalks(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    WalkOptions o;
    double count = 1;
    if (info.Length() > 0 && info[0].IsObject()) {
      auto obj = info[0].As<Napi::Object>();
      auto num = [&](const char* key, double lo, double hi, double& out) {
        if (!obj.Has(key) || obj.Get(key).IsUndefined()) return false;
        if (!obj.Get(key).IsNumber())
          throw Napi::TypeError::New(env, std::string("randomWalks: ") + key + " must be a number");
        double d = obj.Get(key).As<Napi::Number>().DoubleValue();
        if (!(d >= lo && d <= hi))
          throw Napi::RangeError::New(env, std::string("randomWalks: ") + key + " must be between " + numberText(lo) +
                                               " and " + numberText(hi) + ", got " + numberText(d));
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
    auto walks = guard(env, [&] { return randomWalks(live(env), o, size_t(count)); });
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
  Napi::Value Steps(const Napi::CallbackInfo& info) {
    return Napi::Number::New(info.Env(), double(live(info.Env()).steps()));
  }
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
  addon::registerMemory(env, exports);
  return exports;
}

}  // namespace

std::shared_ptr<CompiledGrammar> addon::unwrapGrammar(const Napi::Value& value, const char* what) {
  Napi::Env env = value.Env();
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctorOf(env, true)))
    throw Napi::TypeError::New(env, std::string(what) + " must be a NativeGrammar (compileGrammar(...).native)");
  return GrammarWrap::Unwrap(value.As<Napi::Object>())->grammar(env);
}

NODE_API_MODULE(toolmask, Init)
