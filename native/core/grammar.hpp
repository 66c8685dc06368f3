// A compiled grammar: the NFA determinised lazily into states shared by every
// matcher, each state's token mask computed once and kept in compact form.
// States inside a loop fragment (free text, string contents) share one mask per
// fragment shape, across every grammar of the vocabulary (shape_cache.hpp); only tokens that leave
// the fragment mid-token are resolved per place.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "dfa.hpp"
#include "grammar_lock.hpp"
#include "include/toolmask/grammar.hpp"
#include "json.hpp"
#include "mask.hpp"
#include "rule_library.hpp"
#include "shape_cache.hpp"

namespace toolmask {

class CompiledGrammar {
 public:
  // `shapes`: the vocabulary's fragment cache, shared by the grammars compiled for it (none: this
  // grammar keeps its own). `library`: the vocabulary's rule library (rule_library.hpp), which the
  // IR's "library" names rules of and its "libraryAdd" adds to.
  CompiledGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab, const CompileOptions& opts,
                  std::shared_ptr<ShapeCache> shapes = nullptr, std::shared_ptr<RuleLibrary> library = nullptr);
  ~CompiledGrammar();
  CompiledGrammar(const CompiledGrammar&) = delete;
  CompiledGrammar& operator=(const CompiledGrammar&) = delete;

  const Vocabulary& vocab() const { return *vocab_; }
  int32_t start() const { return start_; }

  // All of these lock: matchers on several threads share one grammar.
  int32_t stepBytes(int32_t state, const uint8_t* p, size_t n);
  int32_t stepToken(int32_t state, uint32_t id);
  // The state a matcher keeps after a step to `state`, with its counters' offsets (LazyDfa::settle):
  // far counts share states. Walks from a settled state stay exact for settleReach() bytes.
  int32_t settle(int32_t state, LazyDfa::Offsets& offsets);
  // Bytes a matcher may step at once between two settles.
  size_t settleEvery() const { return 1024; }
  bool accepting(int32_t state);
  void fillMask(int32_t state, uint32_t* out);
  bool hasAllowedToken(int32_t state);
  // What a step at `state` with `tokensLeft` tokens left needs, done now on the prefetch thread:
  // the state's mask, and the token budget's searches where limitToBudget may act (the same ones,
  // at the same limit, so the step finds them done). Takes the lock only while no caller waits
  // and lets go at the walk's next check when one comes (grammar_lock.hpp): Busy then, with nothing
  // of the mask or search kept, to be asked again.
  enum class Prefetch { Done, Busy };
  Prefetch prefetchStep(int32_t state, uint32_t tokensLeft);
  // True only if that is done already (no prefetch needed); false also when the lock is busy (no wait).
  bool stepReady(int32_t state, uint32_t tokensLeft);
  std::vector<uint32_t> allowedSpecials(
      int32_t state);  // special and end-of-generation ids allowed here (no mask needed)
  // The bytes every continuation of `state` begins with (at most `max`): up to the first choice of
  // byte, a state where the grammar may end, or one where a special token may come.
  std::string forcedBytes(int32_t state, size_t max) { return forcedRun(state, max).bytes; }
  ForcedRun forcedRun(int32_t state, size_t max);

  // The token budget (grammar_budget.cpp). A lower bound on the tokens any answer from `state` still
  // needs to reach a point where it may end: exact up to kFinishHorizon, kFinishHorizon + 1 for more
  // (or when the search met more than kFinishStates states). 0 where the answer may end now.
  static constexpr uint32_t kFinishHorizon = 64;
  static constexpr size_t kFinishStates = 4096;
  // Trie nodes one bound may visit, and all bounds of a grammar together (about 30 ns each with
  // Qwen3's vocabulary: 2 Mi ≈ 60 ms). A search out of work gives the layer it reached.
  static constexpr size_t kFinishWork = size_t(2) << 20;
  static constexpr size_t kBudgetWork = size_t(8) << 20;
  uint32_t minTokensToFinish(int32_t state);
  // Outside every tool call (IR nodes marked "call"), with `tokensLeft` tokens left (this one
  // included), clears from the bitmask `out` the tokens that open a call which cannot close within
  // the rest. Inside a call nothing is cleared (a value is never shortened to fit: a cut stays a
  // cut), nor is text. Never clears the last allowed token. Only budgets up to kFinishHorizon act.
  // True when it changed `out`.
  bool limitToBudget(int32_t state, uint32_t tokensLeft, uint32_t* out);
  // False when limitToBudget(state, tokensLeft, ·) cannot change any mask: no budget in range, or
  // `state` stands inside a call. True does not say that it will (a state's cached mask is then
  // the step's mask exactly when limitToBudget returns false).
  bool budgetMayLimit(int32_t state, uint32_t tokensLeft);

