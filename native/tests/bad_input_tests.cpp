// Bad input to the core: malformed grammars, out-of-range token ids, a mask buffer too small, a
// rollback past the start, a malformed vocabulary: each an error of its own type, never a crash.
#include <cstdint>
#include <exception>
#include <memory>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "check.hpp"

using namespace toolmask;

void badInputTests(const std::shared_ptr<const Vocabulary>& v) {
  const char* bad[] = {"",
                       "{",
                       "[]",
                       R"({"root":{"type":"x"}})",
                       R"({"root":{"type":"token","id":999999}})",
                       R"({"root":{"type":"charClass","ranges":[[9,1]]}})",
                       R"({"root":{"type":"alt","items":[]}})",
                       R"({"root":{"type":"literal","text":"\ud800"}})",
                       R"({"root":{"type":"token","id":2278}})",
                       R"({"root":{"type":"token","id":5}})"};
  for (auto* ir : bad) {
    bool threw = false;
    try {
      CompiledGrammar g(ir, v, CompileOptions{});
    } catch (const std::exception&) { threw = true; }
    CHECK(threw);
  }
  auto g = std::make_shared<CompiledGrammar>(R"({"root":{"type":"literal","text":"ab"}})", v, CompileOptions{});
  Matcher m(g);
  bool threw = false;
  try {
    m.acceptToken(v->size());
  } catch (const MatcherError&) { threw = true; }
  CHECK(threw);
  threw = false;
  std::vector<uint32_t> small(3);
  try {
    m.fillNextTokenBitmask(small.data(), small.size());
  } catch (const MatcherError&) { threw = true; }
  CHECK(threw);
  threw = false;
  try {
    m.rollback(1);
  } catch (const MatcherError&) { threw = true; }
  CHECK(threw);
  uint32_t badOffs[] = {0, 5};
  uint8_t kinds[] = {0};
  threw = false;
  try {
    Vocabulary bv(reinterpret_cast<const uint8_t*>("ab"), 2, badOffs, kinds, 1);
  } catch (const VocabError&) { threw = true; }
  CHECK(threw);
}
