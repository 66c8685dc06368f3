#include "include/toolmask/walk.hpp"
#include "include/toolmask/bits.hpp"

#include <algorithm>

#include "grammar.hpp"

namespace toolmask {

namespace {

// splitmix64: the same sequence on every platform, unlike std:: distributions.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  uint32_t below(size_t n) { return uint32_t(mulHigh(next(), n)); }
};

struct Walker {
  Matcher& m;
  CompiledGrammar& g;
  const Vocabulary& v;
  const WalkOptions& o;
  std::vector<uint32_t> shortIds;  // ordinary tokens of at most 2 bytes

  Walker(Matcher& m_, const WalkOptions& o_) : m(m_), g(m_.grammar()), v(g.vocab()), o(o_) {
    for (uint32_t id = 0; id < v.size(); id++) {
      size_t len;
      v.tokenBytes(id, len);
      if (v.kind(id) == TokenKind::Normal && len > 0 && len <= 2) shortIds.push_back(id);
    }
  }

  // An ordinary token the grammar accepts from `state`, or -1 if it accepts none.
  int64_t ordinary(int32_t state, Rng& rng) {
    bool leave = rng.unit() < o.leaveProbability;
    int64_t fallback = -1;
    auto fits = [&](int64_t id) { return !leave || g.stepToken(state, uint32_t(id)) != state; };
    // Broad states (free text, string contents): random probes hit at once.
    for (unsigned i = 0; i < o.probes; i++) {
      uint32_t id = !shortIds.empty() && rng.unit() < o.shortProbability ? shortIds[rng.below(shortIds.size())]
                                                                         : rng.below(v.size());
      if (v.kind(id) != TokenKind::Normal || g.stepToken(state, id) < 0) continue;
      if (fits(id)) return id;
      if (fallback < 0) fallback = id;
    }
    // Narrow states: descend the trie along accepted bytes (exhaustive, so -1 means none fits).
    for (int i = 0; i < 8; i++) {
      int64_t id = descend(0, state, rng);
      if (id < 0 || fits(id)) return id >= 0 ? id : fallback;
      if (fallback < 0) fallback = id;
    }
    return fallback;
  }

  // A random token below trie `node` whose bytes the automaton accepts from `st`: children in
  // random order, stopping early at a token half the time (which favours short tokens).
  int64_t descend(uint32_t node, int32_t st, Rng& rng) {
    const std::vector<TrieNode>& trie = v.trie();
    const TrieNode& n = trie[node];
    auto own = [&]() -> int64_t { return n.nEnd ? int64_t(v.order()[n.lo + rng.below(n.nEnd)]) : -1; };
    if (n.nEnd && rng.unit() < 0.5) return own();
    std::vector<uint32_t> kids;
    for (uint32_t c = node + 1; c < n.end; c = trie[c].end) kids.push_back(c);
    for (size_t i = 0; i < kids.size(); i++) {
      std::swap(kids[i], kids[i + rng.below(kids.size() - i)]);
      uint8_t b = trie[kids[i]].byte;
      int32_t next = g.stepBytes(st, &b, 1);
      if (next < 0) continue;
      int64_t id = descend(kids[i], next, rng);
      if (id >= 0) return id;
    }
    return own();
  }

  WalkResult walk(Rng rng) {
    WalkResult r;
    while (r.tokens.size() < o.maxTokens && !m.isTerminated()) {
      int32_t state = m.state();
      std::vector<uint32_t> ends, specials;
      for (uint32_t id : g.allowedSpecials(state))
        (v.kind(id) == TokenKind::EndOfGeneration ? ends : specials).push_back(id);
      int64_t pick = -1;
      if (!ends.empty() && rng.unit() < o.endProbability) pick = ends[rng.below(ends.size())];
      if (pick < 0 && !specials.empty() && rng.unit() < o.specialProbability)
        pick = specials[rng.below(specials.size())];
      if (pick < 0) pick = ordinary(state, rng);
      if (pick < 0 && !specials.empty()) pick = specials[rng.below(specials.size())];
      if (pick < 0 && !ends.empty()) pick = ends[0];
      if (pick < 0) {
        r.stuck = true;
        break;
      }
      if (!m.acceptToken(uint32_t(pick)))
        throw MatcherError("random walk: token " + std::to_string(pick) + " was allowed but acceptToken refused it");
      r.tokens.push_back(uint32_t(pick));
    }
    r.terminated = m.isTerminated();
    return r;
  }
};

}  // namespace

std::vector<WalkResult> randomWalks(Matcher& m, const WalkOptions& o, size_t count) {
  Walker w(m, o);
  size_t at = m.steps();
  std::vector<WalkResult> out;
  out.reserve(count);
  for (size_t i = 0; i < count; i++) {
    out.push_back(w.walk(Rng{o.seed + i * 0x632be59bd9b4e019ull}));
    m.rollback(m.steps() - at);
  }
  return out;
}

}  // namespace toolmask
