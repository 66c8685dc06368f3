// intersect: the texts every item matches (a string that must match two patterns, a pattern and a
// length, a format and both). Each item is built in full by a builder of its own (buildText), then
// the product of the items' automata is built over bytes, only the tuples reachable from its start,
// two items at a time, and placed here. What the product keeps of each side:
// - eps moves are taken as closures: a product state pairs two "core" states (one that reads a
//   byte, is the side's end, or is a gate), so the eps chains around each character are not paired
//   with each other;
// - a gate (a counter of nfa_count.cpp: the length's repetition, or one from 0 in another item; every
//   other bound is unrolled, intersectNfa) stays a gate: a product state that pairs one takes its
//   operation, on the counter imported with its side, and moves that side only, so a length of any
//   size costs the same few states as in the side itself;
// - a byte both sides read on (their ranges' overlap) moves both; the end is both sides' end.
// Then each counter is checked where a byte leads into its repetition (nfa_counter_checks.cpp), so a
// walk never starts a text it cannot finish. The size is the core states of one side times those of
// the other at most; a product past NfaLimits::maxProductStates is a GrammarLimitError naming the
// node's `path` (the JSON pointer of the schema that asked for it), never a long build.
#include <algorithm>
#include <deque>
#include <unordered_map>

#include "nfa_impl.hpp"

namespace toolmask {

namespace {

// Closures of one side: the core states each state reaches by eps moves that pass no gate.
class Side {
 public:
  explicit Side(const TextNfa& t)
      : t_(t), memo_(t.nfa.states.size()), done_(t.nfa.states.size(), false), mark_(t.nfa.states.size(), 0) {}
  const NfaState& state(uint32_t s) const { return t_.nfa.states[s]; }
  bool gate(uint32_t s) const { return t_.nfa.states[s].gate >= 0; }
  // The core states reachable from `s` (itself when core), not past a gate.
  const std::vector<uint32_t>& closure(uint32_t s) {
    if (done_[s]) return memo_[s];
    std::vector<uint32_t> out, stack{s};
    mark_[s] = ++generation_;
    while (!stack.empty()) {
      const uint32_t x = stack.back();
      stack.pop_back();
      const NfaState& st = t_.nfa.states[x];
      if (st.gate >= 0 || !st.bytes.empty() || x == t_.out) out.push_back(x);
      if (st.gate >= 0) continue;
      for (uint32_t e : st.eps)
        if (mark_[e] != generation_) {
          mark_[e] = generation_;
          stack.push_back(e);
        }
    }
    done_[s] = true;
    return memo_[s] = std::move(out);
  }
  // What follows a gate: the closures of its eps targets.
  std::vector<uint32_t> after(uint32_t g) {
    std::vector<uint32_t> out;
    for (uint32_t e : t_.nfa.states[g].eps)
      for (uint32_t x : closure(e))
        if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    return out;
  }

