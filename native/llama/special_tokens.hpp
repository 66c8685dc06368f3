// A prompt split on special-token texts in time linear in its length, with the pieces llama.cpp's
// own split (tokenizer_st_partition in llama-vocab.cpp) makes. llama.cpp walks a linked list from
// its head for every match, so a prompt of n special-token texts costs it O(n²); llama_tokenize
// with parse_special = false still splits on user-defined tokens (<tool_call>, <think>) the same way.
//
// llama.cpp's rules, kept here: the tokens whose attributes hold CONTROL, USER_DEFINED or UNKNOWN
// (CONTROL and UNKNOWN only when special text is parsed) are taken one after another, longest text
// first (std::sort by text length, as llama.cpp sorts them); each takes every occurrence of its
// text, left to right without overlaps, that lies wholly in text no earlier token took; a token
// with LSTRIP (RSTRIP) drops the whitespace (C isspace) left (right) of it up to the nearest taken
// byte. What no token took or dropped is plain text: maximal runs of it, each between two tokens
// (or an end), are the plain pieces llama.cpp tokenizes one by one.
//
// Cost: an Aho-Corasick pass over the text lists every occurrence of every text (one per text that
// ends at a byte, so n × the longest chain of texts each a suffix of the next: 1 in the Qwen, Llama
// and GPT-2 vocabularies); each occurrence is then checked against the bytes it covers (at most the
// longest special text) and each byte is taken or dropped once.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace toolmask::llama {

struct SpecialText {
  int32_t token;
  std::string text;
  bool parsedOnly;  // CONTROL or UNKNOWN: split on only when special text is parsed
  bool lstrip;
  bool rstrip;
};

// One piece of a split text: a special token, or a run of plain text (token < 0).
struct TextPiece {
  uint32_t begin;
  uint32_t length;
  int32_t token;
};

// What a split did, counted (tests show it grows linearly with the text).
struct SplitWork {
  uint64_t scannedBytes = 0;  // bytes the automaton read
  uint64_t occurrences = 0;   // occurrences of special texts found
  uint64_t checkedBytes = 0;  // bytes looked at to decide whether an occurrence is free
};

class SpecialTokens {
 public:
  // `texts` in the vocabulary's order (ascending ids); empty texts are ignored (llama.cpp would
  // loop forever on one).
  explicit SpecialTokens(std::vector<SpecialText> texts);

  // The pieces of `text` in order. Returns false (pieces incomplete) once *cancel is set; it is
  // looked at every 64 KiB of text and between special tokens.
  bool split(const std::string& text, bool parseSpecial, std::vector<TextPiece>& pieces, SplitWork& work,
             const std::atomic<bool>* cancel = nullptr) const;

  bool anyStrip() const { return anyStrip_; }
  size_t longestText() const { return longest_; }
  size_t size() const { return texts_.size(); }

 private:
  struct Node {
    uint32_t fail = 0;
    uint32_t output = 0;  // the nearest node down the fail chain (this one excluded) that ends a text; 0: none
    uint32_t edges = 0;   // first edge in edges_
    uint32_t edgeCount = 0;
    uint32_t firstText = 0;  // texts ending here: ranks_[firstText, firstText + textCount)
    uint32_t textCount = 0;
  };
  struct Edge {
    uint8_t byte;
    uint32_t to;
  };
  uint32_t step(uint32_t state, uint8_t byte) const;

  std::vector<SpecialText> texts_;  // in llama.cpp's order: rank = index
  std::vector<Node> nodes_;         // nodes_[0] is the root
  std::vector<Edge> edges_;         // each node's edges sorted by byte
  std::vector<uint32_t> ranks_;     // the texts ending at each node, ascending rank
  uint32_t rootNext_[256];          // the root's transitions, dense
  bool anyStrip_ = false;
  size_t longest_ = 0;
};

}  // namespace toolmask::llama
