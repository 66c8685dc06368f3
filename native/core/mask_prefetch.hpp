// Computes grammar states' masks on a background thread: a matcher that has just accepted a token
// asks for its new state's mask here, and while the model runs its next forward pass the mask is
// built, so a state reached for the first time costs sampling nothing when the pass is the longer.
#pragma once
#include <cstdint>
#include <memory>

#include "grammar.hpp"

namespace toolmask {

// Queues the mask of `state`; returns at once. Masks already built cost one lookup there.
void prefetchMask(std::shared_ptr<CompiledGrammar> grammar, int32_t state);

}  // namespace toolmask
