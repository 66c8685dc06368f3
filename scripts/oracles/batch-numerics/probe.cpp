// Is a sequence's decoding in a shared llama_context bit-identical whether it runs alone or batched
// with others? Decodes sequence 0 alone (whole prompt, then one token per step), then again with
// three other sequences in every batch (prompts in chunks, as the engine feeds them), feeding the
// same tokens both times (teacher forcing), and compares sequence 0's logits at every step.
// Usage: probe <model.gguf> <backends dir> [steps] [chunk]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe-common.hpp"

static void put(llama_batch& b, llama_token t, llama_pos p, llama_seq_id s, bool out) {
  int i = b.n_tokens++;
  b.token[i] = t; b.pos[i] = p; b.n_seq_id[i] = 1; b.seq_id[i][0] = s; b.logits[i] = out;
}

int main(int argc, char** argv) {
  if (argc < 3) { fprintf(stderr, "usage: probe model.gguf backendsDir [steps] [chunk]\n"); return 2; }
  const int steps = argc > 3 ? atoi(argv[3]) : 40;
  const int chunk = argc > 4 ? atoi(argv[4]) : 7;
  llama_model* model = loadCpuModel(argv[1], argv[2]);
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const int nv = llama_vocab_n_tokens(vocab);
  const char* texts[4] = {"<|im_start|>user\nWhat is the weather in Paris?<|im_end|>\n<|im_start|>assistant\n",
                          "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n",
                          "<|im_start|>system\nYou are a helpful assistant with tools.<|im_end|>\n<|im_start|>user\nSearch cats<|im_end|>\n<|im_start|>assistant\n",
                          "<|im_start|>user\nTell me a long story about a dog<|im_end|>\n<|im_start|>assistant\n"};
  std::vector<llama_token> prompts[4];
  for (int s = 0; s < 4; s++) prompts[s] = tokenize(vocab, texts[s]);

  llama_context_params cp = llama_context_default_params();
  cp.n_seq_max = 4; cp.n_ctx = 4 * 512; cp.kv_unified = true; cp.n_batch = 512; cp.n_ubatch = 512;
  cp.n_threads = 1; cp.n_threads_batch = 1; cp.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  llama_batch b = llama_batch_init(512, 0, 1);

  // Solo: sequence 0 alone; the greedy tokens it picks are fed to both runs.
  std::vector<std::vector<float>> solo;
  std::vector<llama_token> forced;
  b.n_tokens = 0;
  for (size_t i = 0; i < prompts[0].size(); i++) put(b, prompts[0][i], llama_pos(i), 0, i + 1 == prompts[0].size());
  if (llama_decode(ctx, b)) return 1;
  llama_pos pos = llama_pos(prompts[0].size());
  for (int k = 0; k < steps; k++) {
    const float* l = llama_get_logits_ith(ctx, b.n_tokens - 1);
    solo.emplace_back(l, l + nv);
    forced.push_back(argmax(l, nv));
    b.n_tokens = 0;
    put(b, forced.back(), pos++, 0, true);
    if (llama_decode(ctx, b)) return 1;
  }
  llama_memory_clear(llama_get_memory(ctx), true);

  // Batched: all four sequences every step, prompts fed `chunk` tokens at a time.
  size_t done[4] = {0, 0, 0, 0};
  llama_pos p[4] = {0, 0, 0, 0};
  llama_token next[4] = {-1, -1, -1, -1};
  int k = 0, identical = 0, first = -1;
  double maxDiff = 0;
  while (k < steps) {
    b.n_tokens = 0;
    int row0 = -1, rows[4] = {-1, -1, -1, -1};
    for (int s = 0; s < 4; s++) {
      if (done[s] < prompts[s].size()) {
        for (int c = 0; c < chunk && done[s] < prompts[s].size(); c++, done[s]++) {
          bool last = done[s] + 1 == prompts[s].size();
          if (last) rows[s] = b.n_tokens;
          put(b, prompts[s][done[s]], p[s]++, s, last);
        }
      } else {
        rows[s] = b.n_tokens;
        put(b, next[s], p[s]++, s, true);
      }
    }
    row0 = rows[0];
    if (llama_decode(ctx, b)) return 1;
    for (int s = 1; s < 4; s++) if (rows[s] >= 0) next[s] = argmax(llama_get_logits_ith(ctx, rows[s]), nv);
    if (row0 >= 0) {
      const float* l = llama_get_logits_ith(ctx, row0);
      double d = 0;
      for (int i = 0; i < nv; i++) d = std::max(d, (double)std::fabs(l[i] - solo[k][i]));
      if (std::memcmp(l, solo[k].data(), sizeof(float) * nv) == 0) identical++;
      else if (first < 0) first = k;
      maxDiff = std::max(maxDiff, d);
      next[0] = forced[k];
      k++;
    }
  }
  // For scale: the largest logit, and the smallest gap between the two best logits (a greedy pick
  // can flip only where that gap is below the difference).
  double maxLogit = 0, minGap = 1e30;
  for (const auto& l : solo) {
    float a = -1e30f, c = -1e30f;
    for (float x : l) { maxLogit = std::max(maxLogit, (double)std::fabs(x)); if (x > a) { c = a; a = x; } else if (x > c) c = x; }
    minGap = std::min(minGap, (double)(a - c));
  }
  printf("{\"steps\":%d,\"chunk\":%d,\"bitIdenticalSteps\":%d,\"firstDifferentStep\":%d,\"maxAbsLogitDiff\":%.9g,\"maxAbsLogit\":%.4g,\"minTop2Gap\":%.6g}\n",
         steps, chunk, identical, first, maxDiff, maxLogit, minGap);
  llama_batch_free(b);
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
