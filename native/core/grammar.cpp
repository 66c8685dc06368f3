#include "grammar.hpp"

#include <algorithm>
#include <chrono>

namespace toolmask {

namespace {
constexpr size_t kMaterializeLimit = 1024;
// 13/16 of the grammar budget's default of 256 MiB: the compiled grammars' share (src/grammar/cache.ts
// sets it with the budget).
std::atomic<size_t> tableBudgetBytes{size_t(208) << 20};

double millisSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}
}  // namespace

std::atomic<size_t> CompiledGrammar::inUseCount_{0};

void CompiledGrammar::setTableBudget(size_t bytes) { tableBudgetBytes = bytes; }
size_t CompiledGrammar::tableBudget() { return tableBudgetBytes; }
size_t CompiledGrammar::grammarsInUse() { return inUseCount_; }

size_t CompiledGrammar::tableLimit() const {
  return std::min(maxTableBytes_, tableBudgetBytes.load() / std::max<size_t>(1, inUseCount_.load()));
}

CompiledGrammar::CompiledGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab,
                                 const CompileOptions& opts, std::shared_ptr<ShapeCache> shapes,
                                 std::shared_ptr<RuleLibrary> library)
    : vocab_(std::move(vocab)), shapeCache_(shapes ? std::move(shapes) : std::make_shared<ShapeCache>()) {
  auto t0 = std::chrono::steady_clock::now();
  try {
    ir_ = json::parse(irJson, &irBytes_);
  } catch (const json::ParseError& e) { throw GrammarError(e.what()); }
  libraryRules_ = takeLibraryRules(ir_, library);
  NfaLimits lim;
  lim.vocabSize = vocab_->size();
  lim.maxRecursionDepth = opts.maxRecursionDepth;
  lim.maxStates = maxStates_ = opts.maxStates;
  maxTableBytes_ = opts.maxTableBytes;
  auto builder = std::make_unique<NfaBuilder>(ir_, lim, &libraryRules_.byName);
  // Token terminals name special tokens: ordinary tokens are matched by their bytes,
  // and an unused id can never be produced, so either would make mask and accept disagree.
  for (uint32_t id : builder->tokenIds()) {
    TokenKind k = vocab_->kind(id);
    if (k != TokenKind::Special && k != TokenKind::EndOfGeneration)
      throw GrammarError("token terminal " + std::to_string(id) + " is " +
                         (k == TokenKind::Unused ? "an unused token" : "an ordinary text token (use a literal)") +
                         "; token terminals must name special tokens");
  }
  dfa_ = std::make_unique<LazyDfa>(std::move(builder));
  // A token moves a counter by at most one per byte, and one more as the automaton settles.
  window_ = std::max<uint64_t>(window_, vocab_->maxTokenBytes() + 2);
  settleWindow_ = (kFinishHorizon + 2) * window_ + 2 * settleEvery() + 2048;
  start_ = dfa_->start();
  if (start_ < 0)
    throw GrammarError("the grammar accepts nothing (every path is empty or exceeds the recursion depth)");
  pre_.maxStates = opts.precomputeStates;
  pre_.maxMillis = opts.precomputeMillis;
  pre_.maxBytes = opts.precomputeBytes;
  if (opts.precomputeLater) {
    if (pre_.maxStates > 0) precomputeStep();  // the start state: the first mask any matcher needs
  } else {
    while (precomputeStep() == Precompute::More) {}
  }
  compileMs_ = millisSince(t0);
  compileStates_ = stateCount();
  memoryBytes();
}

CompiledGrammar::~CompiledGrammar() {
  // The masks point into the shapes: they go first, then the shapes, then the cache may drop them.
  dfa_.reset();
  fragments_.clear();
  shapes_.clear();
  shapeCache_->trim();
}

int32_t CompiledGrammar::stepBytes(int32_t state, const uint8_t* p, size_t n) {
  if (state < 0) return kDead;
  const Foreground lock(*this);
  return dfa_->walk(state, p, n);
}

int32_t CompiledGrammar::settle(int32_t state, LazyDfa::Offsets& offsets) {
  if (state < 0) {
    offsets.clear();
    return state;
  }
  const Foreground lock(*this);
  return dfa_->settle(state, offsets, settleWindow_);
}

