// Subset construction done lazily: a DFA state is the closure of a set of NFA
// states, created the first time a walk reaches it and kept for every later walk.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "nfa.hpp"
#include "vocab.hpp"

namespace toolmask {

constexpr int32_t kDead = -1;
constexpr int32_t kUnknown = -2;
constexpr int32_t kTerminated = -3;  // an end-of-generation token was accepted

struct StateMask;

// A thread of the subset construction: an NFA state and the counters it stands inside (a context
// id of LazyDfa, 0 for none).
struct Thread {
  uint32_t nfa;
  uint32_t ctx;
  bool operator<(const Thread& o) const { return nfa != o.nfa ? nfa < o.nfa : ctx < o.ctx; }
  bool operator==(const Thread& o) const { return nfa == o.nfa && ctx == o.ctx; }
};

struct DfaState {
  std::vector<uint32_t> nfa;  // sorted NFA states after closure (one per thread, so repeated where counts differ)
  std::vector<uint32_t> ctx;  // each thread's context, or empty when every one is 0 (no counter)
  int32_t rep = -1;           // the state whose mask serves this one (representative), once known
  bool accepting = false;
  std::vector<int32_t> next;                             // per byte class
  std::vector<std::pair<uint32_t, int32_t>> tokenEdges;  // special token id → state
  uint64_t loopKnown[2] = {0, 0};                        // ASCII bytes already tested for looping back here
  uint64_t loopYes[2] = {0, 0};                          // ...and those that do
  int8_t nonAsciiLoops = -1;      // every valid multi-byte character loops back (-1: not yet known)
  int16_t forced = -2;            // the one byte every continuation starts with (-1: none, -2: not yet known)
  uint8_t endsPhase = 0xff;       // the UTF-8 phase endsCharAt was found for (0xff: none yet)
  int32_t endsCharAt = kUnknown;  // from mid-character: the one state every valid completion reaches (kDead: none)
  std::unique_ptr<StateMask> mask;
};

class LazyDfa {
 public:
  explicit LazyDfa(Nfa nfa);                              // fully built
  explicit LazyDfa(std::unique_ptr<NfaBuilder> builder);  // grows as walks reach placeholders

  const Nfa& nfa() const { return *nfa_; }
  DfaState& state(int32_t s) { return states_[size_t(s)]; }
  size_t size() const { return states_.size(); }
  size_t classes() const { return classRep_.size(); }
  uint8_t classRep(size_t c) const { return classRep_[c]; }

  int32_t start();  // the closure of the NFA's start; kDead if it accepts nothing
  int32_t next(int32_t s, uint8_t byte) {
    int32_t v = states_[size_t(s)].next[byteClass_[byte]];
    return v != kUnknown ? v : computeNext(s, byte);
  }
  int32_t walk(int32_t s, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n && s >= 0; i++) s = next(s, p[i]);
    return s;
  }
  int32_t intern(std::vector<uint32_t>&& set);  // set need not be closed; no thread holds a counter
  int32_t internThreads(std::vector<Thread>&& threads);
  // The NFA states (with an edge, or the accept) a thread at `nfa` stands in before it reads a byte.
  std::vector<uint32_t> closureOf(uint32_t nfa);
  uint32_t ctxOf(const DfaState& d, size_t i) const { return d.ctx.empty() ? 0 : d.ctx[i]; }
  // A thread's value of `counter` in context `ctx`; false when the thread holds no such counter.
  bool counterValue(uint32_t ctx, uint32_t counter, uint64_t& value) const;
  // A state whose threads behave as those of `s` for the next `window` bytes (a token), with every
  // counter value more than `window` away from all of its counter's points moved to the nearest such
  // value past the point below it: states that differ only in far counts share it (their masks).
  int32_t representative(int32_t s, uint64_t window);
  // A counter value far from all of its counter's points may stand for another: the value is then
  // marked kClamped and the thread's real count is it plus the matcher's offset for that counter.
  static constexpr uint64_t kClamped = uint64_t(1) << 63;
  using Offsets = std::vector<std::pair<uint32_t, uint64_t>>;  // (counter, offset), sorted
  // The state a matcher stands in after `s`: each counter whose real value (its value, plus its
  // offset where marked) is more than `window` from every point of it, the same in every thread,
  // is set to the nearest such value past the point below (marked), the rest to their real values;
  // `offsets` is updated to match. So a long count walks a bounded set of states.
  int32_t settle(int32_t s, Offsets& offsets, uint64_t window);
  // Whether every byte below `node` keeps the automaton in `s` (the whole subtree is accepted).
  bool loopsOver(int32_t s, const TrieNode& node);
  // The same for `node` reached in the middle of a character (UTF-8 phase `phase`, utf8.hpp): every
  // path below is valid UTF-8 from there, every way of finishing the character leads to one state,
  // and that state loops over the rest. At Boundary, loopsOver.
  bool loopsOverFrom(int32_t s, uint8_t phase, const TrieNode& node);
  // The byte every continuation of `s` starts with, or -1: `s` may end, take a special token, or
  // go on with more than one byte. Computed once per state.
  int forcedByte(int32_t s);
  // Whether any byte continues `s` (false: only a special token or the end may follow).
  bool hasByteEdge(int32_t s);
  size_t memoryBytes() const;

 private:
  std::unique_ptr<NfaBuilder> builder_;
  Nfa own_;
  Nfa* nfa_;
  uint8_t byteClass_[256];
  std::vector<uint8_t> classRep_;
  std::vector<uint16_t> classSize_;  // bytes per class
  std::deque<DfaState> states_;
  std::unordered_map<std::string, int32_t> index_;
  // Counter contexts: sorted (counter, value) pairs, interned; id 0 is the empty one.
  using Ctx = std::vector<std::pair<uint32_t, uint64_t>>;
  std::vector<Ctx> ctxs_{Ctx{}};
  std::unordered_map<std::string, uint32_t> ctxIndex_;
  std::unordered_map<uint64_t, uint32_t> gateMemo_;  // (context, gate) -> context after it

  static constexpr uint32_t kNoCtx = UINT32_MAX;  // a gate ended the thread
  uint32_t internCtx(Ctx&& c);
  uint32_t applyGate(uint32_t ctx, uint32_t gate);
  void closure(std::vector<Thread>& set);
  int32_t computeNext(int32_t s, uint8_t byte);
  bool nonAsciiLoops(int32_t s);
  bool loopsBelow(int32_t s, const TrieNode& node);  // ASCII bytes below loop, and valid characters if any
  int32_t endsChar(int32_t s, uint8_t phase);        // the state every finish of the character reaches, or kDead
  void initClasses();
};

}  // namespace toolmask
