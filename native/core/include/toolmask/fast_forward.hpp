// Fast-forward: which tokens a masked sequence may append without sampling after it sampled
// `last`. The grammar forces a run of bytes (forcedRun, grammar.hpp); the model's own tokenizer
// turns `last`'s bytes followed by that run into tokens (the caller does this: the core knows no
// tokenizer). The tokens after `last` are taken when they spell the run exactly, leave `last` as it
// was, and the grammar accepts each; trailing tokens that could merge with the bytes after the run
// are held back (the model samples those): the last one always, and every one whose bytes to the
// run's end begin a longer token — unless the run ends where no byte may follow.
#pragma once
#include <cstdint>
#include <vector>

#include "grammar.hpp"

namespace toolmask {

// `tokenized`: the tokenizer's tokens for bytes(last) + run.bytes. Returns at most `max` tokens;
// none when the tokenization does not keep `last` as its first token or does not spell the text
// (a tokenizer that adds a leading space, say).
std::vector<uint32_t> fastForwardTokens(CompiledGrammar& g, int32_t state, uint32_t last, const ForcedRun& run,
                                        const std::vector<uint32_t>& tokenized, size_t max);

}  // namespace toolmask
