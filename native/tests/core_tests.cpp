// Native tests of the core, without Node: run under ASan + UBSan by
// `npm run test:native:sanitize`. A synthetic byte-level vocabulary (every byte,
// then multi-byte tokens), grammars of every construct, random walks checking
// that the mask and acceptToken agree and never strand a walk, and bad input.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/fast_forward.hpp"
#include "../core/include/toolmask/mask_prefetch.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "../core/include/toolmask/walk.hpp"
#include "check.hpp"

using namespace toolmask;

std::atomic<int> failures{0};
// count_tests.cpp, intersect_tests.cpp
void countTests(const std::shared_ptr<const Vocabulary>& v);
void intersectTests(const std::shared_ptr<const Vocabulary>& v);
// yield_tests.cpp
void yieldTests(const std::shared_ptr<const Vocabulary>& v, const std::vector<std::string>& irs);
void lockKindTests();
void jsonTests();
void sccTests();
void sparseWordsTests();
void smallVecTests();
void ruleLibraryTests(const std::shared_ptr<const Vocabulary>& v);
void prefetchThreadTests(const std::shared_ptr<const Vocabulary>& v, const std::string& ir);
void untilTableTests(const std::shared_ptr<const Vocabulary>& v);
void badInputTests(const std::shared_ptr<const Vocabulary>& v);

static std::shared_ptr<const Vocabulary> makeVocab() {
  std::vector<std::string> toks;
  for (int b = 0; b < 256; b++) toks.push_back(std::string(1, char(b)));
  const char* words[] = {"<",    "</", "</parameter>", "parameter",   ">\n", "\n",   "ab",
                         "abc",  "\"", "\",",          "\\n",         "é",   "\xc3", "\xa9x",
                         "中文", "😀", "<tool_call>",  "hello world", "  ",  "\n\n"};
  for (auto* w : words) toks.push_back(w);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; i++) {
    std::string t;
    int n = 1 + int(rng() % 6);
    for (int k = 0; k < n; k++) t += char(rng() % 3 ? 'a' + rng() % 26 : "<>/\"\\ \n"[rng() % 7]);
    toks.push_back(t);
  }
  std::vector<uint8_t> bytes, kinds;
  std::vector<uint32_t> offs{0};
  for (auto& t : toks) {
    bytes.insert(bytes.end(), t.begin(), t.end());
    offs.push_back(uint32_t(bytes.size()));
    kinds.push_back(0);
  }
  const char* specials[] = {"<|im_end|>", "<|special|>"};
  for (int i = 0; i < 2; i++) {
    std::string t = specials[i];
    bytes.insert(bytes.end(), t.begin(), t.end());
    offs.push_back(uint32_t(bytes.size()));
    kinds.push_back(i == 0 ? 2 : 1);
  }
  offs.push_back(uint32_t(bytes.size()));
  kinds.push_back(3);  // an unused id
  return std::make_shared<const Vocabulary>(bytes.data(), bytes.size(), offs.data(), kinds.data(),
                                            uint32_t(kinds.size()));
}

static bool bit(const std::vector<uint32_t>& m, uint32_t id) { return (m[id >> 5] >> (id & 31)) & 1; }

static void walks(const std::shared_ptr<const Vocabulary>& v, const std::string& ir, const CompileOptions& opts = {},
                  std::shared_ptr<ShapeCache> shapes = nullptr) {
  auto g = std::make_shared<CompiledGrammar>(ir, v, opts, std::move(shapes));
  Matcher m(g);
  std::vector<uint32_t> mask(v->words());
  std::mt19937 rng(42);
  for (int w = 0; w < 20; w++) {
    m.reset();
    for (int step = 0; step < 40; step++) {
      m.fillNextTokenBitmask(mask.data(), mask.size());
      std::vector<uint32_t> allowed;
      for (uint32_t id = 0; id < v->size(); id++) {
        bool ok = m.acceptToken(id);
        if (ok != bit(mask, id) && failures < 5) {
          size_t len;
          const uint8_t* p = v->tokenBytes(id, len);
          std::printf("grammar %s step %d token %u '%.*s' accept=%d mask=%d\n", ir.substr(0, 60).c_str(), step, id,
                      int(len), p, ok, bit(mask, id));
        }
        CHECK(ok == bit(mask, id));
        if (ok) {
          allowed.push_back(id);
          m.rollback(1);
        }
      }
      if (allowed.empty()) {
        CHECK(m.isComplete());
        break;
      }
      CHECK(m.acceptToken(allowed[rng() % allowed.size()]));
      if (m.isTerminated()) break;
    }
  }
}

