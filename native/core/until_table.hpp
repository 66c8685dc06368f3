// The automaton of an until(T) / text(exclude T) node before any count: its base states (a KMP
// position in T, a UTF-8 phase, trim flags), found breadth first, each with its outgoing byte runs.
// It depends on T and the two flags alone, so it is built once per process for each (T, textOnly,
// trim) and shared by every grammar that holds such a node (each dialect's grammar has the same few
// terminators; building one walks 256 bytes from every base state).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace toolmask {

struct UntilTable {
  struct Run {
    uint8_t lo, hi;
    int32_t to;      // a base state, or -1 for T's end
    bool completes;  // the byte completes a code point
    bool counts;     // a code point of text completes (not the leading padding newline)
    bool pad;        // after it, one counted newline is padding if T completes
  };
  struct Base {
    size_t k;        // the KMP position in T
    uint8_t ph, fl;  // the UTF-8 phase; with trim, flags (1 read a character, 2 the last was a
                     // newline, not the leading one, 4 a newline came just before the partial match)
  };
  std::vector<Base> base;              // base[0]: nothing read
  std::vector<std::vector<Run>> runs;  // per base state, its byte runs in byte order
  std::vector<long> prefChars;         // code points complete inside T[0:k], for k = 0..|T|
};

// The table of (T, textOnly, trim); T is not empty. Tables of terminators of at most
// kUntilTableKeptBytes bytes are kept for the process, up to kUntilTablesKeptBytes of tables in all
// (a table that would pass it empties the kept ones first).
constexpr size_t kUntilTableKeptBytes = 64;
constexpr size_t kUntilTablesKeptBytes = size_t(4) << 20;
std::shared_ptr<const UntilTable> untilTable(const std::string& T, bool textOnly, bool trim);

// The heap bytes a table holds.
size_t untilTableBytes(const UntilTable& t);

// Tables built (not found kept) since the process started: for tests.
size_t untilTablesBuilt();

}  // namespace toolmask
