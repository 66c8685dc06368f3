// The count checks of an intersection's product (nfa_intersect.cpp). A counter of a repetition
// (nfa_count.cpp: reset on entry, one more per item begun, at most max, at least min to leave)
// is checked at its own gates only, which is enough alone: a repetition can always end. Beside
// other items it is not: a string's maxLength reached while its pattern still needs a character,
// or its minLength out of reach of a pattern that must end, and a walk would start a text it
// cannot finish (the masks must strand no walk). So each byte that leads to a state where a
// thread holds the counter passes a check first: count + kmin <= max and count + kmax >= min, where
// kmin and kmax are the fewest and the most items of the repetition that a path from that state to
// the end begins (kmax infinite through a cycle that begins one), found over the product without
// counts. Exact for one counter whose completions are a range of counts (every count from kmin to
// kmax), which they are unless another item allows lengths only in steps (`(abc)+`) while min and
// max are closer than a step; several counters are each checked this way on their own.
#include <algorithm>
#include <deque>
#include <unordered_map>

#include "nfa_impl.hpp"
#include "scc.hpp"

namespace toolmask {

namespace {

constexpr uint64_t kInf = UINT64_MAX;

// A counter's bounds, where its gates are a repetition's: inc gates with one common hi (max) and no
// lo, drop gates with one common lo (min). false for any other (a counted text's).
bool repetitionBounds(const Nfa& p, uint32_t c, uint64_t& min, uint64_t& max) {
  bool incs = false, drops = false;
  min = 0;
  max = kInf;
  for (const Gate& g : p.gates) {
    if (g.counter != c) continue;
    if (g.inc) {
      if (g.lo != 0 || (incs && g.hi != max)) return false;
      incs = true;
      max = g.hi;
    } else if (g.drop) {
      if (g.hi != kInf || (drops && g.lo != min)) return false;
      drops = true;
      min = g.lo;
    } else if (!g.reset && (g.lo != 0 || g.hi != kInf)) {
      return false;
    }
  }
  return incs && drops;
}

}  // namespace

void counterChecks(TextNfa& P, size_t limit, const std::function<void()>& over) {
  Nfa& p = P.nfa;
  const size_t N = p.states.size();
  std::vector<std::vector<uint32_t>> next(N), back(N);
  for (uint32_t s = 0; s < N; s++) {
    for (uint32_t t : p.states[s].eps) next[s].push_back(t);
    for (const ByteEdge& e : p.states[s].bytes) next[s].push_back(e.to);
    for (uint32_t t : next[s]) back[t].push_back(s);
  }
  // the checks each state a byte leads to needs, before it (a chain of check gates, one per counter)
  std::vector<std::vector<Gate>> checks(N);
  for (uint32_t c = 0; c < p.counters.size(); c++) {
    uint64_t min = 0, max = kInf;
    if (!repetitionBounds(p, c, min, max) || (min == 0 && max == kInf)) continue;
    auto gateOf = [&](uint32_t s) -> const Gate* {
      const int32_t g = p.states[s].gate;
      return g >= 0 && p.gates[size_t(g)].counter == c ? &p.gates[size_t(g)] : nullptr;
    };
    auto begins = [&](uint32_t s) -> uint64_t { return gateOf(s) && gateOf(s)->inc ? 1 : 0; };
    // kmin: a 0-1 search back from the end
    std::vector<uint64_t> kmin(N, kInf);
    std::deque<uint32_t> queue{P.out};
    kmin[P.out] = begins(P.out);
    while (!queue.empty()) {
      const uint32_t t = queue.front();
      queue.pop_front();
      for (uint32_t s : back[t]) {
        const uint64_t d = kmin[t] + begins(s);
        if (d >= kmin[s]) continue;
        kmin[s] = d;
        if (begins(s))
          queue.push_back(s);
        else
          queue.push_front(s);
      }
    }
    // kmax: over the strongly connected parts of the states that can end (Tarjan's, iteratively),
    // each part found after the parts it leads to
    std::vector<uint64_t> kmax(N, 0);
    if (min > 0) {
      std::vector<int64_t> part(N, -1);
      int64_t parts = 0;
      stronglyConnected(
          uint32_t(N), [&](uint32_t s) -> const std::vector<uint32_t>& { return next[s]; },
          [&](uint32_t s) { return kmin[s] != kInf; },
          [&](const std::vector<uint32_t>& members) {
            for (uint32_t m : members) part[m] = parts;
            bool cycle = members.size() > 1, counts = false;
            uint64_t out = 0;
            for (uint32_t m : members) {
              counts = counts || begins(m);
              for (uint32_t u : next[m]) {
                if (kmin[u] == kInf) continue;
                if (u == m) cycle = true;
                if (part[u] != parts) out = std::max(out, kmax[u]);
              }
            }
            const bool unbounded = (cycle && counts) || out == kInf;
            for (uint32_t m : members) kmax[m] = unbounded ? kInf : out + (members.size() == 1 ? begins(m) : 0);
            parts++;
          });
    }
    // the states where a thread holds the counter: from a reset on, until a gate drops it
    std::vector<bool> holds(N, false);
    std::vector<uint32_t> work;
    for (uint32_t s = 0; s < N; s++)
      if (gateOf(s) && gateOf(s)->reset) {
        holds[s] = true;
        work.push_back(s);
      }
    while (!work.empty()) {
      const uint32_t s = work.back();
      work.pop_back();
      if (gateOf(s) && gateOf(s)->drop) continue;
      for (uint32_t t : next[s])
        if (!holds[t]) {
          holds[t] = true;
          work.push_back(t);
        }
    }
    std::vector<uint64_t>& points = p.counters[c].points;
    for (uint32_t t = 0; t < N; t++) {
      // a reset gate is passed by a thread that does not hold the counter yet
      if (!holds[t] || kmin[t] == kInf || (gateOf(t) && gateOf(t)->reset)) continue;
      Gate g;
      g.counter = c;
      // the count after a byte, before the state's own gate: at most max - kmin, at least min - kmax
      g.hi = max == kInf ? kInf : kmin[t] > max ? 0 : max - kmin[t];
      g.lo = kmax[t] == kInf || kmax[t] >= min ? 0 : min - kmax[t];
      if (max != kInf && kmin[t] > max) g.lo = 1, g.hi = 0;  // no count lets it end
      // a count is never past max (the repetition's own gates): nothing to check where none is still to come
      if (g.lo == 0 && g.hi >= max) continue;
      checks[t].push_back(g);
      if (g.lo > 0) points.push_back(g.lo);
      if (g.hi != kInf) points.push_back(g.hi);
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
  }
  // each byte into a checked state goes through its chain of checks, built once per state
  std::unordered_map<uint32_t, uint32_t> entry;
  for (uint32_t s = 0; s < N; s++)
    for (ByteEdge& e : p.states[s].bytes) {
      const uint32_t t = e.to;
      if (checks[t].empty()) continue;
      auto [it, fresh] = entry.try_emplace(t, 0);
      if (fresh) {
        uint32_t to = t;
        for (const Gate& g : checks[t]) {
          if (p.states.size() >= limit) over();
          p.gates.push_back(g);
          NfaState st;
          st.gate = int32_t(p.gates.size() - 1);
          st.eps.push_back(to);
          p.states.push_back(std::move(st));
          to = uint32_t(p.states.size() - 1);
        }
        it->second = to;
      }
      e.to = it->second;
    }
}

}  // namespace toolmask
