// The process's native memory as the grammar budget needs it: the C library allocator's own count
// (glibc: mallinfo2), handing freed memory back to the system (malloc_trim, on a worker thread), and
// the idle limit of the vocabularies' shape caches.
#pragma once
#include <napi.h>

namespace toolmask::addon {

// Adds nativeHeap(), trimNativeHeap() and setShapeCacheIdleBytes() to the exports.
void registerMemory(Napi::Env env, Napi::Object exports);

}  // namespace toolmask::addon
