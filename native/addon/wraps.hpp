// What addon.cpp shares with the llama bindings (llama_addon.cpp).
#pragma once
#include <napi.h>

#include <memory>

#include "toolmask/grammar.hpp"

namespace toolmask::addon {

// The compiled grammar inside a NativeGrammar object; throws a TypeError for anything else.
std::shared_ptr<CompiledGrammar> unwrapGrammar(const Napi::Value& value, const char* what);

// Adds llamaLoadLibrary, llamaLoadModel, llamaGenerate and NativeLlamaModel to the exports.
void registerLlama(Napi::Env env, Napi::Object exports);

}  // namespace toolmask::addon
