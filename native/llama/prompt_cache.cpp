#include "prompt_cache.hpp"

#include <algorithm>
#include <stdexcept>

namespace toolmask::llama {

size_t PromptCache::commonPrefix(const std::vector<llama_token>& a, const std::vector<llama_token>& b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i]) i++;
  return i;
}

namespace {
// Where the last batch-size block of a len-token prompt starts.
size_t lastBlock(size_t len, size_t batch) { return (len - 1) / batch * batch; }
}  // namespace

uint16_t PromptCache::freshClass(size_t p, size_t len) const {
  const size_t last = lastBlock(len, chunk_);
  return p < last ? uint16_t(kAlikeRows) : rowClass(int32_t(len - last));
}

size_t PromptCache::chunkRows(size_t done, size_t len, size_t room, uint32_t batch) {
  const size_t last = lastBlock(len, batch);
  const size_t end = len - last < kAlikeRows && done < last ? last : len;  // this class's rows end here
  size_t n = std::min(room, end - done);
  const size_t left = end - done - n;
  if (left > 0 && left < kAlikeRows && n > kAlikeRows - left) n -= kAlikeRows - left;
  return n;
}

llama_seq_id PromptCache::choose(const std::vector<llama_token>& prompt, const std::vector<bool>& idle,
                                 bool reuse) const {
  int64_t best = -1, lru = -1;
  size_t bestLen = 0;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (!idle[i]) continue;
    const uint64_t used = slots_[i].lastUsed;
    if (lru < 0 || used < slots_[size_t(lru)].lastUsed) lru = int64_t(i);
    if (!reuse) continue;
    const size_t len = commonPrefix(slots_[i].tokens, prompt);
    if (len > bestLen || (len == bestLen && best >= 0 && used < slots_[size_t(best)].lastUsed)) {
      best = int64_t(i);
      bestLen = len;
    }
  }
  if (lru < 0) throw std::logic_error("no idle sequence slot");
  return llama_seq_id(best >= 0 && bestLen * 10 > prompt.size() ? best : lru);
}

size_t PromptCache::claim(llama_seq_id id, const std::vector<llama_token>& prompt, bool reuse) {
  Slot& s = slots_[size_t(id)];
  const size_t len = prompt.size();
  size_t keep = reuse ? std::min(commonPrefix(s.tokens, prompt), len - 1) : 0;
  if (exact_) {
    // Rows decoded in a batch of another class than a fresh decode gives them are decoded again.
    for (size_t p = 0; p < keep; p++)
      if (s.classes[p] != freshClass(p, len)) keep = p;
    // What is decoded gets its rows' classes (chunkRows): a short last block whole, and at least
    // kAlikeRows rows of the part before it.
    const size_t last = lastBlock(len, chunk_);
    const bool shortLast = len - last < kAlikeRows;
    if (shortLast && keep >= last) {
      keep = last;
    } else {
      const size_t end = shortLast ? last : len;
      if (end - keep < kAlikeRows) keep = end >= kAlikeRows ? end - kAlikeRows : 0;
    }
  }
  const Api& a = api();
  // The cells past `keep` go; a memory that cannot remove part of a sequence (recurrent state)
  // refuses, and one whose positions do not end where the tokens say would decode on a wrong
  // history: both start over.
  if (keep > 0 && (!a.llama_memory_seq_rm(mem_, id, llama_pos(keep), -1) ||
                   a.llama_memory_seq_pos_max(mem_, id) != llama_pos(keep) - 1))
    keep = 0;
  if (keep == 0) {
    clear(id);
    return 0;
  }
  s.tokens.resize(keep);
  s.classes.resize(keep);
  return keep;
}

void PromptCache::release(llama_seq_id id, bool keep, const std::vector<llama_token>& prompt,
                          const std::vector<uint16_t>& rows) {
  Slot& s = slots_[size_t(id)];
  const size_t n = s.tokens.size() + rows.size();
  if (!keep || n == 0 || n > prompt.size() || !api().llama_memory_seq_rm(mem_, id, llama_pos(n), -1)) return clear(id);
  s.tokens.assign(prompt.begin(), prompt.begin() + std::ptrdiff_t(n));
  s.classes.insert(s.classes.end(), rows.begin(), rows.end());
  s.lastUsed = ++clock_;
}

void PromptCache::releaseAll(llama_seq_id id, bool keep, const std::vector<llama_token>& tokens) {
  Slot& s = slots_[size_t(id)];
  const size_t n = tokens.size();
  if (!keep || n == 0 || !api().llama_memory_seq_rm(mem_, id, llama_pos(n), -1)) return clear(id);
  s.tokens = tokens;
  s.classes.assign(n, kAlikeRows);  // not read without the exact rule
  s.lastUsed = ++clock_;
}

void PromptCache::clear(llama_seq_id id) {
  api().llama_memory_seq_rm(mem_, id, -1, -1);  // removing a whole sequence never fails
  slots_[size_t(id)] = Slot{};
}

}  // namespace toolmask::llama
