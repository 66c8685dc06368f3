// Intersections (nfa_intersect.cpp): the product accepts a text exactly where every item does, on
// random texts over the items' alphabet, with the items' repetitions counted (gates kept through
// the product) and unrolled alike; its masks agree with acceptToken; inside raw text (an until's
// body) too; a length of any size costs the same few states; a product past the limit is a
// GrammarLimitError naming the node's path.
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "check.hpp"
#include "ir_helpers.hpp"

using namespace toolmask;
using namespace toolmask::test;

namespace {

std::string cls(const std::string& ranges) { return R"({"type":"charClass","ranges":)" + ranges + "}"; }
std::string alt(const std::vector<std::string>& items) {
  std::string out = R"({"type":"alt","items":[)";
  for (size_t i = 0; i < items.size(); i++) out += (i ? "," : "") + items[i];
  return out + "]}";
}
std::string intersect(const std::vector<std::string>& items, const std::string& path = "") {
  std::string out = R"({"type":"intersect",)" + (path.empty() ? "" : R"("path":")" + path + "\",") + R"("items":[)";
  for (size_t i = 0; i < items.size(); i++) out += (i ? "," : "") + items[i];
  return out + "]}";
}
const std::string ANY = cls("[[0,1114111]]");
const std::string LOWER = cls("[[97,122]]");

// The items of each case, and the alphabet its texts are drawn from.
struct Case {
  std::vector<std::string> items;
  std::string alphabet;
};

std::vector<Case> cases() {
  const std::string a = lit(R"("a")"), b = lit(R"("b")");
  return {
      // a pattern and a length (counted past countAbove 0)
      {{rep(LOWER, 0, -1), rep(ANY, 2, 4)}, "abX"},
      // two unanchored patterns: contains "ab", ends with "b"
      {{seq({rep(ANY, 0, -1), a, b, rep(ANY, 0, -1)}), seq({rep(ANY, 0, -1), b})}, "abc"},
      // items that may end or go on, a minimum only
      {{rep(alt({a, seq({a, b})}), 1, -1), rep(ANY, 3, -1)}, "ab"},
      // three items: an even count of characters, at most 6, a's then b's
      {{rep(seq({ANY, ANY}), 0, -1), rep(ANY, 0, 6), seq({rep(a, 0, -1), rep(b, 0, -1)})}, "ab"},
      // JSON-like escapes on both sides: one character is one escape
      {{rep(CHAR, 0, 3), seq({rep(CHAR, 0, -1), lit(R"("\\n")")})}, "a\\n\""},
      // no text at all matches both
      {{rep(a, 1, -1), rep(b, 1, -1)}, "ab"},
  };
}

// Every item compiled alone decides the text: the product accepts exactly where all of them do.
void againstItems(const std::shared_ptr<const Vocabulary>& v) {
  std::mt19937 rng(17);
  int checked = 0;
  for (const Case& c : cases())
    for (long countAbove : {0L, 1L << 40}) {
      // "!" beside it: a grammar whose intersection matches nothing still accepts something
      auto product = compile(v, grammar(alt({intersect(c.items), lit(R"("!")")}), countAbove));
      std::vector<std::shared_ptr<CompiledGrammar>> alone;
      for (auto& item : c.items) alone.push_back(compile(v, grammar(item, countAbove)));
      for (int i = 0; i < 400; i++) {
        std::string s;
        const int n = int(rng() % 9);
        for (int k = 0; k < n; k++) s += c.alphabet[rng() % c.alphabet.size()];
        bool all = true;
        for (auto& g : alone) all = all && accepts(g, s);
        const bool p = accepts(product, s);
        if (p != all && failures < 5) std::printf("product %d, items %d on \"%s\"\n", p, all, s.c_str());
        CHECK(p == all);
        checked++;
      }
      Matcher m(product);
      for (int w = 0; w < 4; w++) {
        m.reset();
        agree(m, *v, rng, 20);
      }
    }
  std::printf("intersections against their items: %d texts checked\n", checked);
}

// As raw text (an until's body, the product with the close cut at its first occurrence): counted as
// unrolled, and a length of 5000 exactly.
void inRawText(const std::shared_ptr<const Vocabulary>& v) {
  auto raw = [&](const std::string& body, long countAbove) {
    return compile(v, R"({"root":{"type":"until","terminator":"</p>","trimNewline":true,"body":)" + body +
                          "},\"countAbove\":" + std::to_string(countAbove) + "}");
  };
  const std::string body = intersect({rep(cls("[[97,122],[60,60],[47,47],[10,10]]"), 0, -1), rep(ANY, 0, 5)});
  auto counted = raw(body, 0), unrolled = raw(body, 1L << 40);
  std::mt19937 rng(3);
  const std::string alphabet = "ab</p>\n";
  for (int i = 0; i < 400; i++) {
    std::string s;
    const int n = int(rng() % 10);
    for (int k = 0; k < n; k++) s += alphabet[rng() % alphabet.size()];
    s += "</p>";
    CHECK(accepts(counted, s) == accepts(unrolled, s));
  }
  auto big = raw(intersect({rep(cls("[[97,122]]"), 0, -1), rep(ANY, 0, 5000)}), 64);
  for (long n = 4998; n <= 5002; n++)
    for (const char* pad : {"", "\n"}) {
      const std::string s = std::string(pad) + std::string(size_t(n), 'x') + pad + "</p>";
      CHECK(accepts(big, s) == (n <= 5000));
    }
  std::printf("intersections in raw text: checked\n");
}

// A length of 2^31 keeps the product a few states: a long walk builds no more than a short one.
void boundedStates(const std::shared_ptr<const Vocabulary>& v) {
  auto g = compile(v, grammar(intersect({rep(cls("[[97,122]]"), 0, -1), rep(ANY, 0, 2147483647L)}), 64));
  auto walk = [&](long n) {
    Matcher m(g);
    const std::string s(size_t(n), 'x');
    CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    return g->stateCount();
  };
  const size_t half = walk(20000), full = walk(40000);
  if (full > half + 64) std::printf("states after 20,000: %zu, after 40,000: %zu\n", half, full);
  CHECK(full <= half + 64);
  std::printf("intersection bounded states: checked\n");
}

// Two items whose product would pass the limit: an error naming the path, in bounded time.
void limit(const std::shared_ptr<const Vocabulary>& v) {
  // (a-z{1,60}-){1,60} and (a-z-{1,59}q){1,60}: thousands of unrolled states each, paired
  const std::string dash = lit(R"("-")"), q = lit(R"("q")");
  const std::string a = rep(seq({rep(LOWER, 1, 60), dash}), 1, 60);
  const std::string b = rep(seq({rep(cls("[[97,122],[45,45]]"), 1, 59), q}), 1, 60);
  bool threw = false;
  try {
    compile(v, grammar(intersect({a, b}, "$.properties.v"), 1L << 40));
  } catch (const GrammarLimitError& e) {
    threw = true;
    CHECK(e.limit == "automatonStates");
    CHECK(std::strncmp(e.what(), "$.properties.v: ", 16) == 0);
  }
  CHECK(threw);
  std::printf("intersection limit: checked\n");
}

}  // namespace

void intersectTests(const std::shared_ptr<const Vocabulary>& v) {
  againstItems(v);
  inRawText(v);
  boundedStates(v);
  limit(v);
}
