// stronglyConnected (scc.hpp): the components of small graphs, each handed over after every
// component it has an edge into, vertices left out of the graph ignored, and a chain long enough that
// a recursive walk would exhaust the stack.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../core/scc.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {
using Graph = std::vector<std::vector<uint32_t>>;

// The components in the order found, each sorted.
std::vector<std::vector<uint32_t>> components(const Graph& g, const std::vector<bool>& in) {
  std::vector<std::vector<uint32_t>> out;
  stronglyConnected(
      uint32_t(g.size()), [&](uint32_t v) -> const std::vector<uint32_t>& { return g[v]; },
      [&](uint32_t v) { return bool(in[v]); },
      [&](const std::vector<uint32_t>& members) {
        std::vector<uint32_t> c = members;
        std::sort(c.begin(), c.end());
        out.push_back(c);
      });
  return out;
}
std::vector<std::vector<uint32_t>> components(const Graph& g) {
  return components(g, std::vector<bool>(g.size(), true));
}
}  // namespace

void sccTests() {
  using C = std::vector<std::vector<uint32_t>>;
  // 0 → 1 → 2 → 0 (a cycle), 2 → 3, 3 → 3 (a self-loop), 4 alone.
  const Graph g{{1}, {2}, {0, 3}, {3}, {}};
  CHECK((components(g) == C{{3}, {0, 1, 2}, {4}}));
  // Each component after those it reaches: a chain 0 → 1 → 2 gives 2, 1, 0.
  CHECK((components(Graph{{1}, {2}, {}}) == C{{2}, {1}, {0}}));
  // Two cycles joined one way: {0, 1} → {2, 3}.
  CHECK((components(Graph{{1}, {0, 2}, {3}, {2}}) == C{{2, 3}, {0, 1}}));
  // A vertex left out breaks the cycle through it, and is handed over in no component.
  CHECK((components(Graph{{1}, {2}, {0}}, {true, false, true}) == C{{0}, {2}}));
  // 200,000 vertices in one chain and back to the start: one component, found without recursion.
  Graph ring(200000);
  for (uint32_t v = 0; v < ring.size(); v++) ring[v] = {uint32_t((v + 1) % ring.size())};
  const C big = components(ring);
  CHECK(big.size() == 1 && big[0].size() == ring.size());
  // And as a chain without the way back: 200,000 components, the last vertex's first.
  ring.back().clear();
  const C chain = components(ring);
  CHECK(chain.size() == ring.size() && chain.front() == std::vector<uint32_t>{uint32_t(ring.size() - 1)} &&
        chain.back() == std::vector<uint32_t>{0});
}
