// The terminator tables of until/text nodes (until_table.cpp): what a table holds, and that a
// process builds each (terminator, flags) once, whatever number of grammars holds it.
#include <memory>
#include <string>

#include "../core/grammar.hpp"
#include "../core/include/toolmask/matcher.hpp"
#include "../core/until_table.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {
// The run of base state `b` that holds `byte`, or null.
const UntilTable::Run* runOf(const UntilTable& t, size_t b, unsigned char byte) {
  for (const auto& r : t.runs[b])
    if (r.lo <= byte && byte <= r.hi) return &r;
  return nullptr;
}

bool accepts(const std::shared_ptr<const Vocabulary>& v, const std::string& ir, const std::string& text) {
  auto g = std::make_shared<CompiledGrammar>(ir, v, CompileOptions{});
  Matcher m(g);
  return m.acceptBytes(reinterpret_cast<const uint8_t*>(text.data()), text.size()) && m.isComplete();
}
}  // namespace

void untilTableTests(const std::shared_ptr<const Vocabulary>& v) {
  // until("ab"): 'a' moves to KMP position 1, 'b' there ends T, 'a' there stays at 1.
  {
    auto t = untilTable("ab", false, false);
    CHECK(t->base.size() >= 2 && t->base[0].k == 0 && t->prefChars.size() == 3 && t->prefChars[2] == 2);
    const UntilTable::Run* a = runOf(*t, 0, 'a');
    CHECK(a && a->to > 0 && t->base[size_t(a->to)].k == 1 && a->completes);
    const UntilTable::Run* b = runOf(*t, size_t(a->to), 'b');
    CHECK(b && b->to == -1);
    const UntilTable::Run* aa = runOf(*t, size_t(a->to), 'a');
    CHECK(aa && aa->to == a->to);
    CHECK(!runOf(*t, 0, 0xFF));  // never a UTF-8 byte
    // text(exclude "ab"): T never completes.
    auto x = untilTable("ab", true, false);
    CHECK(x != t);
    const UntilTable::Run* xa = runOf(*x, 0, 'a');
    CHECK(xa && !runOf(*x, size_t(xa->to), 'b'));
  }
  // Kept: the same table for the same key, built once; a terminator past kUntilTableKeptBytes is
  // built at every use.
  {
    const std::string T = "<|until-table-test|>";
    const size_t before = untilTablesBuilt();
    auto a = untilTable(T, false, false);
    auto b = untilTable(T, false, false);
    CHECK(a == b && untilTablesBuilt() == before + 1);
    CHECK(untilTable(T, false, true) != a && untilTablesBuilt() == before + 2);
    const std::string longT(kUntilTableKeptBytes + 1, 'q');
    auto l1 = untilTable(longT, false, false);
    auto l2 = untilTable(longT, false, false);
    CHECK(l1 != l2 && untilTablesBuilt() == before + 4 && l1->base.size() == l2->base.size());
  }
  // Two grammars holding the same until build its table once, and both match by it.
  {
    const std::string ir =
        R"({"root":{"type":"seq","items":[{"type":"until","terminator":"</until-table-grammar>"},{"type":"literal","text":"!"}]}})";
    const size_t before = untilTablesBuilt();
    CHECK(accepts(v, ir, "text </until-table-grammar>!"));
    CHECK(accepts(v, ir, "</until-table-grammar>!"));
    CHECK(!accepts(v, ir, "text </until-table-grammar> more!"));
    CHECK(untilTablesBuilt() == before + 1);
  }
  // Past kUntilTablesKeptBytes of tables the kept ones go, and tables are still right.
  {
    const std::string T = "</until-table-kept>";
    auto first = untilTable(T, false, false);
    const size_t each = untilTableBytes(*untilTable(std::string(kUntilTableKeptBytes, 'w'), false, false));
    for (size_t i = 0; i * each <= kUntilTablesKeptBytes; i++)
      untilTable(std::string(kUntilTableKeptBytes - 9, 'w') + std::to_string(100000000 + i), false, false);
    CHECK(untilTable(T, false, false) != first);  // built again
    auto t = untilTable("ab", false, false);
    const UntilTable::Run* a = runOf(*t, 0, 'a');
    CHECK(a && a->to > 0 && runOf(*t, size_t(a->to), 'b') && runOf(*t, size_t(a->to), 'b')->to == -1);
  }
}