int32_t CompiledGrammar::stepToken(int32_t state, uint32_t id) {
  if (state < 0) return kDead;
  const Foreground lock(*this);
  switch (vocab_->kind(id)) {
    case TokenKind::Normal: {
      size_t len;
      const uint8_t* p = vocab_->tokenBytes(id, len);
      return len ? dfa_->walk(state, p, len) : kDead;
    }
    case TokenKind::Special:
    case TokenKind::EndOfGeneration: {
      const DfaState& d = dfa_->state(state);
      for (auto& e : d.tokenEdges)
        if (e.first == id) return e.second;
      if (vocab_->kind(id) == TokenKind::EndOfGeneration && d.accepting) return kTerminated;
      return kDead;
    }
    default:
      return kDead;
  }
}

bool CompiledGrammar::accepting(int32_t state) {
  if (state == kTerminated) return true;
  if (state < 0) return false;
  const Foreground lock(*this);
  return dfa_->state(state).accepting;
}

namespace {
// The finished bitmask in place of a shared base and its exceptions, for a mask with too many
// exceptions to replay on every fill (specials are added after this, so none are set yet).
void materialize(StateMask& out, const Vocabulary& v) {
  std::vector<uint32_t> bits(v.words());
  out.fill(bits.data(), v);
  out.base = nullptr;
  out.ids.clear();
  out.extra.clear();
  out.remove.clear();
  out.rep = MaskRep::Bits;
  out.bits = std::move(bits);
}
}  // namespace

