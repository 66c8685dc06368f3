// The departure node: one character past which a text leaves every word of a set (the call whose
// name is none the request declared, src/dialects/call-grammar.ts). Built straight from the words'
// trie: the same language as the tree of alternatives and classes it stands for, without a node
// per trie position to parse, check and walk.
#include <algorithm>

#include "nfa_impl.hpp"
#include "utf8.hpp"

namespace toolmask {
namespace {

// The code points of a word, or false for text that is not UTF-8 (or holds a surrogate).
bool decode(const std::string& s, std::vector<uint32_t>& out) {
  out.clear();
  for (size_t i = 0; i < s.size();) {
    const unsigned char b = (unsigned char)s[i];
    const size_t len = b < 0x80                 ? 1
                       : b >= 0xC2 && b <= 0xDF ? 2
                       : b >= 0xE0 && b <= 0xEF ? 3
                       : b >= 0xF0 && b <= 0xF4 ? 4
                                                : 0;
    if (len == 0 || i + len > s.size()) return false;
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; k++) {
      const unsigned char c = (unsigned char)s[i + k];
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t least = len == 1 ? 0 : len == 2 ? 0x80 : len == 3 ? 0x800 : 0x10000;
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    out.push_back(cp);
    i += len;
  }
  return true;
}

}  // namespace

const NfaBuilder::Impl::DeparturePlan& NfaBuilder::Impl::departurePlan(const json::Value& n, const std::string& path) {
  if (auto it = departureMemo.find(&n); it != departureMemo.end()) return it->second;
  DeparturePlan p;
  const json::Value& words = field(n, "words", path);
  if (words.kind != json::Kind::Array || words.arr.empty())
    fail(path + ".words", "must be a non-empty array of non-empty strings");
  std::vector<std::pair<uint32_t, uint32_t>> outside;  // code points that never leave (a name's forbidden ones)
  if (const json::Value* o = n.get("outside"); o && o->kind != json::Kind::Null) {
    if (o->kind != json::Kind::Array) fail(path + ".outside", "must be an array of [lo, hi] code point pairs");
    for (size_t i = 0; i < o->arr.size(); i++) {
      const json::Value& r = o->arr[i];
      const bool pair = r.kind == json::Kind::Array && r.arr.size() == 2 && r.arr[0].kind == json::Kind::Number &&
                        r.arr[1].kind == json::Kind::Number;
      const double lo = pair ? r.arr[0].num : -1, hi = pair ? r.arr[1].num : -1;
      if (!(lo >= 0 && lo <= hi && hi <= 0x10FFFF && lo == double(uint32_t(lo)) && hi == double(uint32_t(hi))))
        fail(path + ".outside[" + std::to_string(i) + "]", "must be [lo, hi] with 0 <= lo <= hi <= 1114111");
      outside.push_back({uint32_t(lo), uint32_t(hi)});
    }
  }
  bool onward = false;  // the empty prefix is no way out: the first character continues a word
  if (const json::Value* o = n.get("onward"); o && o->kind != json::Kind::Null) {
    if (o->kind != json::Kind::Bool) fail(path + ".onward", "must be true or false");
    onward = o->b;
  }
  size_t wordBytes = 0;  // at least the code points of all words: the positions there can be, past the first
  for (auto& w : words.arr) wordBytes += w.str.size();
  p.nodes.reserve(wordBytes + 1);
  p.nodes.emplace_back();
  std::vector<uint32_t> cps;
  std::unordered_map<uint64_t, uint32_t> child;  // (position, code point) → position: however many words share one
  child.reserve(wordBytes);
  for (size_t w = 0; w < words.arr.size(); w++) {
    const json::Value& word = words.arr[w];
    auto at = [&] { return path + ".words[" + std::to_string(w) + "]"; };  // made only for an error
    if (word.kind != json::Kind::String || word.str.empty()) fail(at(), "must be a non-empty string");
    if (!decode(word.str, cps)) fail(at(), "is not UTF-8 text");
    uint32_t t = 0;
    for (uint32_t cp : cps) {
      const auto [it, fresh] = child.emplace((uint64_t(t) << 21) | cp, uint32_t(p.nodes.size()));
      if (fresh) {
        p.nodes[t].children.push_back({cp, it->second});
        p.nodes.emplace_back();
      }
      t = it->second;
    }
    p.nodes[t].word = true;
  }
  // Each position's ways out: the code points neither outside nor continuing a word there, as UTF-8
  // byte ranges whose tails (the bytes after the first) every position shares.
  std::unordered_map<uint64_t, int32_t> tailIds;  // (lo, hi, next + 1) → index in p.tails
  auto tail = [&](const utf8::ByteRange& r, int32_t next) {
    const uint64_t key = uint64_t(r.first) | uint64_t(r.second) << 8 | uint64_t(uint32_t(next + 1)) << 16;
    auto [it, fresh] = tailIds.emplace(key, int32_t(p.tails.size()));
    if (fresh) p.tails.push_back({r.first, r.second, next});
    return it->second;
  };
  auto cut = [&](unsigned lo, unsigned hi) { p.cut[lo] = p.cut[hi + 1] = true; };
  std::unordered_map<uint64_t, uint32_t> encoded;  // a range (lo << 21 | hi) → its index in p.ranges
  std::vector<std::vector<utf8::ByteRange>> seqs;
  auto rangeOf = [&](uint32_t lo, uint32_t hi) -> uint32_t {
    const auto [it, fresh] = encoded.emplace((uint64_t(lo) << 21) | hi, uint32_t(p.ranges.size()));
    if (!fresh) return it->second;
    std::vector<DeparturePlan::Out> outs;
    if (hi < 0x80) {  // one byte each: no encoding to work out
      outs.push_back({uint8_t(lo), uint8_t(hi), -1});
      cut(lo, hi);
      p.ranges.push_back(std::move(outs));
      return it->second;
    }
    seqs.clear();
    utf8::encodeRange(lo, hi, seqs);
    for (auto& sq : seqs) {
      int32_t next = -1;
      for (size_t k = sq.size(); k-- > 1;) next = tail(sq[k], next);
      outs.push_back({sq[0].first, sq[0].second, next});
      for (auto& r : sq) cut(r.first, r.second);
    }
    p.ranges.push_back(std::move(outs));
    return it->second;
  };
  uint8_t bytes[4];
  p.nodes[0].live = !p.nodes[0].word;
  std::vector<std::pair<uint32_t, uint32_t>> taken;
  // The work and the edges grow with positions × excluded ranges: a small node could ask for more
  // edges than the automaton may have states. Bounded as the states are.
  size_t work = 0;
  for (DeparturePlan::Node& node : p.nodes) {
    if (!node.live) continue;  // past a whole word the departure's paths have ended: nothing is built there
    const bool first = &node == &p.nodes[0];
    taken = outside;
    for (auto& c : node.children) {
      taken.push_back({c.first, c.first});
      p.nodes[c.second].live = !p.nodes[c.second].word;
      const int len = utf8::encode(c.first, bytes);
      for (int k = 0; k < len; k++) cut(bytes[k], bytes[k]);
      p.bound += size_t(len);
    }
    if ((work += outside.size() + node.children.size() + 1) > lim.maxStates)
      limitFail(path, "automatonStates",
                "a departure of " + std::to_string(words.arr.size()) + " words and " + std::to_string(outside.size()) +
                    " excluded ranges needs more than " + std::to_string(lim.maxStates) +
                    " automaton edges (fewer or shorter words, or fewer ranges)");
    if (first && onward) {
      p.bound += 1;
      continue;
    }
    std::sort(taken.begin(), taken.end());
    uint32_t next = 0;
    size_t outs = 0;
    node.outsBegin = uint32_t(p.outs.size());
    auto leave = [&](uint32_t lo, uint32_t hi) {
      // Split where the encoding grows past one byte: the part above is the same range at most
      // positions (every code point past the words' last ASCII one), encoded once.
      for (const auto& [a, b] : {std::make_pair(lo, std::min(hi, 0x7Fu)), std::make_pair(std::max(lo, 0x80u), hi)}) {
        if (a > b) continue;
        const uint32_t r = rangeOf(a, b);
        if (!p.ranges[r].empty()) p.outs.push_back(r);
        outs += p.ranges[r].size();
      }
    };
    for (auto& r : taken) {
      if (r.first > next) leave(next, r.first - 1);
      next = std::max(next, r.second + 1);
    }
    if (next <= 0x10FFFF) leave(next, 0x10FFFF);
    node.outsEnd = uint32_t(p.outs.size());
    work += outs;
    p.bound += 1;
  }
  p.bound += p.tails.size() + 2;
  for (size_t i = p.nodes.size(); i-- > 0;) {  // children after their parents: from the last back
    DeparturePlan::Node& node = p.nodes[i];
    if (!node.live) continue;
    node.reaches = node.outsEnd > node.outsBegin;
    for (auto& c : node.children) node.reaches = node.reaches || (p.nodes[c.second].live && p.nodes[c.second].reaches);
  }
  p.nonEmpty = p.nodes[0].live && p.nodes[0].reaches;
  return departureMemo.emplace(&n, std::move(p)).first->second;
}

Frag NfaBuilder::Impl::departure(const json::Value& n, const std::string& path) {
  const DeparturePlan& p = departurePlan(n, path);
  const uint32_t in = add(), out = add();
  DepartureBuild d{&p, out, std::vector<uint32_t>(p.tails.size())};
  for (auto& t : d.tailAt) t = add();
  for (size_t t = 0; t < p.tails.size(); t++) {
    const DeparturePlan::Tail& tail = p.tails[t];
    byteEdge(d.tailAt[t], tail.lo, tail.hi, tail.next < 0 ? out : d.tailAt[size_t(tail.next)]);
  }
  departureBuilds.push_back(std::move(d));
  departurePosition(in, uint32_t(departureBuilds.size() - 1), 0);
  return {in, out};
}

// Position `position`'s edges from state `from`: its ways out, and each continuing character to
// the next position's state, a placeholder when the build is lazy (built here otherwise, a parent
// before its children: no recursion however long a word).
void NfaBuilder::Impl::departurePosition(uint32_t from, uint32_t build, uint32_t position) {
  std::vector<std::pair<uint32_t, uint32_t>> work{{from, position}};
  uint8_t bytes[4];
  while (!work.empty()) {
    const auto [state, at] = work.back();
    work.pop_back();
    const DepartureBuild& d = departureBuilds[build];
    const DeparturePlan::Node& node = d.plan->nodes[at];
    for (uint32_t k = node.outsBegin; k < node.outsEnd; k++)
      for (const DeparturePlan::Out& o : d.plan->ranges[d.plan->outs[k]])
        byteEdge(state, o.lo, o.hi, o.tail < 0 ? d.out : d.tailAt[size_t(o.tail)]);
    for (auto& [cp, child] : node.children) {
      if (!d.plan->nodes[child].live) continue;
      const int len = utf8::encode(cp, bytes);
      uint32_t cur = state;
      for (int k = 0; k + 1 < len; k++) {
        const uint32_t nx = add();
        byteEdge(cur, bytes[k], bytes[k], nx);
        cur = nx;
      }
      const uint32_t next = add();
      byteEdge(cur, bytes[len - 1], bytes[len - 1], next);
      if (!lazy || insideFragment) {
        work.push_back({next, child});
      } else {
        nfa.states[next].thunk = int32_t(thunks.size());
        thunks.push_back({nullptr, "departure", {}, d.out});  // its continuation: the departure's end
        thunks.back().departure = int32_t(build);
        thunks.back().position = child;
        thunks.back().marks = marks();
      }
    }
  }
}

void NfaBuilder::Impl::expandDeparture(uint32_t state, const Thunk& t) {
  const uint32_t begin = uint32_t(nfa.states.size());
  const uint8_t saved = marks();
  setMarks(t.marks);
  departurePosition(state, uint32_t(t.departure), t.position);  // the placeholder state is the position's own
  setMarks(saved);
  finishRange(begin);
}

void NfaBuilder::Impl::departureCuts(const json::Value& n) {
  const DeparturePlan& p = departurePlan(n, "");
  for (unsigned b = 0; b < 257; b++) nfa.cut[b] = nfa.cut[b] || p.cut[b];
}

}  // namespace toolmask
