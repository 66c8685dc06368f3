#include "dfa.hpp"
#include "include/toolmask/bits.hpp"
#include "grammar_lock.hpp"

#include <algorithm>

#include "mask.hpp"
#include "utf8.hpp"

namespace toolmask {

LazyDfa::LazyDfa(Nfa nfa) : own_(std::move(nfa)), nfa_(&own_) { initClasses(); }

LazyDfa::LazyDfa(std::unique_ptr<NfaBuilder> builder) : builder_(std::move(builder)), nfa_(&builder_->nfa()) {
  initClasses();
}

// Bytes that no edge of the grammar tells apart share a class, so transition rows stay short.
void LazyDfa::initClasses() {
  int cls = -1;
  for (int b = 0; b < 256; b++) {
    if (b == 0 || nfa_->cut[b]) {
      cls++;
      classRep_.push_back(uint8_t(b));
      classSize_.push_back(0);
    }
    byteClass_[b] = uint8_t(cls);
    classSize_[size_t(cls)]++;
  }
}

int32_t LazyDfa::start() { return intern({nfa_->start}); }

uint32_t LazyDfa::internCtx(Ctx&& c) {
  if (c.empty()) return 0;
  std::string key;
  key.reserve(c.size() * 12);
  for (auto& kv : c) {
    key.append(reinterpret_cast<const char*>(&kv.first), 4);
    key.append(reinterpret_cast<const char*>(&kv.second), 8);
  }
  auto it = ctxIndex_.find(key);
  if (it != ctxIndex_.end()) return it->second;
  ctxs_.push_back(std::move(c));
  uint32_t id = uint32_t(ctxs_.size() - 1);
  ctxIndex_.emplace(std::move(key), id);
  return id;
}

uint32_t LazyDfa::applyGate(uint32_t ctx, uint32_t gate) {
  const uint64_t memoKey = (uint64_t(ctx) << 32) | gate;
  auto memo = gateMemo_.find(memoKey);
  if (memo != gateMemo_.end()) return memo->second;
  const Gate& g = nfa_->gates[gate];
  Ctx c = ctxs_[ctx];
  auto it = std::lower_bound(c.begin(), c.end(), std::make_pair(g.counter, uint64_t(0)),
                             [](const auto& a, const auto& b) { return a.first < b.first; });
  bool held = it != c.end() && it->first == g.counter;
  uint32_t out = kNoCtx;
  if (g.reset) {
    if (held)
      it->second = 0;
    else
      it = c.insert(it, {g.counter, 0});
    held = true;  // a fresh count is a real one (unmarked)
  }
  if (held) {
    const uint64_t mark = it->second & kClamped;
    uint64_t v = it->second & ~kClamped;
    if (g.inc) v = std::min(v + 1, g.sat);
    it->second = v | mark;
    if (v >= g.lo && v <= g.hi) {
      if (g.drop) c.erase(it);
      out = internCtx(std::move(c));
    }
  }
  gateMemo_.emplace(memoKey, out);
  return out;
}

bool LazyDfa::counterValue(uint32_t ctx, uint32_t counter, uint64_t& value) const {
  for (auto& kv : ctxs_[ctx])
    if (kv.first == counter) {
      value = kv.second & ~kClamped;
      return true;
    }
  return false;
}

namespace {
// Whether no point of a counter is within `window` of its value `v`; then `far` is the value that
// stands for v for the next `window` steps: the smallest past the point below v (0 with none).
bool farValue(const std::vector<uint64_t>& points, uint64_t v, uint64_t window, uint64_t& far) {
  far = v;
  auto up = std::upper_bound(points.begin(), points.end(), v);
  if (up != points.begin() && v - *(up - 1) <= window) return false;
  if (up != points.end() && *up - v <= window) return false;
  far = up == points.begin() ? 0 : *(up - 1) + window + 1;
  return true;
}
}  // namespace

int32_t LazyDfa::settle(int32_t s, Offsets& offsets, uint64_t window) {
  const DfaState& d = states_[size_t(s)];
  if (d.ctx.empty()) {
    offsets.clear();
    return s;
  }
  auto offsetOf = [&](uint32_t counter) -> uint64_t {
    for (auto& o : offsets)
      if (o.first == counter) return o.second;
    return 0;
  };
  // Each counter's least and greatest real value among the threads that hold it.
  struct Real {
    uint32_t counter;
    uint64_t lo, hi;
  };
  std::vector<Real> reals;
  for (uint32_t c : d.ctx)
    for (auto& kv : ctxs_[c]) {
      const uint64_t real = (kv.second & ~kClamped) + (kv.second & kClamped ? offsetOf(kv.first) : 0);
      auto it = std::find_if(reals.begin(), reals.end(), [&](const Real& r) { return r.counter == kv.first; });
      if (it == reals.end())
        reals.push_back({kv.first, real, real});
      else
        it->lo = std::min(it->lo, real), it->hi = std::max(it->hi, real);
    }
  Offsets next;
  for (auto& r : reals) {
    // Threads a few items apart (one still in an item another has left) keep their difference.
    uint64_t far = 0;
    if (farValue(nfa_->counters[r.counter].points, r.lo, window + (r.hi - r.lo), far))
      next.push_back({r.counter, r.lo - far});
  }
  std::sort(next.begin(), next.end());
  // The marked value of each counter in `next`; real values elsewhere.
  bool changed = false;
  std::vector<Thread> threads;
  for (size_t i = 0; i < d.nfa.size(); i++) {
    Ctx c = ctxs_[d.ctx[i]];
    for (auto& kv : c) {
      const uint64_t real = (kv.second & ~kClamped) + (kv.second & kClamped ? offsetOf(kv.first) : 0);
      auto o = std::lower_bound(next.begin(), next.end(), std::make_pair(kv.first, uint64_t(0)),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
      const uint64_t now = o != next.end() && o->first == kv.first ? (real - o->second) | kClamped : real;
      changed = changed || now != kv.second;
      kv.second = now;
    }
    threads.push_back({d.nfa[i], internCtx(std::move(c))});
  }
  offsets = std::move(next);
  if (!changed) return s;
  const int32_t t = internThreads(std::move(threads));
  return t >= 0 ? t : s;  // not expected: the same threads, counting the same
}

void LazyDfa::closure(std::vector<Thread>& set) {
  std::vector<Thread> stack(set.begin(), set.end()), out, seen;
  while (!stack.empty()) {
    Thread t = stack.back();
    stack.pop_back();
    if (!nfa_->productive[t.nfa]) continue;
    auto it = std::lower_bound(seen.begin(), seen.end(), t);
    if (it != seen.end() && *it == t) continue;
    seen.insert(it, t);
    if (builder_ && nfa_->states[t.nfa].thunk >= 0) builder_->expand(t.nfa);
    const NfaState& st = nfa_->states[t.nfa];
    if (st.gate >= 0 && (t.ctx = applyGate(t.ctx, uint32_t(st.gate))) == kNoCtx) continue;
    if (!st.bytes.empty() || !st.tokens.empty() || t.nfa == nfa_->accept) out.push_back(t);
    for (uint32_t e : st.eps) stack.push_back({e, t.ctx});
  }
  std::sort(out.begin(), out.end());
  set.swap(out);
}

std::vector<uint32_t> LazyDfa::closureOf(uint32_t nfa) {
  std::vector<Thread> set{{nfa, 0}};
  closure(set);
  std::vector<uint32_t> out;
  for (auto& t : set) out.push_back(t.nfa);
  return out;
}

int32_t LazyDfa::intern(std::vector<uint32_t>&& set) {
  std::vector<Thread> threads;
  threads.reserve(set.size());
  for (uint32_t n : set) threads.push_back({n, 0});
  return internThreads(std::move(threads));
}

int32_t LazyDfa::internThreads(std::vector<Thread>&& threads) {
  closure(threads);
  if (threads.empty()) return kDead;
  bool counted = false;
  for (auto& t : threads) counted = counted || t.ctx != 0;
  std::string key;
  key.reserve(threads.size() * (counted ? 8 : 4));
  for (auto& t : threads) key.append(reinterpret_cast<const char*>(&t.nfa), 4);
  if (counted)
    for (auto& t : threads) key.append(reinterpret_cast<const char*>(&t.ctx), 4);
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  int32_t id = int32_t(states_.size());
  states_.emplace_back();
  DfaState& d = states_.back();
  d.nfa.reserve(threads.size());
  for (auto& t : threads) d.nfa.push_back(t.nfa);
  if (counted) {
    d.ctx.reserve(threads.size());
    for (auto& t : threads) d.ctx.push_back(t.ctx);
  }
  d.next.assign(classRep_.size(), kUnknown);
  std::vector<std::pair<uint32_t, Thread>> toks;  // (token, thread after it)
  for (auto& t : threads) {
    if (t.nfa == nfa_->accept) d.accepting = true;
    for (auto& e : nfa_->states[t.nfa].tokens) toks.push_back({e.token, {e.to, t.ctx}});
  }
  index_.emplace(std::move(key), id);
  std::sort(toks.begin(), toks.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first < b.first : a.second < b.second; });
  for (size_t i = 0; i < toks.size();) {
    std::vector<Thread> tgt;
    size_t j = i;
    for (; j < toks.size() && toks[j].first == toks[i].first; j++) tgt.push_back(toks[j].second);
    int32_t to = internThreads(std::move(tgt));
    if (to != kDead) states_[size_t(id)].tokenEdges.push_back({toks[i].first, to});
    i = j;
  }
  return id;
}

int32_t LazyDfa::computeNext(int32_t s, uint8_t byte) {
  std::vector<Thread> tgt;
  const DfaState& d = states_[size_t(s)];
  for (size_t i = 0; i < d.nfa.size(); i++)
    for (auto& e : nfa_->states[d.nfa[i]].bytes)
      if (byte >= e.lo && byte <= e.hi) tgt.push_back({e.to, ctxOf(d, i)});
  int32_t v = internThreads(std::move(tgt));
  states_[size_t(s)].next[byteClass_[byte]] = v;
  return v;
}

int32_t LazyDfa::representative(int32_t s, uint64_t window) {
  if (states_[size_t(s)].rep >= 0) return states_[size_t(s)].rep;
  const DfaState& d = states_[size_t(s)];
  int32_t rep = s;
  if (!d.ctx.empty()) {
    std::vector<Thread> threads;
    bool moved = false;
    for (size_t i = 0; i < d.nfa.size(); i++) {
      Ctx c = ctxs_[d.ctx[i]];
      for (auto& kv : c) {
        uint64_t far = 0;
        farValue(nfa_->counters[kv.first].points, kv.second & ~kClamped, window, far);
        moved = moved || far != kv.second;
        kv.second = far;
      }
      threads.push_back({d.nfa[i], internCtx(std::move(c))});
    }
    if (moved) {
      rep = internThreads(std::move(threads));
      if (rep < 0)
        rep = s;  // not expected: the same threads with far counts moved
      else
        states_[size_t(rep)].rep = rep;
    }
  }
  states_[size_t(s)].rep = rep;
  return rep;
}

int LazyDfa::forcedByte(int32_t s) {
  if (states_[size_t(s)].forced != -2) return states_[size_t(s)].forced;
  const DfaState& d = states_[size_t(s)];
  bool none = d.accepting || !d.tokenEdges.empty();
  int found = -1;
  for (size_t c = 0; c < classRep_.size() && !none; c++) {
    if (next(s, classRep_[c]) < 0) continue;  // states_ is a deque: `d` stays valid as states are added
    if (found >= 0 || classSize_[c] != 1)
      none = true;
    else
      found = classRep_[c];
  }
  states_[size_t(s)].forced = int16_t(none ? -1 : found);
  return states_[size_t(s)].forced;
}

bool LazyDfa::hasByteEdge(int32_t s) {
  for (size_t c = 0; c < classRep_.size(); c++)
    if (next(s, classRep_[c]) >= 0) return true;
  return false;
}

bool LazyDfa::loopsOver(int32_t s, const TrieNode& node) {
  return (!node.belowNonAscii || (node.utf8Ok & 1)) && loopsBelow(s, node);
}

bool LazyDfa::loopsOverFrom(int32_t s, uint8_t phase, const TrieNode& node) {
  if (phase == utf8::Boundary) return loopsOver(s, node);
  if (phase >= utf8::kPhases || !(node.utf8Ok >> phase & 1)) return false;
  const int32_t a = endsChar(s, phase);
  return a >= 0 && loopsBelow(a, node);
}

// Reached mid-character, every valid way to finish it (a continuation byte each) must stay alive and
// end in the same state. Computed once per state and phase (a state is met mid-character in one).
int32_t LazyDfa::endsChar(int32_t s, uint8_t phase) {
  {
    const DfaState& d = states_[size_t(s)];
    if (d.endsPhase == phase) return d.endsCharAt;
  }
  int32_t to = kUnknown;
  std::vector<std::pair<int32_t, uint8_t>> work{{s, phase}}, seen{{s, phase}};
  while (to != kDead && !work.empty()) {
    auto [st, ph] = work.back();
    work.pop_back();
    for (int b = 0x80; b < 0xC0; b++) {  // mid-character, only continuation bytes are valid
      const uint8_t np = utf8::step(ph, uint8_t(b));
      if (np == utf8::Invalid) continue;
      const int32_t t = next(st, uint8_t(b));
      if (t < 0 || (np == utf8::Boundary && to != kUnknown && to != t)) {
        to = kDead;
        break;
      }
      if (np == utf8::Boundary) {
        to = t;
        continue;
      }
      const std::pair<int32_t, uint8_t> key{t, np};
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      if (seen.size() > 256) {
        to = kDead;
        break;
      }
      seen.push_back(key);
      work.push_back(key);
    }
  }
  if (to == kUnknown) to = kDead;
  DfaState& d = states_[size_t(s)];
  if (d.endsPhase == 0xff) {
    d.endsPhase = phase;
    d.endsCharAt = to;
  }
  return to;
}

bool LazyDfa::loopsBelow(int32_t s, const TrieNode& node) {
  for (int w = 0; w < 2; w++) {
    DfaState& d = states_[size_t(s)];
    if (node.below[w] & d.loopKnown[w] & ~d.loopYes[w]) return false;
    uint64_t unknown = node.below[w] & ~d.loopKnown[w];
    while (unknown) {
      int bit = lowestBit(unknown);
      unknown &= unknown - 1;
      bool loops = next(s, uint8_t(w * 64 + bit)) == s;
      DfaState& d2 = states_[size_t(s)];
      d2.loopKnown[w] |= 1ull << bit;
      if (!loops) return false;
      d2.loopYes[w] |= 1ull << bit;
    }
  }
  return !node.belowNonAscii || nonAsciiLoops(s);
}

// Every valid multi-byte character must lead back to `s` without dying on the way.
bool LazyDfa::nonAsciiLoops(int32_t s) {
  if (states_[size_t(s)].nonAsciiLoops >= 0) return states_[size_t(s)].nonAsciiLoops == 1;
  bool ok = true;
  std::vector<std::pair<int32_t, uint8_t>> work{{s, utf8::Boundary}}, seen;
  while (ok && !work.empty()) {
    auto [st, ph] = work.back();
    work.pop_back();
    for (int b = 0x80; b < 256 && ok; b++) {
      uint8_t np = utf8::step(ph, uint8_t(b));
      if (np == utf8::Invalid) continue;
      int32_t t = next(st, uint8_t(b));
      if (t < 0) {
        ok = false;
        break;
      }
      if (np == utf8::Boundary) {
        if (t != s) ok = false;
        continue;
      }
      std::pair<int32_t, uint8_t> key{t, np};
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
        if (seen.size() > 256) {
          ok = false;
          break;
        }
        seen.push_back(key);
        work.push_back(key);
      }
    }
  }
  states_[size_t(s)].nonAsciiLoops = ok ? 1 : 0;
  return ok;
}

