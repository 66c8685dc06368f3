#include "vocab.hpp"

#include <algorithm>
#include <cstring>

#include "utf8.hpp"

namespace toolmask {

Vocabulary::Vocabulary(const uint8_t* bytes, size_t nBytes, const uint32_t* offsets, const uint8_t* kinds,
                       uint32_t size)
    : size_(size) {
  if (size == 0) throw VocabError("vocabulary is empty");
  if (offsets[0] != 0 || offsets[size] != nBytes) throw VocabError("vocabulary offsets do not match the byte buffer");
  for (uint32_t i = 0; i < size; i++) {
    if (offsets[i + 1] < offsets[i]) throw VocabError("vocabulary offsets must be non-decreasing");
    if (kinds[i] > 3) throw VocabError("token kind must be 0..3 (normal, special, end-of-generation, unused)");
    maxTokenBytes_ = std::max<size_t>(maxTokenBytes_, offsets[i + 1] - offsets[i]);
  }
  bytes_.assign(bytes, bytes + nBytes);
  offsets_.assign(offsets, offsets + size + 1);
  kinds_.assign(kinds, kinds + size);
  // FNV-1a over everything that changes a mask, so a grammar can refuse another vocabulary.
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* p, size_t n) {
    auto* c = static_cast<const uint8_t*>(p);
    for (size_t i = 0; i < n; i++) {
      h ^= c[i];
      h *= 1099511628211ull;
    }
  };
  mix(&size_, sizeof size_);
  mix(offsets_.data(), offsets_.size() * sizeof(uint32_t));
  mix(kinds_.data(), kinds_.size());
  mix(bytes_.data(), bytes_.size());
  hash_ = h;
  for (uint32_t i = 0; i < size; i++)
    if (TokenKind(kinds_[i]) == TokenKind::EndOfGeneration) eog_.push_back(i);
  buildTrie();
}

bool Vocabulary::extendsPast(const uint8_t* p, size_t n) const {
  uint32_t at = 0;  // the trie is in preorder: a node's children follow it, each child's subtree ends at its `end`
  for (size_t i = 0; i < n; i++) {
    uint32_t c = at + 1;
    while (c < trie_[at].end && trie_[c].byte != p[i]) c = trie_[c].end;
    if (c >= trie_[at].end) return false;
    at = c;
  }
  return trie_[at].end > at + 1;
}

void Vocabulary::buildTrie() {
  for (uint32_t i = 0; i < size_; i++)
    if (TokenKind(kinds_[i]) == TokenKind::Normal && offsets_[i + 1] > offsets_[i]) order_.push_back(i);
  auto view = [&](uint32_t id) {
    return std::pair<const uint8_t*, size_t>(bytes_.data() + offsets_[id], offsets_[id + 1] - offsets_[id]);
  };
  // Sort by bytes; an 8-byte big-endian prefix key settles most comparisons without memcmp.
  struct Key {
    uint64_t prefix;
    uint32_t id;
  };
  std::vector<Key> keys;
  keys.reserve(order_.size());
  for (uint32_t id : order_) {
    auto [p, len] = view(id);
    uint64_t k = 0;
    for (size_t i = 0; i < 8; i++) k = (k << 8) | (i < len ? p[i] : 0);
    keys.push_back({k, id});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
    if (a.prefix != b.prefix) return a.prefix < b.prefix;
    auto [pa, la] = view(a.id);
    auto [pb, lb] = view(b.id);
    int c = std::memcmp(pa, pb, std::min(la, lb));
    if (c) return c < 0;
    if (la != lb) return la < lb;
    return a.id < b.id;
  });
  for (size_t i = 0; i < keys.size(); i++) order_[i] = keys[i].id;
  normalMask_.assign(words(), 0);
  for (uint32_t id : order_) normalMask_[id >> 5] |= 1u << (id & 31);
  normalIsSparse_ = SparseWords::of(normalMask_.data(), normalMask_.size(), normalSparse_);

  trie_.clear();
  trie_.push_back(TrieNode{0, 0, uint32_t(order_.size()), {0, 0}, 0, 0, 0xFF, false});
  std::vector<uint32_t> open{0};  // open[d] = node at depth d on the current path
  std::vector<uint32_t> parent{UINT32_MAX};
  const uint8_t* prev = nullptr;
  size_t prevLen = 0;
  for (uint32_t pos = 0; pos < order_.size(); pos++) {
    auto [p, len] = view(order_[pos]);
    size_t lcp = 0;
    while (lcp < len && lcp < prevLen && p[lcp] == prev[lcp]) lcp++;
    while (open.size() > lcp + 1) {  // close nodes deeper than the shared prefix
      TrieNode& n = trie_[open.back()];
      n.end = uint32_t(trie_.size());
      n.hi = pos;
      open.pop_back();
    }
    for (size_t d = lcp; d < len; d++) {
      uint32_t idx = uint32_t(trie_.size());
      trie_.push_back(TrieNode{0, pos, 0, {0, 0}, 0, p[d], 0xFF, false});
      parent.push_back(open.back());
      open.push_back(idx);
    }
    if (trie_[open.back()].nEnd == UINT16_MAX) throw VocabError("too many tokens with identical bytes");
    trie_[open.back()].nEnd++;
    prev = p;
    prevLen = len;
  }
  while (!open.empty()) {
    TrieNode& n = trie_[open.back()];
    n.end = uint32_t(trie_.size());
    n.hi = uint32_t(order_.size());
    open.pop_back();
  }
  // Children follow parents in preorder, so one backward pass folds summaries upward.
  for (size_t i = trie_.size(); i-- > 1;) {
    TrieNode& n = trie_[i];
    TrieNode& par = trie_[parent[i]];
    if (n.byte < 0x80) par.below[n.byte >> 6] |= 1ull << (n.byte & 63);
    par.below[0] |= n.below[0];
    par.below[1] |= n.below[1];
    par.belowNonAscii = par.belowNonAscii || n.byte >= 0x80 || n.belowNonAscii;
    uint8_t ok = 0;
    for (int ph = 0; ph < utf8::kPhases; ph++) {
      uint8_t np = utf8::step(uint8_t(ph), n.byte);
      if (np != utf8::Invalid && (n.utf8Ok >> np & 1)) ok |= uint8_t(1u << ph);
    }
    par.utf8Ok &= ok;
  }
}

size_t Vocabulary::memoryBytes() const {
  return bytes_.size() + offsets_.size() * 4 + kinds_.size() + order_.size() * 4 + trie_.size() * sizeof(TrieNode) +
         normalMask_.size() * 4 + normalSparse_.words.capacity() * sizeof(normalSparse_.words[0]);
}

}  // namespace toolmask
