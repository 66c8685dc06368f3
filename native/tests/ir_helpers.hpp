// Grammar IR written as JSON text, compiled over the test vocabulary, and the checks the native test
// programs share (count_tests.cpp, intersect_tests.cpp).
#pragma once
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "check.hpp"

namespace toolmask::test {

inline const std::string CHAR =
    R"({"type":"alt","items":[{"type":"charClass","ranges":[[34,34],[92,92],[0,31]],"negated":true},{"type":"seq","items":[{"type":"literal","text":"\\"},{"type":"charClass","ranges":[[110,110],[34,34]]}]}]})";
inline const std::string DIGIT = R"({"type":"charClass","ranges":[[48,57]]})";

inline std::string lit(const std::string& json) { return R"({"type":"literal","text":)" + json + "}"; }
inline std::string seq(const std::vector<std::string>& items) {
  std::string out = R"({"type":"seq","items":[)";
  for (size_t i = 0; i < items.size(); i++) out += (i ? "," : "") + items[i];
  return out + "]}";
}
inline std::string rep(const std::string& item, long min, long max) {
  return R"({"type":"repeat","min":)" + std::to_string(min) +
         ",\"max\":" + (max < 0 ? std::string("null") : std::to_string(max)) + ",\"item\":" + item + "}";
}
inline std::string grammar(const std::string& root, long countAbove) {
  return R"({"root":)" + root + ",\"countAbove\":" + std::to_string(countAbove) + "}";
}
// A JSON-like string of min..max characters; an integer list of min..max items.
inline std::string quoted(long min, long max) { return seq({lit(R"("\"")"), rep(CHAR, min, max), lit(R"("\"")")}); }
inline std::string integer() {
  return R"({"type":"alt","items":[)" + lit(R"("0")") + "," +
         seq({R"({"type":"charClass","ranges":[[49,57]]})", rep(DIGIT, 0, -1)}) + "]}";
}
inline std::string list(long min, long max) {
  // "[" int ("," int){min-1,max-1} "]" (min >= 1)
  return seq(
      {lit(R"("[")"), integer(), rep(seq({lit(R"(",")"), integer()}), min - 1, max < 0 ? -1 : max - 1), lit(R"("]")")});
}

inline std::shared_ptr<CompiledGrammar> compile(const std::shared_ptr<const Vocabulary>& v, const std::string& ir) {
  CompileOptions o;
  o.precomputeStates = 0;
  return std::make_shared<CompiledGrammar>(ir, v, o);
}

inline bool accepts(const std::shared_ptr<CompiledGrammar>& g, const std::string& s) {
  Matcher m(g);
  return (s.empty() || m.acceptBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size())) && m.isComplete();
}

inline bool bit(const std::vector<uint32_t>& m, uint32_t id) { return (m[id >> 5] >> (id & 31)) & 1; }

// From where `m` stands: every token the mask allows is accepted and no other, for `steps` random
// steps (or until only the end may follow).
inline void agree(Matcher& m, const Vocabulary& v, std::mt19937& rng, int steps) {
  std::vector<uint32_t> mask(v.words());
  for (int step = 0; step < steps && !m.isTerminated(); step++) {
    m.fillNextTokenBitmask(mask.data(), mask.size());
    std::vector<uint32_t> allowed;
    for (uint32_t id = 0; id < v.size(); id++) {
      const bool ok = m.acceptToken(id);
      CHECK(ok == bit(mask, id));
      if (ok) {
        allowed.push_back(id);
        m.rollback(1);
      }
    }
    if (allowed.empty()) {
      CHECK(m.isComplete());
      return;
    }
    CHECK(m.acceptToken(allowed[rng() % allowed.size()]));
  }
}

}  // namespace toolmask::test
