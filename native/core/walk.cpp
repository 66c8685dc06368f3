#include "walk.hpp"

namespace toolmask {

namespace {

// splitmix64: the same sequence on every platform, unlike std:: distributions.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double unit() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
  uint32_t below(uint32_t n) { return uint32_t((unsigned __int128)next() * n >> 64); }
};

bool bit(const std::vector<uint32_t>& mask, uint32_t id) { return (mask[id >> 5] >> (id & 31)) & 1; }

// Uniform draws from the ordinary tokens one mask allows.
class Sampler {
 public:
  Sampler(const std::vector<uint32_t>& mask, const Vocabulary& v) : mask_(mask), v_(v) {}

  // An allowed ordinary token, or -1 if there is none.
  int64_t draw(Rng& rng) {
    // Most states allow a large share of the vocabulary: a few random probes usually hit.
    if (!listed_)
      for (int i = 0; i < 16; i++) {
        uint32_t id = rng.below(v_.size());
        if (bit(mask_, id) && v_.kind(id) == TokenKind::Normal) return id;
      }
    if (!listed_) {
      // Few allowed: list them once for this step.
      for (uint32_t w = 0; w < mask_.size(); w++)
        for (uint32_t x = mask_[w]; x; x &= x - 1) {
          uint32_t id = w * 32 + uint32_t(__builtin_ctz(x));
          if (v_.kind(id) == TokenKind::Normal) ids_.push_back(id);
        }
      listed_ = true;
    }
    return ids_.empty() ? -1 : ids_[rng.below(uint32_t(ids_.size()))];
  }

 private:
  const std::vector<uint32_t>& mask_;
  const Vocabulary& v_;
  std::vector<uint32_t> ids_;
  bool listed_ = false;
};

}  // namespace

WalkResult randomWalk(Matcher& m, const WalkOptions& o) {
  CompiledGrammar& g = m.grammar();
  const Vocabulary& v = g.vocab();
  Rng rng{o.seed};
  std::vector<uint32_t> mask(v.words());
  WalkResult r;
  while (r.tokens.size() < o.maxTokens && !m.isTerminated()) {
    int32_t state = m.state();
    m.fillNextTokenBitmask(mask.data(), mask.size());
    std::vector<uint32_t> ends, specials;
    for (uint32_t id : g.allowedSpecials(state)) (v.kind(id) == TokenKind::EndOfGeneration ? ends : specials).push_back(id);
    int64_t pick = -1;
    if (!ends.empty() && rng.unit() < o.endProbability) pick = ends[rng.below(uint32_t(ends.size()))];
    if (pick < 0 && !specials.empty() && rng.unit() < o.specialProbability) pick = specials[rng.below(uint32_t(specials.size()))];
    if (pick < 0) {
      Sampler ordinary(mask, v);
      pick = ordinary.draw(rng);
      // Free text and string contents loop on one state: look for a token that gets out.
      if (pick >= 0 && rng.unit() < o.leaveProbability)
        for (unsigned i = 0; i < o.leaveTries && g.stepToken(state, uint32_t(pick)) == state; i++)
          pick = ordinary.draw(rng);
    }
    if (pick < 0 && !specials.empty()) pick = specials[rng.below(uint32_t(specials.size()))];
    if (pick < 0 && !ends.empty()) pick = ends[0];
    if (pick < 0) { r.stuck = true; break; }
    if (!m.acceptToken(uint32_t(pick)))
      throw MatcherError("random walk: the mask allowed token " + std::to_string(pick) + " but acceptToken refused it");
    r.tokens.push_back(uint32_t(pick));
  }
  r.terminated = m.isTerminated();
  return r;
}

}  // namespace toolmask
