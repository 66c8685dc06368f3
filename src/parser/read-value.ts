// Reading a JSON text, or a Python literal (what Python's str() writes for JSON-like values:
// '…'/"…" strings with Python escapes, True/False/None, numbers, lists, dicts), into a Json value
// that keeps every number as written. Exactly JSON.parse's language for "json"; for "python",
// exactly what the grammar's "python" syntax (json-schema.ts) accepts, tuples, sets and bytes not
// in it. Containers are kept on an explicit stack: no nesting depth overflows the call stack.
import { JsonNumber, JsonObject, type Json } from "./json-value.js";

export type ValueSyntax = "json" | "python";

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const CONSTANTS: Record<ValueSyntax, Array<[string, Json]>> = {
  json: [
    ["true", true],
    ["false", false],
    ["null", null],
  ],
  python: [
    ["True", true],
    ["False", false],
    ["None", null],
  ],
};
const PY_SHORT: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", r: "\r", t: "\t" };
const PY_HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
const JSON_STRING_SPECIAL = /[\u0000-\u001f\\]/;

/** The value of `text`; throws a SyntaxError naming the offset when it is not one. */
export function readValue(text: string, syntax: ValueSyntax): Json {
  return new Reader(text, syntax).read();
}

/** The value of a JSON text, or undefined when JSON.parse would refuse it. */
export function readJson(text: string): Json | undefined {
  try {
    return readValue(text, "json");
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
}

type Frame = { array: Json[] } | { object: JsonObject; key: string };

class Reader {
  i = 0;
  constructor(
    private readonly s: string,
    private readonly syntax: ValueSyntax,
  ) {}

  fail(what: string): never {
    throw new SyntaxError(`not ${this.syntax === "json" ? "JSON" : "a Python literal"}: ${what} at offset ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.i);
      if (c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d) this.i++;
      else return;
    }
  }

  read(): Json {
    const stack: Frame[] = [];
    this.ws();
    for (;;) {
      // A value starts here: a container opens (and may close at once), or a scalar is read.
      let v: Json;
      const c = this.s[this.i];
      if (c === "[" || c === "{") {
        this.i++;
        this.ws();
        if (c === "[") {
          if (this.s[this.i] !== "]") {
            stack.push({ array: [] });
            continue;
          }
          v = [];
        } else {
          if (this.s[this.i] !== "}") {
            stack.push({ object: new JsonObject(), key: this.key() });
            continue;
          }
          v = new JsonObject();
        }
        this.i++;
      } else {
        v = this.scalar();
      }
      // The value is complete: it goes into its container; containers it completes close in turn.
      for (;;) {
        const top = stack[stack.length - 1];
        if (!top) {
          this.ws();
          if (this.i !== this.s.length) this.fail("text after the value");
          return v;
        }
        if ("array" in top) top.array.push(v);
        else {
          if (top.object.entries.has(top.key)) top.object.duplicate ??= top.key;
          top.object.entries.set(top.key, v);
        }
        this.ws();
        const close = "array" in top ? "]" : "}";
        if (this.s[this.i] === close) {
          this.i++;
          stack.pop();
          v = "array" in top ? top.array : top.object;
          continue;
        }
        if (this.s[this.i] !== ",") this.fail(`expected "," or ${JSON.stringify(close)}`);
        this.i++;
        this.ws();
        if (!("array" in top)) top.key = this.key();
        break;
      }
    }
  }

  /** An object key and its ":", with the whitespace after. */
  key(): string {
    const q = this.s[this.i];
    if (q !== '"' && !(q === "'" && this.syntax === "python"))
      this.fail(this.syntax === "json" ? "expected a string key" : "a dict key that is not a string");
    const k = this.string();
    this.ws();
    if (this.s[this.i] !== ":") this.fail('expected ":"');
    this.i++;
    this.ws();
    return k;
  }

  scalar(): Json {
    const c = this.s[this.i];
    if (c === '"' || (c === "'" && this.syntax === "python")) return this.string();
    for (const [word, v] of CONSTANTS[this.syntax]) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail("expected a value");
    this.i += m[0].length;
    return new JsonNumber(m[0]);
  }

  string(): string {
    return this.syntax === "json" ? this.jsonString() : this.pythonString();
  }

  /** A JSON string: its end found by quotes not escaped, its text checked and decoded by JSON.parse. */
  jsonString(): string {
    const s = this.s,
      start = this.i;
    let j = start + 1,
      end = -1;
    while (end < 0) {
      const q = s.indexOf('"', j);
      if (q < 0) this.fail("unterminated string");
      let b = q - 1;
      while (s.charCodeAt(b) === 0x5c) b--;
      if ((q - 1 - b) % 2 === 0) end = q;
      j = q + 1;
    }
    const token = s.slice(start, end + 1);
    this.i = end + 1;
    if (!JSON_STRING_SPECIAL.test(token)) return token.slice(1, -1);
    try {
      return JSON.parse(token) as string;
    } catch {
      this.i = start;
      return this.fail("a control character or a bad escape in a string");
    }
  }

  pythonString(): string {
    const s = this.s;
    const q = s[this.i++]!;
    let out = "";
    for (;;) {
      const c = s[this.i];
      if (c === undefined) this.fail("unterminated string");
      if (c === q) {
        this.i++;
        return out;
      }
      if (c === "\n" || c === "\r") this.fail("a line break inside a string");
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const e = s[this.i + 1];
      if (e !== undefined && e in PY_SHORT) {
        out += PY_SHORT[e];
        this.i += 2;
        continue;
      }
      const n = e === undefined ? undefined : PY_HEX_DIGITS[e];
      if (n === undefined) this.fail("an unknown escape");
      const hex = s.slice(this.i + 2, this.i + 2 + n);
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`\\${e} needs ${n} hex digits`);
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) this.fail("a code point above U+10FFFF");
      // Python keeps \ud83d\ude00 as two lone surrogates, which no JSON string holds
      if (cp >= 0xd800 && cp <= 0xdfff) this.fail("a surrogate code point");
      out += String.fromCodePoint(cp);
      this.i += 2 + n;
    }
  }
}
