#include "include/toolmask/matcher.hpp"

#include <algorithm>
#include <type_traits>

#include "grammar.hpp"

namespace toolmask {

static_assert(std::is_same_v<LazyDfa::Offsets, std::vector<std::pair<uint32_t, uint64_t>>>,
              "Matcher::Offsets (include/toolmask/matcher.hpp) is LazyDfa::Offsets");

Matcher::Matcher(std::shared_ptr<CompiledGrammar> g) : g_(std::move(g)), use_(g_), history_{g_->start()}, offsets_(1) {}

bool Matcher::acceptToken(uint32_t id) {
  if (id >= g_->vocab().size())
    throw MatcherError("token id " + std::to_string(id) + " is outside the vocabulary (size " +
                       std::to_string(g_->vocab().size()) + ")");
  int32_t s = history_.back();
  if (s == kTerminated) return false;
  int32_t t = g_->stepToken(s, id);
  if (t == kDead) return false;
  push(t, offsets_.back());
  return true;
}

bool Matcher::acceptBytes(const uint8_t* p, size_t n) {
  int32_t s = history_.back();
  if (s == kTerminated) return false;
  LazyDfa::Offsets offsets = offsets_.back();
  // Settled every so many bytes, so a long text walks a bounded set of states.
  const size_t every = g_->settleEvery();
  for (size_t i = 0; i == 0 || i < n; i += every) {
    s = g_->stepBytes(s, p + i, std::min(every, n - i));
    if (s == kDead) return false;
    if (i + every < n) s = g_->settle(s, offsets);
  }
  push(s, std::move(offsets));
  return true;
}

std::string Matcher::forcedBytes(size_t max) {
  std::string out;
  int32_t s = history_.back();
  LazyDfa::Offsets offsets = offsets_.back();
  while (s >= 0 && out.size() < max) {
    const size_t want = std::min(g_->settleEvery(), max - out.size());
    const std::string run = g_->forcedBytes(s, want);
    out += run;
    if (run.size() < want) break;  // a choice, an end or a special token comes next
    s = g_->settle(g_->stepBytes(s, reinterpret_cast<const uint8_t*>(run.data()), run.size()), offsets);
  }
  return out;
}

void Matcher::push(int32_t state, LazyDfa::Offsets offsets) {
  if (state >= 0) state = g_->settle(state, offsets);
  history_.push_back(state);
  offsets_.push_back(std::move(offsets));
}

void Matcher::fillNextTokenBitmask(uint32_t* out, size_t words) {
  if (words != g_->vocab().words())
    throw MatcherError("bitmask has " + std::to_string(words) + " 32-bit words; this vocabulary needs " +
                       std::to_string(g_->vocab().words()) + " (ceil(vocabSize / 32))");
  g_->fillMask(history_.back(), out);
}

void Matcher::rollback(size_t n) {
  if (n > steps())
    throw MatcherError("cannot roll back " + std::to_string(n) + " steps: only " + std::to_string(steps()) +
                       " were accepted");
  history_.resize(history_.size() - n);
  offsets_.resize(offsets_.size() - n);
}

bool Matcher::fillNextTokenBitmask(uint32_t* out, size_t words, uint32_t tokensLeft) {
  fillNextTokenBitmask(out, words);
  return g_->limitToBudget(history_.back(), tokensLeft, out);
}

bool Matcher::budgetMayLimit(uint32_t tokensLeft) { return g_->budgetMayLimit(history_.back(), tokensLeft); }

uint32_t Matcher::minTokensToFinish() { return g_->minTokensToFinish(history_.back()); }

bool Matcher::isComplete() { return g_->accepting(history_.back()); }

bool Matcher::isTerminated() const { return history_.back() == kTerminated; }

void Matcher::reset() {
  history_.assign(1, g_->start());
  offsets_.assign(1, {});
}

}  // namespace toolmask
