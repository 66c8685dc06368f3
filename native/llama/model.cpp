#include "model.hpp"

#include <stdexcept>

#include "toolmask/vocabulary.hpp"

namespace toolmask::llama {

namespace {

// The token's bytes as llama.cpp renders them into the output (special = true: control tokens as
// their text, so the parser sees "<tool_call>").
void appendPiece(const Api& a, const llama_vocab* vocab, llama_token id, std::vector<uint8_t>& out) {
  char small[64];
  int32_t n = a.llama_token_to_piece(vocab, id, small, sizeof small, 0, true);
  if (n >= 0) {
    out.insert(out.end(), small, small + n);
    return;
  }
  std::vector<char> big(size_t(-n));
  n = a.llama_token_to_piece(vocab, id, big.data(), int32_t(big.size()), 0, true);
  if (n < 0) throw std::runtime_error("llama_token_to_piece failed for token " + std::to_string(id));
  out.insert(out.end(), big.data(), big.data() + n);
}

// The same classification src/vocab/pieces.ts applies to tokenizer.json and GGUF metadata.
uint8_t kindOf(const Api& a, const llama_vocab* vocab, llama_token id) {
  if (a.llama_vocab_is_eog(vocab, id)) return uint8_t(TokenKind::EndOfGeneration);
  const int attr = a.llama_vocab_get_attr(vocab, id);
  if (attr == LLAMA_TOKEN_ATTR_UNDEFINED || (attr & LLAMA_TOKEN_ATTR_UNUSED)) return uint8_t(TokenKind::Unused);
  if (attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN)) return uint8_t(TokenKind::Special);
  return uint8_t(TokenKind::Normal);
}

}  // namespace

ModelVocabulary readVocabulary(const Api& a, const llama_vocab* vocab) {
  const int32_t n = a.llama_vocab_n_tokens(vocab);
  if (n <= 0) throw std::runtime_error("the model has an empty vocabulary");
  ModelVocabulary v;
  v.offsets.reserve(size_t(n) + 1);
  v.offsets.push_back(0);
  v.kinds.resize(size_t(n));
  v.pieces.resize(size_t(n));
  v.attrs.resize(size_t(n));
  v.bytes.reserve(size_t(n) * 8);
  for (llama_token id = 0; id < n; id++) {
    v.kinds[id] = kindOf(a, vocab, id);
    v.attrs[id] = uint32_t(a.llama_vocab_get_attr(vocab, id));
    // Nothing renders an unused id; token_to_piece may still print placeholder text for it.
    if (v.kinds[id] != uint8_t(TokenKind::Unused)) appendPiece(a, vocab, id, v.bytes);
    v.offsets.push_back(uint32_t(v.bytes.size()));
    const char* text = a.llama_vocab_get_text(vocab, id);
    v.pieces[id] = text ? text : "";
  }
  return v;
}

Model::Model(const std::string& path, int gpuLayers, const std::function<void(float)>& onProgress, bool vocabOnly) {
  const Api& a = api();
  llama_model_params params = a.llama_model_default_params();
  params.n_gpu_layers = gpuLayers;
  params.vocab_only = vocabOnly;
  if (onProgress) {
    params.progress_callback = [](float p, void* user) {
      (*static_cast<const std::function<void(float)>*>(user))(p);
      return true;
    };
    params.progress_callback_user_data = const_cast<std::function<void(float)>*>(&onProgress);
  }
  takeLlamaLog();
  model_ = a.llama_model_load_from_file(path.c_str(), params);
  if (!model_) {
    std::string log = takeLlamaLog();
    throw std::runtime_error("llama.cpp could not load the model " + path + (log.empty() ? "" : ":\n" + log) +
                             "\n(is it a complete GGUF file of an architecture this llama.cpp knows?)");
  }
  vocab_ = a.llama_model_get_vocab(model_);
  try {
    vocabulary_ = readVocabulary(a, vocab_);
    tokenizer_ = std::make_unique<PromptTokenizer>(a, vocab_, vocabulary_);
  } catch (...) {
    a.llama_model_free(model_);
    throw;
  }
}

Model::~Model() {
  if (model_) api().llama_model_free(model_);
}

std::string Model::chatTemplate() const {
  const char* t = api().llama_model_chat_template(model_, nullptr);
  return t ? t : "";
}

std::string Model::metadata(const char* key) const {
  std::vector<char> buf(256);
  int32_t n = api().llama_model_meta_val_str(model_, key, buf.data(), buf.size());
  if (n < 0) return "";
  if (size_t(n) >= buf.size()) {
    buf.resize(size_t(n) + 1);
    api().llama_model_meta_val_str(model_, key, buf.data(), buf.size());
  }
  return std::string(buf.data(), size_t(n));
}

std::string Model::tokenText(llama_token id) const {
  if (id < 0) return "";
  std::vector<uint8_t> out;
  appendPiece(api(), vocab_, id, out);
  return std::string(out.begin(), out.end());
}

int32_t Model::trainedContext() const { return api().llama_model_n_ctx_train(model_); }

}  // namespace toolmask::llama
