// SparseWords (sparse_words.hpp): a mask kept as a fill value and its differing words is written
// back exactly, over whatever the output held; a mask with too many differing words from both fill
// values is refused.
#include <cstdint>
#include <random>
#include <vector>

#include "../core/sparse_words.hpp"
#include "check.hpp"

using namespace toolmask;

void sparseWordsTests() {
  std::mt19937 rng(7);
  const size_t n = 4740;  // Qwen3's 151,669 tokens
  for (uint32_t base : {0u, ~0u}) {
    for (size_t differing : {size_t(0), size_t(1), size_t(119), n / 8}) {
      std::vector<uint32_t> bits(n, base);
      for (size_t k = 0; k < differing; k++) bits[(k * 37) % n] = base ^ (1u + uint32_t(rng() % 0xFFFFFFFEu));
      SparseWords s;
      CHECK(SparseWords::of(bits.data(), n, s));
      CHECK(s.base == base || differing == 0);
      std::vector<uint32_t> out(n);
      for (auto& w : out) w = uint32_t(rng());  // garbage the fill must overwrite
      s.fill(out.data(), n);
      CHECK(out == bits);
    }
  }
  // Half the words differ from either fill value: kept dense (of() refuses, `s` unchanged).
  std::vector<uint32_t> mixed(n);
  for (size_t i = 0; i < n; i++) mixed[i] = i % 2 ? ~0u : 0x12345678u;
  SparseWords s;
  s.base = ~0u;
  CHECK(!SparseWords::of(mixed.data(), n, s));
  CHECK(s.base == ~0u && s.words.empty());
  // One word more than n / 8 differing: refused.
  std::vector<uint32_t> many(n, 0u);
  for (size_t k = 0; k <= n / 8; k++) many[k] = 1u;
  CHECK(!SparseWords::of(many.data(), n, s));
}
