// The NFA builder's any-order sets (perm): subsets of used items as bit sets, built as walks
// reach them (nfa.cpp holds the rest of the structure).
#include <algorithm>

#include "nfa_impl.hpp"

namespace toolmask {

// Any order, each item at most once: one state per subset of used items, built when a
// walk first reaches it. A subset is a bit set as wide as the set, so any number of items
// works: only the subsets a walk reaches are ever built, and building one costs the items'
// heads (for an object member: its whitespace and key), each item's tail waiting for the
// first walk that picks the item.
Frag NfaBuilder::Impl::perm(const json::Value& n, const std::string& path) {
  auto& items = itemsOf(n, path);
  PermSet p;
  for (size_t i = 0; i < items.size(); i++) {
    const json::Value& e = items[i];
    std::string ep = path + ".items[" + std::to_string(i) + "]";
    if (e.kind != json::Kind::Object || !e.get("node")) fail(ep, "expected { node, required }");
    const json::Value* r = e.get("required");
    PermItem it;
    it.node = e.get("node");
    it.required = r && r->kind == json::Kind::Bool && r->b;
    const json::Value* sub = it.node->kind == json::Kind::Object ? it.node->get("items") : nullptr;
    if (irType(*it.node) == IrType::Seq && sub && sub->kind == json::Kind::Array && !sub->arr.empty())
      for (auto& x : sub->arr) it.elems.push_back(&x);
    else
      it.elems.push_back(it.node);
    p.items.push_back(std::move(it));
  }
  // Leading elements every item has alike (each item keeps at least one of its own).
  if (p.items.size() > 1) {
    size_t most = SIZE_MAX;
    for (auto& it : p.items) most = std::min(most, it.elems.size() - 1);
    for (; p.shared < most; p.shared++) {
      std::string first = json::canonical(*p.items[0].elems[p.shared]);
      bool same = true;
      for (size_t i = 1; i < p.items.size() && same; i++) same = json::canonical(*p.items[i].elems[p.shared]) == first;
      if (!same) break;
    }
  }
  for (auto& it : p.items) {
    it.head = p.shared;
    while (it.head + 1 < it.elems.size() && nullable(*it.elems[it.head])) it.head++;
  }
  p.separator = n.get("separator");
  if (p.separator && p.separator->kind == json::Kind::Null) p.separator = nullptr;
  p.out = add();
  p.path = path;
  p.refStack = refStack;
  p.words = (p.items.size() + 63) / 64;
  perms.push_back(std::move(p));
  int32_t id = int32_t(perms.size() - 1);
  uint32_t in = permSubset(id, std::vector<uint64_t>(perms.back().words, 0));
  // The first choice is built now, so every item's errors surface at compile time (with deferTails
  // the check found them).
  if (!deferTails) {
    nfa.states[in].thunk = -1;
    expandPermSubset(in, id, 0);
  }
  return {in, perms[size_t(id)].out};
}

uint32_t NfaBuilder::Impl::permSubset(int32_t perm, const std::vector<uint64_t>& bits) {
  PermSet& p = perms[size_t(perm)];
  std::string key(reinterpret_cast<const char*>(bits.data()), bits.size() * sizeof(uint64_t));
  auto it = p.index.find(key);
  if (it != p.index.end()) return p.state[it->second];
  uint32_t s = add();
  uint32_t i = uint32_t(p.state.size());
  p.index.emplace(std::move(key), i);
  p.state.push_back(s);
  p.bits.insert(p.bits.end(), bits.begin(), bits.end());
  nfa.states[s].thunk = int32_t(thunks.size());
  thunks.push_back({nullptr, p.path, refStack, 0, perm, i});  // the set's refs: its own while it is built or expanded
  thunks.back().marks = marks();
  return s;
}

namespace {
// Whether `n` reads at least one byte or token on every path (a placeholder after it lies beyond
// the closure of where it starts).
bool mustRead(const json::Value& n) { return irType(n) == IrType::Token || !nullable(n); }
// Whether items[from..] are a few plain nodes: cheaper built now than behind a placeholder.
bool smallTail(const std::vector<json::Value>& items, size_t from) {
  size_t budget = 16;
  std::vector<const json::Value*> stack;
  for (size_t i = from; i < items.size(); i++) stack.push_back(&items[i]);
  while (!stack.empty()) {
    const json::Value& n = *stack.back();
    stack.pop_back();
    if (n.kind == json::Kind::Array)
      for (auto& x : n.arr) stack.push_back(&x);
    if (n.kind != json::Kind::Object) continue;
    if (budget-- == 0) return false;
    if (const IrType t = irType(n); t == IrType::Ref || t == IrType::Perm) return false;
    for (const char* key : {"item", "items"})
      if (const json::Value* c = n.get(key)) stack.push_back(c);
  }
  return true;
}
}  // namespace

// Items from..to-1 of seq `n`, one after another, built now; with deferTails, a seq's tail (`to` its
// end) only up to the first item that must read something, the rest behind a placeholder that no
// walk reaches before that item has read a byte or a token.
Frag NfaBuilder::Impl::seqRange(const json::Value& n, size_t from, size_t to, const std::string& path) {
  auto& it = itemsOf(n, path);
  const bool deferTail = deferTails && lazy && !insideFragment && to == it.size();
  uint32_t in = add(), cur = in;
  for (size_t i = from; i < to; i++) {
    Frag f = build(it[i], path + ".items[" + std::to_string(i) + "]");
    eps(cur, f.in);
    cur = f.out;
    if (deferTail && i + 1 < to && mustRead(it[i]) && !smallTail(it, i + 1)) {
      Frag t = laterSeqTail(n, i + 1, path);
      eps(cur, t.in);
      return {in, t.out};
    }
  }
  return {in, cur};
}

// A placeholder for the items of seq `n` from `from` on (always built now for fragment shapes).
Frag NfaBuilder::Impl::laterSeqTail(const json::Value& n, size_t from, const std::string& path) {
  if (!lazy || insideFragment) return seqRange(n, from, itemsOf(n, path).size(), path);
  uint32_t in = add(), out = add();
  nfa.states[in].thunk = int32_t(thunks.size());
  thunks.push_back({&n, path, refStack, out});
  thunks.back().marks = marks();
  thunks.back().seqFrom = int32_t(from);
  return {in, out};
}

void NfaBuilder::Impl::expandPermSubset(uint32_t state, int32_t perm, uint32_t subset) {
  PermSet& p = perms[size_t(perm)];  // perms is a deque: building more sets leaves this one in place
  std::vector<uint64_t> bits(p.bits.begin() + ptrdiff_t(subset * p.words),
                             p.bits.begin() + ptrdiff_t((subset + 1) * p.words));
  auto used = [&](size_t i) { return (bits[i / 64] >> (i % 64)) & 1; };
  std::swap(refStack, p.refStack);
  std::vector<std::string> saved = refStack;
  bool empty = true, complete = true, left = false;
  for (size_t i = 0; i < p.items.size(); i++) {
    if (used(i))
      empty = false;
    else {
      left = true;
      if (p.items[i].required) complete = false;
    }
  }
  if (complete) eps(state, p.out);
  if (left) {
    uint32_t from = state;
    if (!empty && p.separator) {
      Frag f = separatorBuilt ? later(*p.separator, p.path + ".separator") : build(*p.separator, p.path + ".separator");
      separatorBuilt = true;
      eps(from, f.in);
      from = f.out;
    }
    // The elements every item starts with, once for all of them.
    const PermItem& first = p.items[0];
    for (size_t j = 0; j < p.shared; j++) {
      Frag f = build(*first.elems[j], p.path + ".items[0].node.items[" + std::to_string(j) + "]");
      eps(from, f.in);
      from = f.out;
    }
    for (size_t i = 0; i < p.items.size(); i++) {
      if (used(i)) continue;
      const PermItem& it = p.items[i];
      std::string ip = p.path + ".items[" + std::to_string(i) + "].node";
      Frag f;
      if (it.elems.size() == 1)
        f = empty ? build(*it.node, ip) : later(*it.node, ip);
      else if (empty)
        f = seqRange(*it.node, p.shared, it.elems.size(), ip);
      else {
        f = seqRange(*it.node, p.shared, it.head + 1, ip);
        if (it.head + 1 < it.elems.size()) {
          Frag t = laterSeqTail(*it.node, it.head + 1, ip);
          eps(f.out, t.in);
          f.out = t.out;
        }
      }
      eps(from, f.in);
      bits[i / 64] |= uint64_t(1) << (i % 64);
      uint32_t next = permSubset(perm, bits);
      bits[i / 64] &= ~(uint64_t(1) << (i % 64));
      eps(f.out, next);
    }
  }
  refStack = saved;
  std::swap(refStack, perms[size_t(perm)].refStack);
}

// A subset can still finish if every required item it lacks can match something.
bool NfaBuilder::Impl::permCanFinish(PermSet& p, uint32_t subset) {
  const uint64_t* bits = p.bits.data() + size_t(subset) * p.words;
  for (size_t i = 0; i < p.items.size(); i++) {
    PermItem& it = p.items[i];
    if (!it.required || ((bits[i / 64] >> (i % 64)) & 1)) continue;
    if (it.nonEmpty < 0) it.nonEmpty = nonEmpty(*it.node) ? 1 : 0;
    if (!it.nonEmpty) return false;
  }
  return true;
}

}  // namespace toolmask
