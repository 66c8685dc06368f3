// Whether a grammar may be built as walks reach it (NfaBuilder::Impl::deferTails). The eager build
// builds every rule and every any-order set's items once at compile time, so a malformed node or one
// past a limit is reported there; this check makes the same checks without building anything, and
// sums an upper bound of the states that build would make, so that a grammar the eager build would
// refuse at compile time (automatonStates included) is still refused there. Anything it has no rule
// for (a node type it does not know, a recursive rule inside an until's body, a bound past the
// state limit) answers false: the grammar is then built as before, and reports its own error.
#include <map>
#include <unordered_map>

#include "nfa_impl.hpp"
#include "utf8.hpp"

namespace toolmask {

namespace {

constexpr double kUnsure = -1;

// A length field of an until/text as the builder reads it: -1 when absent or null, -2 when malformed.
double lengthField(const json::Value& n, const char* key) {
  const json::Value* v = n.get(key);
  if (!v || v->kind == json::Kind::Null) return -1;
  if (v->kind != json::Kind::Number) return -2;
  const double x = v->num;
  if (x < 0 || x > kMaxCount || x != double(long(x))) return -2;
  return x;
}

// nullable (nfa.cpp) of the node as built: a ref to a rule the builder inlines read as the rule.
bool nullableInlined(const json::Value& n, InlinedGrammar& rules) {
  const IrType type = irType(n);
  if (type == IrType::NotANode) return true;
  if (type == IrType::Ref) {
    const json::Value* nm = n.get("name");
    if (!nm || nm->kind != json::Kind::String || !rules.inlines(nm->str)) return true;
    const json::Value* body = rules.original(nm->str);
    return !body || nullableInlined(*body, rules);
  }
  const json::Value* items = n.get("items");
  if (type == IrType::Seq || type == IrType::Alt) {
    const bool alt = type == IrType::Alt;
    if (!items || items->kind != json::Kind::Array) return nullable(n);
    for (auto& x : items->arr)
      if (nullableInlined(x, rules) == alt) return alt;
    return !alt;
  }
  if (type == IrType::Repeat) {
    const json::Value* mn = n.get("min");
    const json::Value* item = n.get("item");
    return !mn || mn->kind != json::Kind::Number || mn->num == 0 || !item || nullableInlined(*item, rules);
  }
  return nullable(n);
}

struct Checker {
  NfaBuilder::Impl& b;
  double limit;
  std::unordered_map<std::string, bool> rulesSeen;    // rules met outside any body: built once
  std::unordered_map<std::string, double> bodyRules;  // a rule's bound when built in full in a body
  std::vector<std::string> bodyStack;                 // rules being checked in body mode
  std::map<std::pair<std::string, bool>, std::pair<double, bool>> inlined;  // (rule, body) → (bound, plain)
  // Set by node(): whether the node it just bounded may be plain text to the builder (no token, ref,
  // any-order set or counted construct in it), where a fragment builds every copy of a repetition.
  bool plain = true;

  // An upper bound of the states building `n` makes, or kUnsure. `body`: inside an until's body,
  // built in full by a builder of its own (every use of a rule again, no counted construct, no
  // token or any-order set).
  double node(const json::Value& n, bool body) {
    const double x = visit(n, body);
    if (counting(n)) plain = false;
    return x;
  }

  // countingNode (nfa_count.cpp) of the node as built: a repetition of a ref to a small rule is
  // counted when the rule, inlined, cannot be empty.
  bool counting(const json::Value& n) {
    if (countingNode(n, b.lim)) return true;
    if (irType(n) != IrType::Repeat) return false;
    const json::Value* item = n.get("item");
    const json::Value* mx = n.get("max");
    if (!item || !mx || nullableInlined(*item, *b.rules)) return false;
    auto bound = [&](const char* key) {
      const json::Value* v = n.get(key);
      return v && v->kind == json::Kind::Number && v->num >= 0 ? v->num : -1;
    };
    const double above = double(b.lim.countAbove);
    return mx->kind == json::Kind::Null ? bound("min") > above : bound("max") > above;
  }

  double visit(const json::Value& n, bool body) {
    plain = true;
    const IrType type = irType(n);
    if (type == IrType::NotANode) return kUnsure;
    if (type == IrType::Literal) {
      const json::Value* x = n.get("text");
      return x && x->kind == json::Kind::String ? double(x->str.size()) + 1 : kUnsure;
    }
    if (type == IrType::CharClass || type == IrType::ByteClass) return byteRanges(n, type == IrType::CharClass);
    if (type == IrType::Seq || type == IrType::Alt) {
      const json::Value* items = n.get("items");
      if (!items || items->kind != json::Kind::Array) return kUnsure;
      double sum = 2;
      bool all = true;
      for (auto& x : items->arr) {
        if (!add(sum, node(x, body))) return kUnsure;
        all = all && plain;
      }
      plain = all;
      return sum;
    }
    if (type == IrType::Repeat) return repeat(n, body);
    if (type == IrType::Until) return untilHasBody(n) ? untilBody(n) : until(n, false, body);
    if (type == IrType::Text) return until(n, true, body);
    if (type == IrType::Token) {
      const json::Value* id = n.get("id");
      plain = false;
      if (body || !id || id->kind != json::Kind::Number) return kUnsure;
      const double v = id->num;
      return v >= 0 && v == double(uint32_t(v)) && v < b.lim.vocabSize ? 2 : kUnsure;
    }
    if (type == IrType::Perm) {
      const double x = body ? kUnsure : perm(n);
      plain = false;
      return x;
    }
    if (type == IrType::Ref) return ref(n, body);
    if (type == IrType::Intersect) return intersect(n);
    if (type == IrType::Departure) return departure(n);
    return kUnsure;  // jsonSchema (not lowered), or a type this check has no rule for
  }