size_t LazyDfa::memoryBytes() const {
  size_t total = sizeof(*this) + (builder_ ? builder_->memoryBytes() : 0);
  const Nfa& nfa = *nfa_;
  total += vectorBytes(nfa.states) - sizeof(NfaState) * nfa.states.size();  // the states count their own size
  lockwait::Poll poll;  // for the prefetch thread's checks (grammar_lock.hpp)
  for (auto& st : nfa.states) {
    poll();
    total += nfaStateBytes(st);
  }
  total += vectorBytes(nfa.fragments) + vectorBytes(nfa.fragmentOf) + heapBlock(nfa.productive.capacity() / 8) +
           vectorBytes(nfa.marks) + vectorBytes(nfa.entryCalls);
  total += vectorBytes(classRep_) + vectorBytes(classSize_);
  // The deque's blocks (512 bytes of states each, and its map), then each state's own blocks and its
  // entry in index_ (the node with its key: the state's NFA set as a string).
  total += (states_.size() * sizeof(DfaState) / 512 + 1) * (heapBlock(512) + 8);
  for (auto& d : states_) {
    poll();
    total += sizeof(d) + vectorBytes(d.nfa) + vectorBytes(d.ctx) + vectorBytes(d.next) + vectorBytes(d.tokenEdges);
    const size_t keyBytes = 4 * (d.nfa.size() + d.ctx.size());
    total += hashNodeBytes(sizeof(std::string) + sizeof(int32_t)) + (keyBytes > 15 ? heapBlock(keyBytes + 1) : 0);
    if (d.mask) total += d.mask->memoryBytes();
  }
  // Counter contexts (each with its key in ctxIndex_) and the gates' memo.
  total += vectorBytes(ctxs_) + vectorBytes(nfa.gates) + vectorBytes(nfa.counters);
  for (auto& c : ctxs_) {
    total += vectorBytes(c);
    const size_t keyBytes = c.size() * 12;
    if (!c.empty()) total += hashNodeBytes(sizeof(std::string) + 4) + (keyBytes > 15 ? heapBlock(keyBytes + 1) : 0);
  }
  for (auto& c : nfa.counters) total += vectorBytes(c.points);
  total += gateMemo_.size() * hashNodeBytes(16) + gateMemo_.bucket_count() * 8;
  return total;
}

}  // namespace toolmask
