#include "nfa.hpp"

#include <algorithm>
#include <map>
#include <cstdio>
#include <tuple>

#include "utf8.hpp"

namespace toolmask {
namespace {

struct Frag { uint32_t in, out; };

class Builder {
 public:
  Builder(const json::Value& grammar, const NfaLimits& limits) : g_(grammar), lim_(limits) {
    if (const json::Value* d = grammar.get("maxRecursionDepth"); d && d->kind == json::Kind::Number)
      lim_.maxRecursionDepth = std::max(0, int(d->num));
    rules_ = grammar.get("rules");
    if (rules_ && rules_->kind != json::Kind::Object && rules_->kind != json::Kind::Null)
      throw GrammarError("grammar.rules must be an object of named rules");
  }

  Nfa run() {
    const json::Value* root = g_.get("root");
    if (!root) throw GrammarError("grammar.root is missing: pass { root: <node> }");
    return finish(build(*root, "root"));
  }

  Nfa runNode(const json::Value& node) {
    trackFragments_ = false;
    return finish(build(node, "fragment"));
  }

 private:
  const json::Value& g_;
  NfaLimits lim_;
  const json::Value* rules_ = nullptr;
  Nfa nfa_;
  std::vector<std::string> refStack_;
  bool trackFragments_ = true;
  int insideFragment_ = 0;

  Nfa finish(Frag f) {
    nfa_.start = f.in;
    nfa_.accept = f.out;
    markProductive();
    nfa_.fragmentOf.assign(nfa_.states.size(), -1);
    for (size_t i = 0; i < nfa_.fragments.size(); i++) {
      const Fragment& fr = nfa_.fragments[i];
      for (uint32_t k = 0; k < fr.count; k++) nfa_.fragmentOf[fr.base + k] = int32_t(i);
    }
    return std::move(nfa_);
  }

  // Plain text nodes only: no tokens, refs or any-order sets, whose layout could differ per instance.
  static bool plain(const json::Value& n) {
    if (n.kind == json::Kind::Array) { for (auto& x : n.arr) if (!plain(x)) return false; return true; }
    if (n.kind != json::Kind::Object) return true;
    if (const json::Value* t = n.get("type"); t && t->kind == json::Kind::String &&
        (t->str == "token" || t->str == "ref" || t->str == "perm" || t->str == "jsonSchema"))
      return false;
    for (auto& kv : n.obj) if (!plain(kv.second)) return false;
    return true;
  }
  static bool loops(const json::Value& n) {
    const json::Value* t = n.get("type");
    if (!t || t->kind != json::Kind::String) return false;
    if (t->str == "until") return true;
    if (t->str == "repeat") { const json::Value* mx = n.get("max"); return mx && mx->kind == json::Kind::Null; }
    return false;
  }

  uint32_t add() {
    if (nfa_.states.size() >= lim_.maxStates)
      throw GrammarError("grammar too large: more than " + std::to_string(lim_.maxStates) +
                         " automaton states (reduce repetition bounds or the number of any-order items)");
    nfa_.states.emplace_back();
    return uint32_t(nfa_.states.size() - 1);
  }
  void eps(uint32_t a, uint32_t b) { nfa_.states[a].eps.push_back(b); }
  void byteEdge(uint32_t a, uint8_t lo, uint8_t hi, uint32_t b) { nfa_.states[a].bytes.push_back({lo, hi, b}); }

  [[noreturn]] static void fail(const std::string& path, const std::string& what) {
    throw GrammarError(path + ": " + what);
  }
  static const json::Value& field(const json::Value& n, const char* key, const std::string& path) {
    const json::Value* v = n.get(key);
    if (!v) fail(path, std::string("missing \"") + key + "\"");
    return *v;
  }
  static double number(const json::Value& v, const std::string& path) {
    if (v.kind != json::Kind::Number) fail(path, "expected a number");
    return v.num;
  }

  Frag build(const json::Value& n, const std::string& path) {
    if (trackFragments_ && !insideFragment_ && n.kind == json::Kind::Object && loops(n) && plain(n)) {
      insideFragment_++;
      uint32_t base = uint32_t(nfa_.states.size());
      Frag f = buildNode(n, path);
      insideFragment_--;
      Fragment fr;
      fr.base = base;
      fr.count = uint32_t(nfa_.states.size()) - base;
      fr.in = f.in;
      fr.out = f.out;
      fr.shape = canonicalJson(n);
      fr.node = &n;
      nfa_.fragments.push_back(std::move(fr));
      return f;
    }
    return buildNode(n, path);
  }

