#include "ir_inline.hpp"

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>

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
    if (n.kind == json::Kind::Array) for (auto& x : n.arr) total += measure(x);
    if (n.kind == json::Kind::Object) for (auto& kv : n.obj) total += measure(kv.second);
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

  json::Value expand(const json::Value& n) {
    if (const std::string* name = refName(n)) {
      if (ruleSize(*name) != SIZE_MAX && !recursive(*name)) return expand(*rule(*name));
      return n;
    }
    json::Value out = n;
    if (n.kind == json::Kind::Array) for (size_t i = 0; i < n.arr.size(); i++) out.arr[i] = expand(n.arr[i]);
    if (n.kind == json::Kind::Object) for (size_t i = 0; i < n.obj.size(); i++) out.obj[i].second = expand(n.obj[i].second);
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
      if (n.kind == json::Kind::Array) for (auto& x : n.arr) if (reaches(x)) return true;
      if (n.kind == json::Kind::Object) for (auto& kv : n.obj) if (reaches(kv.second)) return true;
      return false;
    };
    const json::Value* body = rule(name);
    bool r = body && reaches(*body);
    rec[name] = r;
    return r;
  }
};

}  // namespace

json::Value inlineSmallRules(const json::Value& grammar, size_t maxNodes) {
  if (grammar.kind != json::Kind::Object) return grammar;
  Inliner in{grammar.get("rules"), maxNodes, {}, {}, {}};
  json::Value out = grammar;
  for (auto& kv : out.obj) {
    if (kv.first == "root") kv.second = in.expand(kv.second);
    if (kv.first == "rules" && kv.second.kind == json::Kind::Object)
      for (auto& r : kv.second.obj) r.second = in.expand(r.second);
  }
  return out;
}

}  // namespace toolmask
