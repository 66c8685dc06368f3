// Text terminals of the NFA: literals, character and byte classes, and until(T).
#include <algorithm>
#include <map>
#include <tuple>

#include "nfa_impl.hpp"
#include "utf8.hpp"

namespace toolmask {

Frag NfaBuilder::Impl::literal(const json::Value& text, const std::string& path) {
  if (text.kind != json::Kind::String) fail(path, "literal text must be a string");
  uint32_t in = add(), cur = in;
  for (unsigned char c : text.str) { uint32_t nx = add(); byteEdge(cur, c, c, nx); cur = nx; }
  return {in, cur};
}

std::vector<std::pair<uint32_t, uint32_t>> NfaBuilder::Impl::ranges(const json::Value& n, const std::string& path,
                                                                   uint32_t maxValue) {
  const json::Value& r = field(n, "ranges", path);
  if (r.kind != json::Kind::Array) fail(path, "\"ranges\" must be an array of [lo, hi] pairs");
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (size_t i = 0; i < r.arr.size(); i++) {
    const json::Value& p = r.arr[i];
    std::string ip = path + ".ranges[" + std::to_string(i) + "]";
    if (p.kind != json::Kind::Array || p.arr.size() != 2) fail(ip, "expected [lo, hi]");
    double lo = number(p.arr[0], ip), hi = number(p.arr[1], ip);
    if (lo < 0 || hi > maxValue || lo > hi || lo != double(uint32_t(lo)) || hi != double(uint32_t(hi)))
      fail(ip, "range must satisfy 0 <= lo <= hi <= " + std::to_string(maxValue));
    out.push_back({uint32_t(lo), uint32_t(hi)});
  }
  std::sort(out.begin(), out.end());
  std::vector<std::pair<uint32_t, uint32_t>> merged;
  for (auto& x : out) {
    if (!merged.empty() && x.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, x.second);
    else merged.push_back(x);
  }
  const json::Value* neg = n.get("negated");
  if (neg && neg->kind == json::Kind::Bool && neg->b) {
    std::vector<std::pair<uint32_t, uint32_t>> comp;
    uint32_t next = 0;
    for (auto& x : merged) { if (x.first > next) comp.push_back({next, x.first - 1}); next = x.second + 1; }
    if (next <= maxValue) comp.push_back({next, maxValue});
    return comp;
  }
  return merged;
}

Frag NfaBuilder::Impl::charClass(const json::Value& n, const std::string& path) {
  auto rs = ranges(n, path, 0x10FFFF);
  std::vector<std::vector<utf8::ByteRange>> seqs;
  for (auto& r : rs) utf8::encodeRange(r.first, r.second, seqs);
  uint32_t in = add(), out = add();
  // Sequences with the same tail share continuation states, so classes stay small.
  std::map<std::vector<utf8::ByteRange>, uint32_t> tails;
  for (auto& s : seqs) {
    uint32_t cur = out;
    for (size_t k = s.size(); k-- > 1;) {
      std::vector<utf8::ByteRange> tail(s.begin() + long(k), s.end());
      auto it = tails.find(tail);
      if (it != tails.end()) { cur = it->second; continue; }
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
  auto rs = ranges(n, path, 255);
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
  long maxLen = -1;
  if (const json::Value* ml = n.get("maxLength"); ml && ml->kind != json::Kind::Null) {
    double v = number(*ml, path + ".maxLength");
    if (v < 0 || v != double(long(v)) || v > 100000) fail(path + ".maxLength", "must be an integer in 0..100000");
    maxLen = long(v);
  }
  size_t m = T.size();
  std::vector<size_t> back(m + 1, 0);
  for (size_t i = 1, k = 0; i < m; i++) {
    while (k && T[i] != T[k]) k = back[k];
    if (T[i] == T[k]) k++;
    back[i + 1] = k;
  }
  auto kmp = [&](size_t k, unsigned char b) {
    while (k && (unsigned char)T[k] != b) k = back[k];
    if ((unsigned char)T[k] == b) k++;
    return k;
  };
  // Complete code points inside T[0:k]: they are terminator, not text, if the match completes.
  std::vector<long> prefChars(m + 1, 0);
  for (size_t k = 1; k <= m; k++) prefChars[k] = prefChars[k - 1] + (((unsigned char)T[k - 1] & 0xC0) != 0x80 ? 1 : 0);

  uint32_t out = add();
  using Key = std::tuple<size_t, uint8_t, long>;
  std::map<Key, uint32_t> ids;
  std::vector<Key> work;
  auto id = [&](Key key) {
    auto it = ids.find(key);
    if (it != ids.end()) return it->second;
    uint32_t s = add();
    ids[key] = s;
    work.push_back(key);
    return s;
  };
  uint32_t in = id({0, utf8::Boundary, 0});
  while (!work.empty()) {
    Key key = work.back();
    work.pop_back();
    auto [k, ph, chars] = key;
    uint32_t from = ids[key];
    if (textOnly && ph == utf8::Boundary) eps(from, out);
    int runStart = -1;
    uint32_t runTo = 0;
    auto flush = [&](int end) { if (runStart >= 0) byteEdge(from, uint8_t(runStart), uint8_t(end), runTo); runStart = -1; };
    for (int b = 0; b < 256; b++) {
      uint8_t np = utf8::step(ph, uint8_t(b));
      bool ok = np != utf8::Invalid;
      uint32_t to = 0;
      if (ok) {
        size_t nk = kmp(k, uint8_t(b));
        long nc = chars + (np == utf8::Boundary ? 1 : 0);
        // A partial match is terminator if it completes, but always text for "text".
        if (maxLen >= 0 && np == utf8::Boundary && nc - (textOnly ? 0 : prefChars[nk]) > maxLen) ok = false;
        else if (nk == m && textOnly) ok = false;
        else to = nk == m ? out : id({nk, np, maxLen >= 0 ? nc : 0});
      }
      if (!ok) { flush(b - 1); continue; }
      if (runStart >= 0 && to != runTo) flush(b - 1);
      if (runStart < 0) { runStart = b; runTo = to; }
    }
    flush(255);
  }
  return {in, out};
}

// Every byte boundary any edge of this grammar can have, found before anything is built,
// so the lazily growing automaton can fix its byte classes up front.
void NfaBuilder::Impl::collectCuts(const json::Value& n, int depth) {
  if (depth > 10000) return;
  auto cutRange = [&](unsigned lo, unsigned hi) { nfa.cut[lo] = true; nfa.cut[hi + 1] = true; };
  if (n.kind == json::Kind::Array) { for (auto& x : n.arr) collectCuts(x, depth + 1); return; }
  if (n.kind != json::Kind::Object) return;
  const json::Value* t = n.get("type");
  std::string type = t && t->kind == json::Kind::String ? t->str : "";
  try {
    if (type == "literal") {
      if (const json::Value* s = n.get("text"); s && s->kind == json::Kind::String)
        for (unsigned char c : s->str) cutRange(c, c);
    } else if (type == "charClass") {
      std::vector<std::vector<utf8::ByteRange>> seqs;
      for (auto& r : ranges(n, "", 0x10FFFF)) utf8::encodeRange(r.first, r.second, seqs);
      for (auto& s : seqs) for (auto& br : s) cutRange(br.first, br.second);
    } else if (type == "byteClass") {
      for (auto& r : ranges(n, "", 255)) cutRange(r.first, r.second);
    } else if (type == "token") {
      if (const json::Value* id = n.get("id"); id && id->kind == json::Kind::Number && id->num >= 0 && id->num < lim.vocabSize)
        tokenIds.push_back(uint32_t(id->num));
    } else if (type == "until" || type == "text") {
      if (const json::Value* s = n.get(type == "until" ? "terminator" : "exclude"); s && s->kind == json::Kind::String)
        for (unsigned char c : s->str) cutRange(c, c);
      // The UTF-8 validator's own boundaries.
      for (unsigned b : {0x80u, 0x90u, 0xA0u, 0xC0u, 0xC2u, 0xE0u, 0xE1u, 0xEDu, 0xEEu, 0xF0u, 0xF1u, 0xF4u, 0xF5u}) nfa.cut[b] = true;
    }
  } catch (const GrammarError&) {
    // Malformed nodes are reported when they are built.
  }
  for (auto& kv : n.obj) if (kv.first != "type") collectCuts(kv.second, depth + 1);
}

}  // namespace toolmask