  // Adds `x` to `sum`; false when x is kUnsure or the sum passes the limit.
  bool add(double& sum, double x) const {
    if (x < 0) return false;
    sum += x;
    return sum <= limit;
  }

  double byteRanges(const json::Value& n, bool chars) {
    try {
      const NfaBuilder::Impl::ClassInfo& info = b.classInfo(n, "", chars);
      return chars ? 2 + double(info.seqBytes) : 2;
    } catch (const GrammarError&) { return kUnsure; }
  }

  double repeat(const json::Value& n, bool body) {
    const json::Value* item = n.get("item");
    const json::Value* mnv = n.get("min");
    const json::Value* mxv = n.get("max");
    if (!item || !mnv || !mxv || mnv->kind != json::Kind::Number) return kUnsure;
    const bool unbounded = mxv->kind == json::Kind::Null;
    if (!unbounded && mxv->kind != json::Kind::Number) return kUnsure;
    const double mn = mnv->num, mx = unbounded ? 0 : mxv->num;
    auto whole = [](double v) { return v >= 0 && v <= kMaxCount && v == double(uint64_t(v)); };
    if (!whole(mn) || (!unbounded && (mx < mn || !whole(mx)))) return kUnsure;
    const double one = node(*item, body);
    const bool plainItem = plain;  // and so the repetition's own, countingNode aside (node())
    if (one < 0) return kUnsure;
    if (!body && counting(n)) return one + 8;        // built once, its count in gates
    if (mn > 100000 || mx > 100000) return kUnsure;  // refused as "repetition"
    // Every copy is built inside a fragment (plain text) or a body; elsewhere the first, the others
    // placeholders.
    const double copies = unbounded ? mn + 1 : mx;
    double sum = 4;
    return add(sum, body || plainItem ? copies * (one + 4) : one + 4 * copies) ? sum : kUnsure;
  }

  // until (no body) or text, as NfaBuilder::Impl::until reads it.
  double until(const json::Value& n, bool textOnly, bool body) {
    const json::Value* tv = n.get(textOnly ? "exclude" : "terminator");
    if (!tv || tv->kind != json::Kind::String || tv->str.empty()) return kUnsure;
    const std::string& T = tv->str;
    const bool gated = !body && countingNode(n, b.lim);
    const double maxLen = lengthField(n, "maxLength");
    const double minLen = textOnly ? 0 : lengthField(n, "minLength");
    if (maxLen == -2 || minLen == -2) return kUnsure;
    if (!gated && (maxLen > 100000 || minLen > 100000)) return kUnsure;  // refused as "stringLength"
    if (maxLen >= 0 && minLen > maxLen) return kUnsure;
    bool trim = false;
    if (const json::Value* tn = n.get("trimNewline"); !textOnly && tn && tn->kind == json::Kind::Bool) trim = tn->b;
    if (trim && T.find(T[0], 1) != std::string::npos) return kUnsure;
    // Base states: (characters of T matched, UTF-8 phase, trim's flags).
    const double m = double(T.size());
    const double base = m * utf8::kPhases * (trim ? 8 : 1);
    if (gated) return 10 * base + 12;  // its states, a gate state per (target, increment, bounds), in/out
    const bool counting = maxLen >= 0 || minLen > 0;
    const double top = maxLen >= 0 ? maxLen : std::max(0.0, minLen);
    const double layers = counting ? top + 1 + (textOnly ? 0 : m) + (trim ? 1 : 0) : 1;
    double sum = 2;
    return add(sum, base * layers) ? sum : kUnsure;
  }

  // until with a body, as NfaBuilder::Impl::untilBody reads it: the product of the body (built in
  // full) with T's automaton.
  double untilBody(const json::Value& n) {
    const json::Value* tv = n.get("terminator");
    if (!tv || tv->kind != json::Kind::String || tv->str.empty()) return kUnsure;
    const std::string& T = tv->str;
    for (const char* key : {"maxLength", "minLength"})
      if (const json::Value* v = n.get(key); v && v->kind != json::Kind::Null) return kUnsure;
    bool trim = false;
    if (const json::Value* tn = n.get("trimNewline"); tn && tn->kind == json::Kind::Bool) trim = tn->b;
    if (T.find(T[0], 1) != std::string::npos) return kUnsure;
    if (trim && T.find('\n') != std::string::npos) return kUnsure;
    const double inner = node(*n.get("body"), true);  // leaves `plain` the body's, so the node's
    if (inner < 0 || inner > limit) return kUnsure;
    double sum = double(T.size()) + 3;
    return add(sum, inner * double(T.size()) * (trim ? 4 : 1)) ? sum : kUnsure;
  }

