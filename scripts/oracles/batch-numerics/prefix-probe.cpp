// Are a prompt's logits the same when part of it comes from the prompt cache? Decodes turn 2 of a
// conversation (P2 = turn 1's prompt P1, turn 1's output O, the next message X) in one llama_context
// on several schedules and compares the logits at the end of the prompt and along a continuation
// fed the same tokens every time (teacher forcing) with those of the reference, P2 decoded from an
// empty cache in chunks of 512 (what the engine does without the cache):
//   cache+output  P1 in chunks, O one token per decode (as it was generated), X in chunks
//   cache-prompt  P1 in chunks, then O and X in chunks (the output's cells not reused)
//   whole-cached  P2 but its last token in chunks, then the last token alone
//   chunks-64     the reference's schedule in chunks of 64
//   cells-moved   the reference's schedule, its second chunk in cells before its first (another
//                 sequence held them while the first was decoded)
//   rule-turn2    the engine's rule: P1, then O one by one, its cells dropped, P2's rest from where
//                 the rule allows, cut as the engine cuts it
//   rule-whole    P2, then P2 again from where the rule allows (a request repeated)
// and, against P1 + X decoded from an empty cache: short-naive (P1, then X's few tokens) and
// short-rule (P1, then from where the rule allows: 64 rows); against P1 + X + 450 tokens: long-rule
// (P1, then the rest in one chunk across the 512-block boundary where the fresh decode cuts).
// Usage: prefix-probe <model.gguf> <backends dir> [steps] [threads]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "probe-common.hpp"