 private:
  const TextNfa& t_;
  std::vector<std::vector<uint32_t>> memo_;
  std::vector<bool> done_;
  std::vector<uint32_t> mark_;  // == generation_: seen by the closure under way
  uint32_t generation_ = 0;
};

// The product of A and B, the pairs reachable from both starts; `over` throws when it would pass `limit` states.
template <class Over>
TextNfa product(const TextNfa& A, const TextNfa& B, size_t limit, Over over) {
  TextNfa P;
  Nfa& p = P.nfa;
  p.counters = A.nfa.counters;
  p.counters.insert(p.counters.end(), B.nfa.counters.begin(), B.nfa.counters.end());
  p.gates = A.nfa.gates;
  const uint32_t bGates = uint32_t(p.gates.size()), bCounters = uint32_t(A.nfa.counters.size());
  for (Gate g : B.nfa.gates) {
    g.counter += bCounters;
    p.gates.push_back(g);
  }
  auto add = [&]() {
    if (p.states.size() >= limit) over();
    p.states.emplace_back();
    return uint32_t(p.states.size() - 1);
  };
  Side a(A), b(B);
  std::unordered_map<uint64_t, uint32_t> pairs, landings;
  std::vector<std::pair<uint32_t, uint32_t>> work;
  auto pair = [&](uint32_t x, uint32_t y) {
    auto [it, fresh] = pairs.try_emplace((uint64_t(x) << 32) | y, 0);
    if (fresh) {
      it->second = add();
      work.push_back({x, y});
    }
    return it->second;
  };
  // Where a move lands: every pair of the two closures (one state for them all, when more than one).
  auto land = [&](const std::vector<uint32_t>& xs, const std::vector<uint32_t>& ys, uint64_t key) -> int64_t {
    if (xs.empty() || ys.empty()) return -1;
    if (xs.size() == 1 && ys.size() == 1) return pair(xs[0], ys[0]);
    auto [it, fresh] = landings.try_emplace(key, 0);
    if (fresh) {
      const uint32_t l = add();
      it->second = l;
      for (uint32_t x : xs)
        for (uint32_t y : ys) {
          const uint32_t to = pair(x, y);
          p.states[l].eps.push_back(to);
        }
    }
    return it->second;
  };
  P.in = add();
  P.out = add();
  const int64_t start = land(a.closure(A.in), b.closure(B.in), ~uint64_t(0));
  if (start >= 0) p.states[P.in].eps.push_back(uint32_t(start));
  while (!work.empty()) {
    const auto [x, y] = work.back();
    work.pop_back();
    const uint32_t from = pairs[(uint64_t(x) << 32) | y];
    if (a.gate(x) || b.gate(y)) {
      // one side's gate at a time: its operation here, then that side moves on
      const bool onA = a.gate(x);
      p.states[from].gate = onA ? A.nfa.states[x].gate : int32_t(bGates) + B.nfa.states[y].gate;
      for (uint32_t n : onA ? a.after(x) : b.after(y)) {
        const uint32_t to = onA ? pair(n, y) : pair(x, n);
        p.states[from].eps.push_back(to);
      }
      continue;
    }
    if (x == A.out && y == B.out) p.states[from].eps.push_back(P.out);
    for (const ByteEdge& ea : a.state(x).bytes)
      for (const ByteEdge& eb : b.state(y).bytes) {
        const unsigned lo = std::max(ea.lo, eb.lo), hi = std::min(ea.hi, eb.hi);
        if (lo > hi) continue;
        const int64_t to = land(a.closure(ea.to), b.closure(eb.to), (uint64_t(ea.to) << 32) | eb.to);
        if (to < 0) continue;
        auto& edges = p.states[from].bytes;
        if (!edges.empty() && edges.back().to == uint32_t(to) && unsigned(edges.back().hi) + 1 == lo)
          edges.back().hi = uint8_t(hi);
        else
          edges.push_back({uint8_t(lo), uint8_t(hi), uint32_t(to)});
      }
  }
  return P;
}

}  // namespace

TextNfa NfaBuilder::Impl::buildText(const json::Value& n, const std::string& path, const char* what,
                                    uint64_t countAbove, uint64_t countFreeAbove) {
  json::Value none;
  none.kind = json::Kind::Object;
  Impl sub(none, lim);
  sub.rules = rules;
  sub.lazy = false;
  sub.lim.countAbove = sub.lim.countTextAbove = countAbove;
  sub.lim.countFreeAbove = countFreeAbove;
  TextNfa t;
  t.in = sub.add();
  const Frag f = sub.build(n, path);
  t.out = sub.add();
  sub.eps(t.in, f.in);
  sub.eps(f.out, t.out);
  for (const NfaState& st : sub.nfa.states)
    if (!st.tokens.empty() || st.thunk >= 0)
      fail(path, std::string(what) + " must be text (no token terminals or any-order sets)");
  t.nfa = std::move(sub.nfa);
  return t;
}

uint32_t NfaBuilder::Impl::importCounters(const Nfa& from) {
  const uint32_t counters = uint32_t(nfa.counters.size()), gates = uint32_t(nfa.gates.size());
  nfa.counters.insert(nfa.counters.end(), from.counters.begin(), from.counters.end());
  for (Gate g : from.gates) {
    g.counter += counters;
    nfa.gates.push_back(g);
  }
  return gates;
}

Frag NfaBuilder::Impl::place(const TextNfa& t) {
  const uint32_t gates = importCounters(t.nfa);
  const uint32_t base = uint32_t(nfa.states.size());
  for (const NfaState& st : t.nfa.states) {
    const uint32_t s = add();
    NfaState& c = nfa.states[s];
    c = st;
    for (auto& e : c.eps) e += base;
    for (auto& e : c.bytes) e.to += base;
    if (c.gate >= 0) c.gate += int32_t(gates);
  }
  return {base + t.in, base + t.out};
}

TextNfa NfaBuilder::Impl::intersectNfa(const json::Value& given, const std::string& path) {
  // Its refs inlined: a node met through a rule as given (nonEmpty of a placeholder's rule) names
  // small rules where the inlined grammar has their bodies, and a repetition of a ref is neither
  // counted nor the length below (its item may be empty for all countingNode knows), so each of its
  // copies would be unrolled into the product (a host name's 253: past maxProductStates).
  const json::Value n = rules->expand(given);
  auto& items = itemsOf(n, path);
  if (items.empty()) fail(path, "intersect needs at least one item");
  std::string where = path;
  if (const json::Value* p = n.get("path"); p && p->kind == json::Kind::String && !p->str.empty()) where = p->str;
  auto over = [&]() {
    limitFail(where, "automatonStates",
              "the strings here must match " + std::to_string(items.size()) +
                  " languages at once (the schema's pattern, format, length and allOf parts), and their product "
                  "needs more than " +
                  std::to_string(lim.maxProductStates) +
                  " automaton states; simplify the patterns, or drop one of the constraints");
  };
  // The length: the first item that is a repetition counted past countLengthAbove (a minLength or
  // maxLength) keeps its counter; every other item is unrolled but for its repetitions from 0 past
  // 16 (a host name's labels of up to 63), which a path to the end never needs more of. So what the
  // product can still finish is known without counts, and each counter is checked against it
  // (counterChecks, nfa_counter_checks.cpp).
  NfaLimits counting = lim;
  counting.countAbove = counting.countTextAbove = lim.countLengthAbove;
  size_t length = items.size();
  for (size_t i = 0; i < items.size() && length == items.size(); i++)
    if (irType(items[i]) == IrType::Repeat && countingNode(items[i], counting)) length = i;
  const char* what = "an intersection's items";
  auto at = [&](size_t i) { return path + ".items[" + std::to_string(i) + "]"; };
  std::unique_ptr<TextNfa> out;
  for (size_t i = 0; i < items.size(); i++) {
    if (i == length) continue;
    TextNfa next = buildText(items[i], at(i), what, UINT64_MAX, std::min<uint64_t>(lim.countLengthAbove, 16));
    out = std::make_unique<TextNfa>(out ? product(*out, next, lim.maxProductStates, over) : std::move(next));
  }
  if (length < items.size()) {
    TextNfa next = buildText(items[length], at(length), what, lim.countLengthAbove);
    out = std::make_unique<TextNfa>(out ? product(*out, next, lim.maxProductStates, over) : std::move(next));
  }
  if (items.size() > 1) counterChecks(*out, lim.maxProductStates, over);
  return std::move(*out);
}

Frag NfaBuilder::Impl::intersect(const json::Value& n, const std::string& path) { return place(intersectNfa(n, path)); }

// Whether some text matches every item: the product built on its own, independent of the rules open around it.
bool NfaBuilder::Impl::intersectNonEmpty(const json::Value& n) {
  json::Value none;
  none.kind = json::Kind::Object;
  Impl scratch(none, lim);
  scratch.rules = rules;
  scratch.lazy = false;
  try {
    const Frag f = scratch.place(scratch.intersectNfa(n, "intersect"));
    scratch.nfa.accept = f.out;
    scratch.markProductive(0);
    return scratch.nfa.productive[f.in];
  } catch (const GrammarError& e) {
    if (dynamic_cast<const GrammarLimitError*>(&e)) throw;
    return true;  // malformed: reported where it is built
  }
}

}  // namespace toolmask
