// Strongly connected components of a directed graph, by Tarjan's algorithm run iteratively (no
// recursion however long a path is).
#pragma once
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace toolmask {

// Vertices 0..n-1; `next(v)` gives v's successors (a range of uint32_t), `included(v)` whether v is
// in the graph at all (edges to a vertex not included are ignored). Each component is handed to
// `found(members)` once, after every component it has an edge into.
template <class Next, class Included, class Found>
void stronglyConnected(uint32_t n, Next&& next, Included&& included, Found&& found) {
  constexpr uint32_t kUnseen = UINT32_MAX;
  std::vector<uint32_t> order(n, kUnseen), low(n, 0), stack, members;
  std::vector<bool> onStack(n, false);
  std::vector<std::pair<uint32_t, size_t>> frames;  // (vertex, its next successor to look at)
  uint32_t counter = 0;
  auto enter = [&](uint32_t v) {
    order[v] = low[v] = counter++;
    stack.push_back(v);
    onStack[v] = true;
    frames.push_back({v, 0});
  };
  for (uint32_t root = 0; root < n; root++) {
    if (order[root] != kUnseen || !included(root)) continue;
    enter(root);
    while (!frames.empty()) {
      const uint32_t v = frames.back().first;
      const auto& succ = next(v);
      if (frames.back().second < size_t(std::size(succ))) {
        const uint32_t w = *(std::begin(succ) + frames.back().second++);
        if (!included(w)) continue;
        if (order[w] == kUnseen)
          enter(w);
        else if (onStack[w])
          low[v] = std::min(low[v], order[w]);
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[v]);
      if (low[v] != order[v]) continue;
      members.clear();
      uint32_t w;
      do {
        w = stack.back();
        stack.pop_back();
        onStack[w] = false;
        members.push_back(w);
      } while (w != v);
      found(static_cast<const std::vector<uint32_t>&>(members));
    }
  }
}

}  // namespace toolmask