// Random walks: every one ends (the grammar forces a close), is deterministic by seed,
// leaves the matcher where it started, and replays through acceptToken to a complete state.
static void randomWalkTests(const std::shared_ptr<const Vocabulary>& v) {
  const char* ir =
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"<p>"},{"type":"until","terminator":"</parameter>","maxLength":5},{"type":"literal","text":"!"}]}})";
  auto g = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
  Matcher m(g);
  CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>("<p>"), 3));
  WalkOptions o;
  o.seed = 9;
  auto a = randomWalks(m, o, 200), b = randomWalks(m, o, 200);
  CHECK(m.steps() == 1);
  for (size_t i = 0; i < a.size(); i++) {
    CHECK(a[i].tokens == b[i].tokens);
    CHECK(a[i].terminated && !a[i].stuck);
    for (uint32_t id : a[i].tokens) CHECK(m.acceptToken(id));
    CHECK(m.isTerminated());
    m.rollback(m.steps() - 1);
  }
  // maxTokens bounds a walk: none taken, not terminated, nothing accepted.
  o.maxTokens = 0;
  auto none = randomWalks(m, o, 1);
  CHECK(none[0].tokens.empty() && !none[0].terminated && m.steps() == 1);
}

// until(T, maxLength, minLength, trimNewline) and text(exclude T, maxLength) against a direct reading
// of their meaning, on random strings of whole characters (terminator pieces, multi-byte characters):
// until: x then T, where T first occurs at the very end and x has minLength..maxLength characters
// (with trimNewline, once one leading and then one trailing newline of x are taken off);
// text: no T anywhere and at most maxLength characters. With countAbove, bounds above it counted.
static size_t chars(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}
static std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n')
      out += "\\n";
    else if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else
      out += c;
  }
  return out + "\"";
}
static void untilLanguageTests(const std::shared_ptr<const Vocabulary>& v, long countAbove) {
  const char* terms[] = {"</parameter>", "\n", "aab", "é</x>", "中"};
  const char* pieces[] = {"a", "b", "<", "/", "x", ">", "é", "中", "😀", "\n", "</", "aa", "parameter"};
  std::mt19937 rng(11);
  int checked = 0;
  CompileOptions lazy;
  lazy.precomputeStates = 0;
  for (const char* T : terms) {
    for (long maxLen : {-1L, 0L, 1L, 2L, 3L, 7L}) {
      for (long minLen : {0L, 1L, 3L}) {
        for (int kind = 0; kind < 3; kind++) {  // text, until, until with trimNewline
          const bool textOnly = kind == 0, trim = kind == 2;
          if ((textOnly && minLen > 0) || (maxLen >= 0 && minLen > maxLen)) continue;
          if (trim && (std::strchr(T + 1, T[0]) || std::strchr(T, '\n'))) continue;
          std::string ir = std::string(R"({"root":{"type":")") + (textOnly ? "text" : "until") + "\",\"" +
                           (textOnly ? "exclude" : "terminator") + "\":" + jsonString(T) +
                           (maxLen >= 0 ? ",\"maxLength\":" + std::to_string(maxLen) : "") +
                           (minLen > 0 ? ",\"minLength\":" + std::to_string(minLen) : "") +
                           (trim ? ",\"trimNewline\":true" : "") + "}" +
                           (countAbove >= 0 ? ",\"countAbove\":" + std::to_string(countAbove) : "") + "}";
          auto g = std::make_shared<CompiledGrammar>(ir, v, lazy);
          Matcher m(g);
          for (int i = 0; i < 200; i++) {
            std::string s;
            int n = int(rng() % 10);
            for (int k = 0; k < n; k++) s += pieces[rng() % (sizeof pieces / sizeof *pieces)];
            if (!textOnly && rng() % 3) s += T;
            size_t first = s.find(T);
            std::string x = first == std::string::npos ? s : s.substr(0, first);
            if (trim && !x.empty() && x[0] == '\n') x.erase(0, 1);
            if (trim && !x.empty() && x.back() == '\n') x.pop_back();
            const long len = long(chars(x));
            bool want = textOnly ? first == std::string::npos && (maxLen < 0 || len <= maxLen)
                                 : first != std::string::npos && first + std::strlen(T) == s.size() &&
                                       (maxLen < 0 || len <= maxLen) && len >= minLen;
            m.reset();
            bool got =
                (s.empty() || m.acceptBytes(reinterpret_cast<const uint8_t*>(s.data()), s.size())) && m.isComplete();
            if (got != want && failures < 5)
              std::printf("%s on %s: got %d, want %d\n", ir.c_str(), jsonString(s).c_str(), got, want);
            CHECK(got == want);
            checked++;
          }
        }
      }
    }
  }
  std::printf("until/text languages (countAbove %ld): %d strings checked\n", countAbove, checked);
}

