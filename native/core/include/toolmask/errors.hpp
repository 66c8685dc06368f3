// The grammar core's own exceptions: a malformed vocabulary, a malformed grammar or one past a
// bound, a matcher call with bad arguments. (Other std::exception kinds pass through as well.)
#pragma once
#include <stdexcept>
#include <string>

namespace toolmask {

struct VocabError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct GrammarError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A grammar larger than a stated bound: the input's to fix, not a malformed grammar. `limit` names
// the bound as the JS GrammarLimitError does ("automatonStates", "stringLength", …).
struct GrammarLimitError : GrammarError {
  GrammarLimitError(std::string limitName, const std::string& what) : GrammarError(what), limit(std::move(limitName)) {}
  std::string limit;
};

// A grammar that names a rule of its vocabulary's rule library (native/core/rule_library.hpp) the
// library does not hold (never added, or dropped at its byte limit): compile it again with the
// rule's body (src/grammar/rule-library.ts does).
struct RuleLibraryMiss : GrammarError {
  explicit RuleLibraryMiss(const std::string& name)
      : GrammarError("the rule library holds no rule \"" + name + "\"; compile again with its body"), rule(name) {}
  std::string rule;
};

struct MatcherError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace toolmask
