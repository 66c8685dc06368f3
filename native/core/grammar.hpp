// A compiled grammar: the NFA determinised lazily into states shared by every
// matcher, each state's token mask computed once and kept in compact form.
#pragma once
#include <chrono>
#include <deque>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "nfa.hpp"
#include "vocab.hpp"

namespace toolmask {

constexpr int32_t kDead = -1;
constexpr int32_t kUnknown = -2;
constexpr int32_t kTerminated = -3;  // an end-of-generation token was accepted

// How a state's allowed ordinary tokens are stored: whichever is smallest.
enum class MaskRep : uint8_t { Accept, Reject, Bits };

struct StateMask {
  MaskRep rep = MaskRep::Accept;
  std::vector<uint32_t> ids;   // Accept: allowed ids; Reject: disallowed ordinary ids
  std::vector<uint32_t> bits;  // Bits: the ordinary part as a bitmask
  std::vector<uint32_t> specials;  // special / end-of-generation ids allowed here
};

struct DfaState {
  std::vector<uint32_t> nfa;  // sorted NFA states after closure
  bool accepting = false;
  std::vector<int32_t> next;  // per byte class
  std::vector<std::pair<uint32_t, int32_t>> tokenEdges;  // special token id → state
  uint64_t loopKnown[2] = {0, 0};  // ASCII bytes already tested for looping back here
  uint64_t loopYes[2] = {0, 0};    // ...and those that do
  int8_t nonAsciiLoops = -1;       // every valid multi-byte character loops back (-1: not yet known)
  std::unique_ptr<StateMask> mask;
};

struct CompileOptions {
  int maxRecursionDepth = 8;
  size_t precomputeStates = 4096;   // masks computed eagerly at compile time, breadth first
  double precomputeMillis = 200;
};

class CompiledGrammar {
 public:
  CompiledGrammar(const std::string& irJson, std::shared_ptr<const Vocabulary> vocab, const CompileOptions& opts);

  const Vocabulary& vocab() const { return *vocab_; }
  std::shared_ptr<const Vocabulary> vocabPtr() const { return vocab_; }
  int32_t start() const { return 0; }

  // All of these lock: matchers on several threads share one grammar.
  int32_t stepBytes(int32_t state, const uint8_t* p, size_t n);
  int32_t stepToken(int32_t state, uint32_t id);
  bool accepting(int32_t state);
  void fillMask(int32_t state, uint32_t* out);
  bool hasAllowedToken(int32_t state);

  size_t stateCount();
  size_t memoryBytes();
  double compileMillis() const { return compileMs_; }

 private:
  std::shared_ptr<const Vocabulary> vocab_;
  Nfa nfa_;
  uint8_t byteClass_[256];
  std::vector<uint8_t> classRep_;
  std::deque<DfaState> states_;
  std::unordered_map<std::string, int32_t> index_;
  std::mutex mu_;
  double compileMs_ = 0;

  int32_t intern(std::vector<uint32_t>&& set);
  void closure(std::vector<uint32_t>& set);
  int32_t next(int32_t s, uint8_t byte);
  int32_t walk(int32_t s, const uint8_t* p, size_t n);
  bool loopsOver(int32_t s, const TrieNode& node);
  bool nonAsciiLoops(int32_t s);
  const StateMask& ensureMask(int32_t s);
  void computeMask(int32_t s, StateMask& out);
  void precompute(const CompileOptions& opts);
};

}  // namespace toolmask