// forcedBytes against the automaton itself: at states along random byte walks, the forced text is
// non-empty exactly where one byte alone continues, the grammar cannot end and no special token
// may come; it is that byte followed by the next state's forced text.
static void forcedBytesTests(const std::shared_ptr<const Vocabulary>& v, const char* const* grammars, size_t count) {
  std::mt19937 rng(5);
  int forcedStates = 0, checked = 0;
  std::vector<std::string> irs(grammars, grammars + count);
  // Where the grammar may end before its only continuation ("ab" then optionally "cd"), and where
  // a special token competes with one byte ("x" then <|special|> or "y"): nothing is forced.
  irs.push_back(
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"ab"},{"type":"repeat","min":0,"max":1,"item":{"type":"literal","text":"cd"}}]}})");
  irs.push_back(
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"x"},{"type":"alt","items":[{"type":"token","id":2277},{"type":"literal","text":"yz"}]}]}})");
  for (auto& ir : irs) {
    auto g = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
    for (int w = 0; w < 30; w++) {
      int32_t s = g->start();
      for (int step = 0; step < 60 && s >= 0; step++) {
        std::vector<uint8_t> live;
        for (int b = 0; b < 256; b++) {
          uint8_t byte = uint8_t(b);
          if (g->stepBytes(s, &byte, 1) >= 0) live.push_back(byte);
        }
        bool mayEnd = g->accepting(s) || !g->allowedSpecials(s).empty();
        std::string f = g->forcedBytes(s, 64);
        CHECK(f.empty() == (mayEnd || live.size() != 1));
        if (!f.empty()) {
          forcedStates++;
          CHECK(uint8_t(f[0]) == live[0]);
          uint8_t first = live[0];
          CHECK(g->forcedBytes(g->stepBytes(s, &first, 1), 63) == f.substr(1));
        }
        checked++;
        if (live.empty()) break;
        uint8_t pick = live[rng() % live.size()];
        s = g->stepBytes(s, &pick, 1);
      }
    }
  }
  {
    // Through the matcher: after "<p" of the first grammar only ">" can follow.
    Matcher m(std::make_shared<CompiledGrammar>(grammars[0], v, CompileOptions{}));
    CHECK(m.forcedBytes(64) == "<p>");
    CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>("<p"), 2));
    CHECK(m.forcedBytes(64) == ">");
    CHECK(m.forcedBytes(0).empty());
  }
  std::printf("forcedBytes: %d states checked, %d with forced bytes\n", checked, forcedStates);
  CHECK(forcedStates > 50);
}