// If `s` has NFA states in a loop fragment, its mask is the fragment's shared mask, plus those
// tokens that leave the fragment mid-token and fit what follows, plus (an NFA takes a token from a
// set of states iff from one of them) what the states outside it allow, walked here. Bounded
// repetitions' copies take only states whose outside part is exactly what follows their exit.
bool CompiledGrammar::fragmentMask(int32_t s, StateMask& out) {
  const Nfa& nfa = dfa_->nfa();
  const DfaState& d = dfa_->state(s);
  const std::vector<uint32_t>& set = d.nfa;
  int32_t f = -1;
  for (uint32_t n : set)
    if ((f = nfa.fragmentOf[n]) >= 0) break;
  if (f < 0) return false;
  const Fragment fr = nfa.fragments[size_t(f)];  // a copy: expanding placeholders may grow the list
  std::vector<uint32_t> inside, outside;
  std::vector<Thread> insideThreads, outsideThreads;
  for (size_t i = 0; i < set.size(); i++) {
    const bool in = nfa.fragmentOf[set[i]] == f;
    (in ? inside : outside).push_back(set[i]);
    (in ? insideThreads : outsideThreads).push_back({set[i], dfa_->ctxOf(d, i)});
  }
  // The items a bounded repetition may still begin, this one included: a copy's from its place, a
  // counted repetition's from the count its threads hold (all the same, or no shared mask).
  uint64_t itemsLeft = UINT64_MAX;
  if (fr.copy >= 0) itemsLeft = fr.maxCount - uint32_t(fr.copy);
  if (fr.counter >= 0) {
    uint64_t item = 0;
    for (size_t i = 0; i < insideThreads.size(); i++) {
      uint64_t v = 0;
      if (!dfa_->counterValue(insideThreads[i].ctx, uint32_t(fr.counter), v) || (i > 0 && v != item)) return false;
      item = v;
    }
    if (fr.countMax != UINT64_MAX) itemsLeft = fr.countMax - item + 1;
  }
  if (fragments_.size() <= size_t(f)) fragments_.resize(nfa.fragments.size());
  FragmentInfo& info = fragments_[size_t(f)];
  if (!info.exitReady) {
    // The closure of the exit, less the fragment's own states: what an exit adds to a state.
    int32_t e = dfa_->intern({fr.exit});
    if (e >= 0)
      for (uint32_t n : dfa_->state(e).nfa)
        if (nfa.fragmentOf[n] != f) info.exitClosure.push_back(n);
    info.exitReady = true;
  }
  bool counted = fr.copy >= 0 || fr.counter >= 0;
  bool exits = counted ? !outside.empty() : std::binary_search(inside.begin(), inside.end(), fr.out);
  int32_t other = kDead;  // the outside states' own DFA state, where they are more than the exit's closure
  if (exits ? outside != info.exitClosure : !outside.empty()) {
    if (counted) return false;
    other = dfa_->internThreads(std::move(outsideThreads));
    // Their closure reaching back into the fragment would walk it whole: no gain.
    if (other >= 0)
      for (uint32_t n : dfa_->state(other).nfa)
        if (nfa.fragmentOf[n] == f) return false;
  }
  if (!info.shape) {
    auto held = shapes_.find(*fr.shape);
    if (held == shapes_.end()) {
      NfaLimits lim;
      lim.vocabSize = vocab_->size();
      lim.maxStates = maxStates_;
      lim.countAbove = lim.countTextAbove =
          UINT64_MAX;  // a shape is plain: it holds no counted construct, so it unrolls as the grammar did
      // The automaton depends on the shape and the state limit alone: the key names both. Kept
      // only once got: a build that throws (the state limit) leaves no empty entry behind.
      std::shared_ptr<Shape> got = shapeCache_->get(*fr.shape + '\0' + std::to_string(maxStates_), tableLimit(), [&] {
        return std::make_unique<LazyDfa>(buildFragmentNfa(*fr.node, lim));
      });
      held = shapes_.emplace(*fr.shape, std::move(got)).first;
    }
    info.shape = held->second.get();
  }
  Shape& mm = *info.shape;
  std::lock_guard<std::mutex> shapeLock(mm.mu);
  LazyDfa& mini = *mm.dfa;
  // A bounded repetition's copy maps onto the item inside its loop: the loop is state 1
  // (and the mini's accept), the item's states start at 2.
  std::vector<uint32_t> local;
  for (uint32_t n : inside) local.push_back(n - fr.base + (counted ? 2 : 0));
  if (counted && exits) local.push_back(1);
  int32_t x = mini.intern(std::move(local));
  if (x < 0) return false;
  // With an exit in reach, the count is exact only at the very start of a copy: mid-item
  // states next to an exit mean some parse already finished this copy (one more item used).
  if (counted && exits && x != mini.start()) return false;
  DfaState& ms = mini.state(x);
  if (!ms.mask) {
    // Kept only once whole: a walk the prefetch thread stops (Yielded) leaves no mask behind.
    auto m = std::make_unique<StateMask>();
    PosRanges rejected, uncertain;
    walkTrie(mini, x, *vocab_, true, rejected, uncertain, &mm.memo);
    encodeMask(*vocab_, rejected, uncertain, *m);
    if (rejected.size() <= StateMask::kKeptRejectedRanges) {
      m->rejected = std::move(rejected);
      m->rejectedKept = true;
    }
    mini.state(x).mask = std::move(m);
  }
  out.base = ms.mask.get();
  walkAmong(*dfa_, s, *vocab_, ms.mask->uncertain, &out.extra, nullptr);
  if (counted) limitItems(s, mm, x, uint32_t(std::min<uint64_t>(itemsLeft, 255)), out);
  if (other >= 0 && ms.mask->rejectedKept) {
    // What the fragment allows is allowed, and what leaves it mid-token was walked from `s` above:
    // the outside states can add only tokens the fragment refuses outright.
    std::vector<uint32_t> theirs;
    walkAmong(*dfa_, other, *vocab_, ms.mask->rejected, &theirs, nullptr);
    if (out.extra.size() + theirs.size() <= kMaterializeLimit) {
      out.extra.insert(out.extra.end(), theirs.begin(), theirs.end());
    } else {
      materialize(out, *vocab_);
      for (uint32_t id : theirs) out.bits[id >> 5] |= 1u << (id & 31);
    }
  } else if (other >= 0) {
    PosRanges rejected, uncertain;
    StateMask theirs;
    walkTrie(*dfa_, other, *vocab_, false, rejected, uncertain);
    encodeMask(*vocab_, rejected, uncertain, theirs);
    if (theirs.rep == MaskRep::Accept && out.extra.size() + theirs.ids.size() <= kMaterializeLimit) {
      out.extra.insert(out.extra.end(), theirs.ids.begin(), theirs.ids.end());
    } else {
      materialize(out, *vocab_);
      std::vector<uint32_t> more(vocab_->words());
      theirs.fill(more.data(), *vocab_);
      for (size_t w = 0; w < more.size(); w++) out.bits[w] |= more[w];
    }
  }
  return true;
}

