#include "grammar.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "utf8.hpp"

namespace toolmask {

namespace {
constexpr size_t kSparseLimit = 1024;  // above this many ids copying a bitmask is faster than scattering bits
}

CompiledGrammar::CompiledGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab,
                                 const CompileOptions& opts)
    : vocab_(std::move(vocab)) {
  auto t0 = std::chrono::steady_clock::now();
  json::Value ir;
  try {
    ir = json::parse(irJson);
  } catch (const json::ParseError& e) {
    throw GrammarError(e.what());
  }
  NfaLimits lim;
  lim.vocabSize = vocab_->size();
  lim.maxRecursionDepth = opts.maxRecursionDepth;
  nfa_ = buildNfa(ir, lim);

  // Bytes that no edge tells apart share a class, so transition rows stay short.
  bool cut[257] = {};
  cut[0] = true;
  for (auto& st : nfa_.states)
    for (auto& e : st.bytes) { cut[e.lo] = true; cut[e.hi + 1] = true; }
  int cls = -1;
  for (int b = 0; b < 256; b++) {
    if (cut[b]) { cls++; classRep_.push_back(uint8_t(b)); }
    byteClass_[b] = uint8_t(cls);
  }

  std::vector<uint32_t> init{nfa_.start};
  closure(init);
  if (intern(std::move(init)) != 0)
    throw GrammarError("the grammar accepts nothing (every path is empty or exceeds the recursion depth)");
  precompute(opts);
  compileMs_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void CompiledGrammar::closure(std::vector<uint32_t>& set) {
  std::vector<uint32_t> stack(set.begin(), set.end()), out;
  std::vector<uint32_t> seen;
  auto visited = [&](uint32_t s) {
    auto it = std::lower_bound(seen.begin(), seen.end(), s);
    if (it != seen.end() && *it == s) return true;
    seen.insert(it, s);
    return false;
  };
  while (!stack.empty()) {
    uint32_t s = stack.back();
    stack.pop_back();
    if (!nfa_.productive[s] || visited(s)) continue;
    const NfaState& st = nfa_.states[s];
    if (!st.bytes.empty() || !st.tokens.empty() || s == nfa_.accept) out.push_back(s);
    for (uint32_t t : st.eps) stack.push_back(t);
  }
  std::sort(out.begin(), out.end());
  set.swap(out);
}

int32_t CompiledGrammar::intern(std::vector<uint32_t>&& set) {
  if (set.empty()) return kDead;
  std::string key(reinterpret_cast<const char*>(set.data()), set.size() * sizeof(uint32_t));
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  int32_t id = int32_t(states_.size());
  states_.emplace_back();
  DfaState& d = states_.back();
  d.nfa = std::move(set);
  d.next.assign(classRep_.size(), kUnknown);
  std::vector<std::pair<uint32_t, uint32_t>> toks;  // (token, nfa target)
  for (uint32_t s : d.nfa) {
    if (s == nfa_.accept) d.accepting = true;
    for (auto& e : nfa_.states[s].tokens) toks.push_back({e.token, e.to});
  }
  index_.emplace(std::move(key), id);
  std::sort(toks.begin(), toks.end());
  for (size_t i = 0; i < toks.size();) {
    std::vector<uint32_t> tgt;
    size_t j = i;
    for (; j < toks.size() && toks[j].first == toks[i].first; j++) tgt.push_back(toks[j].second);
    closure(tgt);
    int32_t to = intern(std::move(tgt));
    if (to != kDead) states_[size_t(id)].tokenEdges.push_back({toks[i].first, to});
    i = j;
  }
  return id;
}

int32_t CompiledGrammar::next(int32_t s, uint8_t byte) {
  DfaState& d = states_[size_t(s)];
  uint8_t c = byteClass_[byte];
  int32_t v = d.next[c];
  if (v != kUnknown) return v;
  std::vector<uint32_t> tgt;
  for (uint32_t n : d.nfa)
    for (auto& e : nfa_.states[n].bytes)
      if (byte >= e.lo && byte <= e.hi) tgt.push_back(e.to);
  closure(tgt);
  v = intern(std::move(tgt));
  states_[size_t(s)].next[c] = v;  // `d` may be stale if intern grew the deque's map; index again
  return v;
}

int32_t CompiledGrammar::walk(int32_t s, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n && s >= 0; i++) s = next(s, p[i]);
  return s;
}

int32_t CompiledGrammar::stepBytes(int32_t state, const uint8_t* p, size_t n) {
  if (state < 0) return kDead;
  std::lock_guard<std::mutex> lock(mu_);
  return walk(state, p, n);
}