// fastForwardTokens: the tokens taken from a tokenizer's split of `last` + the forced run. Ids of
// makeVocab: single bytes are their own ids; "</" 257, "</parameter>" 258, "parameter" 259, "\n"
// 261, "ab" 262; <|special|> 2277.
static void fastForwardTests(const std::shared_ptr<const Vocabulary>& v) {
  const uint32_t AB = 262, SLASH_OPEN = 257, CLOSE_TAG = 258, PARAMETER = 259, NL = 261;
  auto after = [&](const char* ir, std::shared_ptr<CompiledGrammar>& g) {
    g = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
    return g->stepToken(g->start(), AB);
  };
  auto take = [&](CompiledGrammar& g, int32_t s, std::vector<uint32_t> split, size_t max = 64) {
    return fastForwardTokens(g, s, AB, g.forcedRun(s, 1024), split, max);
  };
  using V = std::vector<uint32_t>;
  std::shared_ptr<CompiledGrammar> g;
  // "ab" "</parameter>" then a choice: the run is not at a boundary.
  int32_t s = after(
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"ab</parameter>"},{"type":"alt","items":[{"type":"literal","text":"x"},{"type":"literal","text":"y"}]}]}})",
      g);
  CHECK(g->forcedRun(s, 1024).bytes == "</parameter>" && !g->forcedRun(s, 1024).atBoundary);
  CHECK(take(*g, s, V{AB, CLOSE_TAG}).empty());  // the last token waits for what follows
  CHECK((take(*g, s, V{AB, SLASH_OPEN, PARAMETER, '>'}) == V{SLASH_OPEN, PARAMETER}));
  CHECK((take(*g, s, V{AB, SLASH_OPEN, PARAMETER, '>'}, 1) == V{SLASH_OPEN}));  // at most max
  CHECK(take(*g, s, V{AB, SLASH_OPEN, PARAMETER, '>'}, 0).empty());
  CHECK(take(*g, s, V{'a', 'b', SLASH_OPEN, PARAMETER, '>'}).empty());  // the split changed `last`
  CHECK(take(*g, s, V{AB, SLASH_OPEN, PARAMETER}).empty());             // spells less than the run
  CHECK(take(*g, s, V{AB, ' ', SLASH_OPEN, PARAMETER, '>'}).empty());   // a leading space the grammar has not
  CHECK(take(*g, s, V{AB, SLASH_OPEN, PARAMETER, '>', 'x'}).empty());   // spells more than the run
  // Where the run's remaining bytes begin a longer token ("</" begins "</parameter>"), the tokens
  // from there on wait too.
  s = after(
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"ab#</"},{"type":"alt","items":[{"type":"literal","text":"x"},{"type":"literal","text":"y"}]}]}})",
      g);
  CHECK((take(*g, s, V{AB, '#', '<', '/'}) == V{'#'}));
  CHECK(v->extendsPast(reinterpret_cast<const uint8_t*>("</"), 2) &&
        !v->extendsPast(reinterpret_cast<const uint8_t*>("#</"), 3));
  // At a boundary nothing can merge across the run's end: a special token follows, or the end.
  s = after(R"({"root":{"type":"seq","items":[{"type":"literal","text":"ab</"},{"type":"token","id":2277}]}})", g);
  CHECK(g->forcedRun(s, 1024).atBoundary);
  CHECK((take(*g, s, V{AB, SLASH_OPEN}) == V{SLASH_OPEN}));
  s = after(R"({"root":{"type":"literal","text":"ab\n"}})", g);
  CHECK(g->forcedRun(s, 1024).atBoundary);
  CHECK((take(*g, s, V{AB, NL}) == V{NL}));
  // A run cut by its max is not at a boundary.
  CHECK(!g->forcedRun(g->start(), 1).atBoundary && g->forcedRun(g->start(), 1).bytes == "a");
  // A special token in the split is never taken.
  CHECK(take(*g, s, V{AB, 2277}).empty());
  std::printf("fastForwardTokens: checked\n");
}

