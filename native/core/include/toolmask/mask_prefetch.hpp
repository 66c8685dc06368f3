// Computes grammar states' masks on a background thread: a matcher that has just accepted a token
// asks for its new state's mask here, and while the model runs its next forward pass the mask is
// built, so a state reached for the first time costs sampling nothing when the pass is the longer.
// When it has no such request, the same thread carries on grammars' precompute (one state at a time).
#pragma once
#include <cstdint>
#include <memory>

#include "grammar.hpp"

namespace toolmask {

// Queues what a step at `state` with `tokensLeft` tokens left needs (CompiledGrammar::prefetchStep:
// its mask, and the token budget's searches when that many tokens are few); returns at once. A step
// with all of it done already costs one lookup there. The thread lets go of the grammar's lock
// whenever a caller (the decode thread) asks for it, and tries again after.
void prefetchMask(std::shared_ptr<CompiledGrammar> grammar, int32_t state, uint32_t tokensLeft = 0);

// Runs the rest of the grammar's breadth-first precompute (compiled with precomputeLater) on the
// prefetch thread, one state whenever no prefetch is waiting, grammars taking turns. A grammar
// released meanwhile is dropped (the thread holds it only during a step); of more than 64 grammars
// waiting, the oldest stop where they are (their masks are built on first use).
void precomputeInBackground(const std::shared_ptr<CompiledGrammar>& grammar);

// The prefetch thread's name (Linux: /proc/<pid>/task/<tid>/comm; at most 15 characters). There it
// runs under SCHED_BATCH, so that waking it never preempts the thread that asked.
constexpr const char* kPrefetchThreadName = "toolmask-bg";

}  // namespace toolmask