int32_t CompiledGrammar::stepToken(int32_t state, uint32_t id) {
  if (state < 0) return kDead;
  std::lock_guard<std::mutex> lock(mu_);
  switch (vocab_->kind(id)) {
    case TokenKind::Normal: {
      size_t len;
      const uint8_t* p = vocab_->tokenBytes(id, len);
      return len ? walk(state, p, len) : kDead;
    }
    case TokenKind::Special:
    case TokenKind::EndOfGeneration: {
      const DfaState& d = states_[size_t(state)];
      for (auto& e : d.tokenEdges) if (e.first == id) return e.second;
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
  std::lock_guard<std::mutex> lock(mu_);
  return states_[size_t(state)].accepting;
}

// Whether every byte below `node` keeps the automaton in `s` (so the whole
// subtree is accepted). Loop bits are learned lazily, byte by byte.
bool CompiledGrammar::loopsOver(int32_t s, const TrieNode& node) {
  for (int w = 0; w < 2; w++) {
    DfaState& d = states_[size_t(s)];
    if (node.below[w] & d.loopKnown[w] & ~d.loopYes[w]) return false;
    uint64_t unknown = node.below[w] & ~d.loopKnown[w];
    while (unknown) {
      int bit = __builtin_ctzll(unknown);
      unknown &= unknown - 1;
      uint8_t b = uint8_t(w * 64 + bit);
      bool loops = next(s, b) == s;
      DfaState& d2 = states_[size_t(s)];
      d2.loopKnown[w] |= 1ull << bit;
      if (!loops) return false;
      d2.loopYes[w] |= 1ull << bit;
    }
  }
  return !node.belowNonAscii || ((node.utf8Ok & 1) && nonAsciiLoops(s));
}

// Every valid multi-byte character must lead back to `s` without dying on the way.
bool CompiledGrammar::nonAsciiLoops(int32_t s) {
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
      if (t < 0) { ok = false; break; }
      if (np == utf8::Boundary) { if (t != s) ok = false; continue; }
      std::pair<int32_t, uint8_t> key{t, np};
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
        if (seen.size() > 256) { ok = false; break; }
        seen.push_back(key);
        work.push_back(key);
      }
    }
  }
  states_[size_t(s)].nonAsciiLoops = ok ? 1 : 0;
  return ok;
}

void CompiledGrammar::computeMask(int32_t s, StateMask& out) {
  const auto& trie = vocab_->trie();
  const auto& order = vocab_->order();
  std::vector<std::pair<uint32_t, uint32_t>> rejected;  // sorted-position ranges
  static bool dbgOn = getenv("TOOLMASK_DEBUG") != nullptr;
  size_t dbgVisits = 0, dbgOther = 0, dbgUtf = 0, dbgNA = 0, dbgAscii = 0;

  // Depth-first over the token trie; a subtree whose bytes all loop back to the
  // current state is accepted whole without being visited.
  auto dfs = [&](auto&& self, uint32_t n, int32_t st) -> void {
    const TrieNode& node = trie[n];
    dbgVisits++;
    if (n != 0 && loopsOver(st, node)) return;
    if (n != 0 && dbgOn) { if (st != s) dbgOther++; else if (node.belowNonAscii && !(node.utf8Ok & 1)) dbgUtf++; else if (node.belowNonAscii) dbgNA++; else dbgAscii++; }
    for (uint32_t c = n + 1; c < node.end; c = trie[c].end) {
      int32_t ns = next(st, trie[c].byte);
      if (ns < 0) {
        if (!rejected.empty() && rejected.back().second == trie[c].lo) rejected.back().second = trie[c].hi;
        else rejected.push_back({trie[c].lo, trie[c].hi});
      } else {
        self(self, c, ns);
      }
    }
  };
  dfs(dfs, 0, s);

  if (dbgOn) fprintf(stderr, "dfs visits=%zu other=%zu utf=%zu na=%zu ascii=%zu\n", dbgVisits, dbgOther, dbgUtf, dbgNA, dbgAscii);
  size_t total = order.size(), nRej = 0;
  for (auto& r : rejected) nRej += r.second - r.first;
  size_t nAcc = total - nRej;
  out.ids.clear();
  out.bits.clear();
  auto forAccepted = [&](auto&& fn) {
    uint32_t pos = 0;
    for (auto& r : rejected) { for (; pos < r.first; pos++) fn(order[pos]); pos = r.second; }
    for (; pos < total; pos++) fn(order[pos]);
  };
  auto forRejected = [&](auto&& fn) {
    for (auto& r : rejected) for (uint32_t p = r.first; p < r.second; p++) fn(order[p]);
  };
  if (nAcc <= kSparseLimit) {
    out.rep = MaskRep::Accept;
    out.ids.reserve(nAcc);
    forAccepted([&](uint32_t id) { out.ids.push_back(id); });
    std::sort(out.ids.begin(), out.ids.end());
  } else if (nRej <= kSparseLimit) {
    out.rep = MaskRep::Reject;
    out.ids.reserve(nRej);
    forRejected([&](uint32_t id) { out.ids.push_back(id); });
    std::sort(out.ids.begin(), out.ids.end());
  } else {
    out.rep = MaskRep::Bits;
    if (nAcc < nRej) {
      out.bits.assign(vocab_->words(), 0);
      forAccepted([&](uint32_t id) { out.bits[id >> 5] |= 1u << (id & 31); });
    } else {
      out.bits = vocab_->normalMask();
      forRejected([&](uint32_t id) { out.bits[id >> 5] &= ~(1u << (id & 31)); });
    }
  }
  const DfaState& d = states_[size_t(s)];
  out.specials.clear();
  for (auto& e : d.tokenEdges) out.specials.push_back(e.first);
  if (d.accepting)
    for (uint32_t id : vocab_->endOfGeneration()) out.specials.push_back(id);
  std::sort(out.specials.begin(), out.specials.end());
  out.specials.erase(std::unique(out.specials.begin(), out.specials.end()), out.specials.end());
}