  Frag buildNode(const json::Value& n, const std::string& path) {
    if (n.kind != json::Kind::Object) fail(path, "a grammar node must be an object with a \"type\"");
    const json::Value& t = field(n, "type", path);
    if (t.kind != json::Kind::String) fail(path, "\"type\" must be a string");
    const std::string& type = t.str;
    if (type == "literal") return literal(field(n, "text", path), path);
    if (type == "charClass") return charClass(n, path);
    if (type == "byteClass") return byteClass(n, path);
    if (type == "seq") return seq(n, path);
    if (type == "alt") return alt(n, path);
    if (type == "repeat") return repeat(n, path);
    if (type == "until") return until(n, path);
    if (type == "token") return token(n, path);
    if (type == "perm") return perm(n, path);
    if (type == "ref") return ref(n, path);
    if (type == "jsonSchema") fail(path, "jsonSchema nodes must be lowered before compiling (use compileGrammar from the package)");
    fail(path, "unknown node type \"" + type + "\"");
  }

  Frag literal(const json::Value& text, const std::string& path) {
    if (text.kind != json::Kind::String) fail(path, "literal text must be a string");
    uint32_t in = add(), cur = in;
    for (unsigned char c : text.str) { uint32_t nx = add(); byteEdge(cur, c, c, nx); cur = nx; }
    return {in, cur};
  }

  std::vector<std::pair<uint32_t, uint32_t>> ranges(const json::Value& n, const std::string& path, uint32_t maxValue) {
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

  Frag charClass(const json::Value& n, const std::string& path) {
    auto rs = ranges(n, path, 0x10FFFF);
    std::vector<std::vector<utf8::ByteRange>> seqs;
    for (auto& r : rs) utf8::encodeRange(r.first, r.second, seqs);
    uint32_t in = add(), out = add();
    // Share continuation states between sequences with the same tail so classes stay small.
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

  Frag byteClass(const json::Value& n, const std::string& path) {
    auto rs = ranges(n, path, 255);
    uint32_t in = add(), out = add();
    for (auto& r : rs) byteEdge(in, uint8_t(r.first), uint8_t(r.second), out);
    return {in, out};
  }

  const std::vector<json::Value>& items(const json::Value& n, const std::string& path) {
    const json::Value& it = field(n, "items", path);
    if (it.kind != json::Kind::Array) fail(path, "\"items\" must be an array");
    return it.arr;
  }

  Frag seq(const json::Value& n, const std::string& path) {
    auto& it = items(n, path);
    uint32_t in = add(), cur = in;
    for (size_t i = 0; i < it.size(); i++) {
      Frag f = build(it[i], path + ".items[" + std::to_string(i) + "]");
      eps(cur, f.in);
      cur = f.out;
    }
    return {in, cur};
  }

  Frag alt(const json::Value& n, const std::string& path) {
    auto& it = items(n, path);
    uint32_t in = add(), out = add();
    for (size_t i = 0; i < it.size(); i++) {
      Frag f = build(it[i], path + ".items[" + std::to_string(i) + "]");
      eps(in, f.in);
      eps(f.out, out);
    }
    return {in, out};  // no items: the empty language (out unreachable)
  }

  Frag repeat(const json::Value& n, const std::string& path) {
    const json::Value& item = field(n, "item", path);
    double mn = number(field(n, "min", path), path);
    const json::Value& mxv = field(n, "max", path);
    bool unbounded = mxv.kind == json::Kind::Null;
    double mx = unbounded ? 0 : number(mxv, path);
    if (mn < 0 || mn != double(uint32_t(mn)) || (!unbounded && (mx < mn || mx != double(uint32_t(mx)))))
      fail(path, "repeat needs integers 0 <= min <= max (max null = unbounded)");
    if (mn > 100000 || mx > 100000) fail(path, "repeat bound above 100000 is not supported");
    std::string ip = path + ".item";
    uint32_t in = add(), cur = in;
    for (uint32_t i = 0; i < uint32_t(mn); i++) { Frag f = build(item, ip); eps(cur, f.in); cur = f.out; }
    if (unbounded) {
      uint32_t loop = add();
      eps(cur, loop);
      Frag f = build(item, ip);
      eps(loop, f.in);
      eps(f.out, loop);
      return {in, loop};
    }
    uint32_t out = add();
    eps(cur, out);
    for (uint32_t i = uint32_t(mn); i < uint32_t(mx); i++) {
      Frag f = build(item, ip);
      eps(cur, f.in);
      eps(f.out, out);
      cur = f.out;
    }
    return {in, out};
  }

  // Text that does not contain T, then T: the product of T's KMP automaton with
  // a UTF-8 validator (and a code point counter when maxLength is set).
  Frag until(const json::Value& n, const std::string& path) {
    const json::Value& tv = field(n, "terminator", path);
    if (tv.kind != json::Kind::String || tv.str.empty()) fail(path, "until needs a non-empty \"terminator\" string");
    const std::string& T = tv.str;
    long maxLen = -1;
    if (const json::Value* ml = n.get("maxLength"); ml && ml->kind != json::Kind::Null) {
      double v = number(*ml, path + ".maxLength");
      if (v < 0 || v != double(long(v)) || v > 100000) fail(path + ".maxLength", "must be an integer in 0..100000");
      maxLen = long(v);
    }
    size_t m = T.size();
    std::vector<size_t> fail_(m + 1, 0);
    for (size_t i = 1, k = 0; i < m; i++) {
      while (k && T[i] != T[k]) k = fail_[k];
      if (T[i] == T[k]) k++;
      fail_[i + 1] = k;
    }
    auto kmp = [&](size_t k, unsigned char b) {
      while (k && (unsigned char)T[k] != b) k = fail_[k];
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
          if (nk == m) to = out;
          else if (maxLen >= 0 && np == utf8::Boundary && nc - prefChars[nk] > maxLen) ok = false;
          else to = id({nk, np, maxLen >= 0 ? nc : 0});
          if (ok && nk == m && maxLen >= 0 && nc - prefChars[m] > maxLen) ok = false;
        }
        if (!ok) { flush(b - 1); continue; }
        if (runStart >= 0 && to != runTo) flush(b - 1);
        if (runStart < 0) { runStart = b; runTo = to; }
      }
      flush(255);
    }
    return {in, out};
  }

