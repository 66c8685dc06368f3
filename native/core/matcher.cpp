#include "matcher.hpp"

namespace toolmask {

bool Matcher::acceptToken(uint32_t id) {
  if (id >= g_->vocab().size())
    throw MatcherError("token id " + std::to_string(id) + " is outside the vocabulary (size " +
                       std::to_string(g_->vocab().size()) + ")");
  int32_t s = history_.back();
  if (s == kTerminated) return false;
  int32_t t = g_->stepToken(s, id);
  if (t == kDead) return false;
  history_.push_back(t);
  return true;
}

bool Matcher::acceptBytes(const uint8_t* p, size_t n) {
  int32_t s = history_.back();
  if (s == kTerminated) return false;
  int32_t t = g_->stepBytes(s, p, n);
  if (t == kDead) return false;
  history_.push_back(t);
  return true;
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
}

}  // namespace toolmask
