// Refs to small non-recursive rules are replaced by the rules' bodies before building,
// so text built from shared rules (a JSON string's characters) is plain and its loops
// can share masks. Recursive rules, and rules that would grow too large inlined, stay refs.
#pragma once
#include <cstddef>

#include "json.hpp"

namespace toolmask {

json::Value inlineSmallRules(const json::Value& grammar, size_t maxNodes = 1500);

}  // namespace toolmask
