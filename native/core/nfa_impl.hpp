// Internal to the NFA builder (nfa.cpp: structure and laziness; nfa_text.cpp: text terminals).
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir_inline.hpp"
#include "ir_type.hpp"
#include "nfa.hpp"
#include "utf8.hpp"

namespace toolmask {

struct Frag {
  uint32_t in, out;
};

// Whether a node can match the empty string (a conservative reading of the IR).
bool nullable(const json::Value& n);
// Plain text nodes only (NfaBuilder::Impl::plain): no tokens, refs or any-order sets, whose layout
// could differ per instance, and no counted construct, whose counter is its instance's own.
bool plainWith(const json::Value& n, const NfaLimits& lim);
// Whether an until node has a body (nfa_until_body.cpp).
bool untilHasBody(const json::Value& n);
// A text node built in full by a builder of its own (nfa_intersect.cpp): what a product walks. `in`
// and `out` are states of their own: no edge leads into `in`, none leaves `out`, neither is a gate.
struct TextNfa {
  Nfa nfa;
  uint32_t in = 0, out = 0;
};
// Checks of the repetitions' counters in an intersection's product, so that no walk starts a text
// it cannot finish (nfa_counter_checks.cpp); `over` throws past `limit` states.
void counterChecks(TextNfa& P, size_t limit, const std::function<void()>& over);
// The largest bound a counted construct may state: 2^53, the integers a double holds exactly.
constexpr double kMaxCount = 9007199254740992.0;
// Whether `n` itself is a counted construct (nfa_count.cpp): a repetition of an item that cannot be
// empty whose bound is above lim.countAbove, or an until/text whose bound is above lim.countTextAbove.
bool countingNode(const json::Value& n, const NfaLimits& lim);
// A seq/alt/perm node's "items" array; throws GrammarError naming `path` when it is missing.
const std::vector<json::Value>& itemsOf(const json::Value& n, const std::string& path);

struct NfaBuilder::Impl {
  Impl(const json::Value& grammar, const NfaLimits& limits, const ExternalRules* external = nullptr);

  // The caller's grammar with small rules inlined, each rule as it is first built (nodes below point
  // into it); `rules` is it, or the one of the builder this one builds a part for.
  std::unique_ptr<InlinedGrammar> inlined;
  NfaLimits lim;
  InlinedGrammar* rules = nullptr;
  Nfa nfa;
  bool lazy = true;  // false: build everything now (fragment shapes)
  // Rules, any-order sets and the tails of sequences built only when a walk reaches them, not once
  // at compile time: set for a grammar the check (deferrable) found free of errors and within the
  // state limit, so that compiling reports the same errors either way.
  bool deferTails = false;
  int insideFragment = 0;
  int inCall = 0;    // depth of nodes marked "call" being built: their states are marked kMarkCall
  int inFiller = 0;  // the same for nodes marked "filler" (kMarkFiller)
  uint8_t marks() const { return uint8_t((inCall > 0 ? kMarkCall : 0) | (inFiller > 0 ? kMarkFiller : 0)); }
  void setMarks(uint8_t m) {
    inCall = (m & kMarkCall) ? 1 : 0;
    inFiller = (m & kMarkFiller) ? 1 : 0;
  }
  std::vector<std::string> refStack;

