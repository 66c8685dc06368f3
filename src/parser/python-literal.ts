// Reads a Python literal (what Python's str() writes for JSON-like values) into the JS value:
// '…'/"…" strings with Python escapes, True/False/None, numbers, lists and dicts. The parser
// calls it only on text the grammar (json-schema.ts, syntax "python") already accepted, so it
// reads exactly that language and throws on anything else; tuples, sets and bytes are not in it.

/** The JS value of Python literal `text`; throws a SyntaxError naming the offset otherwise. */
export function readPythonLiteral(text: string): unknown {
  const r = new Reader(text);
  r.ws();
  const v = r.value();
  r.ws();
  if (r.i !== text.length) r.fail("text after the value");
  return v;
}

const SHORT: Record<string, string> = { "\\": "\\", "'": "'", '"': '"', n: "\n", r: "\r", t: "\t" };
const HEX_DIGITS: Record<string, number> = { x: 2, u: 4, U: 8 };
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const CONSTANTS: Array<[string, unknown]> = [["True", true], ["False", false], ["None", null]];

class Reader {
  i = 0;
  constructor(private readonly s: string) {}

  fail(what: string): never {
    throw new SyntaxError(`not a Python literal: ${what} at offset ${this.i}`);
  }

  ws(): void {
    while (this.i < this.s.length && " \t\n\r".includes(this.s[this.i]!)) this.i++;
  }

  private expect(ch: string): void {
    if (this.s[this.i] !== ch) this.fail(`expected ${JSON.stringify(ch)}`);
    this.i++;
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === "'" || c === '"') return this.string();
    if (c === "[") return this.list();
    if (c === "{") return this.dict();
    for (const [word, v] of CONSTANTS) {
      if (this.s.startsWith(word, this.i)) { this.i += word.length; return v; }
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(this.s);
    if (!m) this.fail("expected a value");
    this.i += m[0].length;
    return Number(m[0]); // 1e999 is Infinity, as JSON.parse reads it
  }

  string(): string {
    const q = this.s[this.i++]!;
    let out = "";
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) this.fail("unterminated string");
      if (c === q) { this.i++; return out; }
      if (c === "\n" || c === "\r") this.fail("a line break inside a string");
      if (c !== "\\") { out += c; this.i++; continue; }
      const e = this.s[this.i + 1];
      if (e !== undefined && e in SHORT) { out += SHORT[e]; this.i += 2; continue; }
      const n = e === undefined ? undefined : HEX_DIGITS[e];
      if (n === undefined) this.fail("an unknown escape");
      const hex = this.s.slice(this.i + 2, this.i + 2 + n);
      if (hex.length !== n || !/^[0-9a-fA-F]+$/.test(hex)) this.fail(`\\${e} needs ${n} hex digits`);
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) this.fail("a code point above U+10FFFF");
      // Python keeps \ud83d\ude00 as two lone surrogates, which no JSON string holds
      if (cp >= 0xd800 && cp <= 0xdfff) this.fail("a surrogate code point");
      out += String.fromCodePoint(cp);
      this.i += 2 + n;
    }
  }

  private items(close: string, item: () => void): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === close) { this.i++; return; }
    for (;;) {
      item();
      this.ws();
      if (this.s[this.i] === close) { this.i++; return; }
      this.expect(",");
      this.ws();
    }
  }

  list(): unknown[] {
    const out: unknown[] = [];
    this.items("]", () => out.push(this.value()));
    return out;
  }

  dict(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    this.items("}", () => {
      const q = this.s[this.i];
      if (q !== "'" && q !== '"') this.fail("a dict key that is not a string");
      const k = this.string();
      this.ws();
      this.expect(":");
      this.ws();
      // an own property even for "__proto__", as JSON.parse makes it; a repeated key keeps the last value
      Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
    });
    return out;
  }
}
