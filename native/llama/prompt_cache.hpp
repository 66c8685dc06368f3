// Prompt (prefix) caching across the engine's sequence slots: what each slot's KV cells hold once
// its sequence ended (the prompt and the output decoded, at positions 0..n-1), which idle slot a new
// prompt goes to, and the trim that keeps only the common prefix. The cells themselves stay in the
// one llama_context (kv_unified, n_ctx = contextSize × slots, so every slot's cells fit at once);
// this class only knows their tokens. Used on the decode thread only.
#pragma once
#include <cstdint>
#include <vector>

#include "llama_api.hpp"

namespace toolmask::llama {

class PromptCache {
 public:
  explicit PromptCache(uint32_t slots) : slots_(slots) {}

  void attach(llama_memory_t mem) { mem_ = mem; }

  // The idle slot (idle[id]) for `prompt`. reuse: the slot with the longest common token prefix,
  // when that prefix is more than a tenth of the prompt (llama-server's --slot-prompt-similarity
  // 0.1, which keeps a few shared template tokens from evicting another conversation), ties to the
  // least recently used. Otherwise, and without reuse: the least recently used slot, empty ones
  // first. Needs one idle slot.
  llama_seq_id choose(const std::vector<llama_token>& prompt, const std::vector<bool>& idle, bool reuse) const;

  // Slot `id` is taken by `prompt`: its cells are trimmed to the common prefix (reuse), at most the
  // prompt's length less one (its last token is decoded for the logits), or removed (no reuse, or a
  // memory that cannot drop part of a sequence: recurrent state). Returns the tokens kept.
  size_t claim(llama_seq_id id, const std::vector<llama_token>& prompt, bool reuse);

  // The sequence in slot `id` ended; its cells hold `tokens` (positions 0..n-1). Empty: its cells
  // are removed and the slot is the first an LRU choice takes.
  void release(llama_seq_id id, std::vector<llama_token> tokens);

  // Tokens a and b share from the start.
  static size_t commonPrefix(const std::vector<llama_token>& a, const std::vector<llama_token>& b);

 private:
  struct Slot {
    std::vector<llama_token> tokens;  // what the slot's cells hold
    uint64_t lastUsed = 0;            // 0: empty
  };
  void clear(llama_seq_id id);

  llama_memory_t mem_ = nullptr;
  std::vector<Slot> slots_;
  uint64_t clock_ = 0;
};

}  // namespace toolmask::llama