// The token budget (grammar_budget.cpp): exact bounds, and a call (IR "call": true) not opened
// when it cannot close in the tokens left, while text and an open call are left alone.
static void budgetTests(const std::shared_ptr<const Vocabulary>& v) {
  const uint32_t SPECIAL = 2277;
  auto compile = [&](const char* ir) { return std::make_shared<CompiledGrammar>(ir, v, CompileOptions{}); };
  auto mask = [&](Matcher& m, uint32_t left) {
    std::vector<uint32_t> out(v->words());
    m.fillNextTokenBitmask(out.data(), out.size(), left);
    return out;
  };
  // "abcab": "abc" + "ab" is the fewest tokens.
  {
    Matcher m(compile(R"({"root":{"type":"literal","text":"abcab"}})"));
    CHECK(m.minTokensToFinish() == 2);
    CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>("abcab"), 5) && m.minTokensToFinish() == 0);
  }
  // Text ("ok"), or the special token then a call: "q", any text up to "</parameter>", "q;q;q".
  const char* withCall =
      R"({"root":{"type":"alt","items":[{"type":"literal","text":"ok"},{"type":"seq","items":[{"type":"token","id":2277},{"type":"seq","call":true,"items":[{"type":"literal","text":"q"},{"type":"until","terminator":"</parameter>"},{"type":"literal","text":"q;q;q"}]}]}]}})";
  {
    Matcher m(compile(withCall));
    CHECK(m.minTokensToFinish() >= 1 &&
          m.minTokensToFinish() <= 2);  // "ok": 'o' 'k', or one token if the vocabulary has it
    std::vector<uint32_t> full(v->words());
    m.fillNextTokenBitmask(full.data(), full.size());
    CHECK(bit(full, SPECIAL));
    CHECK(m.acceptToken(SPECIAL));
    const uint32_t need = m.minTokensToFinish();
    CHECK(need >= 3 && need <= 7);
    // Inside the call even one token left changes nothing: a cut stays a cut.
    std::vector<uint32_t> inside(v->words());
    m.fillNextTokenBitmask(inside.data(), inside.size());
    CHECK(mask(m, 1) == inside);
    CHECK(!m.budgetMayLimit(1));  // inside a call: the state's own mask is the step's mask
    {
      std::vector<uint32_t> out(v->words());
      CHECK(!m.fillNextTokenBitmask(out.data(), out.size(), 1));
    }
    m.reset();
    CHECK(m.budgetMayLimit(need) && !m.budgetMayLimit(0) && !m.budgetMayLimit(1000));
    {
      // The return value says whether the budget changed the mask (the backend's resident rows
      // hold the state's own mask and take an ad-hoc row exactly then).
      std::vector<uint32_t> out(v->words());
      CHECK(m.fillNextTokenBitmask(out.data(), out.size(), need) && out != full);
      CHECK(!m.fillNextTokenBitmask(out.data(), out.size(), need + 1) && out == full);
    }
    CHECK(bit(mask(m, need + 1), SPECIAL));  // the call fits: may open
    CHECK(!bit(mask(m, need), SPECIAL));     // it does not: refused...
    CHECK(bit(mask(m, 1), 'o'));             // ...while text stays
    CHECK(mask(m, 1000) == full);            // past the horizon nothing changes
  }
  // A trigger that may also start text (as a call to an undeclared name is text): the call's own
  // states decide, not the quicker way out.
  {
    Matcher m(compile(
        R"({"root":{"type":"seq","items":[{"type":"token","id":2277},{"type":"alt","items":[{"type":"literal","text":"z"},{"type":"seq","call":true,"items":[{"type":"literal","text":"q;q;q;q;q;q"}]}]}]}})"));
    CHECK(m.minTokensToFinish() == 2);
    CHECK(bit(mask(m, 3), SPECIAL));  // the only token allowed: kept (the last one is never cleared)
    std::vector<uint32_t> out(v->words());
    CHECK(!m.fillNextTokenBitmask(out.data(), out.size(), 3));  // ...so the mask is unchanged
  }
  {
    Matcher m(compile(
        R"({"root":{"type":"alt","items":[{"type":"literal","text":"o"},{"type":"seq","items":[{"type":"token","id":2277},{"type":"alt","items":[{"type":"literal","text":"z"},{"type":"seq","call":true,"items":[{"type":"literal","text":"q;q;q;q;q;q"}]}]}]}]}})"));
    CHECK(!bit(mask(m, 3), SPECIAL));  // "z" would end in 2, but the call needs more
    CHECK(bit(mask(m, 64), SPECIAL));
  }
  std::printf("token budget: checked\n");
}