  // A node to build later at a placeholder state, then continue at `target`; or, when
  // `perm` >= 0, the outgoing choices of one subset of an any-order set.
  struct Thunk {
    const json::Value* node;
    std::string path;
    std::vector<std::string> refStack;
    uint32_t target;
    int32_t perm = -1;
    uint32_t subset = 0;   // with `perm`: the subset's index in its PermSet
    int32_t counted = -1;  // a copy of a bounded repetition's item (see Counted)
    uint32_t copy = 0;
    int32_t seqFrom = -1;    // only the items of the seq `node` from this index on
    uint8_t marks = 0;       // the marks of the nodes it is built inside (Nfa::marks)
    std::string rule{};      // the rule to build (its body inlined then), when `node` is null
    int32_t departure = -1;  // a position of a departure (departureBuilds) whose ways on are built when reached
    uint32_t position = 0;
  };
  // A plain item's unbounded loop {type: repeat, item, min: 0, max: null} and its shape: the masks
  // every counted repetition of the item shares. Made once per item node (itemLoop).
  struct ItemLoop {
    json::Value loop;
    std::shared_ptr<const std::string> shape;
  };
  std::deque<ItemLoop> itemLoops;
  std::unordered_map<const json::Value*, const ItemLoop*> itemLoopOf;
  const ItemLoop& itemLoop(const json::Value& item);
  // A bounded repetition of a plain item: its copies share the masks of the item's loop. Its
  // copies built at first use are built at `path` under `refStack`, kept here once for all of them.
  struct Counted {
    const ItemLoop* loop;
    uint32_t max, out;
    std::string path{};
    std::vector<std::string> refStack{};
  };
  std::deque<Counted> counted;
  std::vector<Thunk> thunks;
  // An any-order set whose subsets (sets of used items, any number of items) are built as
  // walks reach them. Each item is split into the leading elements every item shares
  // (built once per subset), its head up to its first element that must match something
  // (built per subset, so the next byte picks the item) and its tail (built at first use).
  struct PermItem {
    const json::Value* node;
    std::vector<const json::Value*> elems;  // the items of a seq node, or the node itself
    size_t head = 0;                        // elems[shared..head] are built with the choice
    bool required = false;
    int8_t nonEmpty = -1;  // can match something (under the set's refs); -1 unknown
  };
  struct PermSet {
    std::vector<PermItem> items;
    size_t shared = 0;  // leading elements equal in every item
    const json::Value* separator;
    uint32_t out;
    std::string path;
    std::vector<std::string> refStack;
    size_t words = 0;                                 // 64-bit words per subset
    std::vector<uint64_t> bits;                       // subset i: bits[i * words, (i + 1) * words)
    std::vector<uint32_t> state;                      // subset i's NFA state
    std::unordered_map<std::string, uint32_t> index;  // a subset's bits (as bytes) -> i
  };
  std::deque<PermSet> perms;                         // a deque: building an item may add sets while one is in use
  std::unordered_map<std::string, bool> builtRules;  // rules built eagerly once, for their errors
  // A fragment's states relative to its first one: repeated shapes are copied, not rebuilt.
  struct Template {
    std::vector<NfaState> states;
    uint32_t in, out;
    std::shared_ptr<const std::string> shape;
  };
  std::unordered_map<std::string, Template> templates;
  std::unordered_map<const json::Value*, bool> nonEmptyMemo;
  mutable std::unordered_map<const json::Value*, bool> plainMemo;  // plain(), per node
  std::vector<uint32_t> tokenIds;  // every token terminal in the grammar, found up front
  bool separatorBuilt = false;

  uint32_t add();
  void eps(uint32_t a, uint32_t b) { nfa.states[a].eps.push_back(b); }
  void byteEdge(uint32_t a, uint8_t lo, uint8_t hi, uint32_t b) { nfa.states[a].bytes.push_back({lo, hi, b}); }
  // A byte edge, joined to the state's last one when it continues that one's range to the same state.
  void byteRun(uint32_t a, uint8_t lo, uint8_t hi, uint32_t b) {
    auto& edges = nfa.states[a].bytes;
    if (!edges.empty() && edges.back().to == b && edges.back().hi + 1 == lo)
      edges.back().hi = hi;
    else
      byteEdge(a, lo, hi, b);
  }
  [[noreturn]] static void fail(const std::string& path, const std::string& what);
  [[noreturn]] static void limitFail(const std::string& path, const char* limit, const std::string& what);
  static const json::Value& field(const json::Value& n, const char* key, const std::string& path);
  static double number(const json::Value& v, const std::string& path);

