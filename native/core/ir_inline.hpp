// Refs to small non-recursive rules inside a loop (a repetition's item, an until's body, an
// intersection) are replaced by the rules' bodies before building, so text built from shared rules
// (a JSON string's characters) is plain and its loops can share masks. Recursive rules, rules that
// would grow too large inlined, and refs outside any loop stay refs: the builder makes those a
// placeholder built when a walk first reaches it. The root is inlined at once, each rule the first
// time the builder asks for it; a rule or root that inlining leaves as it is (no inlinable ref inside
// a loop: a tool call's scaffolding) is used as given, not copied. expand() inlines as inside a loop.
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "json.hpp"

namespace toolmask {

// Rules defined outside the grammar's own "rules" (its vocabulary's rule library), by name.
using ExternalRules = std::unordered_map<std::string, const json::Value*>;

class InlinedGrammar {
 public:
  // `grammar` ({root, rules?}) and `external` (rules its refs may name beside its own; its own come
  // first) must outlive this.
  explicit InlinedGrammar(const json::Value& grammar, const ExternalRules* external = nullptr, size_t maxNodes = 1500);
  ~InlinedGrammar();
  const json::Value* root() const;                             // null when the grammar has none
  const json::Value* rule(const std::string& name);            // its body, inlined; null when undefined
  const json::Value* original(const std::string& name) const;  // its body as given
  bool inlines(const std::string& name);  // whether refs to the rule inside a loop are replaced by its body
  // A copy of `n` (a node of the grammar as given, or of an inlined copy) with refs inlined as in
  // rule(): what the builder would build had `n` been reached through the inlined root.
  json::Value expand(const json::Value& n);
  size_t memoryBytes() const;  // the inlined root and rules so far

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace toolmask
