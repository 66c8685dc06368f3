// The token budget of a compiled grammar: how many tokens an answer needs at least from a state
// before it may end, found by a breadth-first search over token steps, and the tokens an
// accepting state refuses when the tokens left cannot finish what they would open.
//
// Each step of the search walks the vocabulary trie from a state (as a mask does), so the work is
// counted in trie nodes visited: one bound may visit kFinishWork, a grammar kBudgetWork in all.
// A search that runs out keeps the layer it reached, which is still a lower bound.
#include <algorithm>
#include <chrono>
#include <thread>
#include <unordered_set>

#include "grammar.hpp"

namespace toolmask {

namespace {

void appendRange(PosRanges& r, uint32_t lo, uint32_t hi) {
  if (!r.empty() && r.back().second == lo)
    r.back().second = hi;
  else
    r.push_back({lo, hi});
}

// Walks every ordinary token from `s` and calls add(endState, lo, hi) for each run of sorted-token
// positions that ends in one state. A subtree whose bytes all loop back is given the state it loops
// on (a token ending inside a multi-byte character then counts as back home one step early: the
// bound stays a lower bound). Returns false, having stopped, when `work` trie nodes ran out.
template <typename Add>
bool walkOrdinary(LazyDfa& dfa, int32_t s, const Vocabulary& v, size_t& work, Add&& add) {
  const auto& trie = v.trie();
  bool enough = true;
  lockwait::Poll poll;  // for the prefetch thread's checks (grammar_lock.hpp)
  auto dfs = [&](auto&& self, uint32_t n, int32_t st) -> void {
    if (!enough) return;
    poll();
    if (work == 0) {
      enough = false;
      return;
    }
    work--;
    const TrieNode& node = trie[n];
    if (n != 0 && dfa.loopsOver(st, node)) {
      add(st, node.lo, node.hi);
      return;
    }
    if (node.nEnd) add(st, node.lo, node.lo + node.nEnd);
    for (uint32_t c = n + 1; c < node.end && enough; c = trie[c].end) {
      int32_t ns = dfa.next(st, trie[c].byte);
      if (ns >= 0) self(self, c, ns);
    }
  };
  dfs(dfs, 0, s);
  return enough;
}

}  // namespace

CompiledGrammar::Successors& CompiledGrammar::successorsLocked(int32_t s) {
  auto it = successors_.find(s);
  if (it != successors_.end()) return it->second;
  successorBytes_ += hashNodeBytes(sizeof(std::pair<const int32_t, Successors>));
  return successors_.emplace(s, Successors{}).first->second;
}

// The distinct states one token leads to from `s`, walked once and kept.
bool CompiledGrammar::endsLocked(int32_t s, size_t& work) {
  if (successorsLocked(s).complete) return true;
  lockwait::countWork(&LockWaits::budgetWalks);
  std::vector<int32_t> ends;
  int32_t last = kDead;
  size_t before = work;
  bool done = walkOrdinary(*dfa_, s, *vocab_, work, [&](int32_t st, uint32_t lo, uint32_t hi) {
    if (lo < hi && st != last) ends.push_back(last = st);
  });
  budgetWork_ -= std::min(budgetWork_, before - work);
  if (!done) return false;
  for (auto& e : dfa_->state(s).tokenEdges) ends.push_back(e.second);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  Successors& su = successorsLocked(s);  // the walk may have added DFA states, not successors
  // A copy of the distinct ends alone: the walk's vector has room for every run of tokens (up to
  // hundreds of KiB per state, and it would be kept).
  su.ends.assign(ends.begin(), ends.end());
  su.complete = true;
  successorBytes_ += vectorBytes(su.ends);
  return true;
}

// Breadth first over token steps, at most `limit` deep: layer d holds the states d tokens away.
// The first layer with an accepting state gives the exact count; a search that stops at layer d
// (the limit, too many states, or out of work) still proves that no answer ends within d − 1
// tokens. Returns at most limit + 1, or a larger lower bound already known.
//
// The decode thread takes a bound where a search ran out as it is: going on with that search is the
// prefetch thread's part (budgetReadyLocked calls it not ready, so each step asks for it), after the
// step's own work, with no caller let wait for it (prefetchStep), and it resumes from the states
// whose ends are kept. A step then costs the decode thread no search it made
// before; the mask is what the bound known then allows (a lower bound: never fewer tokens than that).
uint32_t CompiledGrammar::finishBoundLocked(int32_t s0, uint32_t limit) {
  if (dfa_->state(s0).accepting) return 0;
  {
    const Successors& own = successorsLocked(s0);
    if (own.finish >= 0 && (own.finishExact || uint32_t(own.finish) > limit ||
                            (own.finishCut && (lockwait::counting || lockwait::takeCutBounds))))
      return uint32_t(own.finish);
  }
  size_t work = std::min(kFinishWork, budgetWork_);
  uint32_t bound = 0;  // 0: still searching
  bool exact = false, cut = false;
  std::vector<int32_t> frontier{s0}, next;
  std::unordered_set<int32_t> seen{s0};
  for (uint32_t d = 1; bound == 0; d++) {
    if (d > limit) {
      bound = d;
      break;
    }
    next.clear();
    for (size_t i = 0; i < frontier.size() && bound == 0; i++) {
      if (!endsLocked(frontier[i], work)) {
        bound = d;
        cut = true;
        break;
      }
      for (int32_t t : successorsLocked(frontier[i]).ends) {
        if (t < 0) continue;
        if (dfa_->state(t).accepting) {
          bound = d;
          exact = true;
          break;
        }
        if (!seen.insert(t).second) continue;
        if (seen.size() > kFinishStates) {
          bound = d;
          cut = true;
          break;
        }
        next.push_back(t);
      }
    }
    if (bound == 0 && next.empty()) {
      bound = kFinishHorizon + 1;
      exact = true;
    }  // no answer ends from here
    frontier.swap(next);
  }
  bound = std::min(bound, kFinishHorizon + 1);
  Successors& own = successorsLocked(s0);
  if (exact || int32_t(bound) > own.finish) {
    own.finish = int32_t(bound);
    own.finishExact = exact;
    own.finishCut = cut;
  } else if (int32_t(bound) == own.finish && !exact) {
    own.finishCut = own.finishCut || cut;
  }
  return uint32_t(own.finish);
}

uint32_t CompiledGrammar::minTokensToFinish(int32_t state) {
  if (state == kTerminated) return 0;
  if (state < 0) return kFinishHorizon + 1;
  if (state == start_) {
    const int32_t known = startFinish_.load();
    if (known >= 0) return uint32_t(known);
    const uint32_t bound = searchFinish(state);
    startFinish_ = int32_t(bound);
    return bound;
  }
  return searchFinish(state);
}

uint32_t CompiledGrammar::searchFinish(int32_t state) {
  if (lockwait::counting) {  // the decode thread: first in line
    const Foreground lock(*this);
    return finishBoundLocked(state, kFinishHorizon);
  }
  // Any other thread (a request's required-call check before decoding, a JS matcher) searches as the
  // prefetch thread does: it lets go of the lock whenever a caller waits and tries again after. The
  // states whose ends it walked whole stay, so each try goes on from there. A state's walk longer
  // than the decode thread's gaps between steps would never end so: after kYieldedTries it searches
  // to the end (a decode thread that comes meanwhile waits, and counts it).
  constexpr int kYieldedTries = 16;
  for (int tries = 0; tries < kYieldedTries; tries++) {
    {
      const Background lock(*this);
      if (lock.held()) try {
          return finishBoundLocked(state, kFinishHorizon);
        } catch (const Yielded&) {}
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  const Foreground lock(*this);
  return finishBoundLocked(state, kFinishHorizon);
}

// The NFA states of `s` inside a declared call that can still read something (its exit states,
// which only lead out, do not count): empty when `s` stands outside every call.
std::vector<Thread> CompiledGrammar::liveCallStatesLocked(int32_t s) {
  const Nfa& nfa = dfa_->nfa();
  const DfaState& d = dfa_->state(s);
  std::vector<Thread> out;
  for (size_t i = 0; i < d.nfa.size(); i++) {
    const uint32_t n = d.nfa[i];
    if (n >= nfa.marks.size() || !(nfa.marks[n] & kMarkCall)) continue;
    const NfaState& st = nfa.states[n];
    if (!st.bytes.empty() || !st.tokens.empty() || st.thunk >= 0) out.push_back({n, dfa_->ctxOf(d, i)});
  }
  return out;
}

// The bound (up to limit + 1) for the call a step from an outside state into `to` opens, or 0 when
// it opens none. Only the call's own states count: a trigger that may also start text the parser
// reads as content (a call to an undeclared name) still opens one.
uint32_t CompiledGrammar::openedCallBoundLocked(int32_t to, uint32_t limit) {
  if (to < 0) return 0;
  int32_t& opened = successorsLocked(to).opened;
  if (opened == kOpensNone) return 0;
  if (opened == kOpensNowhere) return kFinishHorizon + 1;
  if (opened == kOpenedUnknown) {
    std::vector<Thread> live = liveCallStatesLocked(to);
    const bool none = live.empty();
    const int32_t inside = none ? kDead : dfa_->internThreads(std::move(live));
    successorsLocked(to).opened = none ? kOpensNone : inside < 0 ? kOpensNowhere : inside;
    if (none) return 0;
    if (inside < 0) return kFinishHorizon + 1;
  }
  return finishBoundLocked(successorsLocked(to).opened, limit);
}

// For an outside state: the ordinary tokens that lead into a call (by end state) and the special
// tokens, kept for limitToBudget. One trie walk, as a mask is.
void CompiledGrammar::openingLocked(int32_t s) {
  if (successorsLocked(s).openingReady) return;
  lockwait::countWork(&LockWaits::budgetWalks);
  std::vector<std::pair<int32_t, PosRanges>> groups;
  std::unordered_map<int32_t, size_t> slot;
  size_t unlimited = ~size_t(0);
  walkOrdinary(*dfa_, s, *vocab_, unlimited, [&](int32_t st, uint32_t lo, uint32_t hi) {
    if (lo >= hi) return;
    auto it = slot.find(st);
    if (it == slot.end()) it = slot.emplace(st, groups.size()).first, groups.push_back({st, {}});
    appendRange(groups[it->second].second, lo, hi);
  });
  std::vector<std::pair<int32_t, PosRanges>> opening, staying;
  for (auto& g : groups) {
    if (!liveCallStatesLocked(g.first).empty())
      opening.push_back(std::move(g));
    else if (g.first >= 0 && !dfa_->state(g.first).accepting && inFillerLocked(g.first))
      staying.push_back(std::move(g));
  }
  Successors& su = successorsLocked(s);
  su.opening = std::move(opening);
  su.staying = std::move(staying);
  su.special.assign(dfa_->state(s).tokenEdges.begin(), dfa_->state(s).tokenEdges.end());
  su.openingReady = true;
  successorBytes_ += vectorBytes(su.special) + vectorBytes(su.opening) + vectorBytes(su.staying);
  for (auto& o : su.opening) successorBytes_ += vectorBytes(o.second);
  for (auto& o : su.staying) successorBytes_ += vectorBytes(o.second);
}

// Whether `s` may still read filler (SeqNode.filler: text before a call that must come): a live NFA
// state of it is marked kMarkFiller. Only filler is left out for the budget's sake: other text (JSON
// content beside tools, an envelope's response, a thought) is never cut short to fit.
bool CompiledGrammar::inFillerLocked(int32_t s) {
  const Nfa& nfa = dfa_->nfa();
  for (const uint32_t n : dfa_->state(s).nfa) {
    const NfaState& st = nfa.states[n];
    if (n < nfa.marks.size() && (nfa.marks[n] & kMarkFiller) &&
        (!st.bytes.empty() || !st.tokens.empty() || st.thunk >= 0))
      return true;
  }
  return false;
}

// Whether `s` stands at the entry of a call marked "budgetAtEntry" (entered without a byte: a response
// format's JSON where the answer starts or a thought ends, a call that opens the answer without a
// trigger) with text outside it still open (JSON whitespace before it): every live thread of the
// call stands where it stood before reading a byte.
// The budget acts there as outside every call, so that leading whitespace is not taken where the
// call could no longer close after it.
bool CompiledGrammar::atCallEntryLocked(int32_t s) {
  const Nfa& nfa = dfa_->nfa();
  if (nfa.entryCalls.empty()) return false;
  if (entryCallsSeen_ < nfa.entryCalls.size()) {
    for (; entryCallsSeen_ < nfa.entryCalls.size(); entryCallsSeen_++) {
      std::vector<uint32_t> c = dfa_->closureOf(nfa.entryCalls[entryCallsSeen_]);
      entryStates_.insert(entryStates_.end(), c.begin(), c.end());
    }
    std::sort(entryStates_.begin(), entryStates_.end());
    entryStates_.erase(std::unique(entryStates_.begin(), entryStates_.end()), entryStates_.end());
  }
  const DfaState& d = dfa_->state(s);
  bool outsideLive = false, callLive = false;
  for (const uint32_t n : d.nfa) {
    const NfaState& st = nfa.states[n];
    if (st.bytes.empty() && st.tokens.empty() && st.thunk < 0) continue;  // not live
    if (n >= nfa.marks.size() || !(nfa.marks[n] & kMarkCall)) {
      outsideLive = true;
      continue;
    }
    if (!std::binary_search(entryStates_.begin(), entryStates_.end(), n)) return false;  // the call read a byte
    callLive = true;
  }
  return outsideLive && callLive;
}

bool CompiledGrammar::budgetMayLimitLocked(int32_t s, uint32_t tokensLeft) {
  if (s < 0 || tokensLeft == 0 || tokensLeft > kFinishHorizon) return false;
  Successors& own = successorsLocked(s);
  if (own.outside < 0) own.outside = liveCallStatesLocked(s).empty() || atCallEntryLocked(s) ? 1 : 0;
  return own.outside != 0;  // inside a call: a value is never shortened to fit
}

bool CompiledGrammar::budgetMayLimit(int32_t state, uint32_t tokensLeft) {
  if (state < 0 || tokensLeft == 0 || tokensLeft > kFinishHorizon) return false;
  const Foreground lock(*this, state);
  return budgetMayLimitLocked(state, tokensLeft);
}

// The searches limitToBudget(s, tokensLeft, ·) makes, in its order and at its limit, so that a
// step that follows finds their bounds kept (the prefetch thread's part of a step: prefetchStep).
void CompiledGrammar::prepareBudgetLocked(int32_t s, uint32_t tokensLeft) {
  if (!budgetMayLimitLocked(s, tokensLeft)) return;
  openingLocked(s);
  const uint32_t rest = tokensLeft - 1;
  const Successors& own = successorsLocked(s);  // references into successors_ stay valid
  for (auto& o : own.opening) openedCallBoundLocked(o.first, rest);
  for (auto& e : own.special) openedCallBoundLocked(e.second, rest);
  for (auto& o : own.staying) finishBoundLocked(o.first, rest);
}

// Whether each bound limitToBudget(s, tokensLeft, ·) asks for is kept (no search left to make).
bool CompiledGrammar::budgetReadyLocked(int32_t s, uint32_t tokensLeft) {
  if (s < 0 || tokensLeft == 0 || tokensLeft > kFinishHorizon) return true;
  auto it = successors_.find(s);
  if (it == successors_.end() || it->second.outside < 0) return false;
  if (it->second.outside == 0) return true;
  if (!it->second.openingReady) return false;
  const uint32_t rest = tokensLeft - 1;
  // The bound to finish from `x` is kept (none is needed where it is accepting or dead).
  auto finishKnown = [&](int32_t x) {
    if (x < 0 || dfa_->state(x).accepting) return true;
    auto f = successors_.find(x);
    return f != successors_.end() && f->second.finish >= 0 &&
           (f->second.finishExact || uint32_t(f->second.finish) > rest);
  };
  // An opening step's bound is that of the call it opens; a staying step's, the answer's own.
  auto known = [&](int32_t to) {
    if (to < 0) return true;
    auto t = successors_.find(to);
    if (t == successors_.end() || t->second.opened == kOpenedUnknown) return false;
    return finishKnown(t->second.opened);
  };
  for (auto& o : it->second.opening)
    if (!known(o.first)) return false;
  for (auto& e : it->second.special)
    if (!known(e.second)) return false;
  for (auto& o : it->second.staying)
    if (!finishKnown(o.first)) return false;
  return true;
}

bool CompiledGrammar::limitToBudget(int32_t state, uint32_t tokensLeft, uint32_t* out) {
  if (state < 0 || tokensLeft == 0 || tokensLeft > kFinishHorizon) return false;
  const Foreground lock(*this, state);
  if (!budgetMayLimitLocked(state, tokensLeft)) return false;
  openingLocked(state);
  const auto& order = vocab_->order();
  // A response format's JSON (an entry call marked "endToken") is followed by the end token, which
  // maxTokens counts too: the JSON opens only where it can close with room for that token after it.
  const uint32_t end = dfa_->nfa().entryEndToken ? 1 : 0;
  const uint32_t rest = tokensLeft - 1 >= end ? tokensLeft - 1 - end : 0;
  std::vector<uint32_t> cleared;
  auto clear = [&](uint32_t id) {
    const uint32_t bit = 1u << (id & 31);
    if (out[id >> 5] & bit) {
      out[id >> 5] &= ~bit;
      cleared.push_back(id);
    }
  };
  // References into successors_ stay valid while the bounds computed below add entries.
  const Successors& own = successorsLocked(state);
  for (auto& o : own.opening) {
    if (openedCallBoundLocked(o.first, rest) <= rest) continue;
    for (auto& r : o.second)
      for (uint32_t p = r.first; p < r.second; p++) clear(order[p]);
  }
  for (auto& e : own.special)
    if (openedCallBoundLocked(e.second, rest) > rest) clear(e.first);
  const size_t words = vocab_->words();
  auto none = [&] { return std::all_of(out, out + words, [](uint32_t w) { return w == 0; }); };
  if (!cleared.empty() && none()) {
    for (uint32_t id : cleared) out[id >> 5] |= 1u << (id & 31);
    return false;  // every allowed token was cleared: all are back
  }
  // Filler taken where the answer could no longer finish after it (the call that must come would not
  // fit) is left out too, unless nothing else is left: then it stays.
  const size_t opened = cleared.size();
  for (auto& o : own.staying) {
    if (finishBoundLocked(o.first, rest) <= rest) continue;
    for (auto& r : o.second)
      for (uint32_t p = r.first; p < r.second; p++) clear(order[p]);
  }
  if (cleared.size() > opened && none()) {
    for (size_t i = opened; i < cleared.size(); i++) out[cleared[i] >> 5] |= 1u << (cleared[i] & 31);
    cleared.resize(opened);
  }
  return !cleared.empty();
}

}  // namespace toolmask