  Frag token(const json::Value& n, const std::string& path) {
    const json::Value* idv = n.get("id");
    if (!idv || idv->kind != json::Kind::Number)
      fail(path, "token terminal needs a numeric \"id\" (pieces are resolved against the vocabulary first)");
    double v = idv->num;
    if (v < 0 || v != double(uint32_t(v)) || v >= lim_.vocabSize)
      fail(path, "token id " + std::to_string(long(v)) + " is outside the vocabulary (size " + std::to_string(lim_.vocabSize) + ")");
    uint32_t in = add(), out = add();
    nfa_.states[in].tokens.push_back({uint32_t(v), out});
    return {in, out};
  }

  // Any order, each item at most once: one NFA node per subset of used items.
  Frag perm(const json::Value& n, const std::string& path) {
    const json::Value& it = field(n, "items", path);
    if (it.kind != json::Kind::Array) fail(path, "\"items\" must be an array");
    size_t k = it.arr.size();
    if (k > size_t(lim_.maxPermItems))
      fail(path, "any-order set of " + std::to_string(k) + " items exceeds the limit of " +
                     std::to_string(lim_.maxPermItems) + " (use a fixed order for larger sets)");
    uint32_t required = 0;
    for (size_t i = 0; i < k; i++) {
      const json::Value& e = it.arr[i];
      std::string ep = path + ".items[" + std::to_string(i) + "]";
      if (e.kind != json::Kind::Object || !e.get("node")) fail(ep, "expected { node, required }");
      const json::Value* r = e.get("required");
      if (r && r->kind == json::Kind::Bool && r->b) required |= 1u << i;
    }
    const json::Value* sep = n.get("separator");
    uint32_t in = add(), out = add();
    std::vector<uint32_t> node(size_t(1) << k, UINT32_MAX);
    node[0] = in;
    for (uint32_t s = 0; s < (1u << k); s++) {
      if (node[s] == UINT32_MAX) continue;
      if ((s & required) == required) eps(node[s], out);
      for (size_t i = 0; i < k; i++) {
        if (s & (1u << i)) continue;
        uint32_t from = node[s];
        if (s && sep && sep->kind != json::Kind::Null) {
          Frag f = build(*sep, path + ".separator");
          eps(from, f.in);
          from = f.out;
        }
        Frag f = build(*it.arr[i].get("node"), path + ".items[" + std::to_string(i) + "].node");
        eps(from, f.in);
        uint32_t t = s | (1u << i);
        if (node[t] == UINT32_MAX) node[t] = add();
        eps(f.out, node[t]);
      }
    }
    return {in, out};
  }