// One shape cache shared by grammars compiled for the vocabulary, in turn and on several threads at
// once, with and without table flushes: every mask still agrees with acceptToken, and a later
// grammar with a shape seen before takes it from the cache.
static void shapeCacheTests(const std::shared_ptr<const Vocabulary>& v, const char* const* grammars, size_t count) {
  auto shapes = std::make_shared<ShapeCache>();
  const std::string str =
      R"({"type":"seq","items":[{"type":"literal","text":"\""},{"type":"repeat","min":0,"max":null,"item":{"type":"alt","items":[{"type":"charClass","ranges":[[34,34],[92,92],[0,31]],"negated":true},{"type":"seq","items":[{"type":"literal","text":"\\"},{"type":"charClass","ranges":[[110,110],[34,34]]}]}]}},{"type":"literal","text":"\""}]})";
  walks(v, R"({"root":)" + str + "}", {}, shapes);
  const size_t misses = shapes->misses();
  CHECK(misses > 0 && shapes->size() > 0);
  // The same string shape after a key, and twice in one grammar: no new shape is built.
  walks(v,
        R"({"root":{"type":"seq","items":[{"type":"literal","text":"k:"},)" + str +
            R"(,{"type":"literal","text":","},)" + str + "]}}",
        {}, shapes);
  CHECK(shapes->misses() == misses && shapes->hits() > 0);
  CompileOptions tiny;
  tiny.maxTableBytes = 1;
  tiny.precomputeStates = 0;
  for (size_t i = 0; i < count; i++) walks(v, grammars[i], {}, shapes);
  for (size_t i = 0; i < count; i++) walks(v, grammars[i], tiny, shapes);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < count; i++)
        walks(v, grammars[(i + size_t(t)) % count], t % 2 ? tiny : CompileOptions{}, shapes);
    });
  for (auto& t : threads) t.join();
  // Idle shapes stay under the cache's byte bound.
  auto small = std::make_shared<ShapeCache>(0);
  for (size_t i = 0; i < count; i++) walks(v, grammars[i], {}, small);
  walks(v, R"({"root":)" + str + "}", {}, small);
  CHECK(small->idleBytes() == 0);
  // A cache without a limit of its own follows the process-wide one.
  const size_t before = ShapeCache::processIdleBytes();
  ShapeCache::setProcessIdleBytes(0);
  auto following = std::make_shared<ShapeCache>();
  for (size_t i = 0; i < count; i++) walks(v, grammars[i], {}, following);
  CHECK(following->size() == 0 && following->idleBytes() == 0);
  ShapeCache::setProcessIdleBytes(before);
  shapes->clear();
  CHECK(shapes->size() == 0);
  std::printf("shape cache: checked\n");
}

