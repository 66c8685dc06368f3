// The NFA builder's structure: sequences, choices, repetition, any-order sets and rule
// references, with placeholders built on first use, and which states can still finish.
#include <algorithm>

#include "ir_inline.hpp"
#include "nfa_impl.hpp"
#include "utf8.hpp"

namespace toolmask {

NfaBuilder::Impl::Impl(const json::Value& g, const NfaLimits& limits, const ExternalRules* external)
    : inlined(std::make_unique<InlinedGrammar>(g, external)), lim(limits), rules(inlined.get()) {
  if (g.kind != json::Kind::Object) throw GrammarError("grammar must be an object { root, rules? }");
  if (const json::Value* d = g.get("maxRecursionDepth"); d && d->kind == json::Kind::Number)
    lim.maxRecursionDepth = std::max(0, int(d->num));
  if (const json::Value* d = g.get("countAbove"); d && d->kind == json::Kind::Number && d->num >= 0)
    lim.countAbove = lim.countTextAbove = lim.countLengthAbove = d->num >= kMaxCount ? UINT64_MAX : uint64_t(d->num);
  const json::Value* given = g.get("rules");
  if (given && given->kind != json::Kind::Object && given->kind != json::Kind::Null)
    throw GrammarError("grammar.rules must be an object of named rules");
}

uint32_t NfaBuilder::Impl::add() {
  if (nfa.states.size() >= lim.maxStates)
    throw GrammarLimitError("automatonStates",
                            "grammar too large: more than " + std::to_string(lim.maxStates) +
                                " automaton states (reduce repetition bounds, string lengths or nesting)");
  nfa.states.emplace_back();
  nfa.marks.push_back(marks());
  return uint32_t(nfa.states.size() - 1);
}

void NfaBuilder::Impl::fail(const std::string& path, const std::string& what) {
  throw GrammarError(path + ": " + what);
}
void NfaBuilder::Impl::limitFail(const std::string& path, const char* limit, const std::string& what) {
  throw GrammarLimitError(limit, path + ": " + what);
}

const json::Value& NfaBuilder::Impl::field(const json::Value& n, const char* key, const std::string& path) {
  const json::Value* v = n.get(key);
  if (!v) fail(path, std::string("missing \"") + key + "\"");
  return *v;
}

double NfaBuilder::Impl::number(const json::Value& v, const std::string& path) {
  if (v.kind != json::Kind::Number) fail(path, "expected a number");
  return v.num;
}

bool plainWith(const json::Value& n, const NfaLimits& lim) {
  if (n.kind == json::Kind::Array) {
    for (auto& x : n.arr)
      if (!plainWith(x, lim)) return false;
    return true;
  }
  if (n.kind != json::Kind::Object) return true;
  if (const IrType t = irType(n);
      t == IrType::Token || t == IrType::Ref || t == IrType::Perm || t == IrType::JsonSchema)
    return false;
  if (countingNode(n, lim)) return false;
  for (auto& kv : n.obj)
    if (mayHoldNodes(kv) && !plainWith(kv.second, lim)) return false;
  return true;
}

namespace {
bool loops(const json::Value& n) {
  const IrType t = irType(n);
  if (t == IrType::Until || t == IrType::Text) return true;
  if (t == IrType::Repeat) {
    const json::Value* mx = n.get("max");
    return mx && mx->kind == json::Kind::Null;
  }
  return false;
}
// A loop inside `n` (not `n` itself): such a node is no fragment, its inner loops are. A shape
// holding another loop and the structure around it (a whole tool call in the loop of calls,
// where its markers are text) names the grammar's own tools, so no other grammar could share it.
bool holdsLoop(const json::Value& n) {
  for (const char* key : {"item", "items"}) {
    const json::Value* c = n.get(key);
    if (!c) continue;
    if (c->kind == json::Kind::Array) {
      for (auto& x : c->arr)
        if (x.kind == json::Kind::Object && (loops(x) || holdsLoop(x))) return true;
    } else if (c->kind == json::Kind::Object && (loops(*c) || holdsLoop(*c))) {
      return true;
    }
  }
  return false;
}
}  // namespace

bool NfaBuilder::Impl::plain(const json::Value& n) const {
  auto it = plainMemo.find(&n);
  return it != plainMemo.end() ? it->second : (plainMemo[&n] = plainWith(n, lim));
}

Frag NfaBuilder::Impl::build(const json::Value& n, const std::string& path) {
  // An until with a body is no shape of its own: its standalone build (the whole product again)
  // cost more than its masks shared (a string enum of 1,000: 2.4 ms for the first mask, 0.4 without).
  if (!lazy || insideFragment || n.kind != json::Kind::Object || !loops(n) || !plain(n) || holdsLoop(n) ||
      untilHasBody(n))
    return buildNode(n, path);
  std::string text = json::canonical(n);
  uint32_t base = uint32_t(nfa.states.size());
  Frag f;
  std::shared_ptr<const std::string> shape;
  auto it = templates.find(text);
  if (it != templates.end()) {
    const Template& t = it->second;
    shape = t.shape;
    if (base + t.states.size() > lim.maxStates) add();  // reports the size error
    for (const NfaState& st : t.states) {
      NfaState c = st;
      for (auto& e : c.eps) e += base;
      for (auto& e : c.bytes) e.to += base;
      nfa.states.push_back(std::move(c));
      nfa.marks.push_back(marks());
    }
    f = {base + t.in, base + t.out};
  } else {
    insideFragment++;
    f = buildNode(n, path);
    insideFragment--;
    shape = std::make_shared<const std::string>(text);
    Template t{{}, f.in - base, f.out - base, shape};
    for (uint32_t i = base; i < nfa.states.size(); i++) {
      NfaState c = nfa.states[i];
      for (auto& e : c.eps) e -= base;
      for (auto& e : c.bytes) e.to -= base;
      t.states.push_back(std::move(c));
    }
    templates.emplace(std::move(text), std::move(t));
  }
  Fragment fr;
  fr.base = base;
  fr.count = uint32_t(nfa.states.size()) - base;
  fr.in = f.in;
  fr.out = f.out;
  fr.shape = std::move(shape);
  fr.node = &n;
  fr.exit = f.out;
  nfa.fragments.push_back(std::move(fr));
  return f;
}

Frag NfaBuilder::Impl::buildNode(const json::Value& n, const std::string& path) {
  if (n.kind != json::Kind::Object) fail(path, "a grammar node must be an object with a \"type\"");
  const json::Value& t = field(n, "type", path);
  if (t.kind != json::Kind::String) fail(path, "\"type\" must be a string");
  const std::string& type = t.str;
  const IrType kind = irType(n);
  // A node marked "call" (one declared tool call): every state built below it is stamped.
  struct CallScope {
    int& depth;
    bool on;
    ~CallScope() {
      if (on) depth--;
    }
  };
  const json::Value* call = n.get("call");
  const CallScope scope{inCall, call && call->kind == json::Kind::Bool && call->b};
  if (scope.on) inCall++;
  // A node marked "filler" (text before a call that must come): its states are marked too.
  const json::Value* filler = n.get("filler");
  const CallScope fillerScope{inFiller, filler && filler->kind == json::Kind::Bool && filler->b};
  if (fillerScope.on) inFiller++;
  // A call entered without a byte (budgetAtEntry): its entry is kept (Nfa::entryCalls).
  const json::Value* entry = scope.on && inCall == 1 ? n.get("budgetAtEntry") : nullptr;
  if (entry && entry->kind == json::Kind::Bool && entry->b) {
    const Frag f = buildKind(n, kind, type, path);
    nfa.entryCalls.push_back(f.in);
    if (const json::Value* e = n.get("endToken"); e && e->kind == json::Kind::Bool && e->b) nfa.entryEndToken = true;
    return f;
  }
  return buildKind(n, kind, type, path);
}

Frag NfaBuilder::Impl::buildKind(const json::Value& n, IrType kind, const std::string& type, const std::string& path) {
  switch (kind) {
    case IrType::Literal:
      return literal(field(n, "text", path), path);
    case IrType::CharClass:
      return charClass(n, path);
    case IrType::ByteClass:
      return byteClass(n, path);
    case IrType::Seq:
      return seq(n, path);
    case IrType::Alt:
      return alt(n, path);
    case IrType::Repeat:
      return repeat(n, path);
    case IrType::Until:
      return untilHasBody(n) ? untilBody(n, path) : until(n, path);
    case IrType::Intersect:
      return intersect(n, path);
    case IrType::Text:
      return until(n, path, true);
    case IrType::Token:
      return token(n, path);
    case IrType::Perm:
      return perm(n, path);
    case IrType::Ref:
      return ref(n, path);
    case IrType::Departure:
      return departure(n, path);
    case IrType::JsonSchema:
      fail(path, "jsonSchema nodes must be lowered before compiling (use compileGrammar from the package)");
    default:
      fail(path, "unknown node type \"" + type + "\"");
  }
}

// A placeholder that builds `n` when a walk first reaches it (always eager for fragment shapes).
Frag NfaBuilder::Impl::later(const json::Value& n, const std::string& path) {
  if (!lazy || insideFragment) return build(n, path);
  if (n.kind != json::Kind::Object) fail(path, "a grammar node must be an object with a \"type\"");
  uint32_t in = add(), out = add();
  nfa.states[in].thunk = int32_t(thunks.size());
  thunks.push_back({&n, path, refStack, out});
  thunks.back().marks = marks();
  return {in, out};
}

const std::vector<json::Value>& itemsOf(const json::Value& n, const std::string& path) {
  const json::Value* it = n.get("items");
  if (!it) throw GrammarError(path + ": missing \"items\"");
  if (it->kind != json::Kind::Array) throw GrammarError(path + ": \"items\" must be an array");
  return it->arr;
}

Frag NfaBuilder::Impl::seq(const json::Value& n, const std::string& path) {
  return seqRange(n, 0, itemsOf(n, path).size(), path);
}

Frag NfaBuilder::Impl::alt(const json::Value& n, const std::string& path) {
  auto& it = itemsOf(n, path);
  uint32_t in = add(), out = add();
  for (size_t i = 0; i < it.size(); i++) {
    Frag f = build(it[i], path + ".items[" + std::to_string(i) + "]");
    eps(in, f.in);
    eps(f.out, out);
  }
  return {in, out};  // no items: the empty language (out unreachable)
}

Frag NfaBuilder::Impl::repeat(const json::Value& n, const std::string& path) {
  const json::Value& item = field(n, "item", path);
  double mn = number(field(n, "min", path), path);
  const json::Value& mxv = field(n, "max", path);
  bool unbounded = mxv.kind == json::Kind::Null;
  double mx = unbounded ? 0 : number(mxv, path);
  auto whole = [](double v) { return v >= 0 && v <= kMaxCount && v == double(uint64_t(v)); };
  if (!whole(mn) || (!unbounded && (mx < mn || !whole(mx))))
    fail(path, "repeat needs integers 0 <= min <= max <= 2^53 (max null = unbounded)");
  std::string ip = path + ".item";
  if (countingNode(n, lim)) return countedRepeat(item, uint64_t(mn), unbounded ? UINT64_MAX : uint64_t(mx), ip);
  if (mn > 100000 || mx > 100000)
    limitFail(path, "repetition", "repeat bound above 100000 of an item that may be empty is not supported");
  int32_t countedId = -1;
  uint32_t out = 0;
  if (!unbounded && mx >= 2 && lazy && !insideFragment && plain(item) && !nullable(item)) {
    out = add();
    counted.push_back({&itemLoop(item), uint32_t(mx), out, path + ".item", refStack});
    countedId = int32_t(counted.size() - 1);
  }
  // The first copy is built now (so errors surface at compile time); the others on first use.
  uint32_t copies = 0;
  auto copy = [&]() {
    bool now = copies == 0;
    Frag f = countedId >= 0 ? countedCopy(countedId, copies, now, ip) : now ? build(item, ip) : later(item, ip);
    copies++;
    return f;
  };
  uint32_t in = add(), cur = in;
  for (uint32_t i = 0; i < uint32_t(mn); i++) {
    Frag f = copy();
    eps(cur, f.in);
    cur = f.out;
  }
  if (unbounded) {
    uint32_t loop = add();
    eps(cur, loop);
    Frag f = copy();
    eps(loop, f.in);
    eps(f.out, loop);
    return {in, loop};
  }
  if (countedId < 0) out = add();
  eps(cur, out);
  for (uint32_t i = uint32_t(mn); i < uint32_t(mx); i++) {
    Frag f = copy();
    eps(cur, f.in);
    eps(f.out, out);
    cur = f.out;
  }
  return {in, out};
}

Frag NfaBuilder::Impl::token(const json::Value& n, const std::string& path) {
  const json::Value* idv = n.get("id");
  if (!idv || idv->kind != json::Kind::Number)
    fail(path, "token terminal needs a numeric \"id\" (pieces are resolved against the vocabulary first)");
  double v = idv->num;
  if (v < 0 || v != double(uint32_t(v)) || v >= lim.vocabSize)
    fail(path, "token id " + std::to_string(long(v)) + " is outside the vocabulary (size " +
                   std::to_string(lim.vocabSize) + ")");
  uint32_t in = add(), out = add();
  nfa.states[in].tokens.push_back({uint32_t(v), out});
  return {in, out};
}

// Whether what a placeholder will build can match something.
bool NfaBuilder::Impl::thunkNonEmpty(const Thunk& t) {
  if (t.departure >= 0) return departureBuilds[size_t(t.departure)].plan->nodes[t.position].reaches;
  if (!t.rule.empty()) return nonEmpty(*rules->original(t.rule));
  if (t.seqFrom < 0) return nonEmpty(*t.node);
  auto& it = itemsOf(*t.node, t.path);
  for (size_t i = size_t(t.seqFrom); i < it.size(); i++)
    if (!nonEmpty(it[i])) return false;
  return true;
}

Frag NfaBuilder::Impl::ref(const json::Value& n, const std::string& path) {
  const json::Value& nm = field(n, "name", path);
  if (nm.kind != json::Kind::String) fail(path, "ref \"name\" must be a string");
  if (!rules->original(nm.str)) fail(path, "ref to undefined rule \"" + nm.str + "\"");
  int depth = int(std::count(refStack.begin(), refStack.end(), nm.str));
  if (depth > lim.maxRecursionDepth) return {add(), add()};  // deeper nesting: no path
  refStack.push_back(nm.str);
  // Each rule is built now once, so a broken rule is reported at compile time; other uses wait
  // (with deferTails every use waits: the grammar was checked whole before).
  bool first = lazy && !deferTails && builtRules.emplace(nm.str, true).second;
  Frag f;
  if (first || !lazy || insideFragment) {
    f = build(*rules->rule(nm.str), "rules." + nm.str);
  } else {  // a placeholder naming the rule, inlined when a walk first reaches it
    f = {add(), add()};
    nfa.states[f.in].thunk = int32_t(thunks.size());
    thunks.push_back({nullptr, "rules." + nm.str, refStack, f.out});
    thunks.back().marks = marks();
    thunks.back().rule = nm.str;
  }
  refStack.pop_back();
  return f;
}

// Whether `n` (under the current ref stack) matches at least one string: placeholders
// are counted as able to finish only if what they will build can.
bool NfaBuilder::Impl::nonEmpty(const json::Value& n) {
  const IrType type = irType(n);
  if (type == IrType::NotANode) return false;
  if (type == IrType::Ref) {
    const json::Value* nm = n.get("name");
    const json::Value* rule = nm && nm->kind == json::Kind::String ? rules->original(nm->str) : nullptr;
    if (!rule) return false;
    if (int(std::count(refStack.begin(), refStack.end(), nm->str)) > lim.maxRecursionDepth) return false;
    refStack.push_back(nm->str);
    bool r = nonEmpty(*rule);
    refStack.pop_back();
    return r;
  }
  if ((type == IrType::Until && untilHasBody(n)) || type == IrType::Intersect) {
    auto it = nonEmptyMemo.find(&n);
    if (it != nonEmptyMemo.end()) return it->second;
    return nonEmptyMemo[&n] = type == IrType::Intersect ? intersectNonEmpty(n) : untilBodyNonEmpty(n);
  }
  bool cacheable = plain(n);
  if (cacheable) {
    auto it = nonEmptyMemo.find(&n);
    if (it != nonEmptyMemo.end()) return it->second;
  }
  bool r = true;
  if (type == IrType::Seq) {
    for (auto& x : itemsOf(n, ""))
      if (!nonEmpty(x)) {
        r = false;
        break;
      }
  } else if (type == IrType::Alt) {
    r = false;
    for (auto& x : itemsOf(n, ""))
      if (nonEmpty(x)) {
        r = true;
        break;
      }
  } else if (type == IrType::Repeat) {
    const json::Value* mn = n.get("min");
    r = (mn && mn->kind == json::Kind::Number && mn->num == 0) || nonEmpty(*n.get("item"));
  } else if (type == IrType::Perm) {
    for (auto& e : itemsOf(n, "")) {
      const json::Value* req = e.get("required");
      if (req && req->kind == json::Kind::Bool && req->b && !nonEmpty(*e.get("node"))) {
        r = false;
        break;
      }
    }
  } else if (type == IrType::ByteClass) {
    r = !classInfo(n, "", false).ranges.empty();
  } else if (type == IrType::CharClass) {  // some code point with a UTF-8 form (a surrogate has none)
    r = !classInfo(n, "", true).seqs.empty();
  } else if (type == IrType::Departure) {
    r = departurePlan(n, "").nonEmpty;
  }
  if (cacheable) nonEmptyMemo[&n] = r;
  return r;
}

// Marks which states in [begin, end) can reach `accept`: through edges, or through a
// placeholder whose node can match something and whose continuation is productive.
void NfaBuilder::Impl::markProductive(uint32_t begin) {
  size_t N = nfa.states.size();
  nfa.productive.resize(N, false);
  // The edges into new states, reversed: (target - begin, source), grouped by target below.
  std::vector<std::pair<uint32_t, uint32_t>> back;
  std::vector<uint32_t> stack;
  auto edge = [&](uint32_t from, uint32_t to) {
    if (to >= begin)
      back.push_back({to - begin, from});
    else if (nfa.productive[to] && !nfa.productive[from]) {
      nfa.productive[from] = true;
      stack.push_back(from);
    }
  };
  for (uint32_t s = begin; s < N; s++) {
    const NfaState& st = nfa.states[s];
    for (uint32_t t : st.eps) edge(s, t);
    for (auto& e : st.bytes) edge(s, e.to);
    for (auto& e : st.tokens) edge(s, e.to);
    if (st.thunk >= 0) {
      Thunk& th = thunks[size_t(st.thunk)];
      std::swap(refStack, th.refStack);
      if (th.perm >= 0) {
        PermSet& p = perms[size_t(th.perm)];
        if (permCanFinish(p, th.subset)) edge(s, p.out);
      } else if (thunkNonEmpty(th)) {
        edge(s, th.target);
      }
      std::swap(refStack, th.refStack);
    }
  }
  // Sources by target (a counting sort): firstSource[t]..firstSource[t + 1] in `sources`.
  std::vector<uint32_t> firstSource(N - begin + 1, 0), sources(back.size());
  for (auto& e : back) firstSource[e.first + 1]++;
  for (size_t i = 1; i < firstSource.size(); i++) firstSource[i] += firstSource[i - 1];
  {
    std::vector<uint32_t> next(firstSource.begin(), firstSource.end() - 1);
    for (auto& e : back) sources[next[e.first]++] = e.second;
  }
  if (nfa.accept >= begin && nfa.accept < N && !nfa.productive[nfa.accept]) {
    nfa.productive[nfa.accept] = true;
    stack.push_back(nfa.accept);
  }
  while (!stack.empty()) {
    uint32_t s = stack.back();
    stack.pop_back();
    if (s < begin) continue;
    for (uint32_t k = firstSource[s - begin]; k < firstSource[s - begin + 1]; k++)
      if (const uint32_t p = sources[k]; !nfa.productive[p]) {
        nfa.productive[p] = true;
        stack.push_back(p);
      }
  }
}

// New states and fragments since `begin`: index fragments, mark productivity.
void NfaBuilder::Impl::finishRange(uint32_t begin) {
  size_t N = nfa.states.size();
  nfa.fragmentOf.resize(N, -1);
  for (size_t i = 0; i < nfa.fragments.size(); i++) {
    const Fragment& fr = nfa.fragments[i];
    if (fr.base < begin) continue;
    for (uint32_t k = 0; k < fr.count; k++) nfa.fragmentOf[fr.base + k] = int32_t(i);
  }
  markProductive(begin);
}

NfaBuilder::NfaBuilder(const json::Value& g, const NfaLimits& limits, const ExternalRules* external)
    : impl_(std::make_unique<Impl>(g, limits, external)) {
  Impl& b = *impl_;
  const json::Value* root = b.rules->root();
  if (!root) throw GrammarError("grammar.root is missing: pass { root: <node> }");
  b.nfa.cut[0] = true;
  // The root as inlined, then every rule it reaches as given (copies cut alike), in one walk each.
  Impl::RefsMet met;
  b.collectCuts(*root, 0, &met);
  for (size_t i = 0; i < met.names.size(); i++)
    if (const json::Value* body = b.rules->original(*met.names[i])) b.collectCuts(*body, 0, &met);
  // "eager": true (tests) builds every rule and any-order set at compile time, as a grammar the
  // check does not pass is.
  const json::Value* eager = g.get("eager");
  b.deferTails = !(eager && eager->kind == json::Kind::Bool && eager->b) && b.deferrable(*g.get("root"));
  Frag f = b.build(*root, "root");
  b.nfa.start = f.in;
  b.nfa.accept = f.out;
  b.finishRange(0);
}

NfaBuilder::~NfaBuilder() = default;

Nfa& NfaBuilder::nfa() { return impl_->nfa; }

const std::vector<uint32_t>& NfaBuilder::tokenIds() const { return impl_->tokenIds; }

size_t NfaBuilder::memoryBytes() const {
  size_t total = sizeof(Impl) + impl_->rules->memoryBytes();
  for (auto& l : impl_->itemLoops) total += json::memoryBytes(l.loop) + l.shape->size();
  for (auto& c : impl_->counted) {
    total += sizeof(c) + c.path.capacity();
    for (auto& r : c.refStack) total += sizeof(r) + r.capacity();
  }
  for (auto& t : impl_->templates) {
    total += 2 * t.first.size() + sizeof(t.second);  // the key and the shared shape
    for (auto& st : t.second.states) total += nfaStateBytes(st);
  }
  for (auto& th : impl_->thunks) total += sizeof(th) + th.path.size();
  for (auto& [key, info] : impl_->classMemo) {
    total += 64 + key.capacity() + 8 * info.ranges.capacity() + 2 * info.cuts.capacity();
    for (auto& sq : info.seqs) total += sizeof(sq) + sizeof(utf8::ByteRange) * sq.capacity();
  }
  for (auto& p : impl_->perms)
    total += sizeof(p) + 8 * p.bits.capacity() + 4 * p.state.capacity() + (48 + 8 * p.words) * p.index.size() +
             64 * p.items.size();
  return total;
}

void NfaBuilder::expand(uint32_t state) {
  Impl& b = *impl_;
  int32_t th = b.nfa.states[state].thunk;
  if (th < 0) return;
  b.nfa.states[state].thunk = -1;
  Impl::Thunk t = b.thunks[size_t(th)];
  uint32_t begin = uint32_t(b.nfa.states.size());
  if (t.departure >= 0) return b.expandDeparture(state, t);
  if (t.perm >= 0) {
    const uint8_t marks = b.marks();
    b.setMarks(t.marks);
    b.expandPermSubset(state, t.perm, t.subset);
    b.setMarks(marks);
    b.finishRange(begin);
    return;
  }
  if (t.counted >= 0) {
    const Impl::Counted& c = b.counted[size_t(t.counted)];
    t.path = c.path;
    t.refStack = c.refStack;
  }
  std::swap(b.refStack, t.refStack);
  const uint8_t marks = b.marks();
  b.setMarks(t.marks);
  Frag f = t.counted >= 0   ? b.countedCopy(t.counted, t.copy, true, t.path)
           : t.seqFrom >= 0 ? b.seqRange(*t.node, size_t(t.seqFrom), itemsOf(*t.node, t.path).size(), t.path)
                            : b.build(t.rule.empty() ? *t.node : *b.rules->rule(t.rule), t.path);
  b.setMarks(marks);
  std::swap(b.refStack, t.refStack);
  b.eps(state, f.in);
  b.eps(f.out, t.target);
  b.finishRange(begin);
}

Nfa buildFragmentNfa(const json::Value& node, const NfaLimits& limits) {
  json::Value g;
  g.kind = json::Kind::Object;
  NfaBuilder::Impl b(g, limits);
  b.lazy = false;
  b.nfa.cut[0] = true;
  b.collectCuts(node, 0);
  Frag f = b.build(node, "fragment");
  b.nfa.start = f.in;
  b.nfa.accept = f.out;
  b.finishRange(0);
  return std::move(b.nfa);
}

}  // namespace toolmask
