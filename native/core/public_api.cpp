// The functions of the public headers (include/toolmask/) over the core's own types: each one
// hands its call to the class that does the work.
#include <utility>

#include "grammar.hpp"
#include "include/toolmask/grammar.hpp"
#include "include/toolmask/lock_waits.hpp"
#include "include/toolmask/vocabulary.hpp"
#include "rule_library.hpp"
#include "shape_cache.hpp"
#include "vocab.hpp"

namespace toolmask {

std::shared_ptr<const Vocabulary> makeVocabulary(const uint8_t* bytes, size_t nBytes, const uint32_t* offsets,
                                                 const uint8_t* kinds, uint32_t size) {
  return std::make_shared<const Vocabulary>(bytes, nBytes, offsets, kinds, size);
}
uint32_t vocabularySize(const Vocabulary& v) { return v.size(); }
uint64_t vocabularyHash(const Vocabulary& v) { return v.hash(); }
size_t vocabularyMemoryBytes(const Vocabulary& v) { return v.memoryBytes(); }
const uint8_t* vocabularyTokenBytes(const Vocabulary& v, uint32_t id, size_t& len) { return v.tokenBytes(id, len); }

std::shared_ptr<CompiledGrammar> compileGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab,
                                                const CompileOptions& opts, std::shared_ptr<ShapeCache> shapes,
                                                std::shared_ptr<RuleLibrary> library) {
  return std::make_shared<CompiledGrammar>(irJson, std::move(vocab), opts, std::move(shapes), std::move(library));
}
const Vocabulary& grammarVocabulary(const CompiledGrammar& g) { return g.vocab(); }
void fillStateMask(CompiledGrammar& g, int32_t state, uint32_t* out) { g.fillMask(state, out); }
bool hasAllowedToken(CompiledGrammar& g, int32_t state) { return g.hasAllowedToken(state); }
ForcedRun forcedRun(CompiledGrammar& g, int32_t state, size_t max) { return g.forcedRun(state, max); }

size_t grammarStateCount(CompiledGrammar& g) { return g.stateCount(); }
size_t grammarMemoryBytes(CompiledGrammar& g) { return g.memoryBytes(); }
size_t grammarMemoryBytesNoWait(CompiledGrammar& g) { return g.memoryBytesNoWait(); }
double grammarCompileMillis(const CompiledGrammar& g) { return g.compileMillis(); }
size_t grammarCompileStates(const CompiledGrammar& g) { return g.compileStates(); }
size_t grammarMaskFlushes(CompiledGrammar& g) { return g.maskFlushes(); }
size_t grammarTableBytes(CompiledGrammar& g) { return g.tableBytes(); }
bool grammarInUse(const CompiledGrammar& g) { return g.inUse(); }
void setGrammarTableBudget(size_t bytes) { CompiledGrammar::setTableBudget(bytes); }

GrammarUse::GrammarUse(std::shared_ptr<CompiledGrammar> g) : g_(std::move(g)) {
  if (g_ && g_->users_.fetch_add(1) == 0) CompiledGrammar::inUseCount_++;
}
GrammarUse::GrammarUse(const GrammarUse& o) : g_(o.g_) {
  if (g_ && g_->users_.fetch_add(1) == 0) CompiledGrammar::inUseCount_++;
}
GrammarUse::~GrammarUse() {
  if (g_ && g_->users_.fetch_sub(1) == 1) CompiledGrammar::inUseCount_--;
}

std::shared_ptr<ShapeCache> makeShapeCache() { return std::make_shared<ShapeCache>(); }
ShapeCacheStats shapeCacheStats(ShapeCache& c) {
  ShapeCacheStats s;
  s.shapes = c.size();
  s.hits = c.hits();
  s.misses = c.misses();
  s.idleBytes = c.idleBytes();
  return s;
}
void clearShapeCache(ShapeCache& c) { c.clear(); }
void setShapeCacheIdleBytes(size_t bytes) { ShapeCache::setProcessIdleBytes(bytes); }

std::shared_ptr<RuleLibrary> makeRuleLibrary() { return std::make_shared<RuleLibrary>(); }
RuleLibraryStats ruleLibraryStats(const RuleLibrary& l) { return {l.size(), l.bytes(), l.generation()}; }
void clearRuleLibrary(RuleLibrary& l) { l.clear(); }

CountLockWaits::CountLockWaits(LockWaits* into) : prev_(lockwait::counting) { lockwait::counting = into; }
CountLockWaits::~CountLockWaits() { lockwait::counting = prev_; }

}  // namespace toolmask