const StateMask& CompiledGrammar::ensureMask(int32_t s) {
  if (!states_[size_t(s)].mask) {
    auto m = std::make_unique<StateMask>();
    static bool dbg = getenv("TOOLMASK_DEBUG") != nullptr;
    auto t0 = std::chrono::steady_clock::now();
    computeMask(s, *m);
    if (dbg) fprintf(stderr, "mask %d rep=%d ids=%zu us=%.1f states=%zu\n", s, int(m->rep), m->ids.size(),
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count(), states_.size());
    states_[size_t(s)].mask = std::move(m);
  }
  return *states_[size_t(s)].mask;
}

void CompiledGrammar::fillMask(int32_t state, uint32_t* out) {
  size_t words = vocab_->words();
  if (state < 0) { std::memset(out, 0, words * 4); return; }
  std::lock_guard<std::mutex> lock(mu_);
  const StateMask& m = ensureMask(state);
  switch (m.rep) {
    case MaskRep::Accept:
      std::memset(out, 0, words * 4);
      for (uint32_t id : m.ids) out[id >> 5] |= 1u << (id & 31);
      break;
    case MaskRep::Reject:
      std::memcpy(out, vocab_->normalMask().data(), words * 4);
      for (uint32_t id : m.ids) out[id >> 5] &= ~(1u << (id & 31));
      break;
    case MaskRep::Bits:
      std::memcpy(out, m.bits.data(), words * 4);
      break;
  }
  for (uint32_t id : m.specials) out[id >> 5] |= 1u << (id & 31);
}

bool CompiledGrammar::hasAllowedToken(int32_t state) {
  if (state < 0) return false;
  std::lock_guard<std::mutex> lock(mu_);
  const StateMask& m = ensureMask(state);
  if (!m.specials.empty()) return true;
  switch (m.rep) {
    case MaskRep::Accept: return !m.ids.empty();
    case MaskRep::Reject: return m.ids.size() < vocab_->order().size();
    case MaskRep::Bits: return true;  // Bits is only chosen with thousands allowed
  }
  return false;
}

void CompiledGrammar::precompute(const CompileOptions& opts) {
  auto t0 = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < states_.size() && i < opts.precomputeStates; i++) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms > opts.precomputeMillis) break;
    ensureMask(int32_t(i));
    // Expanding every byte class discovers the reachable states breadth first.
    for (size_t c = 0; c < classRep_.size(); c++) next(int32_t(i), classRep_[c]);
  }
}

size_t CompiledGrammar::stateCount() {
  std::lock_guard<std::mutex> lock(mu_);
  return states_.size();
}

size_t CompiledGrammar::memoryBytes() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t total = sizeof(*this);
  for (auto& st : nfa_.states) total += sizeof(st) + 4 * st.eps.size() + sizeof(ByteEdge) * st.bytes.size() + 8 * st.tokens.size();
  for (auto& d : states_) {
    total += sizeof(d) + 4 * d.nfa.size() + 4 * d.next.size() + 8 * d.tokenEdges.size() + 4 * d.nfa.size() + 32;
    if (d.mask) total += sizeof(StateMask) + 4 * (d.mask->ids.size() + d.mask->bits.size() + d.mask->specials.size());
  }
  return total;
}

}  // namespace toolmask
