// until(T) with a body: the text `body` matches, cut at the first T, then T (an XML parameter's raw
// text: the string grammar of its schema, ended by the value's close). Built as the product of the
// body's NFA with T's KMP automaton, over bytes, only the pairs reachable from its start:
// - a state is (body state, characters of T matched, flags); a byte the body reads moves both,
//   and a byte that would complete T is no edge (the text holds no T: the first T ends it);
// - T's first byte, where the body can end, may also open the close: a chain that reads T's other
//   bytes and leaves. T's first byte occurs nowhere else in T, so an occurrence of T cannot begin
//   inside the text and end in the close: every close so opened is the first T;
// - trimNewline (the parser's rule, src/parser/xml-call.ts): a text that starts with a newline has
//   it as padding, and then one that ends with a newline has it as padding. The first byte, when a
//   newline, is padding (the body never reads it); a close may follow the body only where the body
//   did not just read a newline; after the body's end, a newline may be the padding before T.
// The size is the body's states times T's length at most (times 2 with trimNewline, and once more
// before the first byte). Built in place, not as a shape (nfa.cpp build()).
#include <unordered_map>

#include "nfa_impl.hpp"

namespace toolmask {

namespace {
constexpr uint32_t kLast = 1;     // the body's last byte was a newline (trimNewline)
constexpr uint32_t kNothing = 2;  // nothing read yet (trimNewline)
}  // namespace

bool untilHasBody(const json::Value& n) {
  const json::Value* b = n.get("body");
  return b && b->kind != json::Kind::Null;
}

Frag NfaBuilder::Impl::untilBody(const json::Value& n, const std::string& path) {
  const json::Value& tv = field(n, "terminator", path);
  if (tv.kind != json::Kind::String || tv.str.empty()) fail(path, "until needs a non-empty \"terminator\" string");
  const std::string& T = tv.str;
  for (const char* key : {"maxLength", "minLength"})
    if (const json::Value* v = n.get(key); v && v->kind != json::Kind::Null)
      fail(path + "." + key, "an until with a body takes no length bounds: bound the body instead");
  bool trim = false;
  if (const json::Value* tn = n.get("trimNewline"); tn && tn->kind == json::Kind::Bool) trim = tn->b;
  if (T.find(T[0], 1) != std::string::npos)
    fail(path + ".terminator", "an until with a body needs a terminator whose first byte does not recur in it");
  if (trim && T.find('\n') != std::string::npos) fail(path + ".trimNewline", "needs a terminator without a newline");
  const size_t m = T.size();

  // The body, built in full by a builder of its own over the same rules (nfa_intersect.cpp), every
  // bound unrolled, so which product states can still end is exact. An intersection in it keeps
  // its length's counter, with the checks that say where a count can still end
  // (nfa_counter_checks.cpp): a product state of a gate state takes its operation, on the counter
  // imported here.
  const TextNfa body = buildText(field(n, "body", path), path + ".body", "an until's body", UINT64_MAX);
  const std::vector<NfaState>& bs = body.nfa.states;
  const uint32_t gates = importCounters(body.nfa);

  const uint32_t flags = trim ? 4 : 1;
  uint32_t out = add();
  // chain[i]: T's first i bytes read as the close; chain[m] is the exit.
  std::vector<uint32_t> chain(m + 1);
  chain[m] = out;
  for (size_t i = m - 1; i >= 1; i--) {
    chain[i] = add();
    byteEdge(chain[i], uint8_t(T[i]), uint8_t(T[i]), chain[i + 1]);
  }
  uint32_t pad = 0;  // after the padding newline: the close
  if (trim) {
    pad = add();
    byteEdge(pad, uint8_t(T[0]), uint8_t(T[0]), chain[1]);
  }

  struct Item {
    uint32_t b, k, f;
  };
  std::unordered_map<uint64_t, uint32_t> ids;
  std::vector<Item> work;
  auto id = [&](uint32_t b, uint32_t k, uint32_t f) {
    auto [it, fresh] = ids.try_emplace((uint64_t(b) * m + k) * flags + f, 0);
    if (fresh) {
      it->second = add();
      work.push_back({b, k, f});
    }
    return it->second;
  };
  auto edge = [&](uint32_t from, uint8_t lo, uint8_t hi, uint32_t to) { byteRun(from, lo, hi, to); };
  const uint32_t in = id(body.in, 0, trim ? kNothing : 0);
  if (trim) edge(in, '\n', '\n', id(body.in, 0, 0));  // the leading padding newline
  const uint8_t t0 = uint8_t(T[0]);
  while (!work.empty()) {
    const Item s = work.back();
    work.pop_back();
    const uint32_t from = ids[(uint64_t(s.b) * m + s.k) * flags + s.f];
    const NfaState& st = bs[s.b];
    if (st.gate >= 0) nfa.states[from].gate = int32_t(gates) + st.gate;
    for (uint32_t e : st.eps) eps(from, id(e, s.k, s.f));
    const uint8_t next = uint8_t(T[s.k]);
    for (const ByteEdge& e : st.bytes) {
      // The bytes of [lo, hi] that move T's automaton or the flags differently: T[k], T[0], a newline.
      for (unsigned lo = e.lo; lo <= e.hi;) {
        unsigned hi = e.hi;
        for (unsigned special : {unsigned(next), unsigned(t0), unsigned('\n')}) {
          if (special == lo) {
            hi = lo;
            break;
          }
          if (special > lo && special <= hi) hi = special - 1;
        }
        const unsigned x = lo;
        lo = hi + 1;
        if (trim && x == '\n' && (s.f & kNothing)) continue;  // a first newline is padding, not the body's
        const uint32_t nk = x == next ? s.k + 1 : x == t0 ? 1 : 0;
        if (nk == m) continue;  // T inside the text: the text ended at it
        const uint32_t nf = trim && x == '\n' ? kLast : 0;
        edge(from, uint8_t(x), uint8_t(hi), id(e.to, nk, nf));
      }
    }
    if (s.b == body.out) {
      if (!(s.f & kLast)) edge(from, t0, t0, chain[1]);
      if (trim && !(s.f & kNothing)) edge(from, '\n', '\n', pad);
    }
  }
  return {in, out};
}

// Whether the product accepts a text at all (a body whose every string holds T accepts none): the
// product built on its own, independent of the rules open around it.
bool NfaBuilder::Impl::untilBodyNonEmpty(const json::Value& n) {
  json::Value none;
  none.kind = json::Kind::Object;
  Impl scratch(none, lim);
  scratch.rules = rules;
  scratch.lazy = false;
  try {
    const Frag f = scratch.untilBody(n, "until");
    scratch.nfa.accept = f.out;
    scratch.markProductive(0);
    return scratch.nfa.productive[f.in];
  } catch (const GrammarError& e) {
    if (dynamic_cast<const GrammarLimitError*>(&e)) throw;
    return true;  // malformed: reported where it is built
  }
}

}  // namespace toolmask
