// A small JSON reader: the grammar IR crosses from TS to the core as JSON text,
// so the core needs no Node types. Numbers are doubles; errors carry an offset.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace toolmask::json {

enum class Kind { Null, Bool, Number, String, Array, Object };

struct Value {
  Kind kind = Kind::Null;
  bool b = false;
  // An object's string "type" member as parse() read it (ir_type.hpp's IrType; 0: not read, as in a
  // value built in code). Whoever changes a parsed object's "type" sets it to 0.
  uint8_t tag = 0;
  double num = 0;
  std::string str;
  std::vector<Value> arr;
  std::vector<std::pair<std::string, Value>> obj;  // keeps order

  const Value* get(std::string_view key) const {
    for (auto& kv : obj)
      if (std::string_view(kv.first) == key) return &kv.second;
    return nullptr;
  }
};

struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `bytes`, when given, receives memoryBytes() of the value read (counted as it is read).
Value parse(const std::string& text, size_t* bytes = nullptr);

}  // namespace toolmask::json

namespace toolmask::json {
// Canonical text of a value: object keys sorted, numbers in shortest round-trip form.
std::string canonical(const Value& v);
// Heap bytes a value holds (itself included).
size_t memoryBytes(const Value& v);
}  // namespace toolmask::json
