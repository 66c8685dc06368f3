// Text terminals of the NFA: literals, character and byte classes, and until(T).
#include <algorithm>
#include <map>
#include <tuple>

#include "nfa_impl.hpp"
#include "until_table.hpp"
#include "utf8.hpp"

namespace toolmask {

Frag NfaBuilder::Impl::literal(const json::Value& text, const std::string& path) {
  if (text.kind != json::Kind::String) fail(path, "literal text must be a string");
  uint32_t in = add(), cur = in;
  for (unsigned char c : text.str) {
    uint32_t nx = add();
    byteEdge(cur, c, c, nx);
    cur = nx;
  }
  return {in, cur};
}

std::vector<std::pair<uint32_t, uint32_t>> NfaBuilder::Impl::ranges(const json::Value& n, const std::string& path,
                                                                    uint32_t maxValue) {
  const json::Value& r = field(n, "ranges", path);
  if (r.kind != json::Kind::Array) fail(path, "\"ranges\" must be an array of [lo, hi] pairs");
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i < r.arr.size(); i++) {
    const json::Value& p = r.arr[i];
    auto at = [&] { return path + ".ranges[" + std::to_string(i) + "]"; };  // made only for an error
    if (p.kind != json::Kind::Array || p.arr.size() != 2) fail(at(), "expected [lo, hi]");
    if (p.arr[0].kind != json::Kind::Number || p.arr[1].kind != json::Kind::Number) fail(at(), "expected a number");
    const double lo = p.arr[0].num, hi = p.arr[1].num;
    if (lo < 0 || hi > maxValue || lo > hi || lo != double(uint32_t(lo)) || hi != double(uint32_t(hi)))
      fail(at(), "range must satisfy 0 <= lo <= hi <= " + std::to_string(maxValue));
    out.push_back({uint32_t(lo), uint32_t(hi)});
  }
  std::sort(out.begin(), out.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (auto& x : out) {
    if (!merged.empty() && x.first <= merged.back().second + 1)
      merged.back().second = std::max(merged.back().second, x.second);
    else
      merged.push_back(x);
  }
  const json::Value* neg = n.get("negated");
  if (neg && neg->kind == json::Kind::Bool && neg->b) {
    std::vector<std::pair<uint32_t, uint32_t>> comp;
    uint32_t next = 0;
    for (auto& x : merged) {
      if (x.first > next) comp.push_back({next, x.first - 1});
      next = x.second + 1;
    }
    if (next <= maxValue) comp.push_back({next, maxValue});
    return comp;
  }
  return merged;
}

namespace {
// classInfo's memo key: the kind, "negated", then each [lo, hi] as given (two 32-bit integers).
// False when a pair is not two such numbers, or "ranges" is no array: ranges() refuses those.
bool classKey(const json::Value& n, bool chars, std::string& key) {
  const json::Value* r = n.get("ranges");
  if (!r || r->kind != json::Kind::Array) return false;
  const json::Value* neg = n.get("negated");
  key.reserve(2 + 8 * r->arr.size());
  key.push_back(chars ? 'c' : 'b');
  key.push_back(neg && neg->kind == json::Kind::Bool && neg->b ? 'n' : '-');
  for (auto& p : r->arr) {
    if (p.kind != json::Kind::Array || p.arr.size() != 2) return false;
    for (const json::Value& x : p.arr) {
      if (x.kind != json::Kind::Number || !(x.num >= 0 && x.num <= 4294967295.0) || x.num != double(uint32_t(x.num)))
        return false;
      const uint32_t v = uint32_t(x.num);
      key.append(reinterpret_cast<const char*>(&v), 4);
    }
  }
  return true;
}
}  // namespace

const NfaBuilder::Impl::ClassInfo& NfaBuilder::Impl::classInfo(const json::Value& n, const std::string& path,
                                                               bool chars) {
  const uint32_t maxValue = chars ? 0x10FFFF : 255;
  std::string& key = classKeyBuf;  // kept between calls: a lookup that finds the class allocates nothing
  key.clear();
  if (!classKey(n, chars, key)) {
    ranges(n, path, maxValue);  // throws: it refuses every class that makes no key
    throw std::logic_error("classInfo: a class ranges() accepts made no key");
  }
  if (auto it = classMemo.find(key); it != classMemo.end()) return it->second;
  ClassInfo info;
  info.ranges = ranges(n, path, maxValue);
  bool cut[257] = {};
  auto cutRange = [&](unsigned lo, unsigned hi) { cut[lo] = cut[hi + 1] = true; };
  if (chars) {
    for (auto& x : info.ranges) utf8::encodeRange(x.first, x.second, info.seqs);
    for (auto& sq : info.seqs) {
      info.seqBytes += sq.size();
      for (auto& br : sq) cutRange(br.first, br.second);
    }
  } else {
    for (auto& x : info.ranges) cutRange(x.first, x.second);
  }
  for (uint16_t b = 0; b < 257; b++)
    if (cut[b]) info.cuts.push_back(b);
  return classMemo.emplace(key, std::move(info)).first->second;
}

Frag NfaBuilder::Impl::charClass(const json::Value& n, const std::string& path) {
  const std::vector<std::vector<utf8::ByteRange>>& seqs = classInfo(n, path, true).seqs;
  uint32_t in = add(), out = add();
  // Sequences with the same tail share continuation states, so classes stay small.
  std::map<std::vector<utf8::ByteRange>, uint32_t> tails;
  for (auto& s : seqs) {
    uint32_t cur = out;
    for (size_t k = s.size(); k-- > 1;) {
      std::vector<utf8::ByteRange> tail(s.begin() + long(k), s.end());
      auto it = tails.find(tail);
      if (it != tails.end()) {
        cur = it->second;
        continue;
      }
      uint32_t st = add();
      byteEdge(st, s[k].first, s[k].second, cur);
      tails[tail] = st;
      cur = st;
    }
    byteEdge(in, s[0].first, s[0].second, cur);
  }
  return {in, out};
}

Frag NfaBuilder::Impl::byteClass(const json::Value& n, const std::string& path) {
  const std::vector<std::pair<uint32_t, uint32_t>>& rs = classInfo(n, path, false).ranges;
  uint32_t in = add(), out = add();
  for (auto& r : rs) byteEdge(in, uint8_t(r.first), uint8_t(r.second), out);
  return {in, out};
}

// Text that does not contain T, then T: the product of T's KMP automaton with
// a UTF-8 validator (and a code point counter when maxLength is set).
// textOnly (the "text" node): the same automaton, but the excluded string can never
// complete and the text may end at any character boundary.
Frag NfaBuilder::Impl::until(const json::Value& n, const std::string& path, bool textOnly) {
  const char* key = textOnly ? "exclude" : "terminator";
  const json::Value& tv = field(n, key, path);
  if (tv.kind != json::Kind::String || tv.str.empty())
    fail(path, std::string(textOnly ? "text" : "until") + " needs a non-empty \"" + key + "\" string");
  const std::string& T = tv.str;
  // A bounded text past lim.countTextAbove keeps its count in a counter (countedText below), else in
  // layers of copies, at most 100000.
  const bool gated = countingNode(n, lim);
  auto length = [&](const char* key) -> long {
    const json::Value* ml = n.get(key);
    if (!ml || ml->kind == json::Kind::Null) return -1;
    double v = number(*ml, path + "." + key);
    if (v < 0 || v > kMaxCount || v != double(long(v)))
      fail(path + "." + key, "must be a non-negative integer of at most 2^53");
    if (!gated && v > 100000)
      limitFail(path + "." + key, "stringLength", "a text of more than 100000 characters is not supported");
    return long(v);
  };
  long maxLen = length("maxLength");
  // minLength (until only): the terminator may complete only after that many code points of text.
  long minLen = textOnly ? 0 : std::max(0L, length("minLength"));
  if (maxLen >= 0 && minLen > maxLen) fail(path + ".minLength", "is larger than maxLength: no text fits");
  // trimNewline (until only): one newline that is the text's first character and one that is its
  // last are padding, not counted; the terminator's first byte must not recur in it.
  bool trim = false;
  if (const json::Value* tn = n.get("trimNewline"); !textOnly && tn && tn->kind == json::Kind::Bool) trim = tn->b;
  if (trim && T.find(T[0], 1) != std::string::npos)
    fail(path + ".trimNewline", "needs a terminator whose first byte does not recur in it");
  const size_t m = T.size();
  // The automaton without the counter (until_table.hpp). With maxLength, every counter value is a
  // layer of copies of its states, stamped from the runs (no per-byte work per layer).
  const std::shared_ptr<const UntilTable> table = untilTable(T, textOnly, trim);
  using Run = UntilTable::Run;
  const std::vector<UntilTable::Base>& base = table->base;
  const std::vector<std::vector<Run>>& runs = table->runs;
  const std::vector<long>& prefChars = table->prefChars;
  // Code points of text so far (`chars`) and those a partial match would hand back if it completes.
  auto charsAfter = [&](const Run& r, long chars) { return chars + (r.counts ? 1 : 0); };
  auto textChars = [&](const Run& r, long nc) {
    if (textOnly) return nc;
    size_t nk = r.to < 0 ? m : base[size_t(r.to)].k;
    return nc - prefChars[nk] - (r.pad ? 1 : 0);
  };
  const size_t B = base.size();
  if (gated) {
    // One counter of the code points read (a partial match of T included, as in the layers below):
    // a run that completes a counted one adds one; a run that completes a code point needs the
    // text's count at most maxLength, one that completes T at least minLength; completing T (or,
    // for text, stopping at a character boundary) leaves the counter.
    const uint64_t sat = maxLen >= 0 ? UINT64_MAX : uint64_t(minLen + prefChars[m] + (trim ? 1 : 0));
    const uint32_t c = newCounter(sat == UINT64_MAX ? std::vector<uint64_t>{} : std::vector<uint64_t>{sat});
    std::vector<uint64_t> points = nfa.counters[c].points;
    uint32_t in = add(), out = add();
    std::vector<uint32_t> ids(B);
    for (size_t b = 0; b < B; b++) ids[b] = add();
    Gate reset;
    reset.counter = c;
    reset.reset = true;
    uint32_t zero = gateState(reset);
    eps(in, zero);
    eps(zero, ids[0]);
    std::map<std::tuple<int32_t, bool, uint64_t, uint64_t>, uint32_t> gates;
    auto gateTo = [&](int32_t to, const Gate& g) {
      uint32_t& slot = gates[{to, g.inc, g.lo, g.hi}];
      if (!slot) {
        slot = gateState(g);
        eps(slot, to < 0 ? out : ids[size_t(to)]);
        if (g.lo > 0) points.push_back(g.lo);
        if (g.hi != UINT64_MAX) points.push_back(g.hi);
      }
      return slot;
    };
    for (size_t b = 0; b < B; b++) {
      if (textOnly && base[b].ph == utf8::Boundary) {
        Gate leave;
        leave.counter = c;
        leave.drop = true;
        eps(ids[b], gateTo(-1, leave));
      }
      for (const Run& r : runs[b]) {
        const uint64_t offset =
            textOnly ? 0 : uint64_t(prefChars[r.to < 0 ? m : base[size_t(r.to)].k] + (r.pad ? 1 : 0));
        Gate g;
        g.counter = c;
        g.inc = r.counts;
        g.sat = sat;
        g.drop = r.to < 0;
        if (maxLen >= 0 && r.completes) g.hi = uint64_t(maxLen) + offset;
        if (minLen > 0 && r.to < 0) g.lo = uint64_t(minLen) + offset;
        const bool plainEdge = !g.inc && !g.drop && g.hi == UINT64_MAX && g.lo == 0;
        uint32_t to = plainEdge ? ids[size_t(r.to)] : gateTo(r.to, g);
        byteRun(ids[b], r.lo, r.hi, to);
      }
    }
    std::sort(points.begin(), points.end());
    points.erase(std::unique(points.begin(), points.end()), points.end());
    nfa.counters[c].points = std::move(points);
    return {in, out};
  }
  // A partial match of T counts as text until it completes: counts run up to maxLength + |T| chars.
  // Without maxLength, a minLength counter stops at minLength + |T| (past it every completion has enough text).
  const bool counting = maxLen >= 0 || minLen > 0;
  const long top = maxLen >= 0 ? maxLen : minLen;
  const long layers = counting ? top + 1 + (textOnly ? 0 : prefChars[m]) + (trim ? 1 : 0) : 1;
  if (counting && double(B) * double(layers) > double(lim.maxStates))
    limitFail(path + ".maxLength", "automatonStates",
              "a text of at most " + std::to_string(maxLen) + " characters ending at " + json::canonical(tv) +
                  " needs " + std::to_string(B) + " × " + std::to_string(layers) +
                  " automaton states, more than the limit of " + std::to_string(lim.maxStates) + " (lower maxLength)");
  uint32_t out = add();
  std::vector<uint32_t> ids(B * size_t(layers), 0);  // 0: not built (state 0 is never a layer state here)
  std::vector<std::pair<size_t, long>> work;
  auto id = [&](size_t b, long c) {
    uint32_t& slot = ids[size_t(c) * B + b];
    if (!slot) {
      slot = add();
      work.push_back({b, c});
    }
    return slot;
  };
  uint32_t in = id(0, 0);
  while (!work.empty()) {
    auto [b, chars] = work.back();
    work.pop_back();
    uint32_t from = ids[size_t(chars) * B + b];
    if (textOnly && base[b].ph == utf8::Boundary) eps(from, out);
    for (const Run& r : runs[b]) {
      long nc = !counting ? 0 : maxLen >= 0 ? charsAfter(r, chars) : std::min(charsAfter(r, chars), layers - 1);
      if (maxLen >= 0 && r.completes && textChars(r, nc) > maxLen) continue;
      if (minLen > 0 && r.to < 0 && textChars(r, nc) < minLen) continue;
      uint32_t to = r.to < 0 ? out : id(size_t(r.to), nc);
      byteRun(from, r.lo, r.hi, to);
    }
  }
  return {in, out};
}

// Every byte boundary any edge of this grammar can have, found before anything is built,
// so the lazily growing automaton can fix its byte classes up front.
void NfaBuilder::Impl::collectCuts(const json::Value& n, int depth, RefsMet* refs) {
  if (depth > 10000) return;
  auto cutRange = [&](unsigned lo, unsigned hi) {
    nfa.cut[lo] = true;
    nfa.cut[hi + 1] = true;
  };
  if (n.kind == json::Kind::Array) {
    for (auto& x : n.arr) collectCuts(x, depth + 1, refs);
    return;
  }
  if (n.kind != json::Kind::Object) return;
  const IrType type = irType(n);
  try {
    if (type == IrType::Literal) {
      if (const json::Value* s = n.get("text"); s && s->kind == json::Kind::String)
        for (unsigned char c : s->str) cutRange(c, c);
    } else if (type == IrType::CharClass || type == IrType::ByteClass) {
      for (uint16_t b : classInfo(n, "", type == IrType::CharClass).cuts) nfa.cut[b] = true;
    } else if (type == IrType::Ref) {
      if (const json::Value* nm = n.get("name"); refs && nm && nm->kind == json::Kind::String)
        if (refs->seen.insert(nm->str).second) refs->names.push_back(&nm->str);
    } else if (type == IrType::Departure) {
      departureCuts(n);
      return;  // its words and ranges hold no nodes
    } else if (type == IrType::Token) {
      if (const json::Value* id = n.get("id");
          id && id->kind == json::Kind::Number && id->num >= 0 && id->num < lim.vocabSize)
        tokenIds.push_back(uint32_t(id->num));
    } else if (type == IrType::Until || type == IrType::Text) {
      if (const json::Value* s = n.get(type == IrType::Until ? "terminator" : "exclude");
          s && s->kind == json::Kind::String)
        for (unsigned char c : s->str) cutRange(c, c);
      // trimNewline tells a newline from other characters.
      if (const json::Value* tn = n.get("trimNewline"); tn && tn->kind == json::Kind::Bool && tn->b)
        cutRange('\n', '\n');
      // The UTF-8 validator's own boundaries.
      for (unsigned b : {0x80u, 0x90u, 0xA0u, 0xC0u, 0xC2u, 0xE0u, 0xE1u, 0xEDu, 0xEEu, 0xF0u, 0xF1u, 0xF4u, 0xF5u})
        nfa.cut[b] = true;
    }
  } catch (const GrammarError&) {
    // Malformed nodes are reported when they are built.
  }
  for (auto& kv : n.obj)
    if (mayHoldNodes(kv)) collectCuts(kv.second, depth + 1, refs);
}

}  // namespace toolmask
