// One request's position in a compiled grammar. Rejected tokens leave it unchanged.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "grammar.hpp"

namespace toolmask {

struct MatcherError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Matcher {
 public:
  explicit Matcher(std::shared_ptr<CompiledGrammar> g)
      : g_(std::move(g)), use_(g_), history_{g_->start()}, offsets_(1) {}

  bool acceptToken(uint32_t id);
  bool acceptBytes(const uint8_t* p, size_t n);  // teacher forcing; counts as one step for rollback
  void fillNextTokenBitmask(uint32_t* out, size_t words);
  // The mask for a step with `tokensLeft` tokens left, this one included (CompiledGrammar::limitToBudget).
  // True when the budget left out tokens the state's own mask allows.
  bool fillNextTokenBitmask(uint32_t* out, size_t words, uint32_t tokensLeft) {
    fillNextTokenBitmask(out, words);
    return g_->limitToBudget(history_.back(), tokensLeft, out);
  }
  // False when the budget cannot change this step's mask (CompiledGrammar::budgetMayLimit).
  bool budgetMayLimit(uint32_t tokensLeft) { return g_->budgetMayLimit(history_.back(), tokensLeft); }
  // A lower bound on the tokens any answer from here still needs (CompiledGrammar::minTokensToFinish).
  uint32_t minTokensToFinish() { return g_->minTokensToFinish(history_.back()); }
  bool isComplete() { return g_->accepting(history_.back()); }
  // The bytes every continuation from here begins with (CompiledGrammar::forcedBytes), settled
  // every so many bytes as a step is.
  std::string forcedBytes(size_t max);
  bool isTerminated() const { return history_.back() == kTerminated; }
  void rollback(size_t n);
  void reset() {
    history_.assign(1, g_->start());
    offsets_.assign(1, {});
  }
  size_t steps() const { return history_.size() - 1; }
  int32_t state() const { return history_.back(); }
  CompiledGrammar& grammar() { return *g_; }
  const std::shared_ptr<CompiledGrammar>& sharedGrammar() const { return g_; }

 private:
  std::shared_ptr<CompiledGrammar> g_;
  CompiledGrammar::Use use_;      // the grammar counts as in use while the matcher lives
  std::vector<int32_t> history_;  // state before each accepted step, plus the current one
  // Per history entry: what its counters marked far stand for beyond their values (LazyDfa::settle).
  std::vector<LazyDfa::Offsets> offsets_;
  void push(int32_t state, LazyDfa::Offsets offsets);
};

}  // namespace toolmask
