// Prompt (prefix) caching across the engine's sequence slots: what each slot's KV cells hold once
// its sequence ended (its prompt's rows, at positions 0..n-1, and the size class of the batch that
// decoded each), which idle slot a new prompt goes to, and how much of it is reused. The cells
// themselves stay in the one llama_context (a KV stream per slot, n_ctx = contextSize × slots, so
// every slot's cells fit at once); this class knows their tokens. Used on the decode thread only.
//
// Reuse gives the logits a decode from an empty cache gives (measured bit-identical on the CPU
// backend: scripts/oracles/batch-numerics/prefix-probe.cpp). llama.cpp's CPU kernels pick their path
// by the batch's row count — one row (matrix-vector product; flash attention split over the cells),
// 2..63 rows (tinyBLAS; attention row by row), 64 rows or more (tinyBLAS; attention in 64-row tiles)
// — and each path sums in its own order, while within the 64-row class a row's result does not
// depend on the other rows. A prompt decoded alone from an empty cache goes in chunks of the batch
// size B: its rows before the last B-block get the 64-row class, the last block's rows the class of
// its size. So a row is reused only where the batch that decoded it had that class (an output row,
// decoded one token at a time, never has it: outputs are dropped when the sequence ends), and the
// rest is cut into chunks that give each row its class (chunkRows): no piece of fewer than 64 rows
// of the 64-row part is left for a batch of its own, and a last block shorter than 64 rows is
// decoded whole and alone. Without that guarantee (EngineConfig::exactPrompts false) any common
// prefix is reused, the previous answer's rows included, as llama-server reuses it.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "llama_api.hpp"

namespace toolmask::llama {

class PromptCache {
 public:
  // Rows at or above which a batch's rows are decoded alike, whatever their number (the CPU
  // backend's flash-attention tile, GGML_FA_TILE_Q).
  static constexpr uint32_t kAlikeRows = 64;

  // `chunk`: the engine's batch size (a decode from an empty cache goes in chunks of it). exact:
  // reuse only rows whose batch class matches a fresh decode's (above); otherwise any prefix.
  PromptCache(uint32_t slots, uint32_t chunk, bool exact = true) : slots_(slots), chunk_(chunk), exact_(exact) {}

  void attach(llama_memory_t mem) { mem_ = mem; }

  // The class of a batch of `rows` rows: rows, or kAlikeRows for any number at or above it.
  static uint16_t rowClass(int32_t rows) { return uint16_t(std::min<int32_t>(rows, kAlikeRows)); }

  // Rows to decode next of a prompt of `len` tokens whose first `done` are in the cache, in a batch
  // with `room` rows free, the engine's batch size being `batch`: as many as fit, but a last block
  // shorter than kAlikeRows goes alone, and no piece of fewer than kAlikeRows rows before it is left
  // for a later batch (where room allows).
  static size_t chunkRows(size_t done, size_t len, size_t room, uint32_t batch);

  // The idle slot (idle[id]) for `prompt`. reuse: the slot with the longest common token prefix,
  // when that prefix is more than a tenth of the prompt (llama-server's --slot-prompt-similarity
  // 0.1, which keeps a few shared template tokens from evicting another conversation), ties to the
  // least recently used. Otherwise, and without reuse: the least recently used slot, empty ones
  // first. Needs one idle slot.
  llama_seq_id choose(const std::vector<llama_token>& prompt, const std::vector<bool>& idle, bool reuse) const;

  // Slot `id` is taken by `prompt`: its cells are trimmed to what the prompt reuses (reuse; the
  // rule above when exact, at most the prompt's length less one: its last row gives the logits), or removed
  // (no reuse, or a memory that cannot drop part of a sequence: recurrent state). Returns the rows
  // kept.
  size_t claim(llama_seq_id id, const std::vector<llama_token>& prompt, bool reuse);

  // The sequence in slot `id` ended. keep: its cells hold `prompt`'s first rows.size() + claimed
  // rows, where rows[i] is the class of the batch that decoded prompt row claimed + i; the cells
  // past them (the output's) are removed. Otherwise every cell of the slot is removed and the slot
  // is the first an LRU choice takes.
  void release(llama_seq_id id, bool keep, const std::vector<llama_token>& prompt, const std::vector<uint16_t>& rows);
  // The same without the exact rule: the cells hold `tokens` (Sequence::tokensInCache: the prompt
  // and the answer decoded after it), all kept when `keep`.
  void releaseAll(llama_seq_id id, bool keep, const std::vector<llama_token>& tokens);
  bool exact() const { return exact_; }

  // Tokens a and b share from the start.
  static size_t commonPrefix(const std::vector<llama_token>& a, const std::vector<llama_token>& b);

 private:
  struct Slot {
    std::vector<llama_token> tokens;  // what the slot's cells hold, one row each
    std::vector<uint16_t> classes;    // the class of the batch that decoded each row
    uint64_t lastUsed = 0;            // 0: empty
  };
  void clear(llama_seq_id id);
  // The class of the batch a decode from an empty cache puts row p of a len-token prompt in.
  uint16_t freshClass(size_t p, size_t len) const;

  llama_memory_t mem_ = nullptr;
  std::vector<Slot> slots_;
  const uint32_t chunk_;
  const bool exact_;
  uint64_t clock_ = 0;
};

}  // namespace toolmask::llama
