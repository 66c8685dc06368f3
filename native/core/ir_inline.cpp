#include "ir_inline.hpp"

#include <functional>
#include <string>
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
  const json::Value* rules;
  size_t maxNodes;
  std::unordered_map<std::string, size_t> size;  // inlined size, capped; SIZE_MAX: keep as ref
  std::unordered_set<std::string> visiting;

  const json::Value* rule(const std::string& name) const {
    return rules && rules->kind == json::Kind::Object ? rules->get(name) : nullptr;
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
  // cannot nest the tree deeper than the builder's recursion can go.
  static constexpr int kMaxDepth = 1000;
  json::Value expand(const json::Value& n, int depth = 0) {
    if (const std::string* name = refName(n)) {
      if (depth < kMaxDepth && ruleSize(*name) != SIZE_MAX && !recursive(*name)) return expand(*rule(*name), depth + 1);
      return n;
    }
    json::Value out;
    out.kind = n.kind;
    out.b = n.b;
    out.num = n.num;
    out.str = n.str;
    out.arr.reserve(n.arr.size());
    for (auto& x : n.arr) out.arr.push_back(expand(x, depth + 1));
    out.obj.reserve(n.obj.size());
    for (auto& kv : n.obj) out.obj.emplace_back(kv.first, expand(kv.second, depth + 1));
    return out;
  }

  std::unordered_map<std::string, bool> rec;
  bool recursive(const std::string& name) {
    auto it = rec.find(name);
    if (it != rec.end()) return it->second;
    std::unordered_set<std::string> seen;
    std::function<bool(const json::Value&)> reaches = [&](const json::Value& n) -> bool {
      if (const std::string* r = refName(n)) {
        if (*r == name) return true;
        if (!seen.insert(*r).second) return false;
        const json::Value* body = rule(*r);
        return body && reaches(*body);
      }
      if (n.kind == json::Kind::Array)
        for (auto& x : n.arr)
          if (reaches(x)) return true;
      if (n.kind == json::Kind::Object)
        for (auto& kv : n.obj)
          if (reaches(kv.second)) return true;
      return false;
    };
    const json::Value* body = rule(name);
    bool r = body && reaches(*body);
    rec[name] = r;
    return r;
  }
};

// The names of the refs left in `n` (not inlined), in order of first appearance.
void refsIn(const json::Value& n, std::unordered_set<std::string>& seen, std::vector<std::string>& out) {
  if (const std::string* name = refName(n)) {
    if (seen.insert(*name).second) out.push_back(*name);
    return;
  }
  for (auto& x : n.arr) refsIn(x, seen, out);
  for (auto& kv : n.obj) refsIn(kv.second, seen, out);
}

}  // namespace

json::Value inlineSmallRules(const json::Value& grammar, size_t maxNodes) {
  if (grammar.kind != json::Kind::Object) return grammar;
  const json::Value* given = grammar.get("rules");
  Inliner in{given, maxNodes, {}, {}, {}};
  json::Value root;
  bool hasRoot = false;
  for (auto& kv : grammar.obj)
    if (kv.first == "root") {
      root = in.expand(kv.second);
      hasRoot = true;
    }
  // Only the rules a ref still names, from the root or from another such rule: a rule inlined at
  // every use would otherwise stay as one more expanded copy (a JSON value's rules, inlined into
  // each parameter, held megabytes here). A rule nothing reaches is never built, as before.
  std::unordered_map<std::string, json::Value> kept;
  std::unordered_set<std::string> seen;
  std::vector<std::string> todo;
  if (hasRoot) refsIn(root, seen, todo);
  for (size_t i = 0; i < todo.size(); i++) {
    const json::Value* body = in.rule(todo[i]);
    if (!body) continue;  // undefined: the builder reports it where it is named
    json::Value x = in.expand(*body);
    refsIn(x, seen, todo);
    kept.emplace(todo[i], std::move(x));
  }
  json::Value out;
  out.kind = json::Kind::Object;
  for (auto& kv : grammar.obj) {
    if (kv.first == "root") {
      out.obj.emplace_back(kv.first, std::move(root));
    } else if (kv.first == "rules" && kv.second.kind == json::Kind::Object) {
      json::Value rules;
      rules.kind = json::Kind::Object;
      for (auto& r : kv.second.obj) {
        auto it = kept.find(r.first);
        if (it != kept.end()) rules.obj.emplace_back(r.first, std::move(it->second));
      }
      out.obj.emplace_back(kv.first, std::move(rules));
    } else {
      out.obj.push_back(kv);
    }
  }
  return out;
}

}  // namespace toolmask
