// What the C library's allocator takes for the blocks a table holds, so that a grammar's measured
// size is the memory it really keeps (test/test-model/grammar-accounting.test.ts compares the two
// with the allocator's own count): block headers and granules, and vectors by their capacity.
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

namespace toolmask {

// What malloc takes for a block of n bytes (glibc: 8 bytes of header, 16-byte granules, 32 at least).
inline size_t heapBlock(size_t n) { return n == 0 ? 0 : std::max<size_t>(32, (n + 8 + 15) & ~size_t(15)); }

// The heap block behind a vector's elements (its capacity, not its size).
template <typename T>
size_t vectorBytes(const std::vector<T>& v) {
  return heapBlock(sizeof(T) * v.capacity());
}

// The heap block behind a string (none while it fits the string's own buffer).
inline size_t stringBytes(const std::string& s) { return s.capacity() > 15 ? heapBlock(s.capacity() + 1) : 0; }

// One node of an unordered_map / unordered_set holding `value` bytes (the next pointer, and the
// cached hash where the key type keeps one), plus its share of the bucket array.
inline size_t hashNodeBytes(size_t value) { return heapBlock(value + 16) + 16; }

}  // namespace toolmask
