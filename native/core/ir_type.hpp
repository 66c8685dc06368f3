// The node types of the grammar IR (src/grammar/ir.ts) as a small enum, so the passes over a
// grammar dispatch on a byte instead of comparing its "type" strings. json::parse reads each
// object's "type" once (json::Value::tag); a value built in code is looked up when asked.
#pragma once
#include <cstdint>
#include <string_view>

#include "json.hpp"

namespace toolmask {

enum class IrType : uint8_t {
  Unread = 0,  // json::Value::tag of a value parse() did not read (irType() looks it up)
  NotANode,    // not an object, or no string "type"
  Literal,
  CharClass,
  ByteClass,
  Seq,
  Alt,
  Repeat,
  Ref,
  Token,
  Until,
  Text,
  Perm,
  Intersect,
  JsonSchema,
  Departure,
  Other,  // a type the core has no rule for
};

inline IrType irTypeNamed(std::string_view t) {
  switch (t.size()) {
    case 3:
      if (t == "seq") return IrType::Seq;
      if (t == "alt") return IrType::Alt;
      if (t == "ref") return IrType::Ref;
      break;
    case 4:
      if (t == "text") return IrType::Text;
      if (t == "perm") return IrType::Perm;
      break;
    case 5:
      if (t == "token") return IrType::Token;
      if (t == "until") return IrType::Until;
      break;
    case 6:
      if (t == "repeat") return IrType::Repeat;
      break;
    case 7:
      if (t == "literal") return IrType::Literal;
      break;
    case 9:
      if (t == "charClass") return IrType::CharClass;
      if (t == "byteClass") return IrType::ByteClass;
      if (t == "intersect") return IrType::Intersect;
      if (t == "departure") return IrType::Departure;
      break;
    case 10:
      if (t == "jsonSchema") return IrType::JsonSchema;
      break;
  }
  return IrType::Other;
}

// The type of an object's "type" member, as json::parse stores it in Value::tag.
inline IrType irTypeOfMembers(const json::Value& n) {
  if (n.kind != json::Kind::Object) return IrType::NotANode;
  const json::Value* t = n.get("type");
  return t && t->kind == json::Kind::String ? irTypeNamed(t->str) : IrType::NotANode;
}

inline IrType irType(const json::Value& n) { return n.tag != 0 ? IrType(n.tag) : irTypeOfMembers(n); }

// Whether member `kv` of an IR object can hold nodes: an object, or an array other than a class's
// "ranges" (numbers only: 42 % of the JSON values of a lowered tool grammar, which a walk for
// nodes need not visit).
inline bool mayHoldNodes(const std::pair<std::string, json::Value>& kv) {
  return kv.second.kind == json::Kind::Object ||
         (kv.second.kind == json::Kind::Array && std::string_view(kv.first) != "ranges");
}

}  // namespace toolmask
