// Random walks of a matcher: a testing and fuzzing aid. Every step takes a token the grammar
// accepts now, biased so that walks finish instead of wandering in free text forever.
// Deterministic for a seed. Tokens are found by probing acceptance and, where few fit, by
// descending the vocabulary trie along accepted bytes: a walk computes no masks.
#pragma once
#include <cstdint>
#include <vector>

#include "matcher.hpp"

namespace toolmask {

struct WalkOptions {
  uint64_t seed = 0;
  size_t maxTokens = 512;
  double endProbability = 0.5;      // take end-of-generation whenever the grammar allows it
  double specialProbability = 0.5;  // take an allowed special token (a marker) when there is one
  double leaveProbability = 0.5;    // prefer a token that moves the automaton out of its state (leaves loops)
  double shortProbability = 0.5;    // probe among the shortest tokens (structure: quotes, braces, digits)
  unsigned probes = 32;             // random tokens tried per step before descending the trie
};

struct WalkResult {
  std::vector<uint32_t> tokens;  // every token accepted, the end-of-generation token last when terminated
  bool terminated = false;       // ended by an end-of-generation token
  bool stuck = false;            // the grammar allowed no token before it could end (a grammar bug)
};

// `count` walks from the matcher's current position, walk i seeded with seed + i; the matcher
// is back at that position afterwards.
std::vector<WalkResult> randomWalks(Matcher& m, const WalkOptions& o, size_t count);

}  // namespace toolmask