  // One more state of the breadth-first precompute (under the prefetch thread's hold, which a
  // caller interrupts: grammar_lock.hpp): Done once its budgets (precomputeStates / Millis / Bytes)
  // are spent, Busy (and that state's mask not kept) while a caller waits for the lock.
  enum class Precompute { More, Done, Busy };
  Precompute precomputeStep();

  size_t stateCount();
  size_t memoryBytes();
  // The same without waiting for a mask in progress (a matcher's or the background precompute's):
  // then the last measure.
  size_t memoryBytesNoWait();
  double compileMillis() const { return compileMs_; }
  // States the constructor built (before any background precompute or matcher added more).
  size_t compileStates() const { return compileStates_; }
  size_t maskFlushes();  // times the masks were dropped for maxTableBytes or the table budget
  // The bytes the limit counts: memoryBytes() beyond what the grammar held with its first mask after
  // its last flush (0 before that mask).
  size_t tableBytes();
  size_t maxStates() const { return maxStates_; }

  // The table memory all grammars in use together may hold (the compiled grammars' share of the
  // process's grammar budget, src/grammar/cache.ts): each grammar in use may hold its share,
  // tableBudget() / grammarsInUse(), beyond what it held with its first mask after its last flush
  // (its automaton, and the shape that mask needed); past it, at its next measure (after each
  // new mask, every 64th at most: ensureMask), its masks are dropped. A grammar no matcher uses
  // gets the whole of it (the background precompute).
  static void setTableBudget(size_t bytes);
  static size_t tableBudget();
  static size_t grammarsInUse();
  // Whether a matcher stands in this grammar now (a generation, a parser's check, a caller's).
  bool inUse() const { return users_.load() > 0; }

 private:
  friend class GrammarUse;  // counts users_ (include/toolmask/grammar.hpp)
  struct FragmentInfo {
    Shape* shape = nullptr;  // shared by every fragment of the same shape (held in shapes_)
    bool exitReady = false;
    std::vector<uint32_t> exitClosure;  // closure of `out` outside the fragment
  };

  std::shared_ptr<const Vocabulary> vocab_;
  json::Value ir_;             // fragments point into it
  LibraryRules libraryRules_;  // the rules taken from the library: the automaton points into them too
  std::unique_ptr<LazyDfa> dfa_;
  std::vector<FragmentInfo> fragments_;
  std::shared_ptr<ShapeCache> shapeCache_;                          // per vocabulary, shared with other grammars
  std::unordered_map<std::string, std::shared_ptr<Shape>> shapes_;  // the shapes this grammar holds
  int32_t start_ = 0;
  GrammarLock mu_;
  std::atomic<int32_t> prefetching_{kDead};  // the state whose step prefetchStep is making (kDead: none)
  // minTokensToFinish at the start state, once searched (-1: not yet). Kept apart from successors_,
  // which flushMasks drops: a request's check before decoding reads it without the lock, so a
  // grammar other requests decode with is not searched again on the caller's thread.
  std::atomic<int32_t> startFinish_{-1};
  double compileMs_ = 0;
  size_t compileStates_ = 0;
  size_t maxStates_ = 0;
  size_t maxTableBytes_ = 0;
  uint64_t window_ = 2;  // bytes of the longest token, plus 2 (LazyDfa::representative)
  // How far from its points a settled count is moved: a walk from a settled state stays exact past
  // the next settle (settleEvery bytes, or a token), a forced run (1,024 bytes at most, plus a
  // token) and the token budget's search (kFinishHorizon tokens).
  uint64_t settleWindow_ = 0;
  // What the grammar held with its first mask after the last flush (or ever): the limit counts the
  // bytes beyond it (ensureMask).
  static constexpr size_t kMeasureNext = ~size_t(0);
  size_t automatonBytes_ = kMeasureNext;
  std::atomic<size_t> users_{0};
  static std::atomic<size_t> inUseCount_;
  size_t flushes_ = 0;
  size_t masksBuilt_ = 0;
  size_t checkedAt_ = 0;       // masksBuilt_ when the tables were last measured against the limit
  size_t measuredStates_ = 0;  // NFA, DFA and shape states (and memo entries) memoryBytesLocked last walked
  size_t bytesKey_[4] = {~size_t(0), 0, 0, 0};  // what memoryBytes() last measured at
  size_t bytes_ = 0;
  std::atomic<size_t> lastBytes_{0};  // memoryBytesLocked's last answer
  size_t irBytes_ = 0;

