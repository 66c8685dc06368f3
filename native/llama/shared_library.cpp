#include "shared_library.hpp"

#include <stdexcept>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

namespace toolmask::llama {

#ifdef _WIN32
// Compile-checked only by reading: no Windows machine was at hand (see docs/install.md).

namespace {

std::wstring widen(const std::string& utf8) {
  int n = MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, nullptr, 0);
  std::wstring out(n > 0 ? size_t(n) : 0, L'\0');
  if (n > 0) MultiByteToWideChar(CP_UTF8, 0, utf8.c_str(), -1, out.data(), n);
  if (!out.empty()) out.pop_back();  // the terminator MultiByteToWideChar counted
  return out;
}

std::string lastErrorText() {
  DWORD code = GetLastError();
  char* text = nullptr;
  FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, nullptr,
                 code, 0, reinterpret_cast<char*>(&text), 0, nullptr);
  std::string out = text ? text : "error " + std::to_string(code);
  if (text) LocalFree(text);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace

void* openSharedLibrary(const std::string& path) {
  // The library's own folder first for its dependencies (llama.dll needs ggml.dll and ggml-base.dll
  // beside it), then the system folders. Needs an absolute path, which llama-library.ts passes.
  HMODULE h =
      LoadLibraryExW(widen(path).c_str(), nullptr, LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
  if (!h) throw std::runtime_error("cannot load " + path + ": " + lastErrorText());
  return reinterpret_cast<void*>(h);
}

void* findSymbol(void* library, const char* name) {
  if (FARPROC f = GetProcAddress(reinterpret_cast<HMODULE>(library), name)) return reinterpret_cast<void*>(f);
  // Unlike dlsym, GetProcAddress does not search dependencies: ggml's graph functions live in
  // ggml-base.dll, which loading ggml.dll mapped already.
  if (HMODULE base = GetModuleHandleW(L"ggml-base.dll"))
    if (FARPROC f = GetProcAddress(base, name)) return reinterpret_cast<void*>(f);
  return nullptr;
}

#else

void* openSharedLibrary(const std::string& path) {
  // RTLD_GLOBAL: llama.cpp's backends (dlopened by ggml) resolve ggml symbols from the same copy.
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!h) {
    const char* why = dlerror();
    throw std::runtime_error("cannot load " + path + ": " + (why ? why : "unknown error"));
  }
  return h;
}

void* findSymbol(void* library, const char* name) { return dlsym(library, name); }

#endif

}  // namespace toolmask::llama
