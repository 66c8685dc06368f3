// What the batch-numerics probes (probe.cpp, prefix-probe.cpp, chunk-probe.cpp) share: loading a model on the CPU
// with llama.cpp's backends from a folder, tokenizing a chat-formatted string, the greedy pick.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

// The backends in `backendsDir` loaded, llama.cpp's log silenced, the model's layers on the CPU;
// exits 1 with a message when the model does not load.
static llama_model* loadCpuModel(const char* modelPath, const char* backendsDir) {
  llama_log_set([](ggml_log_level, const char*, void*) {}, nullptr);
  ggml_backend_load_all_from_path(backendsDir);
  llama_backend_init();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = 0;
  llama_model* model = llama_model_load_from_file(modelPath, mp);
  if (!model) {
    fprintf(stderr, "cannot load %s\n", modelPath);
    exit(1);
  }
  return model;
}

// Special tokens parsed (the chat template's markers), no BOS added.
static std::vector<llama_token> tokenize(const llama_vocab* v, const std::string& s) {
  std::vector<llama_token> out(s.size() + 8);
  int n = llama_tokenize(v, s.data(), int(s.size()), out.data(), int(out.size()), false, true);
  out.resize(n > 0 ? n : 0);
  return out;
}

static int argmax(const float* l, int nv) {
  int best = 0;
  for (int i = 1; i < nv; i++)
    if (l[i] > l[best]) best = i;
  return best;
}
