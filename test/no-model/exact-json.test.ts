// src/parser/exact-json.ts against JSON.parse as the oracle: where it hands a value on, the value
// is JSON.parse's and every number in it is the number written; where it refuses, JSON.parse would
// have changed something (a repeated key's first value lost, a number read as another). The body
// scan (firstNumberChange) finds a changed number where the full read does, whatever strings
// surround it.
import { describe, expect, it } from "vitest";
import { firstChange, firstNumberChange, readExactJson } from "../../src/parser/exact-json.js";
import { duplicateKeys, pathText, valueTextAt, withoutJsonWs, type JsonPath } from "../../src/parser/json-scan.js";
import { JsonObject, type Json } from "../../src/parser/json-value.js";
import { readValue } from "../../src/parser/read-value.js";

const NUMBERS = [
  "0",
  "-0",
  "1",
  "1.10",
  "0.1",
  "12e3",
  "1E+2",
  "5e-324",
  "1.7976931348623157e308",
  "9007199254740991",
  "100000000000000000000",
  "0.30000000000000004",
  "1e999",
  "-1e400",
  "5e-999",
  "9007199254740993",
  "12345678901234567891",
  "3.14159265358979323846",
  "1.7976931348623158e308",
];
const STRINGS = ['"a"', '"1e999"', '"\\"1e999"', '"x\\\\"', '"\\u0031"', '"12345678901234567891\\""'];

/** A random JSON text of numbers, strings, arrays and objects (keys drawn from a few, so some repeat). */
function randomJson(rand: () => number, depth = 0): string {
  const r = rand();
  if (depth > 3 || r < 0.35) return NUMBERS[Math.floor(rand() * NUMBERS.length)]!;
  if (r < 0.5) return STRINGS[Math.floor(rand() * STRINGS.length)]!;
  const n = Math.floor(rand() * 4);
  const items = Array.from({ length: n }, () => randomJson(rand, depth + 1));
  if (r < 0.75) return `[${items.join(", ")}]`;
  return `{${items.map((v) => `${JSON.stringify("abc"[Math.floor(rand() * 3)])}: ${v}`).join(", ")}}`;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Whether JSON.parse keeps every number and key of `text`, decided by its own means: tokens read
 * left to right (strings first, so digits inside them are no numbers), keys counted per object,
 * each number compared with what JSON.parse makes of it, as exact decimals.
 */
function parseKeepsAll(text: string): boolean {
  const objects: Array<Set<string>> = [];
  for (const m of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d[-+.\deE]*|[{}]/g)) {
    const t = m[0];
    if (t === "{") objects.push(new Set());
    else if (t === "}") objects.pop();
    else if (t[0] === '"') {
      if (
        !text
          .slice(m.index! + t.length)
          .trimStart()
          .startsWith(":")
      )
        continue;
      const keys = objects.at(-1)!;
      if (keys.has(t)) return false;
      keys.add(t);
    } else if (!sameDecimal(t, String(Number(t)))) return false;
  }
  return true;
}

/** Two decimal texts are the same number (compared by BigInt-scaled digits). */
function sameDecimal(a: string, b: string): boolean {
  if (!Number.isFinite(Number(a))) return false;
  const norm = (t: string) => {
    const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(t)!;
    const digits = BigInt(`${m[2]}${m[3] ?? ""}`);
    return { neg: m[1] === "-" && digits !== 0n, digits, exp: Number(m[4] ?? 0) - (m[3] ?? "").length };
  };
  const x = norm(a),
    y = norm(b);
  if (x.neg !== y.neg) return false;
  const e = Math.min(x.exp, y.exp);
  return x.digits * 10n ** BigInt(x.exp - e) === y.digits * 10n ** BigInt(y.exp - e);
}

describe("readExactJson and firstNumberChange against JSON.parse", () => {
  it("5,000 random texts: a value only when JSON.parse keeps everything, and then JSON.parse's value", () => {
    const rand = mulberry32(30);
    const verdicts = { value: 0, refused: 0 };
    for (let i = 0; i < 5000; i++) {
      const text = randomJson(rand);
      const read = readExactJson(text);
      const keeps = parseKeepsAll(text);
      verdicts["value" in read ? "value" : "refused"]++;
      expect("value" in read, text).toBe(keeps);
      if ("value" in read) expect(read.value, text).toStrictEqual(JSON.parse(text));
      // The body scan finds a changed number where the full read does; a number a repeated key
      // replaced is in neither JSON.parse's value nor the read's, so it is looked at by neither.
      const scanned = firstNumberChange(`{"wrap": ${text}}`);
      if ("value" in read) expect(scanned, text).toBeUndefined();
      else if (read.error.startsWith("the number")) expect(scanned?.reason, text).toMatch(/^the number .* at wrap/);
    }
    // Both verdicts are well represented (the test would prove little otherwise).
    expect(Math.min(verdicts.value, verdicts.refused)).toBeGreaterThan(1000);
  });

  it("the body scan names the path from the top, odd keys quoted, and skips numbers inside strings", () => {
    expect(firstNumberChange('{"a": "1e999 \\" 1e999", "b": [{"odd key": [0, 1e999]}]}')).toEqual({
      where: 'b[0]["odd key"][1]',
      reason: 'the number 1e999 at b[0]["odd key"][1] is beyond the range of a double (±1.7976931348623157e308)',
    });
    expect(firstNumberChange('{"a": "12345678901234567891", "b": 1.5}')).toBeUndefined();
  });
});

