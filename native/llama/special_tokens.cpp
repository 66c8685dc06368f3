#include "special_tokens.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace toolmask::llama {

namespace {

// isspace in the C locale, as llama.cpp strips (bytes from 0x80 are not space there).
bool isSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool cancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

}  // namespace

SpecialTokens::SpecialTokens(std::vector<SpecialText> texts) {
  // llama.cpp's order: std::sort of the ids (ascending) by text length, longest first. std::sort is
  // not stable; the same call on the same sequence gives the same order among equal lengths.
  std::vector<int32_t> order(texts.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = int32_t(i);
  std::sort(order.begin(), order.end(),
            [&](const int32_t a, const int32_t b) { return texts[a].text.size() > texts[b].text.size(); });
  for (int32_t i : order)
    if (!texts[i].text.empty()) texts_.push_back(std::move(texts[i]));

  // The trie, then its fail and output links breadth first.
  struct Build {
    std::vector<std::pair<uint8_t, uint32_t>> next;
    std::vector<uint32_t> ranks;
  };
  std::vector<Build> b(1);
  for (uint32_t r = 0; r < texts_.size(); r++) {
    const SpecialText& t = texts_[r];
    anyStrip_ = anyStrip_ || t.lstrip || t.rstrip;
    longest_ = std::max(longest_, t.text.size());
    uint32_t at = 0;
    for (char c : t.text) {
      const uint8_t byte = uint8_t(c);
      uint32_t to = 0;
      for (const auto& e : b[at].next)
        if (e.first == byte) to = e.second;
      if (!to) {
        to = uint32_t(b.size());
        b[at].next.push_back({byte, to});
        b.emplace_back();
      }
      at = to;
    }
    b[at].ranks.push_back(r);  // ascending: texts are inserted in rank order
  }
  nodes_.resize(b.size());
  for (uint32_t i = 0; i < b.size(); i++) {
    std::sort(b[i].next.begin(), b[i].next.end());
    Node& n = nodes_[i];
    n.edges = uint32_t(edges_.size());
    n.edgeCount = uint32_t(b[i].next.size());
    for (const auto& e : b[i].next) edges_.push_back({e.first, e.second});
    n.firstText = uint32_t(ranks_.size());
    n.textCount = uint32_t(b[i].ranks.size());
    ranks_.insert(ranks_.end(), b[i].ranks.begin(), b[i].ranks.end());
  }
  std::fill(std::begin(rootNext_), std::end(rootNext_), 0u);
  std::deque<uint32_t> queue;
  for (uint32_t e = 0; e < nodes_[0].edgeCount; e++) {
    const Edge& edge = edges_[nodes_[0].edges + e];
    rootNext_[edge.byte] = edge.to;
    queue.push_back(edge.to);  // fail 0, output 0
  }
  while (!queue.empty()) {
    const uint32_t u = queue.front();
    queue.pop_front();
    for (uint32_t e = 0; e < nodes_[u].edgeCount; e++) {
      const Edge edge = edges_[nodes_[u].edges + e];
      const uint32_t f = step(nodes_[u].fail, edge.byte);
      Node& v = nodes_[edge.to];
      v.fail = f;
      v.output = nodes_[f].textCount ? f : nodes_[f].output;
      queue.push_back(edge.to);
    }
  }
}

uint32_t SpecialTokens::step(uint32_t state, uint8_t byte) const {
  while (state) {
    const Node& n = nodes_[state];
    const Edge* first = edges_.data() + n.edges;
    const Edge* last = first + n.edgeCount;
    const Edge* e = std::lower_bound(first, last, byte, [](const Edge& x, uint8_t v) { return x.byte < v; });
    if (e != last && e->byte == byte) return e->to;
    state = n.fail;
  }
  return rootNext_[byte];
}

bool SpecialTokens::split(const std::string& text, bool parseSpecial, std::vector<TextPiece>& pieces, SplitWork& work,
                          const std::atomic<bool>* cancel) const {
  pieces.clear();
  const size_t n = text.size();
  if (n >= UINT32_MAX) throw std::length_error("the text is 4 GiB or more; it cannot be tokenized");
  // Every occurrence of every text that applies, as (start, rank).
  struct Occurrence {
    uint32_t start;
    uint32_t rank;
  };
  std::vector<Occurrence> found;
  uint32_t state = 0;
  for (size_t i = 0; i < n; i++) {
    if ((i & 0xFFFF) == 0 && cancelled(cancel)) return false;
    state = step(state, uint8_t(text[i]));
    for (uint32_t t = nodes_[state].textCount ? state : nodes_[state].output; t; t = nodes_[t].output) {
      const Node& node = nodes_[t];
      for (uint32_t k = node.firstText; k < node.firstText + node.textCount; k++) {
        const uint32_t r = ranks_[k];
        if (!parseSpecial && texts_[r].parsedOnly) continue;
        found.push_back({uint32_t(i + 1 - texts_[r].text.size()), r});
      }
    }
  }
  work.scannedBytes += n;
  work.occurrences += found.size();

  // By rank, stably: one text's occurrences were found in the order of their ends, so of their starts.
  std::vector<uint32_t> firstOf(texts_.size() + 1, 0);
  for (const Occurrence& o : found) firstOf[o.rank + 1]++;
  for (size_t r = 0; r < texts_.size(); r++) firstOf[r + 1] += firstOf[r];
  std::vector<Occurrence> byRank(found.size());
  for (const Occurrence& o : found) byRank[firstOf[o.rank]++] = o;
  found.clear();
  found.shrink_to_fit();

  // Each text in turn takes its occurrences that lie wholly in bytes still free.
  enum : uint8_t { kFree = 0, kDropped = 1, kToken = 2 };
  std::vector<uint8_t> used(n, kFree);
  std::vector<Occurrence> taken;
  for (size_t k = 0; k < byRank.size(); k++) {
    if ((k & 0xFFFF) == 0 && cancelled(cancel)) return false;
    const Occurrence o = byRank[k];
    const SpecialText& t = texts_[o.rank];
    const uint32_t end = o.start + uint32_t(t.text.size());
    uint32_t j = o.start;
    while (j < end && used[j] == kFree) j++;
    work.checkedBytes += j - o.start + (j < end ? 1 : 0);
    if (j < end) continue;
    std::memset(used.data() + o.start, kToken, t.text.size());
    taken.push_back(o);
    if (t.lstrip)
      for (uint32_t p = o.start; p > 0 && used[p - 1] == kFree && isSpace(text[p - 1]); p--) used[p - 1] = kDropped;
    if (t.rstrip)
      for (uint32_t p = end; p < n && used[p] == kFree && isSpace(text[p]); p++) used[p] = kDropped;
  }
  std::sort(taken.begin(), taken.end(), [](const Occurrence& a, const Occurrence& b) { return a.start < b.start; });

  // Tokens and runs of free bytes, in order; dropped bytes belong to neither.
  size_t next = 0;
  for (uint32_t pos = 0; pos < n;) {
    if (next < taken.size() && taken[next].start == pos) {
      const SpecialText& t = texts_[taken[next++].rank];
      pieces.push_back({pos, uint32_t(t.text.size()), t.token});
      pos += uint32_t(t.text.size());
    } else if (used[pos] != kFree) {
      pos++;
    } else {
      const uint32_t begin = pos;
      while (pos < n && used[pos] == kFree) pos++;
      pieces.push_back({begin, pos - begin, -1});
    }
  }
  return true;
}

}  // namespace toolmask::llama
