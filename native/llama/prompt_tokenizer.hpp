// Prompts as llama_tokenize (add_special false) tokenizes them, in time linear in their length,
// refused from a lower bound before any tokenizing when they cannot fit, and stopped between pieces
// when cancelled. The text is split on special-token texts here (special_tokens.hpp); each plain
// piece goes to llama_tokenize with parse_special = false, which leaves it whole (it holds no
// special text) and tokenizes it exactly as llama.cpp tokenizes that piece inside the whole text:
// llama.cpp tokenizes its pieces one by one, each after a token or at the start.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "llama_api.hpp"
#include "special_tokens.hpp"

namespace toolmask::llama {

struct ModelVocabulary;

struct TokenizeLimits {
  // Refuse (tooLong) when a lower bound shows the text takes more tokens than this, before the
  // split, after it, or after a piece (the tokens so far and the bound on the rest); a whole count
  // is returned as it is, for the caller to compare. -1: no limit.
  int64_t maxTokens = -1;
  // Set from another thread to stop; looked at between pieces.
  const std::atomic<bool>* cancel = nullptr;
};

struct TokenizeWork : SplitWork {
  uint64_t pieces = 0;      // pieces the split made
  uint64_t llamaCalls = 0;  // llama_tokenize calls, one per plain piece tokenized
  uint64_t llamaBytes = 0;  // bytes given to them
};

struct TokenizeOutcome {
  std::vector<llama_token> tokens;  // empty when tooLong or cancelled
  int64_t atLeast = 0;              // tooLong: a lower bound on the tokens, above limits.maxTokens
  bool tooLong = false;
  bool cancelled = false;
  TokenizeWork work;
};

class PromptTokenizer {
 public:
  PromptTokenizer(const Api& a, const llama_vocab* vocab, const ModelVocabulary& v);

  // parseSpecial true: a prompt (special-token text becomes those tokens); false: plain text, as
  // llama_tokenize with parse_special = false (user-defined tokens still split it, as there).
  TokenizeOutcome tokenize(const std::string& text, bool parseSpecial, const TokenizeLimits& limits = {}) const;

  // Whether plain text has a length bound (see the .cpp), and the most bytes one token stands for.
  bool plainBound() const { return plainBound_; }
  uint32_t maxTokenBytes() const { return maxTokenBytes_; }

 private:
  void tokenizePlain(const char* text, size_t length, std::vector<llama_token>& out) const;

  const Api& a_;
  const llama_vocab* vocab_;
  SpecialTokens special_;
  bool plainBound_ = false;
  uint32_t maxTokenBytes_ = 1;
};

// llama.cpp's own llama_tokenize (add_special false), whose special-token split is quadratic: the
// oracle the tests compare PromptTokenizer with.
std::vector<llama_token> llamaTokenize(const Api& a, const llama_vocab* vocab, const std::string& text,
                                       bool parseSpecial);

}  // namespace toolmask::llama