  Frag build(const json::Value& n, const std::string& path);
  Frag buildNode(const json::Value& n, const std::string& path);
  // buildNode's dispatch (`type`: the "type" string, for an error)
  Frag buildKind(const json::Value& n, IrType kind, const std::string& type, const std::string& path);
  Frag later(const json::Value& n, const std::string& path);  // a placeholder, or built now when not lazy
  Frag seq(const json::Value& n, const std::string& path);
  Frag alt(const json::Value& n, const std::string& path);
  Frag repeat(const json::Value& n, const std::string& path);
  Frag perm(const json::Value& n, const std::string& path);
  uint32_t permSubset(int32_t perm, const std::vector<uint64_t>& bits);
  void expandPermSubset(uint32_t state, int32_t perm, uint32_t subset);
  bool permCanFinish(PermSet& p, uint32_t subset);
  Frag seqRange(const json::Value& n, size_t from, size_t to, const std::string& path);
  Frag laterSeqTail(const json::Value& n, size_t from, const std::string& path);
  bool thunkNonEmpty(const Thunk& t);
  Frag ref(const json::Value& n, const std::string& path);
  Frag token(const json::Value& n, const std::string& path);
  // nfa_text.cpp
  Frag literal(const json::Value& text, const std::string& path);
  Frag charClass(const json::Value& n, const std::string& path);
  Frag byteClass(const json::Value& n, const std::string& path);
  Frag until(const json::Value& n, const std::string& path, bool textOnly = false);
  // nfa_departure.cpp: a departure node's trie and each position's way out (computed once per node:
  // the cuts, the check, the emptiness test and the build all read it).
  struct DeparturePlan {
    // A way out's byte after the first: `lo..hi`, then tail `next` (-1: the departure's end).
    struct Tail {
      uint8_t lo, hi;
      int32_t next;
    };
    // A way out's first byte from a position: `lo..hi`, then tail `tail` (-1: the departure's end).
    struct Out {
      uint8_t lo, hi;
      int32_t tail;
    };
    struct Node {
      std::vector<std::pair<uint32_t, uint32_t>> children;  // (code point, node), in the order the words reach them
      bool word = false;                                    // a whole word ends here
      bool live = false;                                    // reached by a path that ends no word before it
      uint32_t outsBegin = 0, outsEnd = 0;                  // live: the code points that leave every word here (`outs`)
      bool reaches = false;                                 // live: a way out here or past it
    };
    std::vector<Node> nodes;               // [0]: the empty prefix; a parent before its children
    std::vector<std::vector<Out>> ranges;  // each code point range a position leaves by, encoded once
    std::vector<uint32_t> outs;            // each position's ranges (of `ranges`), one position after another
    std::vector<Tail> tails;               // shared by every position's ways out (they all end the departure)
    bool cut[257] = {};                    // the byte-class boundaries of its edges (Nfa::cut)
    size_t bound = 0;                      // at least the states the build makes
    bool nonEmpty = false;                 // some position has a way out
  };
  const DeparturePlan& departurePlan(const json::Value& n, const std::string& path);
  std::unordered_map<const json::Value*, DeparturePlan> departureMemo;
  Frag departure(const json::Value& n, const std::string& path);
  // One built departure: its end and its shared tails' states; its positions past the first are
  // placeholders (Thunk::departure) until a walk reaches them, as a tree's alternatives would be.
  struct DepartureBuild {
    const DeparturePlan* plan;
    uint32_t out;
    std::vector<uint32_t> tailAt;
  };
  std::vector<DepartureBuild> departureBuilds;
  void departurePosition(uint32_t from, uint32_t build, uint32_t position);
  void expandDeparture(uint32_t state, const Thunk& t);  // NfaBuilder::expand of a departure's position
  void departureCuts(const json::Value& n);              // collectCuts of a departure node
  // nfa_intersect.cpp: text nodes built apart, their products, and placing them here
  TextNfa buildText(const json::Value& n, const std::string& path, const char* what, uint64_t countAbove,
                    uint64_t countFreeAbove = UINT64_MAX);
  uint32_t importCounters(const Nfa& from);  // its counters and gates, appended; returns its first gate's index here
  Frag place(const TextNfa& t);
  Frag intersect(const json::Value& n, const std::string& path);
  TextNfa intersectNfa(const json::Value& n, const std::string& path);
  bool intersectNonEmpty(const json::Value& n);
  // nfa_until_body.cpp
  Frag untilBody(const json::Value& n, const std::string& path);
  bool untilBodyNonEmpty(const json::Value& n);
  std::vector<std::pair<uint32_t, uint32_t>> ranges(const json::Value& n, const std::string& path, uint32_t maxValue);
  // What a charClass (`chars`) or byteClass node's ranges come to. Computed once per distinct
  // "ranges" and "negated" (classMemo): a grammar repeats few classes many times (whitespace, a
  // string's characters), and the cuts, the check, the emptiness test and the build all read them.
  struct ClassInfo {
    std::vector<std::pair<uint32_t, uint32_t>> ranges;  // as ranges() gives them
    std::vector<std::vector<utf8::ByteRange>> seqs;     // chars: their UTF-8 sequences
    std::vector<uint16_t> cuts;                         // the byte-class boundaries they make (Nfa::cut)
    size_t seqBytes = 0;                                // chars: the byte ranges of all sequences
  };
  // Throws GrammarError (naming `path`) for a malformed class, as ranges() does.
  const ClassInfo& classInfo(const json::Value& n, const std::string& path, bool chars);
  std::unordered_map<std::string, ClassInfo> classMemo;
  std::string classKeyBuf;  // classInfo's key, built in place
  // The rules a walk met refs to, each name once, in the order first met.
  struct RefsMet {
    std::vector<const std::string*> names;
    std::unordered_set<std::string_view> seen;
  };
  // Every byte boundary `n` can give an edge (nfa.cut), and its token terminals (tokenIds); the
  // rules it refers to go to `refs` when given.
  void collectCuts(const json::Value& n, int depth, RefsMet* refs = nullptr);

  bool nonEmpty(const json::Value& n);
  // nfa_check.cpp: whether building from `root` can be deferred (deferTails)
  bool deferrable(const json::Value& root);
  Frag countedCopy(int32_t id, uint32_t copy, bool now, const std::string& path);
  // nfa_count.cpp: counters and their gates
  uint32_t newCounter(std::vector<uint64_t> points);
  uint32_t gateState(const Gate& g);
  Frag countedRepeat(const json::Value& item, uint64_t min, uint64_t max, const std::string& path);
  bool plain(const json::Value& n) const;
  void markProductive(uint32_t begin);
  void finishRange(uint32_t begin);
};

}  // namespace toolmask
