#include "llama_api.hpp"

#include "shared_library.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <stdexcept>

namespace toolmask::llama {
namespace {

std::mutex gMutex;
Api gApi;
std::string gLoadedFrom;
std::string gLog;  // guarded by gLogMutex
std::mutex gLogMutex;

void* openLibrary(const std::string& path) {
  try {
    return openSharedLibrary(path);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string(e.what()) +
                             " (is node-llama-cpp's prebuilt package for this platform installed?)");
  }
}

template <typename T>
void resolve(void* lib, const std::string& libPath, const char* name, T& slot) {
  slot = reinterpret_cast<T>(findSymbol(lib, name));
  if (!slot)
    throw std::runtime_error(std::string("symbol ") + name + " not found in " + libPath +
                             " (toolmask expects the llama.cpp release node-llama-cpp 3.21.1 ships)");
}

void logCallback(ggml_log_level level, const char* text, void*) {
  static const bool echo = std::getenv("TOOLMASK_LLAMA_LOG") != nullptr;
  if (echo) std::fputs(text, stderr);  // every llama.cpp log line, for diagnosis
  if (level != GGML_LOG_LEVEL_ERROR) return;
  std::lock_guard<std::mutex> lock(gLogMutex);
  if (gLog.size() > 4096) gLog.erase(0, gLog.size() - 2048);
  gLog += text;
}

}  // namespace

const Api& loadApi(const LibraryPaths& paths) {
  std::lock_guard<std::mutex> lock(gMutex);
  if (!gLoadedFrom.empty()) {
    if (gLoadedFrom != paths.llama)
      throw std::runtime_error("llama.cpp is already loaded from " + gLoadedFrom +
                               "; one process can use only one (asked for " + paths.llama + ")");
    return gApi;
  }
  Api table;
  void* ggml = openLibrary(paths.ggml);
  void* llama = openLibrary(paths.llama);
#define TOOLMASK_RESOLVE_LLAMA(name) resolve(llama, paths.llama, #name, table.name);
#define TOOLMASK_RESOLVE_GGML(name) resolve(ggml, paths.ggml, #name, table.name);
  TOOLMASK_LLAMA_FUNCTIONS(TOOLMASK_RESOLVE_LLAMA)
  TOOLMASK_GGML_FUNCTIONS(TOOLMASK_RESOLVE_GGML)
#undef TOOLMASK_RESOLVE_LLAMA
#undef TOOLMASK_RESOLVE_GGML
  // The backends are separate libraries found by folder; ggml's default search looks beside the
  // executable (node) and in the working directory, neither of which holds them. Another user of
  // the same libllama in this process (node-llama-cpp) may have registered them already.
  table.llama_log_set(logCallback, nullptr);  // before the backends load: they log too
  if (table.ggml_backend_reg_count() == 0) table.ggml_backend_load_all_from_path(paths.backendsDir.c_str());
  if (table.ggml_backend_reg_count() == 0)
    throw std::runtime_error("no llama.cpp backend could be loaded from " + paths.backendsDir);
  table.llama_backend_init();
  gApi = table;
  gLoadedFrom = paths.llama;
  return gApi;
}

const Api& api() {
  std::lock_guard<std::mutex> lock(gMutex);
  if (gLoadedFrom.empty()) throw std::runtime_error("llama.cpp is not loaded yet (call loadModel first)");
  return gApi;
}

std::string takeLlamaLog() {
  std::lock_guard<std::mutex> lock(gLogMutex);
  std::string out;
  out.swap(gLog);
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace toolmask::llama
