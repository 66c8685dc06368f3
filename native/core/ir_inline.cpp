#include "ir_inline.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir_type.hpp"
#include "scc.hpp"

namespace toolmask {

namespace {

const std::string* refName(const json::Value& n) {
  if (irType(n) != IrType::Ref) return nullptr;
  const json::Value* nm = n.get("name");
  return nm && nm->kind == json::Kind::String ? &nm->str : nullptr;
}

struct Inliner {
  const json::Value* rules;
  const ExternalRules* external;
  size_t maxNodes;
  std::unordered_map<std::string, size_t> size;  // inlined size, capped; SIZE_MAX: keep as ref
  std::unordered_set<std::string> visiting;
  // Every rule by name: the grammar's own (the first of a repeated name, as json::Value::get), then
  // the external ones it does not define.
  std::unordered_map<std::string_view, const json::Value*> index;

  void indexRules() {
    if (rules && rules->kind == json::Kind::Object) {
      index.reserve(rules->obj.size() + (external ? external->size() : 0));
      for (auto& kv : rules->obj) index.emplace(kv.first, &kv.second);
    }
    if (external)
      for (auto& kv : *external) index.emplace(kv.first, kv.second);
  }
  const json::Value* rule(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? nullptr : it->second;
  }

  // Nodes the subtree has once inlinable refs are expanded, capped at maxNodes + 1: the count stops
  // there (a tool call's rule is not walked to its end to learn that it is too large to inline).
  size_t measure(const json::Value& n) {
    if (const std::string* name = refName(n)) return ruleSize(*name) == SIZE_MAX ? 1 : ruleSize(*name);
    size_t total = 1;
    // A departure stands for a node per trie position: as large as its words, so a rule holding
    // one is inlined (copied at each use, its trie planned again) as that tree would be.
    if (irType(n) == IrType::Departure)
      if (const json::Value* words = n.get("words"); words && words->kind == json::Kind::Array)
        for (auto& w : words->arr)
          if ((total += 1 + w.str.size()) > maxNodes) return maxNodes + 1;
    for (auto& x : n.arr)
      if ((total += measure(x)) > maxNodes) return maxNodes + 1;
    for (auto& kv : n.obj)
      if ((total += measure(kv.second)) > maxNodes) return maxNodes + 1;
    return total;
  }

  size_t ruleSize(const std::string& name) {
    auto it = size.find(name);
    if (it != size.end()) return it->second;
    const json::Value* body = rule(name);
    if (!body || visiting.count(name)) return SIZE_MAX;  // undefined or recursive
    visiting.insert(name);
    size_t s = measure(*body);
    visiting.erase(name);
    if (s > maxNodes) s = SIZE_MAX;  // recursion is checked separately, in expand()
    size[name] = s;
    return s;
  }

  // Builds the expanded copy node by node (copying a subtree before expanding its children made
  // inlining O(size × depth)). Below kMaxDepth levels refs stay refs, so chains of small rules
  // cannot nest the tree deeper than the builder's recursion can go. `looped`: inside a loop (a
  // repetition's item, an until's body, an intersection), where a ref inlined keeps the loop plain
  // text (a fragment, a counted repetition); outside one (`looped` false, as a rule's body and the
  // root begin) a ref stays a ref, built as a placeholder when a walk first reaches it, so reaching
  // a rule does not copy every rule it names (a tool call's rule names every tool's arguments).
  static constexpr int kMaxDepth = 1000;
  json::Value expand(const json::Value& n, int depth = 0, bool looped = true) {
    if (const std::string* name = refName(n)) {
      if (looped && depth < kMaxDepth && ruleSize(*name) != SIZE_MAX && !recursive(*name))
        return expand(*rule(*name), depth + 1, true);
      return n;
    }
    json::Value out;
    out.kind = n.kind;
    out.b = n.b;
    out.tag = n.tag;
    out.num = n.num;
    out.str = n.str;
    const bool loop = looped || loopType(n);
    out.arr.reserve(n.arr.size());
    for (auto& x : n.arr) out.arr.push_back(expand(x, depth + 1, loop));
    out.obj.reserve(n.obj.size());
    for (auto& kv : n.obj) out.obj.emplace_back(kv.first, expand(kv.second, depth + 1, loop));
    return out;
  }
  // Whether expand(n, depth, looped) would replace a ref anywhere in `n`: where it would not, the
  // copy equals `n`, and the node as given serves instead (no copy to build and free).
  bool changes(const json::Value& n, int depth, bool looped) {
    if (const std::string* name = refName(n))
      return looped && depth < kMaxDepth && ruleSize(*name) != SIZE_MAX && !recursive(*name);
    const bool loop = looped || loopType(n);
    for (auto& x : n.arr)
      if (changes(x, depth + 1, loop)) return true;
    for (auto& kv : n.obj)
      if (mayHoldNodes(kv) && changes(kv.second, depth + 1, loop)) return true;
    return false;
  }
  // A node whose parts are inside a loop (or built whole by a builder of their own).
  static bool loopType(const json::Value& n) {
    const IrType t = irType(n);
    return t == IrType::Repeat || t == IrType::Until || t == IrType::Text || t == IrType::Intersect;
  }

