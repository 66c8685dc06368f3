// The token budget of a compiled grammar: how many tokens an answer needs at least from a state
// before it may end, found by a breadth-first search over token steps, and the tokens an
// accepting state refuses when the tokens left cannot finish what they would open.
#include <algorithm>
#include <unordered_set>

#include "grammar.hpp"

namespace toolmask {

namespace {

void appendRange(PosRanges& r, uint32_t lo, uint32_t hi) {
  if (!r.empty() && r.back().second == lo) r.back().second = hi;
  else r.push_back({lo, hi});
}

// Every ordinary token's end state from `s`, as sorted-position ranges per end state. A subtree
// whose bytes all loop back is given the state it loops on (a token ending inside a multi-byte
// character is then counted as back home one step early: the bound stays a lower bound).
void ordinarySuccessors(LazyDfa& dfa, int32_t s, const Vocabulary& v, std::vector<std::pair<int32_t, PosRanges>>& out) {
  const auto& trie = v.trie();
  std::unordered_map<int32_t, size_t> slot;
  auto add = [&](int32_t st, uint32_t lo, uint32_t hi) {
    if (lo >= hi) return;
    auto it = slot.find(st);
    if (it == slot.end()) {
      it = slot.emplace(st, out.size()).first;
      out.push_back({st, {}});
    }
    appendRange(out[it->second].second, lo, hi);
  };
  auto dfs = [&](auto&& self, uint32_t n, int32_t st) -> void {
    const TrieNode& node = trie[n];
    if (n != 0 && dfa.loopsOver(st, node)) { add(st, node.lo, node.hi); return; }
    add(st, node.lo, node.lo + node.nEnd);
    for (uint32_t c = n + 1; c < node.end; c = trie[c].end) {
      int32_t ns = dfa.next(st, trie[c].byte);
      if (ns >= 0) self(self, c, ns);
    }
  };
  dfs(dfs, 0, s);
}

}  // namespace

CompiledGrammar::Successors& CompiledGrammar::successorsLocked(int32_t s) {
  auto it = successors_.find(s);
  if (it != successors_.end()) return it->second;
  Successors su;
  ordinarySuccessors(*dfa_, s, *vocab_, su.ordinary);
  for (auto& e : dfa_->state(s).tokenEdges) su.special.push_back(e);
  successorBytes_ += 64 + 16 * su.special.size();
  for (auto& o : su.ordinary) successorBytes_ += 48 + 8 * o.second.size();
  return successors_.emplace(s, std::move(su)).first->second;
}

// Breadth first over token steps: layer d holds the states d tokens away. The first layer with an
// accepting state gives the exact count; a search cut short at layer d (too many states) still
// proves that no answer ends within d − 1 tokens.
uint32_t CompiledGrammar::finishBoundLocked(int32_t s0) {
  if (dfa_->state(s0).accepting) return 0;
  Successors& own = successorsLocked(s0);
  if (own.finish >= 0) return uint32_t(own.finish);
  uint32_t bound = kFinishHorizon + 1;
  std::vector<int32_t> frontier{s0}, next;
  std::unordered_set<int32_t> seen{s0};
  for (uint32_t d = 1; d <= kFinishHorizon && bound > kFinishHorizon; d++) {
    next.clear();
    for (size_t i = 0; i < frontier.size() && bound > kFinishHorizon; i++) {
      Successors& su = successorsLocked(frontier[i]);
      auto visit = [&](int32_t t) {
        if (t < 0 || bound <= kFinishHorizon) return;
        if (dfa_->state(t).accepting) { bound = d; return; }
        if (!seen.insert(t).second) return;
        if (seen.size() > kFinishStates) { bound = d; return; }
        next.push_back(t);
      };
      for (auto& o : su.ordinary) visit(o.first);
      for (auto& e : su.special) visit(e.second);
    }
    if (next.empty() && bound > kFinishHorizon) break;  // nothing goes on: no answer ends from here
    frontier.swap(next);
  }
  successorsLocked(s0).finish = int32_t(bound);
  return bound;
}

uint32_t CompiledGrammar::minTokensToFinish(int32_t state) {
  if (state == kTerminated) return 0;
  if (state < 0) return kFinishHorizon + 1;
  std::lock_guard<std::mutex> lock(mu_);
  return finishBoundLocked(state);
}

// The NFA states of `s` inside a declared call that can still read something (its exit states,
// which only lead out, do not count): empty when `s` stands outside every call.
std::vector<uint32_t> CompiledGrammar::liveCallStatesLocked(int32_t s) {
  const Nfa& nfa = dfa_->nfa();
  std::vector<uint32_t> out;
  for (uint32_t n : dfa_->state(s).nfa) {
    if (n >= nfa.inCall.size() || !nfa.inCall[n]) continue;
    const NfaState& st = nfa.states[n];
    if (!st.bytes.empty() || !st.tokens.empty() || st.thunk >= 0) out.push_back(n);
  }
  return out;
}

// The bound for the call a step from `s` to `to` opens, or 0 when it opens none: `to` reads on
// inside a call and `s` stood outside every call. Only the call's own states count: a trigger that
// may also start text the parser reads as content (a call to an undeclared name) still opens one.
uint32_t CompiledGrammar::openedCallBoundLocked(int32_t to) {
  if (to < 0) return 0;
  Successors& su = successorsLocked(to);
  if (su.opened >= 0) return uint32_t(su.opened);
  std::vector<uint32_t> live = liveCallStatesLocked(to);
  uint32_t bound = 0;
  if (!live.empty()) {
    const int32_t inside = dfa_->intern(std::move(live));
    bound = inside < 0 ? kFinishHorizon + 1 : finishBoundLocked(inside);
  }
  successorsLocked(to).opened = int32_t(bound);
  return bound;
}

void CompiledGrammar::limitToBudget(int32_t state, uint32_t tokensLeft, uint32_t* out) {
  if (state < 0 || tokensLeft == 0 || tokensLeft > kFinishHorizon) return;
  std::lock_guard<std::mutex> lock(mu_);
  Successors& own = successorsLocked(state);
  if (own.outside < 0) own.outside = liveCallStatesLocked(state).empty() ? 1 : 0;
  if (!own.outside) return;  // inside a call: a value is never shortened to fit
  const auto& order = vocab_->order();
  std::vector<uint32_t> cleared;
  auto clear = [&](uint32_t id) {
    const uint32_t bit = 1u << (id & 31);
    if (out[id >> 5] & bit) { out[id >> 5] &= ~bit; cleared.push_back(id); }
  };
  // References into successors_ stay valid while the bounds computed below add entries.
  for (auto& o : own.ordinary) {
    if (openedCallBoundLocked(o.first) <= tokensLeft - 1) continue;
    for (auto& r : o.second)
      for (uint32_t p = r.first; p < r.second; p++) clear(order[p]);
  }
  for (auto& e : own.special)
    if (openedCallBoundLocked(e.second) > tokensLeft - 1) clear(e.first);
  if (cleared.empty()) return;
  const size_t words = vocab_->words();
  if (std::all_of(out, out + words, [](uint32_t w) { return w == 0; }))
    for (uint32_t id : cleared) out[id >> 5] |= 1u << (id & 31);
}

}  // namespace toolmask
