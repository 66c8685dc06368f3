// Prompt chunks of several sequences decoded one llama_decode each (toolmask's engine with
// exactPrompts) or together in one llama_decode (llama-server's batch; the engine with exactPrompts
// false): the time of each, and whether the logits are the same bit for bit. Four sequences, a KV
// stream each (kv_unified false), one thread, batch and ubatch 512 as the engine sets them. Each
// sequence first reads a prefix of `prefix` tokens alone, then, per run and way, its next `chunk`
// tokens, and then a decode step of the four together; the chunks' last rows' logits and the
// step's are compared with the first run's (one by one).
// Usage: chunk-probe <model.gguf> <bins dir> [prefix 300] [chunk 90] [runs 2]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "probe-common.hpp"

static double nowMs() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: chunk-probe <model.gguf> <bins dir> [prefix 300] [chunk 90] [runs 2]\n");
    return 2;
  }
  const int prefix = argc > 3 ? atoi(argv[3]) : 300;
  const int chunk = argc > 4 ? atoi(argv[4]) : 90;
  const int runs = argc > 5 ? atoi(argv[5]) : 2;
  const int seqs = 4;
  if (prefix < 1 || chunk < 1 || chunk * seqs > 512 || runs < 1) {
    fprintf(stderr, "prefix and chunk must be positive, chunk at most 128, runs at least 1\n");
    return 2;
  }
  llama_model* model = loadCpuModel(argv[1], argv[2]);
  const llama_vocab* v = llama_model_get_vocab(model);
  const int nv = llama_vocab_n_tokens(v);
  llama_context_params cp = llama_context_default_params();
  cp.n_seq_max = seqs;
  cp.n_ctx = uint32_t(seqs * (prefix + chunk + 64));
  cp.kv_unified = false;
  cp.n_batch = 512;
  cp.n_ubatch = 512;
  cp.n_threads = 1;
  cp.n_threads_batch = 1;
  cp.n_outputs_max = seqs;
  cp.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  llama_memory_t mem = llama_get_memory(ctx);
  llama_batch b = llama_batch_init(512, 0, 1);
  std::string text;
  for (int i = 0; text.size() < size_t(prefix + chunk + seqs + 8) * 8; i++)
    text += "line " + std::to_string(i) + ": the quick brown fox jumps over the lazy dog.\n";
  const std::vector<llama_token> toks = tokenize(v, text);
  if (toks.size() < size_t(prefix + chunk + seqs + 1)) return 2;
  // Sequence s reads the text from its token s on: four different prompts.
  auto add = [&](int seq, int from, int n, bool out) {
    for (int i = 0; i < n; i++) {
      const int j = b.n_tokens++;
      b.token[j] = toks[size_t(from + i + seq)];
      b.pos[j] = from + i;
      b.n_seq_id[j] = 1;
      b.seq_id[j][0] = seq;
      b.logits[j] = out && i == n - 1;
    }
  };
  for (int s = 0; s < seqs; s++)
    for (int p = 0; p < prefix; p += 512) {
      b.n_tokens = 0;
      add(s, p, std::min(512, prefix - p), false);
      if (llama_decode(ctx, b)) return 3;
    }
  std::vector<std::vector<float>> first(2 * seqs);
  int differing = 0, compared = 0;
  for (int run = 0; run < runs; run++)
    for (int together = 0; together < 2; together++) {
      for (int s = 0; s < seqs; s++) llama_memory_seq_rm(mem, s, prefix, -1);
      std::vector<std::vector<float>> got(2 * seqs);
      const double t0 = nowMs();
      if (!together) {
        for (int s = 0; s < seqs; s++) {
          b.n_tokens = 0;
          add(s, prefix, chunk, true);
          if (llama_decode(ctx, b)) return 3;
          const float* l = llama_get_logits_ith(ctx, b.n_tokens - 1);
          got[size_t(s)].assign(l, l + nv);
        }
      } else {
        b.n_tokens = 0;
        for (int s = 0; s < seqs; s++) add(s, prefix, chunk, true);
        if (llama_decode(ctx, b)) return 3;
        for (int s = 0; s < seqs; s++) {
          const float* l = llama_get_logits_ith(ctx, s * chunk + chunk - 1);
          got[size_t(s)].assign(l, l + nv);
        }
      }
      const double chunkMs = nowMs() - t0;
      b.n_tokens = 0;
      for (int s = 0; s < seqs; s++) add(s, prefix + chunk, 1, true);
      if (llama_decode(ctx, b)) return 3;
      for (int s = 0; s < seqs; s++) {
        const float* l = llama_get_logits_ith(ctx, s);
        got[size_t(seqs + s)].assign(l, l + nv);
      }
      float maxDiff = 0;
      for (size_t i = 0; i < got.size(); i++) {
        if (first[i].empty()) {
          first[i] = got[i];
          continue;
        }
        compared++;
        if (memcmp(first[i].data(), got[i].data(), sizeof(float) * size_t(nv)) == 0) continue;
        differing++;
        for (int t = 0; t < nv; t++) maxDiff = std::max(maxDiff, std::fabs(first[i][size_t(t)] - got[i][size_t(t)]));
      }
      printf("run %d %s: %d chunks of %d rows in %.0f ms; logits off the first run's by up to %g\n", run + 1,
             together ? "together" : "one by one", seqs, chunk, chunkMs, maxDiff);
      fflush(stdout);
    }
  printf("rows differing from the first run's: %d of %d\n", differing, compared);
  llama_batch_free(b);
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
