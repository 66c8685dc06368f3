#include "prompt_tokenizer.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "model.hpp"

namespace toolmask::llama {

namespace {

std::vector<SpecialText> specialTexts(const Api& a, const llama_vocab* vocab) {
  // llama.cpp's special-token cache: every id with one of these attributes, in id order.
  const int kSpecial = LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED | LLAMA_TOKEN_ATTR_UNKNOWN;
  std::vector<SpecialText> out;
  const int32_t n = a.llama_vocab_n_tokens(vocab);
  for (llama_token id = 0; id < n; id++) {
    const int attr = a.llama_vocab_get_attr(vocab, id);
    if (!(attr & kSpecial)) continue;
    const char* text = a.llama_vocab_get_text(vocab, id);
    out.push_back({id, text ? text : "", (attr & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_UNKNOWN)) != 0,
                   (attr & LLAMA_TOKEN_ATTR_LSTRIP) != 0, (attr & LLAMA_TOKEN_ATTR_RSTRIP) != 0});
  }
  return out;
}

bool isCancelled(const TokenizeLimits& l) { return l.cancel && l.cancel->load(std::memory_order_relaxed); }

int64_t ceilDiv(uint64_t a, uint64_t b) { return int64_t((a + b - 1) / b); }

}  // namespace

// The length bound. In SPM and BPE vocabularies llama.cpp's tokenizers cover a plain piece's bytes,
// in order, with tokens whose texts are those bytes after its rewriting: the SentencePiece space
// prefix and " " -> "▁" (3 bytes), or GPT-2's byte encoding (1 or 2 bytes per byte) — every
// rewriting makes the text longer, never shorter; JS strings arrive as valid UTF-8, which llama.cpp
// re-encodes unchanged. A byte no token covers falls back to a token per byte; BPE drops a byte
// that has no such token, so the bound holds only where every byte value is some token's piece
// (checked here). So a plain piece of n bytes takes at least ⌈n / M⌉ tokens, M the longest token
// text or piece in bytes, and every special-token piece one token. WPM, UGM, RWKV and PLaMo-2
// normalise or drop text: only their special tokens are counted.
PromptTokenizer::PromptTokenizer(const Api& a, const llama_vocab* vocab, const ModelVocabulary& v)
    : a_(a), vocab_(vocab), special_(specialTexts(a, vocab)) {
  const int32_t n = a.llama_vocab_n_tokens(vocab);
  bool byteSeen[256] = {};
  for (llama_token id = 0; id < n; id++) {
    const uint32_t pieceLen = v.offsets[id + 1] - v.offsets[id];
    if (pieceLen == 1) byteSeen[v.bytes[v.offsets[id]]] = true;
    const char* text = a.llama_vocab_get_text(vocab, id);
    maxTokenBytes_ = std::max<uint32_t>({maxTokenBytes_, pieceLen, text ? uint32_t(std::strlen(text)) : 0u});
  }
  const bool everyByte = std::all_of(std::begin(byteSeen), std::end(byteSeen), [](bool b) { return b; });
  const enum llama_vocab_type type = a.llama_vocab_type(vocab);
  plainBound_ = everyByte && (type == LLAMA_VOCAB_TYPE_SPM || type == LLAMA_VOCAB_TYPE_BPE);
}

void PromptTokenizer::tokenizePlain(const char* text, size_t length, std::vector<llama_token>& out) const {
  if (length > size_t(INT32_MAX) - 16) throw std::length_error("a piece of plain text is 2 GiB or more");
  const size_t at = out.size();
  out.resize(at + length + 8);
  int32_t got =
      a_.llama_tokenize(vocab_, text, int32_t(length), out.data() + at, int32_t(out.size() - at), false, false);
  if (got < 0) {
    out.resize(at + size_t(-got));
    got = a_.llama_tokenize(vocab_, text, int32_t(length), out.data() + at, int32_t(out.size() - at), false, false);
  }
  if (got < 0) throw std::runtime_error("llama_tokenize could not tokenize the text");
  out.resize(at + size_t(got));
}

TokenizeOutcome PromptTokenizer::tokenize(const std::string& text, bool parseSpecial,
                                          const TokenizeLimits& limits) const {
  TokenizeOutcome r;
  const bool limited = limits.maxTokens >= 0;
  // Before the split: with no stripping every byte is covered, by a special token (at most its
  // longest text) or a plain one (at most maxTokenBytes_).
  if (limited && plainBound_ && !special_.anyStrip()) {
    const uint64_t widest = std::max<uint64_t>(maxTokenBytes_, special_.longestText());
    const int64_t least = ceilDiv(text.size(), widest);
    if (least > limits.maxTokens) {
      r.tooLong = true;
      r.atLeast = least;
      return r;
    }
  }
  std::vector<TextPiece> pieces;
  if (!special_.split(text, parseSpecial, pieces, r.work, limits.cancel)) {
    r.cancelled = true;
    return r;
  }
  r.work.pieces = pieces.size();
  // rest[i]: the bound on the tokens of pieces i.. (each special token one, each plain piece ⌈n / M⌉).
  std::vector<int64_t> rest(limited ? pieces.size() + 1 : 0, 0);
  for (size_t i = rest.empty() ? 0 : pieces.size(); i-- > 0;) {
    const TextPiece& p = pieces[i];
    rest[i] = rest[i + 1] + (p.token >= 0 ? 1 : plainBound_ ? ceilDiv(p.length, maxTokenBytes_) : 0);
  }
  for (size_t i = 0; i < pieces.size(); i++) {
    // The tokens so far and the bound on the rest: past the limit, the text is refused here (the
    // caller compares a whole count with its limit itself).
    if (limited && int64_t(r.tokens.size()) + rest[i] > limits.maxTokens) {
      r.tooLong = true;
      r.atLeast = int64_t(r.tokens.size()) + rest[i];
      r.tokens.clear();
      return r;
    }
    if (isCancelled(limits)) {
      r.cancelled = true;
      r.tokens.clear();
      return r;
    }
    const TextPiece& p = pieces[i];
    if (p.token >= 0) {
      r.tokens.push_back(p.token);
      continue;
    }
    tokenizePlain(text.data() + p.begin, p.length, r.tokens);
    r.work.llamaCalls++;
    r.work.llamaBytes += p.length;
  }
  return r;
}

std::vector<llama_token> llamaTokenize(const Api& a, const llama_vocab* vocab, const std::string& text,
                                       bool parseSpecial) {
  std::vector<llama_token> out(text.size() + 8);
  int32_t n =
      a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false, parseSpecial);
  if (n < 0) {
    out.resize(size_t(-n));
    n = a.llama_tokenize(vocab, text.data(), int32_t(text.size()), out.data(), int32_t(out.size()), false,
                         parseSpecial);
  }
  if (n < 0) throw std::runtime_error("could not tokenize the text");
  out.resize(size_t(n));
  return out;
}

}  // namespace toolmask::llama