int main() {
  auto v = makeVocab();
  const char* grammars[] = {
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"<p>"},{"type":"until","terminator":"</parameter>"},{"type":"literal","text":"!"}]}})",
      R"({"root":{"type":"seq","items":[{"type":"literal","text":"\""},{"type":"repeat","min":0,"max":null,"item":{"type":"alt","items":[{"type":"charClass","ranges":[[34,34],[92,92],[0,31]],"negated":true},{"type":"seq","items":[{"type":"literal","text":"\\"},{"type":"charClass","ranges":[[110,110],[34,34]]}]}]}},{"type":"literal","text":"\""}]}})",
      R"({"root":{"type":"perm","separator":{"type":"literal","text":","},"items":[{"node":{"type":"literal","text":"a"},"required":true},{"node":{"type":"until","terminator":"\n","maxLength":3},"required":false}]}})",
      R"({"root":{"type":"seq","items":[{"type":"token","id":2277},{"type":"ref","name":"v"}]},"rules":{"v":{"type":"alt","items":[{"type":"literal","text":"0"},{"type":"seq","items":[{"type":"literal","text":"["},{"type":"ref","name":"v"},{"type":"literal","text":"]"}]}]}},"maxRecursionDepth":3})",
      R"({"root":{"type":"repeat","min":1,"max":3,"item":{"type":"byteClass","ranges":[[0,255]]}}})",
  };
  for (auto* ir : grammars) walks(v, ir);
  // With a tiny table budget the masks are dropped again and again; every mask must still agree
  // with acceptToken, and the tables stay near the budget.
  CompileOptions tiny;
  tiny.maxTableBytes = 1;
  tiny.precomputeStates = 0;
  for (auto* ir : grammars) walks(v, ir, tiny);
  {
    // Every character of a bounded text is a state of its own: 200 new masks.
    auto g =
        std::make_shared<CompiledGrammar>(R"({"root":{"type":"until","terminator":"</p>","maxLength":300}})", v, tiny);
    Matcher m(g);
    std::vector<uint32_t> mask(v->words());
    for (int i = 0; i < 200; i++) {
      m.fillNextTokenBitmask(mask.data(), mask.size());
      CHECK(bit(mask, uint32_t('a')));
      CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>("a"), 1));
    }
    CHECK(g->maskFlushes() > 0);
  }
  {
    // A grammar counts as in use while a matcher stands in it, copies and moves included; the
    // grammars in use share the table budget (none of it: every mask dropped at the next).
    auto g = std::make_shared<CompiledGrammar>(grammars[0], v, CompileOptions{});
    const size_t before = CompiledGrammar::grammarsInUse();
    CHECK(!g->inUse());
    {
      Matcher a(g);
      CHECK(g->inUse() && CompiledGrammar::grammarsInUse() == before + 1);
      Matcher b = a;
      Matcher c = std::move(a);
      Matcher d(g);
      b = d;
      d = std::move(c);
      CHECK(CompiledGrammar::grammarsInUse() == before + 1);
    }
    CHECK(!g->inUse() && CompiledGrammar::grammarsInUse() == before);
    const size_t budget = CompiledGrammar::tableBudget();
    CompiledGrammar::setTableBudget(0);
    CompileOptions lazy;
    lazy.precomputeStates = 0;
    auto t =
        std::make_shared<CompiledGrammar>(R"({"root":{"type":"until","terminator":"</p>","maxLength":300}})", v, lazy);
    Matcher m(t);
    std::vector<uint32_t> mask(v->words());
    for (int i = 0; i < 200; i++) {
      m.fillNextTokenBitmask(mask.data(), mask.size());
      CHECK(bit(mask, uint32_t('a')));
      CHECK(m.acceptBytes(reinterpret_cast<const uint8_t*>("a"), 1));
    }
    CHECK(t->maskFlushes() > 0);
    CompiledGrammar::setTableBudget(budget);
  }
  randomWalkTests(v);
  untilLanguageTests(v, -1);
  untilLanguageTests(v, 0);
  countTests(v);
  intersectTests(v);
  forcedBytesTests(v, grammars, sizeof grammars / sizeof *grammars);
  fastForwardTests(v);
  budgetTests(v);
  shapeCacheTests(v, grammars, sizeof grammars / sizeof *grammars);
  {
    // precomputeLater: the constructor builds the start mask alone; the steps do the rest.
    CompileOptions later;
    later.precomputeLater = true;
    auto g = std::make_shared<CompiledGrammar>(grammars[0], v, later);
    const size_t first = g->stateCount();
    int steps = 0;
    while (g->precomputeStep() == CompiledGrammar::Precompute::More) steps++;
    CHECK(steps > 0 && g->stateCount() > first);
    walks(v, grammars[0], later);
    // On the prefetch thread, grammars released at once or kept and used meanwhile.
    for (auto* ir : grammars) precomputeInBackground(std::make_shared<CompiledGrammar>(ir, v, later));
    auto kept = std::make_shared<CompiledGrammar>(grammars[1], v, later);
    precomputeInBackground(kept);
    Matcher m(kept);
    std::vector<uint32_t> mask(v->words());
    m.fillNextTokenBitmask(mask.data(), mask.size());
    CHECK(bit(mask, uint32_t('"')) && !bit(mask, uint32_t('a')));
  }
  {
    // The prefetch thread's holds stop at a walk's next check when a caller waits (grammar_lock.hpp),
    // keeping nothing half-built: with another thread making precompute steps, prefetch steps at the
    // caller's state and memory measures all the while, every mask (plain and with a budget of 3
    // tokens) equals that of the same grammar no other thread touches.
    CompileOptions later;
    later.precomputeLater = true;
    for (auto* ir : grammars) {
      auto busy = std::make_shared<CompiledGrammar>(ir, v, later);
      auto calm = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
      std::atomic<bool> stop{false};
      std::atomic<int32_t> at{busy->start()};
      std::thread other([&] {
        while (!stop) {
          busy->precomputeStep();
          busy->prefetchStep(at.load(), 3);
          busy->memoryBytesNoWait();
        }
      });
      Matcher a(busy), b(calm);
      std::vector<uint32_t> ma(v->words()), mb(v->words());
      std::mt19937 rng(7);
      for (int walk = 0; walk < 8; walk++) {
        a.reset();
        b.reset();
        for (int step = 0; step < 30; step++) {
          at = a.state();
          for (uint32_t left : {0u, 3u}) {
            a.fillNextTokenBitmask(ma.data(), ma.size(), left);
            b.fillNextTokenBitmask(mb.data(), mb.size(), left);
            CHECK(ma == mb);
          }
          std::vector<uint32_t> allowed;
          for (uint32_t id = 0; id < v->size(); id++)
            if (bit(mb, id)) allowed.push_back(id);
          if (allowed.empty()) break;
          const uint32_t pick = allowed[rng() % allowed.size()];
          CHECK(a.acceptToken(pick) && b.acceptToken(pick));
        }
      }
      stop = true;
      other.join();
    }
  }

  {
    // A yield at every check of the prefetch thread's walks keeps nothing half-built (yield_tests.cpp):
    // these grammars, and one whose call holds a string (a shape) with text outside it (the budget).
    std::vector<std::string> irs(grammars, grammars + sizeof grammars / sizeof *grammars);
    irs.push_back(
        R"({"root":{"type":"alt","items":[{"type":"literal","text":"ok"},{"type":"seq","call":true,"items":[{"type":"literal","text":"<tool_call>{\"a\":"},{"type":"seq","items":[{"type":"literal","text":"\""},{"type":"repeat","min":0,"max":null,"item":{"type":"charClass","ranges":[[34,34],[92,92],[0,31]],"negated":true}},{"type":"literal","text":"\""}]},{"type":"literal","text":"}"}]}]}})");
    yieldTests(v, irs);
  }
  lockKindTests();                      // lock_kind_tests.cpp
  jsonTests();                          // json_tests.cpp
  sccTests();                           // scc_tests.cpp
  sparseWordsTests();                   // sparse_words_tests.cpp
  smallVecTests();                      // small_vec_tests.cpp
  ruleLibraryTests(v);                  // rule_library_tests.cpp
  prefetchThreadTests(v, grammars[0]);  // prefetch_thread_tests.cpp
  untilTableTests(v);                   // until_table_tests.cpp

  badInputTests(v);  // bad_input_tests.cpp

  std::printf("%s: core tests, %d failed\n", failures ? "FAIL" : "ok", failures.load());
  return failures ? 1 : 0;
}