  // The rules on a cycle of references (a rule reaching itself), found once for every rule: the
  // strongly connected components of the rules' direct references (scc.hpp).
  std::unordered_set<std::string> cyclic;
  bool cyclesKnown = false;
  bool recursive(const std::string& name) {
    if (!cyclesKnown) findCycles();
    return cyclic.count(name) > 0;
  }
  static void directRefs(const json::Value& n, std::vector<const std::string*>& out) {
    if (const std::string* r = refName(n)) {
      out.push_back(r);
      return;
    }
    for (auto& x : n.arr) directRefs(x, out);
    for (auto& kv : n.obj)
      if (mayHoldNodes(kv)) directRefs(kv.second, out);
  }
  void findCycles() {
    cyclesKnown = true;
    // The rules as `index` reads them, numbered.
    std::vector<std::pair<std::string_view, const json::Value*>> all(index.begin(), index.end());
    const size_t n = all.size();
    std::unordered_map<std::string_view, uint32_t> number;
    number.reserve(n);
    for (uint32_t i = 0; i < n; i++) number.emplace(all[i].first, i);
    std::vector<std::vector<uint32_t>> edges(n);
    std::vector<bool> selfLoop(n, false);
    for (uint32_t i = 0; i < n; i++) {
      std::vector<const std::string*> refs;
      directRefs(*all[i].second, refs);
      for (const std::string* r : refs)
        if (auto it = number.find(*r); it != number.end()) {
          edges[i].push_back(it->second);
          if (it->second == i) selfLoop[i] = true;
        }
    }
    stronglyConnected(
        uint32_t(n), [&](uint32_t v) -> const std::vector<uint32_t>& { return edges[v]; },
        [](uint32_t) { return true; },
        [&](const std::vector<uint32_t>& component) {
          if (component.size() > 1 || selfLoop[component[0]])
            for (uint32_t c : component) cyclic.insert(std::string(all[c].first));
        });
  }
};

}  // namespace

struct InlinedGrammar::Impl {
  Inliner in;
  const json::Value* root = nullptr;  // the root as given, or `rootCopy`
  json::Value rootCopy;
  std::unordered_map<std::string, const json::Value*> rules;  // inlined so far: as given, or in `copies`
  std::unordered_map<std::string, json::Value> copies;        // the rules inlining changed (references stay valid)
  size_t bytes = 0;

  // `n` inlined: `n` itself where inlining changes nothing in it, else a copy kept in `slot`.
  const json::Value* inlined(const json::Value& n, json::Value& slot) {
    if (!in.changes(n, 0, false)) return &n;
    slot = in.expand(n, 0, false);
    bytes += json::memoryBytes(slot);
    return &slot;
  }
};

InlinedGrammar::InlinedGrammar(const json::Value& grammar, const ExternalRules* external, size_t maxNodes)
    : impl_(std::make_unique<Impl>()) {
  const json::Value* given = grammar.kind == json::Kind::Object ? grammar.get("rules") : nullptr;
  impl_->in = Inliner{given, external, maxNodes, {}, {}, {}, {}};
  impl_->in.indexRules();
  if (grammar.kind != json::Kind::Object) return;
  for (auto& kv : grammar.obj)
    if (kv.first == "root") impl_->root = impl_->inlined(kv.second, impl_->rootCopy);
}

InlinedGrammar::~InlinedGrammar() = default;

const json::Value* InlinedGrammar::root() const { return impl_->root; }

const json::Value* InlinedGrammar::rule(const std::string& name) {
  auto it = impl_->rules.find(name);
  if (it != impl_->rules.end()) return it->second;
  const json::Value* body = impl_->in.rule(name);
  if (!body) return nullptr;
  json::Value scratch;
  const json::Value* x = impl_->inlined(*body, scratch);
  if (x == &scratch) x = &impl_->copies.emplace(name, std::move(scratch)).first->second;
  impl_->rules.emplace(name, x);
  impl_->bytes += name.size() + 64;
  return x;
}

const json::Value* InlinedGrammar::original(const std::string& name) const { return impl_->in.rule(name); }

bool InlinedGrammar::inlines(const std::string& name) {
  return impl_->in.ruleSize(name) != SIZE_MAX && !impl_->in.recursive(name);
}

json::Value InlinedGrammar::expand(const json::Value& n) { return impl_->in.expand(n); }

size_t InlinedGrammar::memoryBytes() const { return impl_->bytes; }

}  // namespace toolmask