struct Run {
  llama_context* ctx;
  llama_batch b;
  int nv;
  llama_pos pos = 0;
  // Decodes toks at the next positions of sequence 0 in batches of `chunk`; logits of the last.
  const float* feed(const std::vector<llama_token>& toks, size_t from, size_t to, int chunk) {
    const float* last = nullptr;
    for (size_t i = from; i < to;) {
      b.n_tokens = 0;
      for (int c = 0; c < chunk && i < to; c++, i++) {
        const int k = b.n_tokens++;
        b.token[k] = toks[i];
        b.pos[k] = pos++;
        b.n_seq_id[k] = 1;
        b.seq_id[k][0] = 0;
        b.logits[k] = i + 1 == to;
      }
      if (llama_decode(ctx, b)) {
        fprintf(stderr, "decode failed\n");
        exit(1);
      }
      if (i == to) last = llama_get_logits_ith(ctx, b.n_tokens - 1);
    }
    return last;
  }
};

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: prefix-probe model.gguf backendsDir [steps] [threads]\n");
    return 2;
  }
  const int steps = argc > 3 ? atoi(argv[3]) : 32;
  const int threads = argc > 4 ? atoi(argv[4]) : 1;
  llama_model* model = loadCpuModel(argv[1], argv[2]);
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const int nv = llama_vocab_n_tokens(vocab);
  std::string rules;
  for (int i = 1; i <= 40; i++)
    rules +=
        std::to_string(i) + ". Read a file before editing it and keep edits small (" + std::to_string(i * 37) + ").\n";
  const std::vector<llama_token> p1 = tokenize(
      vocab, "<|im_start|>system\nYou are a coding agent.\n" + rules +
                 "<|im_end|>\n<|im_start|>user\nThe config loader crashes on an empty file. Find it.<|im_end|>\n"
                 "<|im_start|>assistant\n");
  const std::vector<llama_token> x =
      tokenize(vocab, "<|im_end|>\n<|im_start|>user\nNow show the fix as a diff.<|im_end|>\n<|im_start|>assistant\n");

  llama_context_params cp = llama_context_default_params();
  cp.n_seq_max = 2;
  cp.n_ctx = 2 * 2048;
  cp.kv_unified = true;
  cp.n_batch = 512;
  cp.n_ubatch = 512;
  cp.n_threads = threads;
  cp.n_threads_batch = threads;
  cp.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cp);
  Run r{ctx, llama_batch_init(512, 0, 1), nv};
  llama_memory_t mem = llama_get_memory(ctx);

  // Turn 1's output: 48 greedy tokens after P1, decoded one by one.
  std::vector<llama_token> out;
  const float* l = r.feed(p1, 0, p1.size(), 512);
  for (int k = 0; k < 48; k++) {
    out.push_back(argmax(l, nv));
    l = r.feed(out, out.size() - 1, out.size(), 1);
  }
  std::vector<llama_token> p2 = p1;
  p2.insert(p2.end(), out.begin(), out.end());
  p2.insert(p2.end(), x.begin(), x.end());

  // Each schedule: its logits at the end of P2, then `steps` tokens fed one by one (the reference's picks).
  std::vector<llama_token> forced;
  auto trace = [&](const std::function<const float*()>& prompt) {
    std::vector<std::vector<float>> t;
    const float* last = prompt();
    t.emplace_back(last, last + nv);
    for (int k = 0; k < steps; k++) {
      if ((int)forced.size() <= k) forced.push_back(argmax(t.back().data(), nv));
      std::vector<llama_token> one{forced[k]};
      const float* next = r.feed(one, 0, 1, 1);
      t.emplace_back(next, next + nv);
    }
    return t;
  };
  auto reset = [&] {
    llama_memory_clear(mem, true);
    r.pos = 0;
  };
  reset();
  const auto ref = trace([&] { return r.feed(p2, 0, p2.size(), 512); });

  // The engine's rule (native/llama/prompt_cache.cpp, here for a request decoded alone): rows are
  // reused only where they were decoded in a batch of the class a fresh decode gives them (64 rows
  // or more before the last 512-block, the last block's size in it), and the rest is cut so that
  // each row gets its class: a last block shorter than 64 rows alone, and no piece of fewer than 64
  // rows before it left for a batch of its own.
  auto engineChunks = [&](const std::vector<llama_token>& t, size_t from, size_t len) {
    const size_t last = (len - 1) / 512 * 512;
    const float* out = nullptr;
    while (from < len) {
      const size_t end = len - last < 64 && from < last ? last : len;
      size_t n = std::min<size_t>(512, end - from);
      const size_t left = end - from - n;
      if (left > 0 && left < 64 && n > 64 - left) n -= 64 - left;
      out = r.feed(t, from, from + n, 512);
      from += n;
    }
    return out;
  };
  auto reusable = [&](size_t k, size_t len) {
    const size_t last = (len - 1) / 512 * 512;
    const bool shortLast = len - last < 64;
    if (shortLast && k >= last) return last;
    const size_t end = shortLast ? last : len;
    return end - k < 64 ? (end >= 64 ? end - 64 : 0) : k;
  };
  auto trimTo = [&](size_t p) {
    llama_memory_seq_rm(mem, 0, llama_pos(p), -1);
    r.pos = llama_pos(p);
  };
  struct Case {
    const char* name;
    std::function<const float*()> prompt;
  };
  const size_t n1 = p1.size(), nout = out.size();
  std::vector<Case> cases = {
      {"cache+output",
       [&] {
         r.feed(p2, 0, n1, 512);
         for (size_t i = n1; i < n1 + nout; i++) r.feed(p2, i, i + 1, 1);
         return r.feed(p2, n1 + nout, p2.size(), 512);
       }},
      {"cache-prompt",
       [&] {
         r.feed(p2, 0, n1, 512);
         return r.feed(p2, n1, p2.size(), 512);
       }},
      {"whole-cached",
       [&] {
         r.feed(p2, 0, p2.size() - 1, 512);
         return r.feed(p2, p2.size() - 1, p2.size(), 512);
       }},
      {"chunks-64", [&] { return r.feed(p2, 0, p2.size(), 64); }},
      {"rule-turn2",
       [&] {
         // Turn 1 as the engine runs it, its output's cells then dropped; P1's last block has the
         // class P2's gives it when both have 64 rows or more (241 and 307 here).
         engineChunks(p2, 0, n1);
         for (size_t i = n1; i < n1 + nout; i++) r.feed(p2, i, i + 1, 1);
         trimTo(reusable(n1, p2.size()));
         return engineChunks(p2, size_t(r.pos), p2.size());
       }},
      {"rule-whole",
       [&] {
         engineChunks(p2, 0, p2.size());
         trimTo(reusable(p2.size() - 1, p2.size()));
         return engineChunks(p2, size_t(r.pos), p2.size());
       }},
      {"cells-moved",
       [&] {
         // Sequence 1 takes the first 300 cells and leaves: sequence 0's cells come after them.
         llama_batch o = llama_batch_init(300, 0, 1);
         for (int i = 0; i < 300; i++) {
           o.token[i] = p1[i % n1];
           o.pos[i] = i;
           o.n_seq_id[i] = 1;
           o.seq_id[i][0] = 1;
           o.logits[i] = false;
         }
         o.n_tokens = 300;
         if (llama_decode(ctx, o)) exit(1);
         llama_batch_free(o);
         // The reference's chunks; the second one goes to the cells sequence 1 freed, before the first's.
         r.feed(p2, 0, std::min<size_t>(512, p2.size() - 1), 512);
         llama_memory_seq_rm(mem, 1, -1, -1);
         return r.feed(p2, std::min<size_t>(512, p2.size() - 1), p2.size(), 512);
       }},
  };
  auto report = [&](const char* label, const std::vector<std::vector<float>>& ref, size_t promptLen,
                    std::vector<Case>& cases) {
    double minGap = 1e30;
    for (const auto& t : ref) {
      float a = -1e30f, c = -1e30f;
      for (float v : t) {
        if (v > a) {
          c = a;
          a = v;
        } else if (v > c)
          c = v;
      }
      minGap = std::min(minGap, (double)(a - c));
    }
    printf("{\"reference\":\"%s\",\"prompt\":%zu,\"p1\":%zu,\"steps\":%d,\"threads\":%d,\"minTop2Gap\":%.6g}\n", label,
           promptLen, n1, steps, threads, minGap);
    for (auto& c : cases) {
      reset();
      const auto t = trace(c.prompt);
      double maxDiff = 0, endDiff = 0;
      int identical = 0, firstFlip = -1;
      for (size_t k = 0; k < t.size(); k++) {
        double d = 0;
        for (int i = 0; i < nv; i++) d = std::max(d, (double)std::fabs(t[k][i] - ref[k][i]));
        if (k == 0) endDiff = d;
        maxDiff = std::max(maxDiff, d);
        if (std::memcmp(t[k].data(), ref[k].data(), sizeof(float) * nv) == 0) identical++;
        if (firstFlip < 0 && argmax(t[k].data(), nv) != argmax(ref[k].data(), nv)) firstFlip = int(k);
      }
      printf(
          "{\"case\":\"%s\",\"bitIdenticalSteps\":%d,\"of\":%zu,\"promptEndMaxAbsLogitDiff\":%.9g,"
          "\"maxAbsLogitDiff\":%.9g,\"firstGreedyFlip\":%d}\n",
          c.name, identical, t.size(), endDiff, maxDiff, firstFlip);
    }
  };
  report("P1 + O + X", ref, p2.size(), cases);

  // A short turn: P1 + X (no output), where the rule decodes 64 rows rather than X's alone.
  std::vector<llama_token> p3 = p1;
  p3.insert(p3.end(), x.begin(), x.end());
  forced.clear();
  reset();
  const auto refShort = trace([&] { return engineChunks(p3, 0, p3.size()); });
  std::vector<Case> shortCases = {
      {"short-naive",
       [&] {
         engineChunks(p3, 0, n1);
         return r.feed(p3, n1, p3.size(), 512);
       }},
      {"short-rule",
       [&] {
         engineChunks(p3, 0, n1);
         trimTo(reusable(n1, p3.size()));
         return engineChunks(p3, size_t(r.pos), p3.size());
       }},
  };
  report("P1 + X", refShort, p3.size(), shortCases);

  // A long turn: P1 + X + 450 more tokens, crossing a 512-block boundary where the fresh decode cuts
  // a chunk and the engine's remainder (one chunk from P1's end) does not.
  std::vector<llama_token> p4 = p3;
  for (size_t i = 0; i < 450; i++) p4.push_back(p1[(i * 7) % n1]);
  forced.clear();
  reset();
  const auto refLong = trace([&] { return engineChunks(p4, 0, p4.size()); });
  std::vector<Case> longCases = {
      {"long-rule",
       [&] {
         engineChunks(p4, 0, n1);
         trimTo(reusable(n1, p4.size()));
         return engineChunks(p4, size_t(r.pos), p4.size());
       }},
  };
  report("P1 + X + 450", refLong, p4.size(), longCases);
  llama_batch_free(r.b);
  llama_free(ctx);
  llama_model_free(model);
  return 0;
}