// How many items of the loop each token uses from mini state x (0: the loop refuses it).
const Shape::ItemsUsed& CompiledGrammar::itemsUsed(Shape& mm, int32_t x) {
  auto it = mm.itemsUsed.find(x);
  if (it != mm.itemsUsed.end()) return it->second;
  LazyDfa& mini = *mm.dfa;
  Shape::ItemsUsed r;
  std::vector<uint8_t>& used = r.byPosition;
  const auto& trie = vocab_->trie();
  used.assign(vocab_->order().size(), 0);
  lockwait::Poll poll;
  // Depth first over the token trie: a prefix the loop refuses refuses its whole subtree (0), and
  // tokens sharing a prefix share its walk. Positions are met in increasing order.
  auto dfs = [&](auto&& self, uint32_t n, int32_t st, unsigned items) -> void {
    poll();
    const TrieNode& node = trie[n];
    if (node.nEnd) {
      // A token ending here ends inside one more item unless an item ended with its last byte.
      const auto u = uint8_t(std::min(items + (mini.state(st).accepting ? 0u : 1u), 255u));
      for (uint32_t pos = node.lo; pos < node.lo + node.nEnd; pos++) {
        used[pos] = u;
        if (u > 1) r.several.push_back(pos);
      }
      r.max = std::max(r.max, u);
    }
    for (uint32_t c = n + 1; c < node.end; c = trie[c].end) {
      const int32_t ns = mini.next(st, trie[c].byte);
      if (ns >= 0) self(self, c, ns, items + (mini.state(ns).accepting ? 1u : 0u));  // an item ended here
    }
  };
  dfs(dfs, 0, x, 0);
  return mm.itemsUsed.emplace(x, std::move(r)).first->second;
}

// A copy of a bounded repetition with `budget` items left: the loop's tokens that would
// need more are refused, unless leaving the repetition mid-token lets them through.
void CompiledGrammar::limitItems(int32_t s, Shape& mm, int32_t x, uint32_t budget, StateMask& out) {
  if (budget >= 255) return;
  const Shape::ItemsUsed& u = itemsUsed(mm, x);
  if (budget >= u.max) return;
  // The tokens above the budget, as ranges of sorted-token positions: with a budget of one item or
  // more, only tokens that use several can be above it.
  PosRanges over;
  auto add = [&](uint32_t pos) {
    if (u.byPosition[pos] <= budget) return;
    if (!over.empty() && over.back().second == pos)
      over.back().second++;
    else
      over.push_back({pos, pos + 1});
  };
  if (budget >= 1)
    for (uint32_t pos : u.several) add(pos);
  else
    for (uint32_t pos = 0; pos < u.byPosition.size(); pos++) add(pos);
  walkAmong(*dfa_, s, *vocab_, over, nullptr, &out.remove);
  if (out.remove.size() > kMaterializeLimit) materialize(out, *vocab_);  // too many to replay on every fill
}

void CompiledGrammar::computeMask(int32_t s, StateMask& out) {
  if (!fragmentMask(s, out)) {
    PosRanges rejected, uncertain;
    walkTrie(*dfa_, s, *vocab_, false, rejected, uncertain);
    encodeMask(*vocab_, rejected, uncertain, out);
  }
  const DfaState& d = dfa_->state(s);
  for (auto& e : d.tokenEdges) out.specials.push_back(e.first);
  if (d.accepting)
    for (uint32_t id : vocab_->endOfGeneration()) out.specials.push_back(id);
  std::sort(out.specials.begin(), out.specials.end());
  out.specials.erase(std::unique(out.specials.begin(), out.specials.end()), out.specials.end());
}

const StateMask& CompiledGrammar::ensureMask(int32_t s) {
  // States that differ only in counts far from their counters' bounds share one mask.
  if (const int32_t r = dfa_->representative(s, window_); r != s && dfa_->representative(r, window_) == r)
    return ensureMask(r);
  DfaState& d = dfa_->state(s);
  if (!d.mask) {
    // The tables are measured again after every mask while the automaton is small, after every
    // 64th at most: measuring walks every NFA, DFA and shape state (8.5 ms for a bounded text of
    // 20,000 characters), so once every 4,096 of them, and a mask pays at most a walk of 4,096.
    // Past the limit every mask built so far goes (masks are only read under the lock, inside one
    // call, so none is in use here). Before the first mask (automatonBytes_ unknown) there is
    // nothing to compare with: that one is measured after it is built, below.
    if (++masksBuilt_ - checkedAt_ >= std::clamp<size_t>(measuredStates_ / 4096, 1, 64) &&
        automatonBytes_ != kMeasureNext) {
      const size_t now = memoryBytesLocked();
      checkedAt_ = masksBuilt_;
      if (now > automatonBytes_ && now - automatonBytes_ > tableLimit()) flushMasks();
    }
    lockwait::countWork(&LockWaits::masksBuilt);
    auto m = std::make_unique<StateMask>();
    computeMask(s, *m);
    dfa_->state(s).mask = std::move(m);
    // What the grammar holds with one mask: its automaton, the DFA states walks reached, and the
    // shape that mask needed (a bounded text's shape holds the text's own automaton: 4.3 MB for
    // 2,000 characters), which every mask of the text needs again. Only what grows beyond it counts
    // against the limit: otherwise such a grammar would drop everything at every mask.
    if (automatonBytes_ == kMeasureNext) automatonBytes_ = memoryBytesLocked();
  }
  return *dfa_->state(s).mask;
}

