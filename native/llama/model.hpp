// A loaded GGUF model and what the bridge reads from it once: the vocabulary in the core's form
// (token bytes as llama_token_to_piece renders them with special = true, and kinds) and metadata.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "llama_api.hpp"
#include "prompt_tokenizer.hpp"

namespace toolmask::llama {

struct ModelVocabulary {
  std::vector<uint8_t> bytes;       // every token's bytes, concatenated
  std::vector<uint32_t> offsets;    // size + 1
  std::vector<uint8_t> kinds;       // toolmask::TokenKind per token
  std::vector<std::string> pieces;  // llama_vocab_get_text, for lookups by piece
  std::vector<uint32_t> attrs;      // llama_vocab_get_attr (llama_token_attr bits)
};

class Model {
 public:
  // Throws std::runtime_error (with llama.cpp's own error lines) when the file does not load.
  // onProgress (may be empty) sees the loaded fraction, 0..1, on the loading thread. vocabOnly:
  // the vocabulary without the weights (tokenizing only; nothing can be decoded).
  Model(const std::string& path, int gpuLayers, const std::function<void(float)>& onProgress = {},
        bool vocabOnly = false);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  llama_model* get() const { return model_; }
  const llama_vocab* vocab() const { return vocab_; }
  const ModelVocabulary& vocabulary() const { return vocabulary_; }
  const PromptTokenizer& tokenizer() const { return *tokenizer_; }
  std::string chatTemplate() const;  // "" when the GGUF has none
  std::string metadata(const char* key) const;
  std::string tokenText(llama_token id) const;
  int32_t trainedContext() const;

 private:
  llama_model* model_ = nullptr;
  const llama_vocab* vocab_ = nullptr;
  ModelVocabulary vocabulary_;
  std::unique_ptr<PromptTokenizer> tokenizer_;
};

ModelVocabulary readVocabulary(const Api& a, const llama_vocab* vocab);

}  // namespace toolmask::llama
