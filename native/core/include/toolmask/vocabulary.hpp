// A vocabulary as the bridges see it: made from the model's token bytes and kinds, then read.
// Its definition (the byte trie the masks walk) is the core's own: native/core/vocab.hpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "errors.hpp"

namespace toolmask {

enum class TokenKind : uint8_t { Normal = 0, Special = 1, EndOfGeneration = 2, Unused = 3 };

class Vocabulary;

// bytes: all tokens' bytes concatenated; offsets: size+1 entries; kinds: one TokenKind per token.
// Throws VocabError for offsets or kinds that do not fit.
std::shared_ptr<const Vocabulary> makeVocabulary(const uint8_t* bytes, size_t nBytes, const uint32_t* offsets,
                                                 const uint8_t* kinds, uint32_t size);
uint32_t vocabularySize(const Vocabulary& v);
uint64_t vocabularyHash(const Vocabulary& v);
size_t vocabularyMemoryBytes(const Vocabulary& v);
// Token `id`'s bytes (`len` of them); id < vocabularySize(v).
const uint8_t* vocabularyTokenBytes(const Vocabulary& v, uint32_t id, size_t& len);

}  // namespace toolmask
