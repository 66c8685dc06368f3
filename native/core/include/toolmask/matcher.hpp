// One request's position in a compiled grammar. Rejected tokens leave it unchanged.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "grammar.hpp"

namespace toolmask {

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<CompiledGrammar> g);

  bool acceptToken(uint32_t id);
  bool acceptBytes(const uint8_t* p, size_t n);  // teacher forcing; counts as one step for rollback
  void fillNextTokenBitmask(uint32_t* out, size_t words);
  // The mask for a step with `tokensLeft` tokens left, this one included (CompiledGrammar::limitToBudget).
  // True when the budget left out tokens the state's own mask allows.
  bool fillNextTokenBitmask(uint32_t* out, size_t words, uint32_t tokensLeft);
  // False when the budget cannot change this step's mask (CompiledGrammar::budgetMayLimit).
  bool budgetMayLimit(uint32_t tokensLeft);
  // A lower bound on the tokens any answer from here still needs (CompiledGrammar::minTokensToFinish).
  uint32_t minTokensToFinish();
  bool isComplete();
  // The bytes every continuation from here begins with (CompiledGrammar::forcedBytes), settled
  // every so many bytes as a step is.
  std::string forcedBytes(size_t max);
  bool isTerminated() const;
  void rollback(size_t n);
  void reset();
  size_t steps() const { return history_.size() - 1; }
  int32_t state() const { return history_.back(); }
  CompiledGrammar& grammar() { return *g_; }
  const std::shared_ptr<CompiledGrammar>& sharedGrammar() const { return g_; }

 private:
  // What a state's counters marked far stand for beyond their values: LazyDfa::Offsets, (counter,
  // offset) sorted (LazyDfa::settle; matcher.cpp checks that the two are one type).
  using Offsets = std::vector<std::pair<uint32_t, uint64_t>>;

  std::shared_ptr<CompiledGrammar> g_;
  GrammarUse use_;                // the grammar counts as in use while the matcher lives
  std::vector<int32_t> history_;  // state before each accepted step, plus the current one
  std::vector<Offsets> offsets_;  // per history entry
  void push(int32_t state, Offsets offsets);
};

}  // namespace toolmask
