// Counted constructs (nfa_count.cpp): a repetition or bounded text past the grammar's countAbove
// keeps its count in the walking thread. Checked against the same grammar unrolled (countAbove out
// of reach), against a direct count for bounds too large to unroll, for masks that agree with
// acceptToken next to a bound after a long walk, and for a bounded set of states however long it is.
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

// The same language counted and unrolled, on random strings over the grammar's alphabet; the
// counted one's masks agree with acceptToken.
void againstUnrolled(const std::shared_ptr<const Vocabulary>& v) {
  const std::vector<std::pair<long, long>> bounds = {{0, 3}, {2, 5}, {4, 4}, {3, -1}, {0, 1}};
  std::mt19937 rng(31);
  int checked = 0;
  for (auto [min, max] : bounds) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {quoted(min, max), "ab\"\\n"},
        // items that may end or go on ("a" or "ab"): threads a count apart
        {seq({rep(R"({"type":"alt","items":[)" + lit(R"("a")") + "," + lit(R"("ab")") + "]}", min, max),
              lit(R"("c")")}),
         "abc"},
        // digit runs with no separator: one text, many counts
        {seq({rep(seq({DIGIT, rep(DIGIT, 0, -1)}), min, max), lit(R"(".")")}), "12."},
        {list(std::max(1L, min), max), "[]0123,"},
    };
    for (auto& [root, alphabet] : cases) {
      auto counted = compile(v, grammar(root, 0)), unrolled = compile(v, grammar(root, 1L << 40));
      for (int i = 0; i < 300; i++) {
        std::string s;
        const int n = int(rng() % 12);
        for (int k = 0; k < n; k++) s += alphabet[rng() % alphabet.size()];
        if (rng() % 2 && !s.empty()) s = (root.find(R"("\"")") != std::string::npos ? "\"" : "") + s;
        const bool a = accepts(counted, s), b = accepts(unrolled, s);
        if (a != b && failures < 5) std::printf("counted %d, unrolled %d on %s\n", a, b, s.c_str());
        CHECK(a == b);
        checked++;
      }
      Matcher m(counted);
      for (int w = 0; w < 5; w++) {
        m.reset();
        agree(m, *v, rng, 30);
      }
    }
  }
  std::printf("counted against unrolled: %d strings checked\n", checked);
}

// Bounds too large to unroll, at and next to the bound; masks next to it after a long walk.
void largeBounds(const std::shared_ptr<const Vocabulary>& v) {
  const long N = 5000;
  std::mt19937 rng(5);
  auto text = [&](long n) {
    std::string s = "\"";
    for (long i = 0; i < n; i++) s += rng() % 4 ? std::string(1, char('a' + rng() % 26)) : std::string("\\n");
    return s;
  };
  auto maxOnly = compile(v, grammar(quoted(0, N), 1024));
  auto minMax = compile(v, grammar(quoted(N - 3, N), 1024));
  auto minOnly = compile(v, grammar(quoted(N, -1), 1024));
  for (long n = N - 5; n <= N + 5; n++) {
    const std::string s = text(n) + "\"";
    CHECK(accepts(maxOnly, s) == (n <= N));
    CHECK(accepts(minMax, s) == (n >= N - 3 && n <= N));
    CHECK(accepts(minOnly, s) == (n >= N));
  }
  auto ints = compile(v, grammar(list(1, N), 1024));
  for (long n = N - 2; n <= N + 2; n++) {
    std::string s = "[";
    for (long i = 0; i < n; i++) s += (i ? "," : "") + std::to_string(rng() % 300);
    CHECK(accepts(ints, s + "]") == (n <= N));
  }
  // Raw text of at most N characters before "</p>", one padding newline each side not counted.
  auto raw = compile(
      v, R"({"root":{"type":"until","terminator":"</p>","maxLength":5000,"minLength":4998,"trimNewline":true}})");
  for (long n = N - 4; n <= N + 2; n++)
    for (const char* pad : {"", "\n"}) {
      std::string s = std::string(pad) + std::string(size_t(n), 'x') + pad + "</p>";
      CHECK(accepts(raw, s) == (n >= N - 2 && n <= N));
    }
  // Next to the bound after N - 20 characters, every mask agrees with acceptToken.
  for (auto& g : {maxOnly, minMax}) {
    Matcher m(g);
    const std::string s = "\"" + std::string(size_t(N - 20), 'q');
    CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
    for (int w = 0; w < 3; w++) {
      agree(m, *v, rng, 60);
      m.rollback(m.steps() - 1);
    }
  }
  std::printf("large bounds: checked\n");
}

// However long the count, the automaton stays the same size: a walk of 60,000 characters builds
// no more states than one of 30,000, and the bound still holds exactly at its end.
void boundedStates(const std::shared_ptr<const Vocabulary>& v) {
  const long N = 2000000000;  // past what a text here can reach: still counted exactly
  for (const std::string& root : {quoted(0, N), list(1, N)}) {
    auto g = compile(v, grammar(root, 1024));
    const bool isList = root == list(1, N);
    auto walk = [&](long n) {
      Matcher m(g);
      std::string s = isList ? "[1" : "\"";
      for (long i = 1; i < n; i++) s += isList ? ",7" : "x";
      CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
      return g->stateCount();
    };
    const size_t half = walk(30000), full = walk(60000);
    if (full > half + 64) std::printf("states after 30,000: %zu, after 60,000: %zu\n", half, full);
    CHECK(full <= half + 64);
  }
  {
    auto g = compile(v, grammar(quoted(0, 70000), 1024));
    const std::string at = "\"" + std::string(70000, 'x'), over = at + "x";
    CHECK(accepts(g, at + "\"") && !accepts(g, over + "\""));
    CHECK(g->stateCount() < 40000);
  }
  {
    // A forced run through a count past the settle window: exactly up to the bound, not past it.
    auto g = compile(v, grammar(seq({rep(lit(R"("a")"), 20000, 30000), lit(R"("b")")}), 1024));
    Matcher m(g);
    const std::string head(100, 'a');
    CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>(head.data()), head.size()));
    CHECK(m.forcedBytes(1u << 20) == std::string(19900, 'a'));
    CHECK(m.forcedBytes(7) == std::string(7, 'a'));
  }
  std::printf("bounded states: checked\n");
}

}  // namespace

void countTests(const std::shared_ptr<const Vocabulary>& v) {
  againstUnrolled(v);
  largeBounds(v);
  boundedStates(v);
}
