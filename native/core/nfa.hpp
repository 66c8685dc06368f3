// A byte-level NFA built from the grammar IR. Special tokens are edges of their
// own kind, so their text can never be spelled through them (they are atomic).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "json.hpp"

namespace toolmask {

struct GrammarError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ByteEdge { uint8_t lo, hi; uint32_t to; };
struct TokenEdge { uint32_t token; uint32_t to; };

struct NfaState {
  std::vector<uint32_t> eps;
  std::vector<ByteEdge> bytes;
  std::vector<TokenEdge> tokens;
};

// A self-contained loop (until, or an unbounded repeat of plain text nodes):
// every instance of the same shape behaves the same inside, so masks computed
// once for the shape serve every place it is used.
struct Fragment {
  uint32_t base = 0, count = 0;  // its states are [base, base + count)
  uint32_t in = 0, out = 0;      // entry and exit, as absolute state ids
  std::string shape;             // canonical text of the IR node it was built from
  const json::Value* node = nullptr;  // that node (owned by the caller's IR)
};

struct Nfa {
  std::vector<NfaState> states;
  std::vector<Fragment> fragments;
  std::vector<int32_t> fragmentOf;  // per state: index into fragments, or -1
  uint32_t start = 0;
  uint32_t accept = 0;
  std::vector<bool> productive;  // can reach `accept`
};

struct NfaLimits {
  uint32_t vocabSize = 0;           // token terminals must be below this
  size_t maxStates = 4'000'000;     // refuse grammars that would not fit
  int maxRecursionDepth = 8;
  int maxPermItems = 12;
};

// Builds a standalone NFA for one node (a fragment's shape); states are laid out
// exactly as in every instance of it.
Nfa buildFragmentNfa(const json::Value& node, const NfaLimits& limits);

// Canonical text of a JSON value (the shape key of a fragment).
std::string canonicalJson(const json::Value& v);

// Builds the NFA from IR JSON ({root, rules?, maxRecursionDepth?}); throws GrammarError.
Nfa buildNfa(const json::Value& grammar, const NfaLimits& limits);

}  // namespace toolmask
