// SmallVec (small_vec.hpp): values kept inside up to N, then in a block of their own; copies and
// moves keep the values and leave the source usable, whichever place they were in; a value pushed
// from the vector itself while it grows is not lost.
#include <cstdint>
#include <utility>
#include <vector>

#include "../core/small_vec.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {
struct Edge {
  uint8_t lo, hi;
  uint32_t to;
};

template <typename V>
std::vector<uint32_t> values(const V& v) {
  std::vector<uint32_t> out;
  for (uint32_t x : v) out.push_back(x);
  return out;
}
}  // namespace

void smallVecTests() {
  for (uint32_t n : {0u, 1u, 2u, 3u, 9u}) {
    SmallVec<uint32_t, 2> v;
    std::vector<uint32_t> want;
    for (uint32_t i = 0; i < n; i++) {
      v.push_back(i * 7);
      want.push_back(i * 7);
    }
    CHECK(v.size() == n && v.empty() == (n == 0) && values(v) == want);
    CHECK(v.onHeap() == (n > 2));
    CHECK(v.heapBytes() == (n > 2 ? heapBlock(4 * v.capacity()) : 0));
    SmallVec<uint32_t, 2> copy(v);  // copy construction
    CHECK(values(copy) == want && values(v) == want);
    SmallVec<uint32_t, 2> assigned;
    for (uint32_t i = 0; i < 5; i++) assigned.push_back(99);  // on the heap before the assignment
    assigned = v;
    CHECK(values(assigned) == want);
    SmallVec<uint32_t, 2> moved(std::move(copy));  // move construction leaves the source empty and usable
    CHECK(values(moved) == want && copy.empty() && !copy.onHeap());
    copy.push_back(5);
    CHECK(copy.size() == 1 && copy[0] == 5);
    SmallVec<uint32_t, 2> target;
    target.push_back(1);
    target = std::move(moved);  // move assignment
    CHECK(values(target) == want && moved.empty());
    target.clear();
    CHECK(target.empty() && target.capacity() >= 2);
  }
  // Pushing a value held by the vector itself, at the moment it must grow.
  SmallVec<uint32_t, 2> self;
  self.push_back(11);
  self.push_back(22);
  self.push_back(self[0]);
  self.push_back(self.back());
  CHECK((values(self) == std::vector<uint32_t>{11, 22, 11, 11}));
  // Structs, modified in place through back() as the NFA builder joins byte ranges.
  SmallVec<Edge, 1> edges;
  edges.push_back({0x61, 0x61, 3});
  edges.back().hi = 0x7a;
  edges.push_back({0x30, 0x39, 4});
  CHECK(edges.size() == 2 && edges[0].hi == 0x7a && edges[1].to == 4 && edges.onHeap());
  std::vector<SmallVec<Edge, 1>> many(3);  // grown by the std::vector that holds them (moves)
  for (int i = 0; i < 100; i++) {
    many.emplace_back();
    many.back().push_back({uint8_t(i), uint8_t(i), uint32_t(i)});
    if (i % 3 == 0) many.back().push_back({0, 0, 0});
  }
  for (int i = 0; i < 100; i++) CHECK(many[size_t(3 + i)][0].to == uint32_t(i));
}
