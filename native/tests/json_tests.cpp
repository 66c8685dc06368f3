// The IR reader (json.cpp): the values it reads, in place, and the errors it gives, with its
// number fast path (plain integers) beside strtod for every other number.
#include <cmath>
#include <cstdio>
#include <string>

#include "../core/ir_type.hpp"
#include "../core/json.hpp"
#include "check.hpp"

using namespace toolmask;

namespace {
bool refuses(const std::string& text) {
  try {
    json::parse(text);
  } catch (const json::ParseError&) { return true; }
  return false;
}
double number(const std::string& text) {
  const json::Value v = json::parse(text);
  return v.kind == json::Kind::Number ? v.num : NAN;
}
}  // namespace

void jsonTests() {
  // Numbers: plain integers, then what strtod reads (signs, fractions, exponents, long digit runs).
  CHECK(number("0") == 0);
  CHECK(number("7") == 7);
  CHECK(number("1114111") == 1114111);
  CHECK(number("9007199254740993") == 9007199254740992.0);  // 16 digits: strtod's rounding
  CHECK(number("123456789012345") == 123456789012345.0);    // 15 digits
  CHECK(number("-12") == -12);
  CHECK(number("2.5") == 2.5);
  CHECK(number("1e3") == 1000);
  CHECK(number("1E+21") == 1e21);
  CHECK(number("10.25e-1") == 1.025);
  CHECK(number(" 42 ") == 42);
  {
    const json::Value v = json::parse(R"([[92,92],[0,31],[101,101],3.5,-1,0])");
    CHECK(v.kind == json::Kind::Array && v.arr.size() == 6);
    CHECK(v.arr[0].arr[0].num == 92 && v.arr[1].arr[1].num == 31 && v.arr[2].arr[1].num == 101);
    CHECK(v.arr[3].num == 3.5 && v.arr[4].num == -1 && v.arr[5].num == 0);
  }
  // Strings: runs between escapes, every short escape, \u with surrogate pairs, multi-byte UTF-8.
  {
    const json::Value v =
        json::parse(R"({"type":"literal","text":"a \"quoted\" \\ word\n\t\/\b\f\r\u00e9\ud83d\ude00 é end"})");
    CHECK(v.kind == json::Kind::Object && v.obj.size() == 2);
    const json::Value* t = v.get("text");
    CHECK(t && t->str == "a \"quoted\" \\ word\n\t/\b\f\r\xC3\xA9\xF0\x9F\x98\x80 \xC3\xA9 end");
    CHECK(v.get("type") && v.get("type")->str == "literal");
    CHECK(!v.get("typ") && !v.get("types"));
  }
  // Objects keep their order; nested values are read in place; empty containers; literals.
  {
    const json::Value v =
        json::parse(R"({"b":{"c":[{},[],""]},"a":true,"z":false,"n":null,"long key past fifteen":1})");
    CHECK(v.obj.size() == 5 && v.obj[0].first == "b" && v.obj[1].first == "a");
    const json::Value& c = *v.get("b")->get("c");
    CHECK(c.arr.size() == 3 && c.arr[0].kind == json::Kind::Object && c.arr[0].obj.empty());
    CHECK(c.arr[1].kind == json::Kind::Array && c.arr[1].arr.empty() && c.arr[2].kind == json::Kind::String);
    CHECK(v.get("a")->b && !v.get("z")->b && v.get("n")->kind == json::Kind::Null);
    CHECK(v.get("long key past fifteen")->num == 1);
  }
  // The bytes parse counts as it reads are memoryBytes() of what it read (long strings, long keys,
  // grown vectors, nested values included).
  for (const std::string text :
       {std::string(R"({"type":"seq","items":[{"type":"literal","text":"a string longer than fifteen bytes"},)") +
            R"({"type":"charClass","ranges":[[1,2],[3,4],[5,6],[7,8],[9,10],[11,12]],"negated":true}]})",
        std::string(R"([1,2,3,4,5,"x",{"a key longer than fifteen bytes":[[],{}]},null,true])"), std::string("7")}) {
    size_t bytes = 0;
    const json::Value v = json::parse(text, &bytes);
    CHECK(bytes == json::memoryBytes(v));
  }
  // Each object's "type" is read once (Value::tag); irType() looks up a value built in code.
  {
    const json::Value v = json::parse(
        R"({"type":"seq","items":[{"type":"charClass","ranges":[]},{"type":"ranges"},{"type":1},{"text":"x"},[]]})");
    CHECK(irType(v) == IrType::Seq && v.tag == uint8_t(IrType::Seq));
    const auto& items = v.get("items")->arr;
    CHECK(irType(items[0]) == IrType::CharClass);
    CHECK(irType(items[1]) == IrType::Other);
    CHECK(irType(items[2]) == IrType::NotANode && irType(items[3]) == IrType::NotANode);
    CHECK(irType(items[4]) == IrType::NotANode && irType(*v.get("type")) == IrType::NotANode);
    json::Value built;
    built.kind = json::Kind::Object;
    json::Value type;
    type.kind = json::Kind::String;
    type.str = "until";
    built.obj.emplace_back("type", type);
    CHECK(built.tag == 0 && irType(built) == IrType::Until);
    for (const char* name : {"literal", "charClass", "byteClass", "seq", "alt", "repeat", "ref", "token", "until",
                             "text", "perm", "intersect", "jsonSchema"})
      CHECK(irTypeNamed(name) != IrType::Other);
    CHECK(irTypeNamed("Seq") == IrType::Other && irTypeNamed("") == IrType::Other);
  }
  // Errors.
  CHECK(refuses(""));
  CHECK(refuses("\"open"));
  CHECK(refuses("\"bad \\q escape\""));
  CHECK(refuses("\"\\ud800\""));  // a lone surrogate
  CHECK(refuses("[1,]"));
  CHECK(refuses("{\"a\" 1}"));
  CHECK(refuses("12abc"));
  CHECK(refuses("[1] 2"));
  CHECK(refuses("-"));
  CHECK(refuses(std::string(2001, '[') + std::string(2001, ']')));  // nesting too deep

  // canonical(): keys sorted, strings escaped, every number as printf's %.17g writes it (the text
  // names shapes across grammars), integers included.
  {
    const double nums[] = {0,
                           -0.0,
                           1,
                           -1,
                           32,
                           1114111,
                           4294967295.0,
                           9007199254740991.0,
                           9007199254740992.0,
                           -9007199254740991.0,
                           1e17,
                           1e21,
                           2.5,
                           -0.125,
                           1e-7,
                           123456789012.5};
    for (double x : nums) {
      json::Value v;
      v.kind = json::Kind::Number;
      v.num = x;
      char want[40];
      snprintf(want, sizeof want, "%.17g", x);
      CHECK(json::canonical(v) == want);
    }
    const json::Value v = json::parse(R"({"z":[1,-2,3.5],"a":{"y":null,"b":true},"m":"q\"\\\u0001é"})");
    CHECK(json::canonical(v) == R"({"a":{"b":true,"y":null},"m":"q\"\\\u0001é","z":[1,-2,3.5]})");
  }
}
