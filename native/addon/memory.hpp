// The process's native memory as the grammar budget needs it: the C library allocator's own count
// (glibc: mallinfo2), handing freed memory back to the system (malloc_trim, on a worker thread), and
// the idle limit of the vocabularies' shape caches, the table budget of the grammars in use, and
// V8's count of the external memory reported to it.
#pragma once
#include <napi.h>

namespace toolmask::addon {

// Adds nativeHeap(), trimNativeHeap(), setShapeCacheIdleBytes(), setGrammarTableBytes() and
// externalMemory() to the exports.
void registerMemory(Napi::Env env, Napi::Object exports);

}  // namespace toolmask::addon
