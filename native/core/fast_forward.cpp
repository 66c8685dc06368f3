#include "include/toolmask/fast_forward.hpp"

#include <cstring>
#include <string>

#include "grammar.hpp"

namespace toolmask {

std::vector<uint32_t> fastForwardTokens(CompiledGrammar& g, int32_t state, uint32_t last, const ForcedRun& run,
                                        const std::vector<uint32_t>& tokenized, size_t max) {
  const Vocabulary& v = g.vocab();
  if (run.bytes.empty() || tokenized.size() < 2 || tokenized[0] != last || last >= v.size()) return {};
  size_t len = 0;
  const uint8_t* p = v.tokenBytes(last, len);
  std::string spelled(reinterpret_cast<const char*>(p), len);
  const size_t lead = spelled.size();
  std::vector<size_t> ends;  // where each token after `last` ends in the run
  for (size_t i = 1; i < tokenized.size(); i++) {
    const uint32_t id = tokenized[i];
    if (id >= v.size() || v.kind(id) != TokenKind::Normal) return {};
    p = v.tokenBytes(id, len);
    if (len == 0) return {};
    spelled.append(reinterpret_cast<const char*>(p), len);
    ends.push_back(spelled.size() - lead);
  }
  if (spelled.compare(lead, std::string::npos, run.bytes) != 0 || spelled.size() - lead != run.bytes.size()) return {};
  size_t keep = ends.size();
  if (!run.atBoundary) {
    keep--;  // the last token always waits for what follows
    const auto* bytes = reinterpret_cast<const uint8_t*>(run.bytes.data());
    // Held back too: every token from which the run's remaining bytes begin some longer token.
    for (size_t k = 0; k < keep; k++) {
      const size_t from = k == 0 ? 0 : ends[k - 1];
      if (v.extendsPast(bytes + from, run.bytes.size() - from)) {
        keep = k;
        break;
      }
    }
  }
  if (keep > max) keep = max;
  std::vector<uint32_t> out;
  for (size_t i = 0; i < keep; i++) {
    state = g.stepToken(state, tokenized[i + 1]);
    if (state < 0) break;  // not expected (the bytes are forced); stop rather than append a refused token
    out.push_back(tokenized[i + 1]);
  }
  return out;
}

}  // namespace toolmask
