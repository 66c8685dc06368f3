#include "memory.hpp"

#include <cmath>
#include <cstddef>

#include "toolmask/grammar.hpp"

#if defined(__GLIBC__)
#include <dlfcn.h>
#include <malloc.h>
#endif

namespace toolmask::addon {
namespace {

#if defined(__GLIBC__)
// mallinfo2 (glibc 2.33+) is looked up at run time: the prebuild also loads on older glibc, where
// the heap's figures are then unknown.
struct MallInfo2 {
  size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
};
using MallInfo2Fn = MallInfo2 (*)();
MallInfo2Fn mallinfo2Fn() {
  static MallInfo2Fn fn = reinterpret_cast<MallInfo2Fn>(dlsym(RTLD_DEFAULT, "mallinfo2"));
  return fn;
}
#endif

// { known, inUseBytes, freeBytes, mmapBytes }: bytes allocated and not freed (chunks in use in
// every arena, plus blocks mapped on their own), bytes freed but kept by the allocator, and the
// mapped blocks alone. known: false where the allocator does not tell (then the rest are 0).
Napi::Value NativeHeap(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object o = Napi::Object::New(env);
  double inUse = 0, free = 0, mmap = 0;
  bool known = false;
#if defined(__GLIBC__)
  if (auto fn = mallinfo2Fn()) {
    MallInfo2 m = fn();
    inUse = double(m.uordblks) + double(m.hblkhd);
    free = double(m.fordblks);
    mmap = double(m.hblkhd);
    known = true;
  }
#endif
  o.Set("known", Napi::Boolean::New(env, known));
  o.Set("inUseBytes", Napi::Number::New(env, inUse));
  o.Set("freeBytes", Napi::Number::New(env, free));
  o.Set("mmapBytes", Napi::Number::New(env, mmap));
  return o;
}

// malloc_trim(0) on a worker thread: it walks every arena and hands free pages back (151 ms for
// ~190 MB freed on 2 shared cores), too long for the JS thread.
class TrimWorker : public Napi::AsyncWorker {
 public:
  explicit TrimWorker(Napi::Env env)
      : Napi::AsyncWorker(env, "toolmask.trimNativeHeap"), deferred_(Napi::Promise::Deferred::New(env)) {}
  Napi::Promise promise() { return deferred_.Promise(); }

 protected:
  void Execute() override {
#if defined(__GLIBC__)
    released_ = malloc_trim(0) != 0;
#endif
  }
  void OnOK() override { deferred_.Resolve(Napi::Boolean::New(Env(), released_)); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  Napi::Promise::Deferred deferred_;
  bool released_ = false;
};

// Resolves true when the allocator handed memory back (glibc); false elsewhere.
Napi::Value TrimNativeHeap(const Napi::CallbackInfo& info) {
  auto* w = new TrimWorker(info.Env());
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

// setShapeCacheIdleBytes(n): the idle limit of every vocabulary's shape cache (shapes no grammar holds).
Napi::Value SetShapeCacheIdleBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double n = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
  if (!(n >= 0) || n != std::floor(n) || n > 9007199254740991.0)
    throw Napi::RangeError::New(env, "setShapeCacheIdleBytes(bytes): bytes must be a non-negative integer");
  setShapeCacheIdleBytes(size_t(n));
  return env.Undefined();
}

// setGrammarTableBytes(n): the table memory the grammars in use may hold together
// (setGrammarTableBudget).
Napi::Value SetGrammarTableBytes(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  double n = info.Length() > 0 && info[0].IsNumber() ? info[0].As<Napi::Number>().DoubleValue() : -1;
  if (!(n >= 0) || n != std::floor(n) || n > 9007199254740991.0)
    throw Napi::RangeError::New(env, "setGrammarTableBytes(bytes): bytes must be a non-negative integer");
  setGrammarTableBudget(size_t(n));
  return env.Undefined();
}

// V8's count of the external memory native code has reported to it (napi_adjust_external_memory
// by 0): the grammars' bytes among it. process.memoryUsage().external does not show it on Node 20
// (V8 fills that with ArrayBuffer backing stores alone).
Napi::Value ExternalMemory(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), double(Napi::MemoryManagement::AdjustExternalMemory(info.Env(), 0)));
}

}  // namespace

void registerMemory(Napi::Env env, Napi::Object exports) {
  exports.Set("nativeHeap", Napi::Function::New(env, NativeHeap, "nativeHeap"));
  exports.Set("trimNativeHeap", Napi::Function::New(env, TrimNativeHeap, "trimNativeHeap"));
  exports.Set("setShapeCacheIdleBytes", Napi::Function::New(env, SetShapeCacheIdleBytes, "setShapeCacheIdleBytes"));
  exports.Set("setGrammarTableBytes", Napi::Function::New(env, SetGrammarTableBytes, "setGrammarTableBytes"));
  exports.Set("externalMemory", Napi::Function::New(env, ExternalMemory, "externalMemory"));
}

}  // namespace toolmask::addon
