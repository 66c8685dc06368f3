// Counted constructs: a repetition or a bounded text past NfaLimits::countAbove / countTextAbove is built once,
// its count kept by the threads that walk it (Gate, Counter in nfa.hpp), so any bound costs the
// same few automaton states. The bounded texts' gates are laid in nfa_text.cpp. Below the bound, a
// repetition of a plain item is copies that share the masks of the item's loop (countedCopy).
#include <algorithm>

#include "nfa_impl.hpp"

namespace toolmask {

namespace {
// A non-negative integer field of a node, or -1 when absent (null) or not one.
double bound(const json::Value& n, const char* key) {
  const json::Value* v = n.get(key);
  return v && v->kind == json::Kind::Number && v->num >= 0 ? v->num : -1;
}
}  // namespace

bool countingNode(const json::Value& n, const NfaLimits& lim) {
  const IrType t = irType(n);
  if (t != IrType::Repeat && t != IrType::Until && t != IrType::Text) return false;
  const double above = double(lim.countAbove), textAbove = double(lim.countTextAbove);
  if (t == IrType::Repeat) {
    const json::Value* item = n.get("item");
    const json::Value* mx = n.get("max");
    if (!item || !mx || nullable(*item)) return false;
    if (mx->kind == json::Kind::Null) return bound(n, "min") > above;
    return bound(n, "max") > above || (bound(n, "min") == 0 && bound(n, "max") > double(lim.countFreeAbove));
  }
  if (t == IrType::Until) return bound(n, "maxLength") > textAbove || bound(n, "minLength") > textAbove;
  return bound(n, "maxLength") > textAbove;  // text
}

uint32_t NfaBuilder::Impl::newCounter(std::vector<uint64_t> points) {
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  nfa.counters.push_back({std::move(points)});
  return uint32_t(nfa.counters.size() - 1);
}

uint32_t NfaBuilder::Impl::gateState(const Gate& g) {
  uint32_t s = add();
  nfa.states[s].gate = int32_t(nfa.gates.size());
  nfa.gates.push_back(g);
  return s;
}

// item{min,max} (max UINT64_MAX: unbounded) as one loop: entering it sets the count to 0, each item
// begun adds one (at most max; without max the count stops at min, past which all counts behave
// alike), and leaving needs at least min. A plain item is a fragment whose masks come from the
// item's unbounded loop, as a bounded repetition's copies do; the count says which copy it stands for.
Frag NfaBuilder::Impl::countedRepeat(const json::Value& item, uint64_t min, uint64_t max, const std::string& path) {
  const bool bounded = max != UINT64_MAX;
  std::vector<uint64_t> points;  // the gates' bounds that can fail: min (when above 0), max
  if (min > 0) points.push_back(min);
  if (bounded) points.push_back(max);
  const uint32_t c = newCounter(std::move(points));
  uint32_t in = add(), head = add(), out = add();
  Gate reset;
  reset.counter = c;
  reset.reset = true;
  Gate enter;
  enter.counter = c;
  enter.inc = true;
  if (bounded)
    enter.hi = max;
  else
    enter.sat = min;
  Gate leave;
  leave.counter = c;
  leave.lo = min;
  leave.drop = true;
  uint32_t zero = gateState(reset);
  eps(in, zero);
  eps(zero, head);
  uint32_t begin = gateState(enter);
  eps(head, begin);
  uint32_t exit = gateState(leave);
  eps(head, exit);
  eps(exit, out);
  Frag f;
  if (lazy && !insideFragment && plain(item)) {
    const ItemLoop& k = itemLoop(item);
    uint32_t base = uint32_t(nfa.states.size());
    insideFragment++;
    f = buildNode(item, path);
    insideFragment--;
    Fragment fr;
    fr.base = base;
    fr.count = uint32_t(nfa.states.size()) - base;
    fr.in = f.in;
    fr.out = f.out;
    fr.shape = k.shape;
    fr.node = &k.loop;
    fr.exit = out;
    fr.counter = int32_t(c);
    fr.countMax = max;
    nfa.fragments.push_back(std::move(fr));
  } else {
    f = build(item, path);
  }
  eps(begin, f.in);
  eps(f.out, head);
  return {in, out};
}

const NfaBuilder::Impl::ItemLoop& NfaBuilder::Impl::itemLoop(const json::Value& item) {
  if (auto it = itemLoopOf.find(&item); it != itemLoopOf.end()) return *it->second;
  json::Value loop;
  loop.kind = json::Kind::Object;
  json::Value type, zero, none;
  type.kind = json::Kind::String;
  type.str = "repeat";
  zero.kind = json::Kind::Number;
  loop.obj = {{"type", type}, {"item", item}, {"min", zero}, {"max", none}};
  itemLoops.push_back({std::move(loop), nullptr});
  itemLoops.back().shape = std::make_shared<const std::string>(json::canonical(itemLoops.back().loop));
  return *itemLoopOf.emplace(&item, &itemLoops.back()).first->second;
}

// Copy `copy` of a bounded repetition's item, built now or at first use, and recorded
// as a fragment whose masks come from the item's unbounded loop.
Frag NfaBuilder::Impl::countedCopy(int32_t id, uint32_t copy, bool now, const std::string& path) {
  const json::Value& item = *counted[size_t(id)].loop->loop.get("item");
  if (!now) {
    // Its path and references are the repetition's (Counted): the placeholder holds neither.
    uint32_t in = add(), out = add();
    nfa.states[in].thunk = int32_t(thunks.size());
    thunks.push_back({&item, {}, {}, out, -1, 0, id, copy});
    thunks.back().marks = marks();
    return {in, out};
  }
  uint32_t base = uint32_t(nfa.states.size());
  insideFragment++;
  Frag f = buildNode(item, path);
  insideFragment--;
  const Counted& c = counted[size_t(id)];
  Fragment fr;
  fr.base = base;
  fr.count = uint32_t(nfa.states.size()) - base;
  fr.in = f.in;
  fr.out = f.out;
  fr.shape = c.loop->shape;
  fr.node = &c.loop->loop;
  fr.exit = c.out;
  fr.copy = int32_t(copy);
  fr.maxCount = c.max;
  nfa.fragments.push_back(std::move(fr));
  return f;
}

}  // namespace toolmask
