// Rules kept across compiles for one vocabulary: the JSON-schema lowering's shared rules (a JSON
// string's characters, numbers, a format) are the same body under the same name in every grammar
// that uses them, so a grammar names them ("library" in its IR) instead of carrying their bodies,
// and they are read once per process, when a grammar first brings them ("libraryAdd").
#pragma once
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "include/toolmask/errors.hpp"
#include "json.hpp"

namespace toolmask {

class RuleLibrary {
 public:
  using Rule = std::shared_ptr<const json::Value>;
  // Past `maxBytes` of rule bodies, an add drops every rule first (a grammar that holds one keeps
  // it; a later grammar naming a dropped one gets RuleLibraryMiss and sends its body again).
  static constexpr size_t kDefaultMaxBytes = size_t(32) << 20;
  explicit RuleLibrary(size_t maxBytes = kDefaultMaxBytes) : maxBytes_(maxBytes) {}

  Rule find(const std::string& name) const;
  void add(const std::string& name, json::Value body);  // replaces a rule of the same name
  size_t size() const;
  size_t bytes() const;
  // How many times the library was emptied (clear(), or an add past maxBytes): a caller that knows
  // which rules it gave the library knows them only while this stays the same.
  size_t generation() const;
  void clear();

 private:
  mutable std::mutex mu_;
  std::unordered_map<std::string, Rule> rules_;
  size_t bytes_ = 0;
  size_t generation_ = 0;
  size_t maxBytes_;
};

// The rules a grammar takes from the library: the bodies it holds, and a view of them by name.
struct LibraryRules {
  std::vector<RuleLibrary::Rule> held;
  std::unordered_map<std::string, const json::Value*> byName;
};

// Adds the grammar's "libraryAdd" rules to `library` (moved out of `ir`), then takes every rule its
// "library" names from it. Throws RuleLibraryMiss for a name the library lacks, GrammarError for a
// malformed field. `library` may be null: the added rules are then the grammar's own.
LibraryRules takeLibraryRules(json::Value& ir, const std::shared_ptr<RuleLibrary>& library);

}  // namespace toolmask
