#include "dfa.hpp"
#include "bits.hpp"

#include <algorithm>

#include "mask.hpp"
#include "utf8.hpp"

namespace toolmask {

LazyDfa::LazyDfa(Nfa nfa) : own_(std::move(nfa)), nfa_(&own_) { initClasses(); }

LazyDfa::LazyDfa(std::unique_ptr<NfaBuilder> builder) : builder_(std::move(builder)), nfa_(&builder_->nfa()) {
  initClasses();
}

// Bytes that no edge of the grammar tells apart share a class, so transition rows stay short.
void LazyDfa::initClasses() {
  int cls = -1;
  for (int b = 0; b < 256; b++) {
    if (b == 0 || nfa_->cut[b]) {
      cls++;
      classRep_.push_back(uint8_t(b));
      classSize_.push_back(0);
    }
    byteClass_[b] = uint8_t(cls);
    classSize_[size_t(cls)]++;
  }
}

int32_t LazyDfa::start() { return intern({nfa_->start}); }

void LazyDfa::closure(std::vector<uint32_t>& set) {
  std::vector<uint32_t> stack(set.begin(), set.end()), out, seen;
  while (!stack.empty()) {
    uint32_t s = stack.back();
    stack.pop_back();
    if (!nfa_->productive[s]) continue;
    auto it = std::lower_bound(seen.begin(), seen.end(), s);
    if (it != seen.end() && *it == s) continue;
    seen.insert(it, s);
    if (builder_ && nfa_->states[s].thunk >= 0) builder_->expand(s);
    const NfaState& st = nfa_->states[s];
    if (!st.bytes.empty() || !st.tokens.empty() || s == nfa_->accept) out.push_back(s);
    for (uint32_t t : st.eps) stack.push_back(t);
  }
  std::sort(out.begin(), out.end());
  set.swap(out);
}

int32_t LazyDfa::intern(std::vector<uint32_t>&& set) {
  closure(set);
  if (set.empty()) return kDead;
  std::string key(reinterpret_cast<const char*>(set.data()), set.size() * sizeof(uint32_t));
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  int32_t id = int32_t(states_.size());
  states_.emplace_back();
  DfaState& d = states_.back();
  d.nfa = std::move(set);
  d.next.assign(classRep_.size(), kUnknown);
  std::vector<std::pair<uint32_t, uint32_t>> toks;  // (token, nfa target)
  for (uint32_t s : d.nfa) {
    if (s == nfa_->accept) d.accepting = true;
    for (auto& e : nfa_->states[s].tokens) toks.push_back({e.token, e.to});
  }
  index_.emplace(std::move(key), id);
  std::sort(toks.begin(), toks.end());
  for (size_t i = 0; i < toks.size();) {
    std::vector<uint32_t> tgt;
    size_t j = i;
    for (; j < toks.size() && toks[j].first == toks[i].first; j++) tgt.push_back(toks[j].second);
    int32_t to = intern(std::move(tgt));
    if (to != kDead) states_[size_t(id)].tokenEdges.push_back({toks[i].first, to});
    i = j;
  }
  return id;
}

int32_t LazyDfa::computeNext(int32_t s, uint8_t byte) {
  std::vector<uint32_t> tgt;
  for (uint32_t n : states_[size_t(s)].nfa)
    for (auto& e : nfa_->states[n].bytes)
      if (byte >= e.lo && byte <= e.hi) tgt.push_back(e.to);
  int32_t v = intern(std::move(tgt));
  states_[size_t(s)].next[byteClass_[byte]] = v;
  return v;
}

int LazyDfa::forcedByte(int32_t s) {
  if (states_[size_t(s)].forced != -2) return states_[size_t(s)].forced;
  const DfaState& d = states_[size_t(s)];
  bool none = d.accepting || !d.tokenEdges.empty();
  int found = -1;
  for (size_t c = 0; c < classRep_.size() && !none; c++) {
    if (next(s, classRep_[c]) < 0) continue;  // states_ is a deque: `d` stays valid as states are added
    if (found >= 0 || classSize_[c] != 1)
      none = true;
    else
      found = classRep_[c];
  }
  states_[size_t(s)].forced = int16_t(none ? -1 : found);
  return states_[size_t(s)].forced;
}

bool LazyDfa::hasByteEdge(int32_t s) {
  for (size_t c = 0; c < classRep_.size(); c++)
    if (next(s, classRep_[c]) >= 0) return true;
  return false;
}

bool LazyDfa::loopsOver(int32_t s, const TrieNode& node) {
  for (int w = 0; w < 2; w++) {
    DfaState& d = states_[size_t(s)];
    if (node.below[w] & d.loopKnown[w] & ~d.loopYes[w]) return false;
    uint64_t unknown = node.below[w] & ~d.loopKnown[w];
    while (unknown) {
      int bit = lowestBit(unknown);
      unknown &= unknown - 1;
      bool loops = next(s, uint8_t(w * 64 + bit)) == s;
      DfaState& d2 = states_[size_t(s)];
      d2.loopKnown[w] |= 1ull << bit;
      if (!loops) return false;
      d2.loopYes[w] |= 1ull << bit;
    }
  }
  return !node.belowNonAscii || ((node.utf8Ok & 1) && nonAsciiLoops(s));
}

// Every valid multi-byte character must lead back to `s` without dying on the way.
bool LazyDfa::nonAsciiLoops(int32_t s) {
  if (states_[size_t(s)].nonAsciiLoops >= 0) return states_[size_t(s)].nonAsciiLoops == 1;
  bool ok = true;
  std::vector<std::pair<int32_t, uint8_t>> work{{s, utf8::Boundary}}, seen;
  while (ok && !work.empty()) {
    auto [st, ph] = work.back();
    work.pop_back();
    for (int b = 0x80; b < 256 && ok; b++) {
      uint8_t np = utf8::step(ph, uint8_t(b));
      if (np == utf8::Invalid) continue;
      int32_t t = next(st, uint8_t(b));
      if (t < 0) {
        ok = false;
        break;
      }
      if (np == utf8::Boundary) {
        if (t != s) ok = false;
        continue;
      }
      std::pair<int32_t, uint8_t> key{t, np};
      if (std::find(seen.begin(), seen.end(), key) == seen.end()) {
        if (seen.size() > 256) {
          ok = false;
          break;
        }
        seen.push_back(key);
        work.push_back(key);
      }
    }
  }
  states_[size_t(s)].nonAsciiLoops = ok ? 1 : 0;
  return ok;
}

size_t LazyDfa::memoryBytes() const {
  size_t total = sizeof(*this) + (builder_ ? builder_->memoryBytes() : 0);
  const Nfa& nfa = *nfa_;
  total += vectorBytes(nfa.states) - sizeof(NfaState) * nfa.states.size();  // the states count their own size
  for (auto& st : nfa.states) total += nfaStateBytes(st);
  total += vectorBytes(nfa.fragments) + vectorBytes(nfa.fragmentOf) + heapBlock(nfa.productive.capacity() / 8) +
           vectorBytes(nfa.inCall);
  total += vectorBytes(classRep_) + vectorBytes(classSize_);
  // The deque's blocks (512 bytes of states each, and its map), then each state's own blocks and its
  // entry in index_ (the node with its key: the state's NFA set as a string).
  total += (states_.size() * sizeof(DfaState) / 512 + 1) * (heapBlock(512) + 8);
  for (auto& d : states_) {
    total += sizeof(d) + vectorBytes(d.nfa) + vectorBytes(d.next) + vectorBytes(d.tokenEdges);
    total += hashNodeBytes(sizeof(std::string) + sizeof(int32_t)) +
             (4 * d.nfa.size() > 15 ? heapBlock(4 * d.nfa.size() + 1) : 0);
    if (d.mask) total += d.mask->memoryBytes();
  }
  return total;
}

}  // namespace toolmask