  // Per DFA state, for the token budget (grammar_budget.cpp): the distinct states its tokens lead
  // to, and the bound once known. Outside every call, also the tokens that open a call, grouped by
  // the state they lead to (sorted-token position ranges), for limitToBudget.
  static constexpr int32_t kOpenedUnknown = -1, kOpensNone = -2, kOpensNowhere = -3;
  struct Successors {
    std::vector<int32_t> ends;                           // ordinary and special tokens' end states, each once
    bool complete = false;                               // ends holds every one (false: the walk ran out of work)
    std::vector<std::pair<int32_t, PosRanges>> opening;  // outside only: ordinary tokens that open a call
    // outside only: ordinary tokens that stay in filler (SeqNode.filler: text before a call that must
    // come) where the answer cannot end yet, by end state
    std::vector<std::pair<int32_t, PosRanges>> staying;
    std::vector<std::pair<uint32_t, int32_t>> special;  // outside only: special tokens and their end states
    bool openingReady = false;
    int32_t finish = -1;  // minTokensToFinish from here: exact when finishExact, else a lower bound (-1: none yet)
    bool finishExact = false;
    bool finishCut = false;           // the lower bound is where a search ran out of work or states (not its limit)
    int32_t opened = kOpenedUnknown;  // a step into here opens the call standing in this state (kOpens… : none, or one
                                      // that leads nowhere)
    int8_t outside = -1;              // the budget acts here: outside every call, or at the entry of a call
                                      // entered without a byte (atCallEntryLocked) (-1: not yet known)
  };
  std::unordered_map<int32_t, Successors> successors_;
  size_t successorBytes_ = 0;
  // Trie nodes the budget searches may still visit in this grammar (refilled when the tables are
  // flushed): past it, bounds come from what is known, still lower bounds.
  size_t budgetWork_ = kBudgetWork;

  Successors& successorsLocked(int32_t s);
  bool budgetMayLimitLocked(int32_t s, uint32_t tokensLeft);
  void prepareBudgetLocked(int32_t s, uint32_t tokensLeft);
  bool budgetReadyLocked(int32_t s, uint32_t tokensLeft);
  bool endsLocked(int32_t s, size_t& work);
  void openingLocked(int32_t s);
  uint32_t finishBoundLocked(int32_t s, uint32_t limit);
  std::vector<Thread> liveCallStatesLocked(int32_t s);
  bool atCallEntryLocked(int32_t s);
  bool inFillerLocked(int32_t s);
  // The NFA states a call marked "budgetAtEntry" stands in before it read a byte (sorted), from the
  // first entryCallsSeen_ of Nfa::entryCalls.
  std::vector<uint32_t> entryStates_;
  size_t entryCallsSeen_ = 0;
  uint32_t openedCallBoundLocked(int32_t to, uint32_t limit);
  const StateMask& ensureMask(int32_t s);
  void computeMask(int32_t s, StateMask& out);
  bool fragmentMask(int32_t s, StateMask& out);
  const Shape::ItemsUsed& itemsUsed(Shape& mm, int32_t x);
  void limitItems(int32_t s, Shape& mm, int32_t x, uint32_t budget, StateMask& out);
  struct PrecomputeState {
    size_t next = 0, maxStates = 0, bytes = 0, maxBytes = 0;
    double millis = 0, maxMillis = 0;  // time spent in precomputeStep, not since compile
  } pre_;
  // The lock as every caller but the prefetch thread takes it (grammar_lock.hpp): it goes first.
  class Foreground {
   public:
    explicit Foreground(CompiledGrammar& g) : g_(g) { g_.mu_.lockForeground(); }
    // For work at `state`: lets the prefetch thread finish it if that is what it is making.
    Foreground(CompiledGrammar& g, int32_t state) : g_(g) {
      g_.mu_.lockForeground([&] { return g_.prefetching_.load() == state; });
    }
    ~Foreground() { g_.mu_.unlock(); }
    Foreground(const Foreground&) = delete;
    Foreground& operator=(const Foreground&) = delete;

   private:
    CompiledGrammar& g_;
  };
  // The prefetch thread's hold: taken only while no caller waits; its walks throw Yielded at their
  // next check once one does.
  class Background {
   public:
    explicit Background(CompiledGrammar& g) : g_(g), held_(g.mu_.tryLockBackground()) {}
    ~Background() {
      if (held_) g_.mu_.unlockBackground();
    }
    bool held() const { return held_; }
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;

   private:
    CompiledGrammar& g_;
    bool held_;
  };
  uint32_t searchFinish(int32_t state);  // minTokensToFinish's search (no cache of the start's bound)
  size_t memoryBytesLocked();
  size_t tableLimit() const;  // maxTableBytes or this grammar's share of the table budget, whichever is less
  void flushMasks();
};

}  // namespace toolmask