// src/parser/json-scan.ts: a JSON text looked at as written. Oracles: readValue (which notes each
// object's first repeated key), JSON.parse, and the same random text written without whitespace.
describe("json-scan: repeated keys, the value at a path, the text without whitespace", () => {
  const WS = ["", " ", "\n  ", "\t", "\r\n"];
  const KEYS = ["a", "b", "c", "odd key", "\\u0061"];
  const WORDS = ['"a"', '" a : b , \\" } "', '"x\\\\"', '"{\\"a\\": 1}"', "true", "null", "-0", "1.50", "12e3"];
  /** A random JSON text; `ws` gives the whitespace at each place it may stand (the same draws for every `ws`). */
  function randomText(seed: number, ws: (r: number) => string): string {
    const rand = mulberry32(seed);
    const w = () => ws(rand());
    const value = (depth: number): string => {
      const r = rand();
      if (depth > 3 || r < 0.35) return WORDS[Math.floor(rand() * WORDS.length)]!;
      const items = Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      if (r < 0.6) return `[${w()}${items.map((v) => `${v}${w()}`).join(`,${w()}`)}]`;
      return `{${w()}${items.map((v) => `"${KEYS[Math.floor(rand() * KEYS.length)]}"${w()}:${w()}${v}${w()}`).join(`,${w()}`)}}`;
    };
    return `${w()}${value(0)}${w()}`;
  }
  const spaced = (r: number) => WS[Math.floor(r * WS.length)]!;

  /** Each object's first repeated key, from readValue's tree, as "path key" lines. */
  function treeDuplicates(v: Json, path: JsonPath = [], out: string[] = []): string[] {
    if (Array.isArray(v)) v.forEach((x, i) => treeDuplicates(x, [...path, i], out));
    else if (v instanceof JsonObject) {
      if (v.duplicate !== undefined) out.push(`${pathText(path)} ${v.duplicate}`);
      for (const [k, x] of v.entries) treeDuplicates(x, [...path, k], out);
    }
    return out;
  }

  it("3,000 random texts: duplicateKeys finds a repeated key where readValue does, at the same paths", () => {
    let withRepeats = 0;
    for (let seed = 0; seed < 3000; seed++) {
      const text = randomText(seed, spaced);
      const found = duplicateKeys(text, 1000).map((d) => `${pathText(d.path)} ${d.key}`);
      const tree = treeDuplicates(readValue(text, "json"));
      // readValue's tree keeps a repeated key's last value only: what the first held is not in it.
      expect(found.length > 0, text).toBe(tree.length > 0);
      for (const d of tree) expect(found, text).toContain(d);
      if (found.length > 0) withRepeats++;
    }
    expect(withRepeats).toBeGreaterThan(500);
  });

  it("3,000 random texts: firstChange (the body check) refuses a key given twice where duplicateKeys finds one, naming the first", () => {
    let refused = 0;
    for (let seed = 0; seed < 3000; seed++) {
      const text = `{"wrap": ${randomText(seed, spaced)}}`;
      const first = duplicateKeys(text, 1)[0];
      const change = firstChange(text, JSON.parse(text));
      if (first === undefined) expect(change, text).toBeUndefined();
      else {
        refused++;
        expect(change, text).toEqual({
          kind: "key",
          where: pathText([...first.path, first.key]),
          reason: `gives the key ${JSON.stringify(first.key)} twice in ${pathText(first.path)}`,
        });
      }
    }
    expect(refused).toBeGreaterThan(500);
  });

  it("firstChange: a number first (as firstNumberChange names it), keys equal once read, and no refusal for keys repeated across objects", () => {
    expect(firstChange('{"a": 1e999, "b": 1, "b": 2}', JSON.parse('{"a": 1e999, "b": 1, "b": 2}'))).toMatchObject({
      kind: "number",
      where: "a",
    });
    const escaped = '{"m": [{"s": "safe", "\\u0073": "rm -rf /"}]}';
    expect(firstChange(escaped, JSON.parse(escaped))).toEqual({
      kind: "key",
      where: "m[0].s",
      reason: 'gives the key "s" twice in m[0]',
    });
    const top = '{"model": "a" , "model" : "b"}';
    expect(firstChange(top, JSON.parse(top))).toMatchObject({
      where: "model",
      reason: expect.stringMatching(/the top-level object$/),
    });
    const siblings = '[{"role": "user", "content": "a"}, {"role": "user", "content": {"role": 1}}]';
    expect(firstChange(siblings, JSON.parse(siblings))).toBeUndefined();
  });

  it("3,000 random texts: valueTextAt gives the text of each value JSON.parse finds at each path", () => {
    let paths = 0;
    for (let seed = 0; seed < 3000; seed++) {
      const text = randomText(seed, spaced);
      if (duplicateKeys(text).length > 0) continue; // a repeated key: JSON.parse's value is the last one
      const todo: Array<[unknown, JsonPath]> = [[JSON.parse(text), []]];
      while (todo.length) {
        const [v, path] = todo.pop()!;
        const at = valueTextAt(text, path);
        expect(at, `${text} at ${pathText(path)}`).toBeDefined();
        expect(JSON.parse(at!), text).toStrictEqual(v);
        paths++;
        if (Array.isArray(v)) v.forEach((x, i) => todo.push([x, [...path, i]]));
        else if (v !== null && typeof v === "object")
          for (const [k, x] of Object.entries(v)) todo.push([x, [...path, k]]);
      }
      expect(valueTextAt(text, ["no such key"])).toBeUndefined();
    }
    expect(paths).toBeGreaterThan(5000);
  });

  it("3,000 random texts: withoutJsonWs is the same text written without whitespace, strings untouched", () => {
    for (let seed = 0; seed < 3000; seed++) {
      const text = randomText(seed, spaced);
      expect(withoutJsonWs(text), text).toBe(randomText(seed, () => ""));
    }
  });
});
