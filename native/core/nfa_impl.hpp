// Internal to the NFA builder (nfa.cpp: structure and laziness; nfa_text.cpp: text terminals).
#pragma once
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "nfa.hpp"

namespace toolmask {

struct Frag { uint32_t in, out; };

struct NfaBuilder::Impl {
  Impl(const json::Value& grammar, const NfaLimits& limits);

  json::Value grammar;  // the caller's, with small rules inlined (nodes below point into it)
  NfaLimits lim;
  const json::Value* rules = nullptr;
  Nfa nfa;
  bool lazy = true;  // false: build everything now (fragment shapes)
  int insideFragment = 0;
  std::vector<std::string> refStack;

  // A node to build later at a placeholder state, then continue at `target`; or, when
  // `perm` >= 0, the outgoing choices of one subset of an any-order set.
  struct Thunk {
    const json::Value* node;
    std::string path;
    std::vector<std::string> refStack;
    uint32_t target;
    int32_t perm = -1;
    uint32_t subset = 0;
    int32_t counted = -1;  // a copy of a bounded repetition's item (see Counted)
    uint32_t copy = 0;
  };
  // A bounded repetition of a plain item: its copies share the masks of the item's loop.
  struct Counted {
    json::Value loop;  // {type: repeat, item, min: 0, max: null}
    std::shared_ptr<const std::string> shape;
    uint32_t max, out;
  };
  std::deque<Counted> counted;
  std::vector<Thunk> thunks;
  // An any-order set whose subsets are built as walks reach them.
  struct PermSet {
    std::vector<const json::Value*> items;
    const json::Value* separator;
    uint32_t required;
    uint32_t out;
    std::string path;
    std::vector<std::string> refStack;
    std::unordered_map<uint32_t, uint32_t> subsetState;
  };
  std::vector<PermSet> perms;
  std::unordered_map<std::string, bool> builtRules;  // rules built eagerly once, for their errors
  // A fragment's states relative to its first one: repeated shapes are copied, not rebuilt.
  struct Template { std::vector<NfaState> states; uint32_t in, out; std::shared_ptr<const std::string> shape; };
  std::unordered_map<std::string, Template> templates;
  std::unordered_map<const json::Value*, bool> nonEmptyMemo;
  std::vector<uint32_t> tokenIds;  // every token terminal in the grammar, found up front
  bool separatorBuilt = false;
  size_t irBytes = 0;  // json::memoryBytes(grammar), once

  uint32_t add();
  void eps(uint32_t a, uint32_t b) { nfa.states[a].eps.push_back(b); }
  void byteEdge(uint32_t a, uint8_t lo, uint8_t hi, uint32_t b) { nfa.states[a].bytes.push_back({lo, hi, b}); }
  [[noreturn]] static void fail(const std::string& path, const std::string& what);
  [[noreturn]] static void limitFail(const std::string& path, const char* limit, const std::string& what);
  static const json::Value& field(const json::Value& n, const char* key, const std::string& path);
  static double number(const json::Value& v, const std::string& path);

  Frag build(const json::Value& n, const std::string& path);
  Frag buildNode(const json::Value& n, const std::string& path);
  Frag later(const json::Value& n, const std::string& path);  // a placeholder, or built now when not lazy
  Frag seq(const json::Value& n, const std::string& path);
  Frag alt(const json::Value& n, const std::string& path);
  Frag repeat(const json::Value& n, const std::string& path);
  Frag perm(const json::Value& n, const std::string& path);
  uint32_t permSubset(int32_t perm, uint32_t subset);
  void expandPermSubset(uint32_t state, int32_t perm, uint32_t subset);
  bool permCanFinish(const PermSet& p, uint32_t subset);
  Frag ref(const json::Value& n, const std::string& path);
  Frag token(const json::Value& n, const std::string& path);
  // nfa_text.cpp
  Frag literal(const json::Value& text, const std::string& path);
  Frag charClass(const json::Value& n, const std::string& path);
  Frag byteClass(const json::Value& n, const std::string& path);
  Frag until(const json::Value& n, const std::string& path, bool textOnly = false);
  std::vector<std::pair<uint32_t, uint32_t>> ranges(const json::Value& n, const std::string& path, uint32_t maxValue);
  void collectCuts(const json::Value& n, int depth);

  bool nonEmpty(const json::Value& n);
  Frag countedCopy(int32_t id, uint32_t copy, bool now, const std::string& path);
  void markProductive(uint32_t begin);
  void finishRange(uint32_t begin);
};

}  // namespace toolmask