void CompiledGrammar::fillMask(int32_t state, uint32_t* out) {
  if (state < 0) {
    std::fill(out, out + vocab_->words(), 0u);
    return;
  }
  const Foreground lock(*this, state);
  ensureMask(state).fill(out, *vocab_);
}

CompiledGrammar::Prefetch CompiledGrammar::prefetchStep(int32_t state, uint32_t tokensLeft) {
  if (state < 0) return Prefetch::Done;
  const Background lock(*this);
  if (!lock.held()) return Prefetch::Busy;
  struct Making {  // prefetching_ and the first searches' rule for as long as they go on, however they end
    CompiledGrammar& g;
    Making(CompiledGrammar& grammar, int32_t s) : g(grammar) {
      g.prefetching_ = s;
      lockwait::takeCutBounds = true;
    }
    ~Making() { done(); }
    void done() {
      if (!lockwait::takeCutBounds) return;
      lockwait::takeCutBounds = false;
      g.prefetching_ = kDead;
      g.mu_.notifyJoiners();
    }
  } making(*this, state);
  try {
    // The step the decode thread may be waiting for: its mask and the budget's first searches.
    ensureMask(state);
    prepareBudgetLocked(state, tokensLeft);
  } catch (const Yielded&) { return Prefetch::Busy; }
  // Then, with no caller let wait for it any more, the searches that ran out before go on, until a
  // caller or the next asked-for mask comes (each later step that meets such a bound asks again).
  making.done();
  struct GiveWayToJobs {
    GiveWayToJobs() { lockwait::yieldToJobs = true; }
    ~GiveWayToJobs() { lockwait::yieldToJobs = false; }
  } giveWay;
  try {
    prepareBudgetLocked(state, tokensLeft);
  } catch (const Yielded&) {}
  return Prefetch::Done;
}

bool CompiledGrammar::stepReady(int32_t state, uint32_t tokensLeft) {
  if (state < 0 || !mu_.tryLock()) return false;
  const int32_t r = dfa_->state(state).rep;
  const bool ready = dfa_->state(r >= 0 ? r : state).mask != nullptr && budgetReadyLocked(state, tokensLeft);
  mu_.unlock();
  return ready;
}

bool CompiledGrammar::hasAllowedToken(int32_t state) {
  if (state < 0) return false;
  const Foreground lock(*this, state);
  return !ensureMask(state).empty(*vocab_);
}

ForcedRun CompiledGrammar::forcedRun(int32_t state, size_t max) {
  ForcedRun out;
  if (state < 0) return out;
  const Foreground lock(*this);
  for (;;) {
    int b = dfa_->forcedByte(state);
    if (b < 0) {
      out.atBoundary = !out.bytes.empty() && !dfa_->hasByteEdge(state);
      break;
    }
    if (out.bytes.size() >= max) break;
    out.bytes.push_back(char(b));
    state = dfa_->next(state, uint8_t(b));
  }
  return out;
}

std::vector<uint32_t> CompiledGrammar::allowedSpecials(int32_t state) {
  if (state < 0) return {};
  const Foreground lock(*this);
  const DfaState& d = dfa_->state(state);
  std::vector<uint32_t> out;
  for (auto& e : d.tokenEdges) out.push_back(e.first);
  if (d.accepting) out.insert(out.end(), vocab_->endOfGeneration().begin(), vocab_->endOfGeneration().end());
  return out;
}

