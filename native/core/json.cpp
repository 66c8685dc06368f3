#include "json.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>

#include "heap_bytes.hpp"
#include "ir_type.hpp"

namespace toolmask::json {
namespace {

// What memoryBytes() counts for `v` itself, its elements' and members' own counts apart: final once
// `v` is read (its parent's vector moves it later, which keeps every capacity).
size_t ownBytes(const Value& v) {
  if (v.kind != Kind::Array && v.kind != Kind::Object) return sizeof(Value) + stringBytes(v.str);
  size_t total = sizeof(Value) + stringBytes(v.str) + vectorBytes(v.arr) + vectorBytes(v.obj);
  total -= sizeof(Value) * v.arr.size() + sizeof(std::pair<std::string, Value>) * v.obj.size();  // counted below
  for (auto& kv : v.obj) total += sizeof(std::string) + stringBytes(kv.first);
  return total;
}

struct Reader {
  const std::string& s;
  size_t i = 0;
  int depth = 0;
  size_t bytes = 0;  // memoryBytes() of the values read so far, each added once it is whole

  [[noreturn]] void fail(const char* what) {
    throw ParseError(std::string("invalid grammar JSON at offset ") + std::to_string(i) + ": " + what);
  }
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r')) i++;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      i++;
      return true;
    }
    return false;
  }
  static bool isDigit(char c) { return c >= '0' && c <= '9'; }
  void expect(char c) {
    if (!eat(c)) fail("unexpected character");
  }

  static void putUtf8(std::string& out, unsigned cp) {
    if (cp < 0x80)
      out += char(cp);
    else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }
  unsigned hex4() {
    if (i + 4 > s.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
      char c = s[i++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= unsigned(c - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return v;
  }
  void str(std::string& out) {
    expect('"');
    while (true) {
      // The run up to the next quote or backslash, appended at once.
      size_t j = i;
      while (j < s.size() && s[j] != '"' && s[j] != '\\') j++;
      out.append(s, i, j - i);
      i = j;
      if (i >= s.size()) fail("unterminated string");
      char c = s[i++];
      if (c == '"') return;
      if (i >= s.size()) fail("unterminated escape");
      char e = s[i++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          // A lone surrogate cannot be UTF-8 encoded; pairs are joined.
          if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= s.size() && s[i] == '\\' && s[i + 1] == 'u') {
            i += 2;
            unsigned lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("bad surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            fail("lone surrogate in string");
          }
          putUtf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }
  // Reads a value into `v` (a fresh Value, in place in its parent's vector: no copy moves).
  void value(Value& v) {
    if (++depth > 2000) fail("nesting too deep");
    ws();
    if (i >= s.size()) fail("unexpected end");
    char c = s[i];
    if (c == '{') {
      i++;
      v.kind = Kind::Object;
      if (!eat('}')) {
        v.obj.reserve(4);
        do {
          ws();
          v.obj.emplace_back();
          str(v.obj.back().first);
          expect(':');
          value(v.obj.back().second);
        } while (eat(','));
        expect('}');
      }
      v.tag = uint8_t(irTypeOfMembers(v));
    } else if (c == '[') {
      i++;
      v.kind = Kind::Array;
      if (!eat(']')) {
        v.arr.reserve(4);
        do {
          v.arr.emplace_back();
          value(v.arr.back());
        } while (eat(','));
        expect(']');
      }
    } else if (c == '"') {
      v.kind = Kind::String;
      str(v.str);
    } else if (c == 't' && s.compare(i, 4, "true") == 0) {
      i += 4;
      v.kind = Kind::Bool;
      v.b = true;
    } else if (c == 'f' && s.compare(i, 5, "false") == 0) {
      i += 5;
      v.kind = Kind::Bool;
    } else if (c == 'n' && s.compare(i, 4, "null") == 0) {
      i += 4;
    } else {
      // A plain integer of up to 15 digits (ranges, bounds: most numbers of an IR) without strtod.
      size_t j = i;
      uint64_t n = 0;
      while (j < s.size() && j - i < 15 && isDigit(s[j])) n = n * 10 + uint64_t(s[j++] - '0');
      const bool more = j < s.size() && (isDigit(s[j]) || s[j] == '.' || s[j] == 'e' || s[j] == 'E');
      if (j > i && !more && (s[i] != '0' || j == i + 1)) {
        v.num = double(n);
        i = j;
      } else {
        const char* start = s.c_str() + i;
        char* end = nullptr;
        v.num = std::strtod(start, &end);
        if (end == start) fail("unexpected character");
        i += size_t(end - start);
      }
      v.kind = Kind::Number;
    }
    bytes += ownBytes(v);
    depth--;
  }
};

}  // namespace

Value parse(const std::string& text, size_t* bytes) {
  Reader r{text};
  Value v;
  r.value(v);
  r.ws();
  if (r.i != text.size()) r.fail("trailing characters");
  if (bytes) *bytes = r.bytes;
  return v;
}

}  // namespace toolmask::json

namespace toolmask::json {

namespace {
void canonicalString(std::string_view s, std::string& out) {
  out += '"';
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += char(c);
  }
  out += '"';
}

void canonicalInto(const Value& v, std::string& out) {
  switch (v.kind) {
    case Kind::Null:
      out += "null";
      return;
    case Kind::Bool:
      out += v.b ? "true" : "false";
      return;
    case Kind::Number: {
      char buf[40];
      // An integer below 2^53 as its digits (what %.17g writes for it: no exponent below 10^17);
      // -0 and every other number as %.17g writes it.
      if (v.num == std::trunc(v.num) && std::fabs(v.num) < 9007199254740992.0 && !(v.num == 0 && std::signbit(v.num))) {
        const auto r = std::to_chars(buf, buf + sizeof buf, int64_t(v.num));
        out.append(buf, r.ptr);
      } else {
        snprintf(buf, sizeof buf, "%.17g", v.num);
        out += buf;
      }
      return;
    }
    case Kind::String:
      canonicalString(v.str, out);
      return;
    case Kind::Array:
      out += '[';
      for (size_t i = 0; i < v.arr.size(); i++) {
        if (i) out += ',';
        canonicalInto(v.arr[i], out);
      }
      out += ']';
      return;
    case Kind::Object: {
      std::vector<const std::pair<std::string, Value>*> kv;
      kv.reserve(v.obj.size());
      for (auto& x : v.obj) kv.push_back(&x);
      std::sort(kv.begin(), kv.end(), [](auto* a, auto* b) { return a->first < b->first; });
      out += '{';
      for (size_t i = 0; i < kv.size(); i++) {
        if (i) out += ',';
        canonicalString(kv[i]->first, out);
        out += ':';
        canonicalInto(kv[i]->second, out);
      }
      out += '}';
      return;
    }
  }
}
}  // namespace

std::string canonical(const Value& v) {
  std::string out;
  canonicalInto(v, out);
  return out;
}

}  // namespace toolmask::json

namespace toolmask::json {
// The value itself (sizeof(Value), held by its parent's vector or its owner) and the blocks below it.
size_t memoryBytes(const Value& v) {
  size_t total = ownBytes(v);
  for (auto& x : v.arr) total += memoryBytes(x);
  for (auto& kv : v.obj) total += memoryBytes(kv.second);
  return total;
}
}  // namespace toolmask::json
