#include "ir_inline.hpp"

#include "heap_bytes.hpp"

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace toolmask {

namespace {

const std::string* refName(const json::Value& n) {
  if (n.kind != json::Kind::Object) return nullptr;
  const json::Value* t = n.get("type");
  const json::Value* nm = n.get("name");
  if (!t || t->kind != json::Kind::String || t->str != "ref" || !nm || nm->kind != json::Kind::String) return nullptr;
  return &nm->str;
}

struct Inliner {
  const json::Value* rules = nullptr;
  size_t maxNodes = 0;
  std::unordered_map<std::string, size_t> size;  // inlined size, capped; SIZE_MAX: keep as ref
  std::unordered_set<std::string> visiting;
  // The rules by name (the first of a repeated name, as json::Value::get finds it): a grammar of a
  // few hundred rules looked each one up by a scan of them all.
  std::unordered_map<std::string_view, const json::Value*> byName;

  void indexRules() {
    if (rules && rules->kind == json::Kind::Object)
      for (auto& kv : rules->obj) byName.emplace(kv.first, &kv.second);
  }

  const json::Value* rule(const std::string& name) const {
    auto it = byName.find(name);
    return it == byName.end() ? nullptr : it->second;
  }

  // Nodes the subtree has once inlinable refs are expanded (capped above maxNodes).
  size_t measure(const json::Value& n) {
    if (const std::string* name = refName(n)) return ruleSize(*name) == SIZE_MAX ? 1 : ruleSize(*name);
    size_t total = 1;
    if (n.kind == json::Kind::Array)
      for (auto& x : n.arr) total += measure(x);
    if (n.kind == json::Kind::Object)
      for (auto& kv : n.obj) total += measure(kv.second);
    return total > maxNodes ? maxNodes + 1 : total;
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
  // cannot nest the tree deeper than the builder's recursion can go. `bytes`: json::memoryBytes of
  // the copy, counted as it is built.
  static constexpr int kMaxDepth = 1000;
  json::Value expand(const json::Value& n, size_t& bytes, int depth = 0) {
    if (const std::string* name = refName(n)) {
      if (depth < kMaxDepth && ruleSize(*name) != SIZE_MAX && !recursive(*name))
        return expand(*rule(*name), bytes, depth + 1);
      json::Value same = n;
      bytes = json::memoryBytes(same);
      return same;
    }
    json::Value out;
    out.kind = n.kind;
    out.b = n.b;
    out.num = n.num;
    out.str = n.str;
    size_t below = 0, b = 0;
    out.arr.reserve(n.arr.size());
    for (auto& x : n.arr) {
      out.arr.push_back(expand(x, b, depth + 1));
      below += b;
    }
    out.obj.reserve(n.obj.size());
    for (auto& kv : n.obj) {
      out.obj.emplace_back(kv.first, expand(kv.second, b, depth + 1));
      below += b + sizeof(std::string) + stringBytes(out.obj.back().first);
    }
    bytes = sizeof(json::Value) + stringBytes(out.str) + vectorBytes(out.arr) + vectorBytes(out.obj) + below -
            sizeof(json::Value) * out.arr.size() - sizeof(std::pair<std::string, json::Value>) * out.obj.size();
    return out;
  }

  // The rules a rule's body names (each once), as given: the edges `recursive` follows.
  std::unordered_map<std::string, std::vector<std::string>> refsOf;
  const std::vector<std::string>& refs(const std::string& name) {
    auto it = refsOf.find(name);
    if (it != refsOf.end()) return it->second;
    std::vector<std::string> out;
    std::unordered_set<std::string> seen;
    if (const json::Value* body = rule(name)) collectRefs(*body, seen, out);
    return refsOf.emplace(name, std::move(out)).first->second;
  }
  static void collectRefs(const json::Value& n, std::unordered_set<std::string>& seen, std::vector<std::string>& out) {
    if (const std::string* r = refName(n)) {
      if (seen.insert(*r).second) out.push_back(*r);
      return;
    }
    for (auto& x : n.arr) collectRefs(x, seen, out);
    for (auto& kv : n.obj) collectRefs(kv.second, seen, out);
  }

  // Whether the rule reaches itself through the rules its body names.
  std::unordered_map<std::string, bool> rec;
  bool recursive(const std::string& name) {
    auto it = rec.find(name);
    if (it != rec.end()) return it->second;
    bool r = false;
    if (rule(name)) {
      std::unordered_set<std::string> seen;
      std::vector<const std::string*> work;
      for (auto& x : refs(name)) work.push_back(&x);
      while (!r && !work.empty()) {
        const std::string* at = work.back();
        work.pop_back();
        if (*at == name)
          r = true;
        else if (seen.insert(*at).second)
          for (auto& x : refs(*at)) work.push_back(&x);
      }
    }
    rec[name] = r;
    return r;
  }
};

}  // namespace

struct InlinedGrammar::Impl {
  Inliner in;
  json::Value root;
  bool hasRoot = false;
  std::unordered_map<std::string, json::Value> rules;  // inlined so far (references stay valid)
  size_t bytes = 0;
};

InlinedGrammar::InlinedGrammar(const json::Value& grammar, size_t maxNodes) : impl_(std::make_unique<Impl>()) {
  const json::Value* given = grammar.kind == json::Kind::Object ? grammar.get("rules") : nullptr;
  impl_->in.rules = given;
  impl_->in.maxNodes = maxNodes;
  impl_->in.indexRules();
  if (grammar.kind != json::Kind::Object) return;
  for (auto& kv : grammar.obj)
    if (kv.first == "root") {
      impl_->root = impl_->in.expand(kv.second, impl_->bytes);
      impl_->hasRoot = true;
    }
}

InlinedGrammar::~InlinedGrammar() = default;

const json::Value* InlinedGrammar::root() const { return impl_->hasRoot ? &impl_->root : nullptr; }

const json::Value* InlinedGrammar::rule(const std::string& name) {
  auto it = impl_->rules.find(name);
  if (it != impl_->rules.end()) return &it->second;
  const json::Value* body = impl_->in.rule(name);
  if (!body) return nullptr;
  size_t bytes = 0;
  impl_->rules.emplace(name, impl_->in.expand(*body, bytes));
  impl_->bytes += bytes + name.size() + 64;
  const json::Value& x = impl_->rules.at(name);
  return &x;
}

const json::Value* InlinedGrammar::original(const std::string& name) const { return impl_->in.rule(name); }

bool InlinedGrammar::inlines(const std::string& name) {
  return impl_->in.ruleSize(name) != SIZE_MAX && !impl_->in.recursive(name);
}

json::Value InlinedGrammar::expand(const json::Value& n) {
  size_t bytes = 0;
  return impl_->in.expand(n, bytes);
}

size_t InlinedGrammar::memoryBytes() const { return impl_->bytes; }

namespace {
// The names of the rules `n` refers to, each once (in `seen`), in order of first appearance.
void refNames(const json::Value& n, std::unordered_set<std::string>& seen, std::vector<std::string>& out) {
  if (const std::string* name = refName(n)) {
    if (seen.insert(*name).second) out.push_back(*name);
    return;
  }
  for (auto& x : n.arr) refNames(x, seen, out);
  for (auto& kv : n.obj) refNames(kv.second, seen, out);
}
}  // namespace

std::vector<const json::Value*> InlinedGrammar::reachable() const {
  std::vector<const json::Value*> out;
  if (!impl_->hasRoot) return out;
  std::vector<std::string> named;
  std::unordered_set<std::string> seen;
  refNames(impl_->root, seen, named);
  for (size_t i = 0; i < named.size(); i++)
    if (const json::Value* body = impl_->in.rule(named[i])) {
      out.push_back(body);
      refNames(*body, seen, named);
    }
  return out;
}

}  // namespace toolmask
