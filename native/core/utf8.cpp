#include "utf8.hpp"

namespace toolmask::utf8 {

int encode(uint32_t cp, uint8_t* out) {
  if (cp < 0x80) {
    out[0] = uint8_t(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = uint8_t(0xC0 | (cp >> 6));
    out[1] = uint8_t(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = uint8_t(0xE0 | (cp >> 12));
    out[1] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
    out[2] = uint8_t(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = uint8_t(0xF0 | (cp >> 18));
  out[1] = uint8_t(0x80 | ((cp >> 12) & 0x3F));
  out[2] = uint8_t(0x80 | ((cp >> 6) & 0x3F));
  out[3] = uint8_t(0x80 | (cp & 0x3F));
  return 4;
}

void encodeRange(uint32_t lo, uint32_t hi, std::vector<std::vector<ByteRange>>& out) {
  if (lo > hi) return;
  if (hi > 0x10FFFF) hi = 0x10FFFF;
  if (lo > 0x10FFFF) return;
  if (lo <= 0xDFFF && hi >= 0xD800) {
    if (lo < 0xD800) encodeRange(lo, 0xD7FF, out);
    if (hi > 0xDFFF) encodeRange(0xE000, hi, out);
    return;
  }
  static const uint32_t maxOfLen[] = {0x7F, 0x7FF, 0xFFFF};
  for (uint32_t m : maxOfLen) {
    if (lo <= m && hi > m) {
      encodeRange(lo, m, out);
      encodeRange(m + 1, hi, out);
      return;
    }
  }
  if (hi <= 0x7F) {
    out.push_back({{uint8_t(lo), uint8_t(hi)}});
    return;
  }
  // Split until every continuation position spans a full 0x80..0xBF range or a single value.
  for (int i = 1; i < 4; i++) {
    uint32_t m = (1u << (6 * i)) - 1;
    if ((lo & ~m) != (hi & ~m)) {
      if ((lo & m) != 0) {
        encodeRange(lo, lo | m, out);
        encodeRange((lo | m) + 1, hi, out);
        return;
      }
      if ((hi & m) != m) {
        encodeRange(lo, (hi & ~m) - 1, out);
        encodeRange(hi & ~m, hi, out);
        return;
      }
    }
  }
  uint8_t a[4], b[4];
  int n = encode(lo, a);
  encode(hi, b);
  std::vector<ByteRange> seq;
  for (int k = 0; k < n; k++) seq.push_back({a[k], b[k]});
  out.push_back(std::move(seq));
}

uint8_t stepSlow(uint8_t phase, uint8_t b) {
  switch (phase) {
    case Boundary:
      if (b < 0x80) return Boundary;
      if (b >= 0xC2 && b <= 0xDF) return Cont1;
      if (b == 0xE0) return AfterE0;
      if (b == 0xED) return AfterED;
      if (b >= 0xE1 && b <= 0xEF) return Cont2;
      if (b == 0xF0) return AfterF0;
      if (b >= 0xF1 && b <= 0xF3) return Cont3;
      if (b == 0xF4) return AfterF4;
      return Invalid;
    case Cont1:
      return (b >= 0x80 && b <= 0xBF) ? Boundary : Invalid;
    case Cont2:
      return (b >= 0x80 && b <= 0xBF) ? Cont1 : Invalid;
    case Cont3:
      return (b >= 0x80 && b <= 0xBF) ? Cont2 : Invalid;
    case AfterE0:
      return (b >= 0xA0 && b <= 0xBF) ? Cont1 : Invalid;
    case AfterED:
      return (b >= 0x80 && b <= 0x9F) ? Cont1 : Invalid;
    case AfterF0:
      return (b >= 0x90 && b <= 0xBF) ? Cont2 : Invalid;
    case AfterF4:
      return (b >= 0x80 && b <= 0x8F) ? Cont2 : Invalid;
    default:
      return Invalid;
  }
}

}  // namespace toolmask::utf8

namespace toolmask::utf8 {
namespace {
struct Table {
  uint8_t t[kPhases][256];
  Table() {
    for (int p = 0; p < kPhases; p++)
      for (int b = 0; b < 256; b++) t[p][b] = stepSlow(uint8_t(p), uint8_t(b));
  }
};
const Table table;
}  // namespace
const uint8_t (&kStep)[kPhases][256] = table.t;
}  // namespace toolmask::utf8
