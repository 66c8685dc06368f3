// The llama.h functions the bridge uses, resolved at run time from a libllama the caller names
// (dlopen + dlsym; LoadLibrary + GetProcAddress on Windows, see shared_library.hpp): the addon
// itself never links llama.cpp, so it loads without one, and the same build can drive the CPU,
// CUDA or Vulkan libraries node-llama-cpp ships.
#pragma once
#include <string>

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"
#include "llama.h"

namespace toolmask::llama {

// X(name) for every function taken from libllama; G(name) for those taken from libggml.
// clang-format off
#define TOOLMASK_LLAMA_FUNCTIONS(X)                                                                         \
  X(llama_backend_init) X(llama_log_set) X(llama_model_default_params) X(llama_context_default_params)      \
  X(llama_sampler_chain_default_params) X(llama_model_load_from_file) X(llama_model_free)                   \
  X(llama_init_from_model) X(llama_free) X(llama_model_n_ctx_train)                                         \
  X(llama_model_get_vocab) X(llama_model_chat_template) X(llama_model_meta_val_str)                         \
  X(llama_vocab_n_tokens) X(llama_vocab_get_text) X(llama_vocab_get_attr) X(llama_vocab_is_eog)             \
  X(llama_vocab_type)                                                                                       \
  X(llama_vocab_bos) X(llama_vocab_eos) X(llama_vocab_get_add_bos) X(llama_token_to_piece)                  \
  X(llama_tokenize) X(llama_batch_init) X(llama_batch_free) X(llama_decode) X(llama_get_memory)             \
  X(llama_memory_seq_rm) X(llama_memory_seq_pos_max)                                                       \
  X(llama_sampler_init) X(llama_sampler_chain_init) X(llama_sampler_chain_add) X(llama_sampler_free)        \
  X(llama_sampler_sample) X(llama_sampler_accept) X(llama_sampler_init_greedy) X(llama_sampler_init_dist)   \
  X(llama_sampler_init_temp) X(llama_sampler_init_top_k) X(llama_sampler_init_top_p)                        \
  X(llama_sampler_init_min_p) X(llama_sampler_init_penalties) X(llama_sampler_init_logit_bias)              \
  X(llama_set_sampler) X(llama_supports_gpu_offload)

// The graph functions live in libggml-base; dlsym on libggml's handle finds them through its dependencies.
#define TOOLMASK_GGML_FUNCTIONS(G)                                                                          \
  G(ggml_backend_reg_count) G(ggml_backend_load_all_from_path) G(ggml_new_tensor) G(ggml_set_input)         \
  G(ggml_set_name) G(ggml_add) G(ggml_n_dims) G(ggml_nelements) G(ggml_backend_tensor_set)                  \
  G(ggml_new_tensor_1d) G(ggml_view_2d) G(ggml_reshape_2d) G(ggml_reshape) G(ggml_repeat) G(ggml_mul)       \
  G(ggml_sub) G(ggml_floor) G(ggml_scale) G(ggml_log) G(ggml_pad) G(ggml_view_1d) G(ggml_reshape_1d)        \
  G(ggml_backend_buft_is_host) G(ggml_init) G(ggml_free) G(ggml_tensor_overhead) G(ggml_new_tensor_2d)            \
  G(ggml_get_rows) G(ggml_backend_alloc_ctx_tensors_from_buft) G(ggml_backend_buffer_free)                     \
  G(ggml_backend_tensor_get)
// clang-format on

struct Api {
#define TOOLMASK_DECLARE(name) decltype(&::name) name = nullptr;
  TOOLMASK_LLAMA_FUNCTIONS(TOOLMASK_DECLARE)
  TOOLMASK_GGML_FUNCTIONS(TOOLMASK_DECLARE)
#undef TOOLMASK_DECLARE
};

struct LibraryPaths {
  std::string llama;        // libllama.so (or a CUDA / Vulkan variant)
  std::string ggml;         // libggml.so of the same build
  std::string backendsDir;  // where libggml-cpu-*.so (and GPU backends) live
};

// Loads the libraries once per process; a second call must name the same libllama. Throws
// std::runtime_error with what to do when a library or symbol is missing.
const Api& loadApi(const LibraryPaths& paths);

// The table, once loadApi succeeded; throws otherwise.
const Api& api();

// The last error-level lines llama.cpp logged (for error messages), then cleared.
std::string takeLlamaLog();

}  // namespace toolmask::llama
