// Token masks: computed by walking the vocabulary trie through a lazy DFA, and
// stored per state in whichever form is cheapest to copy into a bitmask.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "heap_bytes.hpp"
#include "sparse_words.hpp"
#include "vocab.hpp"

namespace toolmask {

class LazyDfa;

enum class MaskRep : uint8_t { Accept, Reject, Bits };

struct StateMask {
  MaskRep rep = MaskRep::Accept;
  std::vector<uint32_t> ids;                             // Accept: allowed ids; Reject: disallowed ordinary ids
  std::vector<uint32_t> bits;                            // Bits: the ordinary part as a bitmask
  std::vector<std::pair<uint32_t, uint32_t>> uncertain;  // fragment masks only: sorted-token positions [lo, hi) of
                                                         // the tokens that leave the fragment mid-token
  // Fragment masks only: the positions of the tokens the fragment refuses outright, kept when they
  // are at most kKeptRejectedRanges ranges (rejectedKept).
  std::vector<std::pair<uint32_t, uint32_t>> rejected;
  bool rejectedKept = false;
  static constexpr size_t kKeptRejectedRanges = 256;
  const StateMask* base = nullptr;  // shared fragment mask; allowed = (base − remove) ∪ extra
  std::vector<uint32_t> extra;
  std::vector<uint32_t> remove;
  std::vector<uint32_t> specials;  // special / end-of-generation ids allowed here
  // The whole bitmask, kept once this mask was filled kFillsBeforeWhole times and each fill set or
  // cleared at least kScatterForWhole bits one by one: every fill after is one copy (or, where few
  // words differ from all-ones or all-zeros, one memset and those words: wholeSparse). Filled under
  // the lock of the grammar that owns the mask (fragment masks are only ever a `base`).
  mutable std::vector<uint32_t> whole;
  // The same kept as a fill value and the words that differ, instead of `whole`, where few differ.
  mutable SparseWords wholeSparse;
  mutable bool wholeIsSparse = false;
  mutable uint8_t fills = 0;

  void fill(uint32_t* out, const Vocabulary& v) const;
  bool empty(const Vocabulary& v) const;
  size_t memoryBytes() const;

 private:
  void fillOrdinary(uint32_t* out, const Vocabulary& v) const;
};

using PosRanges = std::vector<std::pair<uint32_t, uint32_t>>;  // sorted-token positions [lo, hi)

// The verdicts for one first-byte subtree reached in one DFA state, reusable by any state
// whose first byte leads there (e.g. every partial match of a terminator falls back home).
struct SubtreeVerdict {
  PosRanges rejected, uncertain;
};
using SubtreeMemo = std::unordered_map<uint64_t, SubtreeVerdict>;

// Walks every ordinary token from DFA state `s`. Tokens whose walk dies go to `rejected`;
// with `fragment`, those that passed an accepting (exit) point first go to `uncertain`.
void walkTrie(LazyDfa& dfa, int32_t s, const Vocabulary& v, bool fragment, PosRanges& rejected, PosRanges& uncertain,
              SubtreeMemo* memo = nullptr);

// Sorts the ordinary tokens at the positions in `among` (sorted, disjoint) by their walk from DFA
// state `s`: those whose bytes all lead somewhere go to `accepted`, the others to `refused` (either
// may be null), by id, in position order. One descent of the trie through the subtrees holding such
// positions: each edge is stepped once for every token below it. It steps the automaton exactly where
// walking each token alone would (no look-ahead for loops), so the lazy DFA grows as it would.
void walkAmong(LazyDfa& dfa, int32_t s, const Vocabulary& v, const PosRanges& among, std::vector<uint32_t>* accepted,
               std::vector<uint32_t>* refused);

// Chooses the representation for the ordinary tokens not in `rejected` (nor `uncertain`).
void encodeMask(const Vocabulary& v, const PosRanges& rejected, const PosRanges& uncertain, StateMask& out);

}  // namespace toolmask
