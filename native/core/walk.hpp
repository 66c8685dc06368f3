// Random walks of a matcher: a testing and fuzzing aid. Every step takes a token the mask
// allows (and checks that acceptToken agrees), biased so that walks finish instead of
// wandering in free text forever. Deterministic for a seed.
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
  unsigned leaveTries = 64;         // tokens sampled when looking for one that leaves
};

struct WalkResult {
  std::vector<uint32_t> tokens;  // every token accepted, the end-of-generation token last when terminated
  bool terminated = false;       // ended by an end-of-generation token
  bool stuck = false;            // the grammar allowed no token before it could end (a grammar bug)
};

// Walks from the matcher's current position; the matcher is left where the walk stopped.
WalkResult randomWalk(Matcher& m, const WalkOptions& o);

}  // namespace toolmask
