// RuleLibrary (rule_library.hpp): rules added by one grammar's IR ("libraryAdd") are found by name by
// the next ("library"), which compiles to the same masks as the grammar with the rule written out; a
// name the library lacks is RuleLibraryMiss; past its byte limit the library starts again empty,
// while a grammar holding a rule keeps it.
#include <memory>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "../core/rule_library.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {

const std::string DIGITS = R"({"type":"repeat","min":1,"max":null,"item":{"type":"charClass","ranges":[[48,57]]}})";
const std::string ROOT =
    R"({"type":"seq","items":[{"type":"literal","text":"n="},{"type":"ref","name":"lib.digits"}]})";

std::vector<std::vector<uint32_t>> masksOf(const std::shared_ptr<CompiledGrammar>& g, const std::string& text) {
  Matcher m(g);
  std::vector<std::vector<uint32_t>> out;
  for (char c : text) {
    std::vector<uint32_t> mask(g->vocab().words());
    m.fillNextTokenBitmask(mask.data(), mask.size());
    out.push_back(mask);
    if (!m.acceptToken(uint32_t(uint8_t(c)))) break;  // token b is the byte b (core_tests' vocabulary)
  }
  return out;
}

template <typename E, typename F>
bool throws(F&& f) {
  try {
    f();
  } catch (const E&) { return true; } catch (...) {
    return false;
  }
  return false;
}

}  // namespace

void ruleLibraryTests(const std::shared_ptr<const Vocabulary>& v) {
  auto library = std::make_shared<RuleLibrary>();
  const CompileOptions opts;
  // Written out, brought to the library, then named: the same masks.
  const std::string own = R"({"root":)" + ROOT + R"(,"rules":{"lib.digits":)" + DIGITS + "}}";
  const std::string adds =
      R"({"root":)" + ROOT + R"(,"rules":{},"library":["lib.digits"],"libraryAdd":{"lib.digits":)" + DIGITS + "}}";
  const std::string named = R"({"root":)" + ROOT + R"(,"rules":{},"library":["lib.digits"]})";
  CHECK(throws<RuleLibraryMiss>([&] { CompiledGrammar(named, v, opts, nullptr, library); }));
  auto written = std::make_shared<CompiledGrammar>(own, v, opts);
  auto first = std::make_shared<CompiledGrammar>(adds, v, opts, nullptr, library);
  CHECK(library->size() == 1 && library->bytes() > 0);
  auto second = std::make_shared<CompiledGrammar>(named, v, opts, nullptr, library);
  const auto expected = masksOf(written, "n=4217x");
  CHECK(expected.size() == 7);
  CHECK(masksOf(first, "n=4217x") == expected);
  CHECK(masksOf(second, "n=4217x") == expected);
  // Without a library, a grammar's added rules are its own.
  auto alone = std::make_shared<CompiledGrammar>(adds, v, opts);
  CHECK(masksOf(alone, "n=4217x") == expected);
  // Dropped: the grammars that hold the rule keep it; a new grammar naming it misses.
  const size_t generation = library->generation();
  library->clear();
  CHECK(library->size() == 0 && library->bytes() == 0 && library->generation() == generation + 1);
  CHECK(masksOf(second, "n=4217x") == expected);
  CHECK(throws<RuleLibraryMiss>([&] { CompiledGrammar(named, v, opts, nullptr, library); }));
  try {
    CompiledGrammar(named, v, opts, nullptr, library);
  } catch (const RuleLibraryMiss& e) { CHECK(e.rule == "lib.digits"); }
  // Malformed fields are grammar errors, not crashes.
  for (const char* bad : {R"({"root":{"type":"literal","text":"a"},"library":5})",
                          R"({"root":{"type":"literal","text":"a"},"library":[5]})",
                          R"({"root":{"type":"literal","text":"a"},"libraryAdd":[]})"})
    CHECK(throws<GrammarError>([&] { CompiledGrammar(bad, v, opts, nullptr, library); }));
  // Replacing a rule keeps the byte count; past the limit the library starts again empty.
  RuleLibrary small(4000);
  json::Value body = json::parse(DIGITS);
  small.add("a", body);
  const size_t one = small.bytes();
  small.add("a", body);
  CHECK(small.size() == 1 && small.bytes() == one);
  size_t added = 1;
  while (small.size() == added) small.add("r" + std::to_string(added++), body);
  CHECK(small.generation() == 1);
  CHECK(small.size() == 1 && small.bytes() > 0 && small.bytes() <= 4000 && !small.find("a"));
  CHECK(small.find("r" + std::to_string(added - 1)) != nullptr);
  std::printf("rule library: checked\n");
}
