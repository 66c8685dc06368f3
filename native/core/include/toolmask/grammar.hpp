// A compiled grammar as the bridges (native/addon, native/llama) see it: compiled from the grammar
// IR for a vocabulary, held by shared_ptr, asked through the functions below. Its definition (the
// lazy automaton, the masks, the token budget's tables, the lock, the precompute) is the core's own:
// native/core/grammar.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "errors.hpp"
#include "vocabulary.hpp"

namespace toolmask {

// A run of forced bytes (forcedRun). atBoundary: the run ends where no byte may follow (only a
// special token or the end of the output), so no token can reach across its end.
struct ForcedRun {
  std::string bytes;
  bool atBoundary = false;
};

struct CompileOptions {
  int maxRecursionDepth = 8;
  size_t maxStates = 2'000'000;  // NFA states the grammar may build (≈100 bytes each), now or while matching
  // Table memory (what the grammar holds beyond its automaton: masks, shapes, token-budget tables)
  // past which the masks built so far are dropped (and rebuilt as walks need them): a grammar that
  // keeps meeting new states cannot grow without bound. A grammar in use is held to its share of
  // the process's table budget too (setGrammarTableBudget), whichever is less.
  size_t maxTableBytes = size_t(256) << 20;
  size_t precomputeStates = 4096;    // masks computed eagerly at compile time, breadth first...
  double precomputeMillis = 50;      // ...within this time...
  size_t precomputeBytes = 8 << 20;  // ...and this much table memory; the rest on first use
  // The constructor builds the start state's mask alone and leaves the rest of the precompute to
  // precomputeStep() calls (mask_prefetch.hpp's precomputeInBackground makes them on its thread).
  bool precomputeLater = false;
};

class CompiledGrammar;
// Loop fragments' automata and masks, kept per vocabulary and shared by the grammars compiled for it.
class ShapeCache;
// Rules kept per vocabulary, which a grammar's IR names instead of carrying them (its "library").
class RuleLibrary;

// Compiles the grammar IR (JSON text). `shapes`: the vocabulary's fragment cache (none: the
// grammar keeps its own); `library`: the vocabulary's rule library. Throws GrammarError
// (GrammarLimitError past a bound, RuleLibraryMiss for a library rule the library lacks).
std::shared_ptr<CompiledGrammar> compileGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab,
                                                const CompileOptions& opts,
                                                std::shared_ptr<ShapeCache> shapes = nullptr,
                                                std::shared_ptr<RuleLibrary> library = nullptr);

const Vocabulary& grammarVocabulary(const CompiledGrammar& g);
// Writes the mask of the grammar's state `state` (Matcher::state()) into `out` (one bit per
// token, vocabularySize / 32 words rounded up), before any token budget.
void fillStateMask(CompiledGrammar& g, int32_t state, uint32_t* out);
bool hasAllowedToken(CompiledGrammar& g, int32_t state);
// The bytes every continuation of `state` begins with (at most `max`): up to the first choice of
// byte, a state where the grammar may end, or one where a special token may come.
ForcedRun forcedRun(CompiledGrammar& g, int32_t state, size_t max);

// What a grammar holds and did (native/core/grammar.hpp says each one's measure).
size_t grammarStateCount(CompiledGrammar& g);
size_t grammarMemoryBytes(CompiledGrammar& g);
// The same without waiting for a mask in progress (a matcher's or the background precompute's):
// then the last measure.
size_t grammarMemoryBytesNoWait(CompiledGrammar& g);
double grammarCompileMillis(const CompiledGrammar& g);
size_t grammarCompileStates(const CompiledGrammar& g);  // states the compile built
size_t grammarMaskFlushes(CompiledGrammar& g);          // times its masks were dropped for a memory bound
size_t grammarTableBytes(CompiledGrammar& g);           // the table memory the bounds count
bool grammarInUse(const CompiledGrammar& g);            // a matcher stands in it now

// The table memory all grammars in use together may hold (src/grammar/cache.ts sets it); each
// grammar in use is held to its share.
void setGrammarTableBudget(size_t bytes);

// Counts a grammar as in use while it lives: every Matcher holds one.
class GrammarUse {
 public:
  explicit GrammarUse(std::shared_ptr<CompiledGrammar> g);
  GrammarUse(const GrammarUse& o);
  GrammarUse(GrammarUse&& o) noexcept : g_(std::move(o.g_)) {}
  GrammarUse& operator=(GrammarUse o) noexcept {
    std::swap(g_, o.g_);
    return *this;
  }
  ~GrammarUse();
  const std::shared_ptr<CompiledGrammar>& grammar() const { return g_; }

 private:
  std::shared_ptr<CompiledGrammar> g_;
};

std::shared_ptr<ShapeCache> makeShapeCache();
struct ShapeCacheStats {
  size_t shapes = 0, hits = 0, misses = 0;
  size_t idleBytes = 0;  // tables of the shapes no grammar holds
};
ShapeCacheStats shapeCacheStats(ShapeCache& c);
void clearShapeCache(ShapeCache& c);  // drops every cached shape (grammars holding one keep it)
// The idle limit of every shape cache (shapes no grammar holds; default 16 MiB).
void setShapeCacheIdleBytes(size_t bytes);

std::shared_ptr<RuleLibrary> makeRuleLibrary();
struct RuleLibraryStats {
  size_t rules = 0, bytes = 0;
  size_t generation = 0;  // times it was emptied (a clear, or an add past its byte limit)
};
RuleLibraryStats ruleLibraryStats(const RuleLibrary& l);
void clearRuleLibrary(RuleLibrary& l);  // drops every rule (grammars holding one keep it)

}  // namespace toolmask