  // Its trie's positions and ways out, as the build makes them (plain text: one string in, none of
  // the constructs a fragment leaves to placeholders).
  double departure(const json::Value& n) {
    try {
      return double(b.departurePlan(n, "").bound);
    } catch (const GrammarError&) { return kUnsure; }  // reported by the eager build
  }

  double perm(const json::Value& n) {
    const json::Value* items = n.get("items");
    if (!items || items->kind != json::Kind::Array) return kUnsure;
    double sum = 4;
    for (auto& e : items->arr) {
      const json::Value* item = e.kind == json::Kind::Object ? e.get("node") : nullptr;
      if (!item || !add(sum, node(*item, false)) || !add(sum, 4)) return kUnsure;
    }
    const json::Value* sep = n.get("separator");
    if (sep && sep->kind != json::Kind::Null && !add(sum, node(*sep, false))) return kUnsure;
    return sum;
  }

  // An intersection is built here as the builder builds it (intersectNfa: its items' product), so
  // its errors (a malformed item, a product past maxProductStates) are the build's own and its size
  // is exact; a node met again is known. Plain as its inlined copy is.
  std::unordered_map<const json::Value*, std::pair<double, bool>> products;
  double intersect(const json::Value& n) {
    auto known = products.find(&n);
    if (known == products.end()) {
      std::pair<double, bool> x{kUnsure, false};
      try {
        const TextNfa t = b.intersectNfa(n, "intersect");
        x = {double(t.nfa.states.size()), plainWith(b.rules->expand(n), b.lim)};
      } catch (const GrammarError&) {}  // reported by the eager build
      known = products.emplace(&n, x).first;
    }
    plain = known->second.second;
    return known->second.first;
  }

  // A ref to a rule the builder inlines is built as a copy of the rule at each use: the rule's own
  // bound, and plain when it is (the caller's `plain` is left so). Outside a loop the builder keeps
  // such a ref as a placeholder (ir_inline.hpp), which builds at most that copy: the bound holds.
  double ref(const json::Value& n, bool body) {
    const json::Value* nm = n.get("name");
    if (!nm || nm->kind != json::Kind::String) return kUnsure;
    const json::Value* rule = b.rules->original(nm->str);
    if (!rule) return kUnsure;
    if (b.rules->inlines(nm->str)) {
      auto key = std::make_pair(nm->str, body);
      auto known = inlined.find(key);
      if (known == inlined.end()) {
        const double x = node(*rule, body);
        known = inlined.emplace(key, std::make_pair(x, plain)).first;
      }
      plain = known->second.second;
      return known->second.first;
    }
    plain = false;
    if (body) {
      auto known = bodyRules.find(nm->str);
      if (known != bodyRules.end()) return known->second;
      for (auto& open : bodyStack)
        if (open == nm->str) return kUnsure;  // recursion inside a body: left to the builder
      bodyStack.push_back(nm->str);
      const double x = node(*rule, true);
      bodyStack.pop_back();
      bodyRules[nm->str] = x;
      return x;
    }
    if (!rulesSeen.emplace(nm->str, true).second) return 2;  // built once; other uses are placeholders
    const double x = node(*rule, false);
    return x < 0 ? kUnsure : x + 2;
  }
};

}  // namespace

bool NfaBuilder::Impl::deferrable(const json::Value& root) {
  Checker c{*this, double(lim.maxStates), {}, {}, {}, {}, true, {}};
  const double states = c.node(root, false);
  return states >= 0 && states <= double(lim.maxStates);
}

// Whether a node can match the empty string (a conservative reading of the IR; nfa_impl.hpp).
bool nullable(const json::Value& n) {
  const IrType type = irType(n);
  if (type == IrType::NotANode) return true;
  if (type == IrType::Literal) {
    const json::Value* x = n.get("text");
    return !x || x->kind != json::Kind::String || x->str.empty();
  }
  if (type == IrType::CharClass || type == IrType::ByteClass || type == IrType::Until || type == IrType::Departure)
    return false;
  if (type == IrType::Text) return true;
  const json::Value* items = n.get("items");
  if (type == IrType::Seq) {
    if (items && items->kind == json::Kind::Array)
      for (auto& x : items->arr)
        if (!nullable(x)) return false;
    return true;
  }
  if (type == IrType::Alt) {
    if (items && items->kind == json::Kind::Array)
      for (auto& x : items->arr)
        if (nullable(x)) return true;
    return false;
  }
  if (type == IrType::Intersect) {
    if (items && items->kind == json::Kind::Array)
      for (auto& x : items->arr)
        if (!nullable(x)) return false;
    return true;
  }
  if (type == IrType::Repeat) {
    const json::Value* mn = n.get("min");
    const json::Value* item = n.get("item");
    return !mn || mn->kind != json::Kind::Number || mn->num == 0 || !item || nullable(*item);
  }
  return true;
}

}  // namespace toolmask