CompiledGrammar::Precompute CompiledGrammar::precomputeStep() {
  // A matcher waiting for the lock goes first: the background takes it only when nobody waits, and
  // lets go at its walk's next check when one comes.
  const Background lock(*this);
  if (!lock.held()) return Precompute::Busy;
  auto t0 = std::chrono::steady_clock::now();
  // Breadth first over every byte class: masks for the states a walk meets first.
  if (pre_.next >= dfa_->size() || pre_.next >= pre_.maxStates || pre_.millis > pre_.maxMillis ||
      pre_.bytes > pre_.maxBytes)
    return Precompute::Done;
  auto i = int32_t(pre_.next);
  try {
    pre_.bytes += ensureMask(i).memoryBytes() + 64 * dfa_->classes();
  } catch (const Yielded&) {
    pre_.millis += millisSince(t0);
    return Precompute::Busy;  // the same state again next turn
  }
  pre_.next++;
  for (size_t c = 0; c < dfa_->classes(); c++) dfa_->next(i, dfa_->classRep(c));
  pre_.millis += millisSince(t0);
  return Precompute::More;
}

size_t CompiledGrammar::stateCount() {
  const Foreground lock(*this);
  size_t n = dfa_->size();
  for (auto& m : shapes_) {
    std::lock_guard<std::mutex> shapeLock(m.second->mu);
    n += m.second->dfa->size();
  }
  return n;
}

size_t CompiledGrammar::memoryBytes() {
  const Foreground lock(*this);
  return memoryBytesLocked();
}

size_t CompiledGrammar::memoryBytesNoWait() {
  // The measure walks every state: taken as the prefetch thread takes the lock, so a caller that
  // comes meanwhile (the decode thread) has it at the walk's next check.
  const Background lock(*this);
  if (!lock.held()) return lastBytes_.load();
  try {
    return memoryBytesLocked();
  } catch (const Yielded&) { return lastBytes_.load(); }
}

size_t CompiledGrammar::maskFlushes() {
  const Foreground lock(*this);
  return flushes_;
}

size_t CompiledGrammar::tableBytes() {
  const Foreground lock(*this);
  const size_t now = memoryBytesLocked();
  return automatonBytes_ == kMeasureNext || now < automatonBytes_ ? 0 : now - automatonBytes_;
}

void CompiledGrammar::flushMasks() {
  for (size_t i = 0; i < dfa_->size(); i++) dfa_->state(int32_t(i)).mask.reset();
  // The shapes are shared with other grammars: this one lets go of them (and takes them from the
  // cache again on use; one grown past maxTableBytes is then replaced by a fresh one).
  for (auto& f : fragments_) f.shape = nullptr;
  shapes_.clear();
  shapeCache_->trim();
  successors_.clear();  // token successors and finish bounds: rebuilt on use like the masks
  successorBytes_ = 0;
  budgetWork_ = kBudgetWork;
  flushes_++;
  bytesKey_[0] = ~size_t(0);       // measure again
  automatonBytes_ = kMeasureNext;  // measured again with the next mask (ensureMask)
}

size_t CompiledGrammar::memoryBytesLocked() {
  // Measured again only after the grammar grew (new states or masks): the sum walks every state.
  size_t miniStates = 0;
  for (auto& m : shapes_) {
    std::lock_guard<std::mutex> shapeLock(m.second->mu);
    miniStates += m.second->dfa->size() + m.second->memo.size() + m.second->itemsUsed.size();
  }
  const size_t key[4] = {dfa_->size(), dfa_->nfa().states.size(), masksBuilt_, miniStates};
  if (std::equal(key, key + 4, bytesKey_)) return lastBytes_ = bytes_ + successorBytes_;
  if (!irBytes_) irBytes_ = json::memoryBytes(ir_);
  size_t total = heapBlock(sizeof(*this) + 16) + irBytes_ + heapBlock(sizeof(LazyDfa)) + dfa_->memoryBytes();
  // Shapes held count in full here, though other grammars may hold them too: an upper bound.
  for (auto& m : shapes_) total += hashNodeBytes(sizeof(m)) + stringBytes(m.first) + m.second->memoryBytes();
  total += vectorBytes(fragments_);
  for (auto& f : fragments_) total += vectorBytes(f.exitClosure);
  // Kept only once whole: the walks stop (Yielded) on the prefetch thread when a caller waits.
  std::copy(key, key + 4, bytesKey_);
  measuredStates_ = key[0] + key[1] + key[3];
  bytes_ = total;
  return lastBytes_ = bytes_ + successorBytes_;
}

}  // namespace toolmask
