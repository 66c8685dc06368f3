// Opening a shared library and finding its functions: dlopen/dlsym on Linux and macOS,
// LoadLibraryExW/GetProcAddress on Windows. Errors throw std::runtime_error with the OS's reason.
#pragma once

#include <string>

namespace toolmask::llama {

/** Opens the library at `path` (UTF-8) with its symbols visible to libraries opened later. */
void* openSharedLibrary(const std::string& path);

/** The address of `name` in `library` or in a library it depends on; nullptr when none has it. */
void* findSymbol(void* library, const char* name);

}  // namespace toolmask::llama
