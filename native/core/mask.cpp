#include "mask.hpp"

#include <algorithm>
#include <cstring>

#include "dfa.hpp"
#include "grammar_lock.hpp"
#include "utf8.hpp"

namespace toolmask {

namespace {
constexpr size_t kSparseLimit = 1024;  // above this many ids, copying a bitmask beats scattering bits
// A mask whose fill scatters this many bits, filled this many times, keeps its whole bitmask (StateMask::whole).
constexpr size_t kScatterForWhole = 128;
constexpr uint8_t kFillsBeforeWhole = 2;

void setBit(uint32_t* m, uint32_t id) { m[id >> 5] |= 1u << (id & 31); }

void push(PosRanges& r, uint32_t lo, uint32_t hi) {
  if (!r.empty() && r.back().second == lo)
    r.back().second = hi;
  else
    r.push_back({lo, hi});
}
}  // namespace

void walkTrie(LazyDfa& dfa, int32_t s, const Vocabulary& v, bool fragment, PosRanges& rejected, PosRanges& uncertain,
              SubtreeMemo* memo) {
  const auto& trie = v.trie();
  lockwait::Poll poll;  // for the prefetch thread's checks (grammar_lock.hpp)
  // Depth first; a subtree whose bytes all loop back to the current state is accepted whole.
  // `ph`: the UTF-8 phase after the node's bytes, so a subtree entered mid-character can be accepted
  // whole too (a multi-byte character read byte by byte is walked only to its end).
  auto dfs = [&](auto&& self, uint32_t n, int32_t st, uint8_t ph, bool exitSeen, PosRanges& rej,
                 PosRanges& unc) -> void {
    poll();
    const TrieNode& node = trie[n];
    if (n != 0 && dfa.loopsOverFrom(st, ph, node)) return;
    exitSeen = exitSeen || (fragment && dfa.state(st).accepting);
    for (uint32_t c = n + 1; c < node.end; c = trie[c].end) {
      int32_t ns = dfa.next(st, trie[c].byte);
      if (ns < 0) {
        push(exitSeen ? unc : rej, trie[c].lo, trie[c].hi);
        continue;
      }
      const uint8_t nph = utf8::step(ph, trie[c].byte);
      if (n != 0 || !memo) {
        self(self, c, ns, nph, exitSeen, rej, unc);
        continue;
      }
      uint64_t key = (uint64_t(c) << 33) | (uint64_t(uint32_t(ns)) << 1) | uint64_t(exitSeen);
      auto it = memo->find(key);
      if (it == memo->end()) {
        SubtreeVerdict sv;
        self(self, c, ns, nph, exitSeen, sv.rejected, sv.uncertain);
        it = memo->emplace(key, std::move(sv)).first;
      }
      for (auto& r : it->second.rejected) push(rej, r.first, r.second);
      for (auto& r : it->second.uncertain) push(unc, r.first, r.second);
    }
  };
  dfs(dfs, 0, s, utf8::Boundary, false, rejected, uncertain);
}

void walkAmong(LazyDfa& dfa, int32_t s, const Vocabulary& v, const PosRanges& among, std::vector<uint32_t>* accepted,
               std::vector<uint32_t>* refused) {
  const auto& trie = v.trie();
  const auto& order = v.order();
  lockwait::Poll poll;  // for the prefetch thread's checks (grammar_lock.hpp)
  size_t k = 0;         // the first range of `among` not wholly before the node visited (positions only grow)
  auto add = [&](std::vector<uint32_t>* to, uint32_t lo, uint32_t hi) {
    if (!to) return;
    for (size_t j = k; j < among.size() && among[j].first < hi; j++)
      for (uint32_t p = std::max(lo, among[j].first); p < std::min(hi, among[j].second); p++) to->push_back(order[p]);
  };
  auto dfs = [&](auto&& self, uint32_t n, int32_t st) -> void {
    poll();
    const TrieNode& node = trie[n];
    if (node.nEnd) add(accepted, node.lo, node.lo + node.nEnd);
    for (uint32_t c = n + 1; c < node.end; c = trie[c].end) {
      while (k < among.size() && among[k].second <= trie[c].lo) k++;
      if (k == among.size()) return;
      if (among[k].first >= trie[c].hi) continue;
      const int32_t ns = dfa.next(st, trie[c].byte);
      if (ns >= 0)
        self(self, c, ns);
      else
        add(refused, trie[c].lo, trie[c].hi);
    }
  };
  if (!among.empty()) dfs(dfs, 0, s);
}

void encodeMask(const Vocabulary& v, const PosRanges& rejected, const PosRanges& uncertain, StateMask& out) {
  const auto& order = v.order();
  PosRanges dead;  // both lists merged, in position order
  std::merge(rejected.begin(), rejected.end(), uncertain.begin(), uncertain.end(), std::back_inserter(dead));
  size_t total = order.size(), nDead = 0;
  for (auto& r : dead) nDead += r.second - r.first;
  size_t nLive = total - nDead;
  auto forLive = [&](auto&& fn) {
    uint32_t pos = 0;
    for (auto& r : dead) {
      for (; pos < r.first; pos++) fn(order[pos]);
      pos = r.second;
    }
    for (; pos < total; pos++) fn(order[pos]);
  };
  auto forDead = [&](auto&& fn) {
    for (auto& r : dead)
      for (uint32_t p = r.first; p < r.second; p++) fn(order[p]);
  };
  out.ids.clear();
  out.bits.clear();
  if (nLive <= kSparseLimit) {
    out.rep = MaskRep::Accept;
    forLive([&](uint32_t id) { out.ids.push_back(id); });
    std::sort(out.ids.begin(), out.ids.end());
  } else if (nDead <= kSparseLimit) {
    out.rep = MaskRep::Reject;
    forDead([&](uint32_t id) { out.ids.push_back(id); });
    std::sort(out.ids.begin(), out.ids.end());
  } else {
    out.rep = MaskRep::Bits;
    if (nLive < nDead) {
      out.bits.assign(v.words(), 0);
      forLive([&](uint32_t id) { setBit(out.bits.data(), id); });
    } else {
      out.bits = v.normalMask();
      forDead([&](uint32_t id) { out.bits[id >> 5] &= ~(1u << (id & 31)); });
    }
  }
  out.uncertain = uncertain;
}

void StateMask::fillOrdinary(uint32_t* out, const Vocabulary& v) const {
  size_t words = v.words();
  switch (rep) {
    case MaskRep::Accept:
      std::memset(out, 0, words * 4);
      for (uint32_t id : ids) setBit(out, id);
      break;
    case MaskRep::Reject:
      if (const SparseWords* normal = v.normalSparse())
        normal->fill(out, words);
      else
        std::memcpy(out, v.normalMask().data(), words * 4);
      for (uint32_t id : ids) out[id >> 5] &= ~(1u << (id & 31));
      break;
    case MaskRep::Bits:
      std::memcpy(out, bits.data(), words * 4);
      break;
  }
}

void StateMask::fill(uint32_t* out, const Vocabulary& v) const {
  if (wholeIsSparse) {
    wholeSparse.fill(out, v.words());
    return;
  }
  if (!whole.empty()) {
    std::memcpy(out, whole.data(), whole.size() * 4);
    return;
  }
  const StateMask& ordinary = base ? *base : *this;
  ordinary.fillOrdinary(out, v);
  for (uint32_t id : remove) out[id >> 5] &= ~(1u << (id & 31));
  for (uint32_t id : extra) setBit(out, id);
  for (uint32_t id : specials) setBit(out, id);
  const size_t scattered =
      (ordinary.rep == MaskRep::Bits ? 0 : ordinary.ids.size()) + remove.size() + extra.size() + specials.size();
  if (scattered >= kScatterForWhole && ++fills >= kFillsBeforeWhole &&
      !(wholeIsSparse = SparseWords::of(out, v.words(), wholeSparse)))
    whole.assign(out, out + v.words());
}

bool StateMask::empty(const Vocabulary& v) const {
  if (!specials.empty() || !extra.empty()) return false;
  if (!remove.empty()) {
    std::vector<uint32_t> bits(v.words());
    fill(bits.data(), v);
    for (uint32_t w : bits)
      if (w) return false;
    return true;
  }
  const StateMask& m = base ? *base : *this;
  switch (m.rep) {
    case MaskRep::Accept:
      return m.ids.empty();
    case MaskRep::Reject:
      return m.ids.size() >= v.order().size();
    case MaskRep::Bits:
      return false;  // only chosen with more than kSparseLimit allowed
  }
  return true;
}

size_t StateMask::memoryBytes() const {
  return heapBlock(sizeof(*this)) + vectorBytes(ids) + vectorBytes(bits) + vectorBytes(uncertain) +
         vectorBytes(rejected) + vectorBytes(extra) + vectorBytes(remove) + vectorBytes(specials) + vectorBytes(whole) +
         vectorBytes(wholeSparse.words);
}

}  // namespace toolmask
