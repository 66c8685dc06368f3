// The prefetch thread's holds give way at any of their walks' checks (grammar_lock.hpp): here a
// yield is made at each check in turn (lockwait::yieldAtCheck), on one thread, so every point
// where a waiting caller can stop the work is met. After each, the grammar is measured (its
// memory, its states: every shape and state it keeps is read), and after each step's work is done
// whole, the masks (plain and with 1 and 3 tokens left) and the bound to finish equal those of the
// same grammar compiled with no yield. The grammars' shapes are in a cache a grammar compiled before
// filled (and let go of), so taking a shape from the cache, and trimming it, meets checks too; and
// with a table limit of 1 byte, so the tables are dropped (flushMasks) within the held work.
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {

bool bitSet(const std::vector<uint32_t>& m, uint32_t id) { return (m[id >> 5] >> (id & 31)) & 1; }

// Runs `op` with a yield at its 1st check, again with one at its (1 + stride)th, ... until a run
// meets no yield (it had fewer checks): what each yield leaves behind must measure, and a run with
// no yield must finish the work. Returns the yields made.
template <typename Op>
size_t yieldAtEachCheck(CompiledGrammar& g, Op&& op, uint64_t stride = 1) {
  size_t yields = 0;
  for (uint64_t k = 1;; k += stride) {
    lockwait::yieldAtCheck = k;
    op();
    const bool yielded = lockwait::yieldAtCheck == 0;
    lockwait::yieldAtCheck = 0;
    g.memoryBytes();
    g.stateCount();
    if (!yielded) return yields;
    yields++;
    if (k > 1'000'000) {
      CHECK(!"a run with no yield ends");
      return yields;
    }
  }
}

}  // namespace

void yieldTests(const std::shared_ptr<const Vocabulary>& v, const std::vector<std::string>& irs) {
  size_t yields = 0, steps = 0;
  // Tables kept, and a table limit of 1 byte (every mask and budget table dropped at each measure).
  for (const size_t maxTableBytes : {CompileOptions{}.maxTableBytes, size_t(1)})
    for (const std::string& ir : irs) {
      auto shapes = std::make_shared<ShapeCache>();
      std::make_shared<CompiledGrammar>(ir, v, CompileOptions{}, shapes);  // its shapes stay in the cache, idle
      CompileOptions later;
      later.maxTableBytes = maxTableBytes;
      later.precomputeLater = true;
      later.precomputeMillis = 1e9;  // the precompute bounded by its steps here, not by time: the same checks every run
      auto busy = std::make_shared<CompiledGrammar>(ir, v, later, shapes);
      auto calm = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
      Matcher a(busy), b(calm);
      std::vector<uint32_t> ma(v->words()), mb(v->words());
      std::mt19937 rng(11);
      for (int walk = 0; walk < 2; walk++) {
        a.reset();
        b.reset();
        for (int step = 0; step < 10; step++, steps++) {
          const int32_t s = a.state();
          // The prefetch thread's part of a step, the background precompute and a measure.
          yields += yieldAtEachCheck(*busy, [&] { busy->prefetchStep(s, 3); });
          yields += yieldAtEachCheck(*busy, [&] { busy->precomputeStep(); });
          yields += yieldAtEachCheck(*busy, [&] { busy->memoryBytesNoWait(); });
          CHECK(busy->memoryBytesNoWait() == busy->memoryBytes());
          // The bound from a thread other than the decode thread (it yields as the prefetch thread
          // does, and sleeps 100 µs after each yield: every 16th check, its searches being those
          // prefetchStep makes).
          uint32_t bound = 0;
          yields += yieldAtEachCheck(*busy, [&] { bound = a.minTokensToFinish(); }, 16);
          CHECK(bound == b.minTokensToFinish());
          for (uint32_t left : {0u, 1u, 3u}) {
            a.fillNextTokenBitmask(ma.data(), ma.size(), left);
            b.fillNextTokenBitmask(mb.data(), mb.size(), left);
            CHECK(ma == mb);
          }
          std::vector<uint32_t> allowed;
          for (uint32_t id = 0; id < v->size(); id++)
            if (bitSet(mb, id)) allowed.push_back(id);
          if (allowed.empty()) break;
          const uint32_t pick = allowed[rng() % allowed.size()];
          CHECK(a.acceptToken(pick) && b.acceptToken(pick));
        }
      }
    }
  CHECK(yields > 0);
  std::printf("yields at every check: %zu yields over %zu steps checked\n", yields, steps);
}
