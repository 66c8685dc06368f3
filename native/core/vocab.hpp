// A vocabulary prepared for masking: token bytes and kinds, plus a byte trie of
// the ordinary tokens with per-node summaries that let whole subtrees be
// accepted at once when the automaton sits in a state that loops over them.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "include/toolmask/vocabulary.hpp"
#include "sparse_words.hpp"

namespace toolmask {

struct TrieNode {
  uint32_t end;        // preorder index one past this subtree
  uint32_t lo, hi;     // sorted-token positions covered by this subtree
  uint64_t below[2];   // ASCII bytes on edges strictly below this node
  uint16_t nEnd;       // tokens whose bytes equal this node's prefix (at positions lo..lo+nEnd)
  uint8_t byte;        // edge label from the parent
  uint8_t utf8Ok;      // bit p: every path below is a valid UTF-8 prefix when read from phase p
  bool belowNonAscii;  // some byte >= 0x80 below
};

class Vocabulary {
 public:
  // bytes: all tokens' bytes concatenated; offsets: size+1 entries; kinds: one per token.
  Vocabulary(const uint8_t* bytes, size_t nBytes, const uint32_t* offsets, const uint8_t* kinds, uint32_t size);

  uint32_t size() const { return size_; }
  uint32_t words() const { return (size_ + 31) / 32; }
  TokenKind kind(uint32_t id) const { return TokenKind(kinds_[id]); }
  const uint8_t* tokenBytes(uint32_t id, size_t& len) const {
    len = offsets_[id + 1] - offsets_[id];
    return bytes_.data() + offsets_[id];
  }
  uint64_t hash() const { return hash_; }
  size_t maxTokenBytes() const { return maxTokenBytes_; }  // the longest token's bytes
  const std::vector<TrieNode>& trie() const { return trie_; }
  const std::vector<uint32_t>& order() const { return order_; }  // sorted position → token id
  const std::vector<uint32_t>& normalMask() const { return normalMask_; }
  // normalMask as a fill value and the words that differ, where few do (nullptr otherwise).
  const SparseWords* normalSparse() const { return normalIsSparse_ ? &normalSparse_ : nullptr; }
  const std::vector<uint32_t>& endOfGeneration() const { return eog_; }
  size_t memoryBytes() const;
  // Whether some ordinary token's bytes begin with p[0..n) and go on past it.
  bool extendsPast(const uint8_t* p, size_t n) const;

 private:
  uint32_t size_;
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> offsets_;
  std::vector<uint8_t> kinds_;
  std::vector<uint32_t> order_;
  std::vector<TrieNode> trie_;
  std::vector<uint32_t> normalMask_;  // bit set for every token the trie holds
  SparseWords normalSparse_;
  bool normalIsSparse_ = false;
  std::vector<uint32_t> eog_;
  uint64_t hash_ = 0;
  size_t maxTokenBytes_ = 0;

  void buildTrie();
};

}  // namespace toolmask
