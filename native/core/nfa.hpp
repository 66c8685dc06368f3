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

struct Nfa {
  std::vector<NfaState> states;
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

// Builds the NFA from IR JSON ({root, rules?, maxRecursionDepth?}); throws GrammarError.
Nfa buildNfa(const json::Value& grammar, const NfaLimits& limits);

}  // namespace toolmask