  Frag ref(const json::Value& n, const std::string& path) {
    const json::Value& nm = field(n, "name", path);
    if (nm.kind != json::Kind::String) fail(path, "ref \"name\" must be a string");
    const json::Value* rule = rules_ && rules_->kind == json::Kind::Object ? rules_->get(nm.str) : nullptr;
    if (!rule) fail(path, "ref to undefined rule \"" + nm.str + "\"");
    int depth = int(std::count(refStack_.begin(), refStack_.end(), nm.str));
    if (depth > lim_.maxRecursionDepth) return {add(), add()};  // deeper nesting: no path
    refStack_.push_back(nm.str);
    Frag f = build(*rule, "rules." + nm.str);
    refStack_.pop_back();
    return f;
  }

  void markProductive() {
    size_t N = nfa_.states.size();
    std::vector<std::vector<uint32_t>> rev(N);
    for (uint32_t s = 0; s < N; s++) {
      for (uint32_t t : nfa_.states[s].eps) rev[t].push_back(s);
      for (auto& e : nfa_.states[s].bytes) rev[e.to].push_back(s);
      for (auto& e : nfa_.states[s].tokens) rev[e.to].push_back(s);
    }
    nfa_.productive.assign(N, false);
    std::vector<uint32_t> stack{nfa_.accept};
    nfa_.productive[nfa_.accept] = true;
    while (!stack.empty()) {
      uint32_t s = stack.back();
      stack.pop_back();
      for (uint32_t p : rev[s]) if (!nfa_.productive[p]) { nfa_.productive[p] = true; stack.push_back(p); }
    }
  }
};

}  // namespace

std::string canonicalJson(const json::Value& v) {
  switch (v.kind) {
    case json::Kind::Null: return "null";
    case json::Kind::Bool: return v.b ? "true" : "false";
    case json::Kind::Number: { char buf[40]; snprintf(buf, sizeof buf, "%.17g", v.num); return buf; }
    case json::Kind::String: {
      std::string out = "\"";
      for (unsigned char c : v.str) {
        if (c == '"' || c == '\\') { out += '\\'; out += char(c); }
        else if (c < 0x20) { char buf[8]; snprintf(buf, sizeof buf, "\\u%04x", c); out += buf; }
        else out += char(c);
      }
      return out + "\"";
    }
    case json::Kind::Array: {
      std::string out = "[";
      for (size_t i = 0; i < v.arr.size(); i++) out += (i ? "," : "") + canonicalJson(v.arr[i]);
      return out + "]";
    }
    case json::Kind::Object: {
      std::vector<const std::pair<std::string, json::Value>*> kv;
      for (auto& x : v.obj) kv.push_back(&x);
      std::sort(kv.begin(), kv.end(), [](auto* a, auto* b) { return a->first < b->first; });
      std::string out = "{";
      for (size_t i = 0; i < kv.size(); i++) {
        json::Value key;
        key.kind = json::Kind::String;
        key.str = kv[i]->first;
        out += (i ? "," : "") + canonicalJson(key) + ":" + canonicalJson(kv[i]->second);
      }
      return out + "}";
    }
  }
  return "";
}

Nfa buildFragmentNfa(const json::Value& node, const NfaLimits& limits) {
  json::Value g;
  g.kind = json::Kind::Object;
  return Builder(g, limits).runNode(node);
}

Nfa buildNfa(const json::Value& grammar, const NfaLimits& limits) {
  if (grammar.kind != json::Kind::Object) throw GrammarError("grammar must be an object { root, rules? }");
  return Builder(grammar, limits).run();
}

}  // namespace toolmask
