#include "rule_library.hpp"

namespace toolmask {

RuleLibrary::Rule RuleLibrary::find(const std::string& name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = rules_.find(name);
  return it == rules_.end() ? nullptr : it->second;
}

void RuleLibrary::add(const std::string& name, json::Value body) {
  const size_t size = json::memoryBytes(body) + name.size() + 64;
  auto rule = std::make_shared<const json::Value>(std::move(body));
  std::lock_guard<std::mutex> lock(mu_);
  if (bytes_ + size > maxBytes_) {
    rules_.clear();
    bytes_ = 0;
    generation_++;
  }
  auto [it, added] = rules_.try_emplace(name, rule);
  if (!added) {
    bytes_ -= json::memoryBytes(*it->second) + name.size() + 64;
    it->second = std::move(rule);
  }
  bytes_ += size;
}

size_t RuleLibrary::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return rules_.size();
}

size_t RuleLibrary::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

size_t RuleLibrary::generation() const {
  std::lock_guard<std::mutex> lock(mu_);
  return generation_;
}

void RuleLibrary::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  rules_.clear();
  bytes_ = 0;
  generation_++;
}

LibraryRules takeLibraryRules(json::Value& ir, const std::shared_ptr<RuleLibrary>& library) {
  LibraryRules out;
  if (ir.kind != json::Kind::Object) return out;
  json::Value* adds = nullptr;
  const json::Value* names = nullptr;
  for (auto& kv : ir.obj) {
    if (kv.first == "libraryAdd" && !adds) adds = &kv.second;
    if (kv.first == "library" && !names) names = &kv.second;
  }
  std::unordered_map<std::string, RuleLibrary::Rule> own;  // the added rules, without a library
  if (adds && adds->kind != json::Kind::Null) {
    if (adds->kind != json::Kind::Object) throw GrammarError("grammar.libraryAdd must be an object of named rules");
    for (auto& kv : adds->obj) {
      if (library)
        library->add(kv.first, std::move(kv.second));
      else
        own[kv.first] = std::make_shared<const json::Value>(std::move(kv.second));
    }
    adds->obj.clear();
  }
  if (!names || names->kind == json::Kind::Null) return out;
  if (names->kind != json::Kind::Array) throw GrammarError("grammar.library must be an array of rule names");
  for (auto& n : names->arr) {
    if (n.kind != json::Kind::String) throw GrammarError("grammar.library must be an array of rule names");
    RuleLibrary::Rule r;
    if (auto it = own.find(n.str); it != own.end()) r = it->second;
    if (!r && library) r = library->find(n.str);
    if (!r) throw RuleLibraryMiss(n.str);
    out.byName.emplace(n.str, r.get());
    out.held.push_back(std::move(r));
  }
  return out;
}

}  // namespace toolmask
