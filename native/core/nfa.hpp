// A byte-level NFA built from the grammar IR. Special tokens are edges of their
// own kind, so their text can never be spelled through them (they are atomic).
// Rule references, any-order items and repeated copies are built lazily: a
// placeholder state expands the first time a walk reaches it, so grammars whose
// full expansion is exponential (nested free-form JSON, wide objects) stay small.
#pragma once
#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "heap_bytes.hpp"
#include "include/toolmask/errors.hpp"
#include "ir_inline.hpp"
#include "json.hpp"
#include "small_vec.hpp"

namespace toolmask {

struct ByteEdge {
  uint8_t lo, hi;
  uint32_t to;
};
struct TokenEdge {
  uint32_t token;
  uint32_t to;
};

struct NfaState {
  SmallVec<uint32_t, 2> eps;
  SmallVec<ByteEdge, 1> bytes;
  SmallVec<TokenEdge, 1> tokens;
  int32_t thunk = -1;  // a node still to be built here (see NfaBuilder::expand)
  int32_t gate = -1;   // a counter operation a thread passing here makes (Nfa::gates), or -1
};

// A counted construct (a repetition or a bounded text past NfaLimits::countAbove) keeps its count
// in the thread that walks it instead of in copies of its states: a thread is an NFA state and the
// values of the counters it stands inside. A gate is a state with only eps edges that changes the
// passing thread's value of one counter, in this order: reset (to 0, entering the construct),
// increment (saturating at `sat`), then check lo <= value <= hi (the thread ends otherwise), then
// drop (leaving the construct, so what follows shares its states whatever the count was).
struct Gate {
  uint32_t counter = 0;
  bool reset = false, inc = false, drop = false;
  uint64_t lo = 0, hi = UINT64_MAX, sat = UINT64_MAX;
};
// The values a counter's gates compare with (sorted, unique): two values with no such point within
// a token's length of either behave alike for that token (CompiledGrammar's mask sharing).
struct Counter {
  std::vector<uint64_t> points;
};

// A self-contained loop (until, or an unbounded repeat of plain text nodes):
// every instance of the same shape behaves the same inside, so masks computed
// once for the shape serve every place it is used.
struct Fragment {
  uint32_t base = 0, count = 0;  // its states are [base, base + count)
  uint32_t in = 0, out = 0;      // entry and exit, as absolute state ids
  std::shared_ptr<const std::string>
      shape;                          // canonical text of the IR node it was built from (shared by its instances)
  const json::Value* node = nullptr;  // that node (owned by the caller's IR or the builder)
  uint32_t exit = 0;                  // where leaving the fragment continues from
  // One copy of the item of a bounded repetition: `node` is then the item's unbounded
  // loop (whose masks it shares), `copy` how many items come before this one.
  int32_t copy = -1;
  uint32_t maxCount = 0;
  // The one instance of a counted repetition's item: the thread's value of `counter` is the
  // number of the item it stands in (1 for the first), `maxCount` unused (see countMax).
  int32_t counter = -1;
  uint64_t countMax = UINT64_MAX;  // with `counter`: the repetition's max (UINT64_MAX: none)
};

inline size_t nfaStateBytes(const NfaState& st) {
  return sizeof(st) + st.eps.heapBytes() + st.bytes.heapBytes() + st.tokens.heapBytes();
}

// Nfa::marks bits. kMarkCall: built inside a node marked "call": true (one declared tool call).
// kMarkFiller: built inside a node marked "filler": true (text before a call that must come).
constexpr uint8_t kMarkCall = 1, kMarkFiller = 2;

struct Nfa {
  std::vector<NfaState> states;
  std::vector<Gate> gates;
  std::vector<Counter> counters;
  std::vector<Fragment> fragments;
  std::vector<int32_t> fragmentOf;  // per state: index into fragments, or -1
  std::vector<bool> productive;     // can reach `accept`
  // Per state: what the IR nodes it was built inside mark it as (kMarkCall, kMarkFiller).
  std::vector<uint8_t> marks;
  bool entryEndToken = false;        // an entry call is followed by the end of generation alone (SeqNode.endToken)
  std::vector<uint32_t> entryCalls;  // first state of each call marked "budgetAtEntry" (entered without a byte)
  uint32_t start = 0;
  uint32_t accept = 0;
  bool cut[257] = {};  // byte-class boundaries of every edge the grammar can ever have
};

struct NfaLimits {
  uint32_t vocabSize = 0;        // token terminals must be below this
  size_t maxStates = 2'000'000;  // refuse grammars that would not fit
  int maxRecursionDepth = 8;
  // Repetitions with a bound above countAbove, and bounded texts (until/text) with one above
  // countTextAbove, are counted (Gate) instead of unrolled. A text's layers are built at once and
  // their masks shared by every grammar of the vocabulary (a shape): worth it while they are few.
  uint64_t countAbove = 64;
  uint64_t countTextAbove = 1024;
  // States one intersection's product may have (nfa_intersect.cpp), each ~100 bytes.
  size_t maxProductStates = 200'000;
  // An intersection's length (a repetition, one of its items) is counted past this; its other items
  // are unrolled, but for a repetition from 0 (nfa_intersect.cpp), counted past countFreeAbove.
  uint64_t countLengthAbove = 64;
  uint64_t countFreeAbove = UINT64_MAX;
};

class NfaBuilder {
 public:
  // `grammar` ({root, rules?, maxRecursionDepth?}) and `external` (rules its refs may name beside its
  // own) must outlive the builder.
  NfaBuilder(const json::Value& grammar, const NfaLimits& limits, const ExternalRules* external = nullptr);
  ~NfaBuilder();
  Nfa& nfa();
  // Builds the placeholder at `state` (no-op if none); new states are appended.
  void expand(uint32_t state);
  // Every token terminal id in the grammar (built or not yet).
  const std::vector<uint32_t>& tokenIds() const;
  // What the builder keeps beside the NFA: fragment templates, pending placeholders, any-order sets.
  size_t memoryBytes() const;

  struct Impl;  // nfa_impl.hpp

 private:
  std::unique_ptr<Impl> impl_;
};

// A standalone, fully built NFA for one plain node (a fragment's shape); its states
// are laid out exactly as in every instance of it.
Nfa buildFragmentNfa(const json::Value& node, const NfaLimits& limits);

}  // namespace toolmask
