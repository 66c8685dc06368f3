// JSON text read into plain JS values only where nothing changes on the way. JSON.parse keeps a
// repeated key's last value, reads 1e999 as Infinity (which JSON.stringify writes as null) and
// 12345678901234567891 as 12345678901234567000: a tool would run with, or a prompt would show, a
// value that was never written. Here a repeated key, and a number whose double is another number,
// are refused, naming them and where they stand. A number is kept when the double it reads as,
// written back (String(n): the shortest text that reads as it), is the same decimal number:
// 0.1, 1.10, 12e3, 5e-324 and 1.7976931348623157e308 are; 9007199254740993, 3.14159265358979323846
// (more digits than a double holds), 5e-999 (below the smallest double: 0) and 1e999 are not.
import { JsonNumber, JsonObject, overflowReason, shownNumber, toPlain, type Json } from "./json-value.js";
import { duplicateKeys, givenTwice, memberPath, pathText } from "./json-scan.js";
import { readValue } from "./read-value.js";

/** Why the double that the number `text` reads as is another number (undefined: it is that number). */
export function numberChange(text: string, where: string): string | undefined {
  const n = Number(text);
  if (!Number.isFinite(n)) return overflowReason(text, where);
  // At most 15 significant digits and no exponent: every such decimal reads back as itself.
  if (!/[eE]/.test(text) && text.length - (text.startsWith("-") ? 1 : 0) - (text.includes(".") ? 1 : 0) <= 15)
    return undefined;
  const held = String(n);
  if (decimal(text) === decimal(held)) return undefined;
  return (
    `the number ${shownNumber(text)} at ${where} is not exactly a double (it would be ${held}); ` +
    "a double holds integers exactly up to ±9007199254740991 and about 17 significant digits"
  );
}

/**
 * Why `v` cannot be handed on as plain JS values unchanged: the first repeated key (unless `keys`
 * is false) or changed number in written order, and where it stands (paths start at `root`).
 */
export function valueChange(v: Json, root: string, keys = true): { where: string; reason: string } | undefined {
  const todo: Array<[Json, string]> = [[v, root]];
  while (todo.length) {
    const [x, where] = todo.pop()!;
    if (x instanceof JsonNumber) {
      const reason = numberChange(x.text, where);
      if (reason !== undefined) return { where, reason };
    } else if (x instanceof JsonObject) {
      if (keys && x.duplicate !== undefined)
        return { where, reason: `the key ${JSON.stringify(x.duplicate)} is given twice in the object at ${where}` };
      const e = [...x.entries];
      for (let i = e.length - 1; i >= 0; i--) todo.push([e[i]![1], memberPath(where, e[i]![0])]);
    } else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) todo.push([x[i]!, `${where}[${i}]`]);
    }
  }
  return undefined;
}

/**
 * The value of a JSON text as plain JS values (as JSON.parse makes them), or why not: the text is
 * not JSON (`json: false`), or holds a repeated key or a number no double holds as written.
 * Paths start at `root` ("$": `$.a[0]`).
 */
export function readExactJson(text: string, root = "$"): { value: unknown } | { error: string; json: boolean } {
  let v: Json;
  try {
    v = readValue(text, "json");
  } catch (e) {
    if (e instanceof SyntaxError) return { error: e.message, json: false };
    throw e;
  }
  const change = valueChange(v, root);
  return change !== undefined ? { error: change.reason, json: true } : { value: toPlain(v) };
}

// A JSON string (skipped whole; with the ":" after it when it is an object's key) or a number token,
// in a text JSON.parse has read.
const TOKEN = /"[^"\\]*(?:\\[\s\S][^"\\]*)*"(?:[ \t\n\r]*(:))?|-?\d[-+.\deE]*/g;

/**
 * One scan of a JSON text (one JSON.parse reads) that skips strings: whether a number's double is
 * another number (the scan stops there), and how many object members the text writes (a string
 * followed by a ":" is a key).
 */
function scanText(text: string): { numberChanged: boolean; members: number } {
  let members = 0;
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
    if (m[1] !== undefined) members++;
    else if (m[0][0] !== '"' && numberChange(m[0], "") !== undefined) return { numberChanged: true, members };
  }
  return { numberChanged: false, members };
}

/**
 * The members of JSON.parse's value: each object's own keys, all objects together. An object with
 * a key "0" (logit_bias: integer keys, held as elements) is read with Object.values, which makes
 * no key strings; others with for…in, which builds no array (an object from JSON.parse has only
 * own, enumerable keys). `npm run bench:stalls`, its 300,000-key logit_bias body: stalls of
 * 152–220 ms with for…in throughout, 121–149 ms so; Object.values throughout took its 200,000-key
 * metadata body from 360–395 ms to 420–585 ms.
 */
function memberCount(value: unknown): number {
  let n = 0;
  const todo: unknown[] = [value];
  const visit = (v: unknown) => {
    if (v !== null && typeof v === "object") todo.push(v);
  };
  while (todo.length > 0) {
    const x = todo.pop() as Record<string, unknown>;
    if (Array.isArray(x)) for (let i = 0; i < x.length; i++) visit(x[i]);
    else if (Object.hasOwn(x, "0")) {
      const values = Object.values(x);
      n += values.length;
      for (let i = 0; i < values.length; i++) visit(values[i]);
    } else
      for (const k in x) {
        n++;
        visit(x[k]);
      }
  }
  return n;
}

/**
 * In a JSON text (one JSON.parse reads), the first number whose double is another number: where
 * it stands (`messages[1].content[0].input.n`, from the top) and why. Numbers are found by one
 * scan that skips strings; the text is read again for the path only when one is found.
 */
export function firstNumberChange(text: string): { where: string; reason: string } | undefined {
  // Read again for the path (repeated keys are JSON.parse's business here: only numbers are looked at).
  return scanText(text).numberChanged ? valueChange(readValue(text, "json"), "", false) : undefined;
}

/**
 * What JSON.parse's `value` of `text` does not hold as written: the first number whose double is
 * another number (kind "number", as firstNumberChange), or else the first object that gives a key
 * twice (kind "key"; JSON.parse kept the last value): `where` the path of the key given twice
 * (`messages[1].content[0].input.s`). One scan of the text (numbers, and the members it writes)
 * and one walk of the value (the members JSON.parse kept): a key given twice is one member fewer.
 * The text is read again for the path only when something is found.
 */
export function firstChange(
  text: string,
  value: unknown,
): { kind: "number" | "key"; where: string; reason: string } | undefined {
  const scan = scanText(text);
  if (scan.numberChanged) {
    const changed = valueChange(readValue(text, "json"), "", false);
    return changed && { kind: "number", ...changed };
  }
  if (scan.members === memberCount(value)) return undefined;
  const d = duplicateKeys(text, 1)[0];
  if (d === undefined) return { kind: "key", where: "", reason: "gives a key twice in one object" };
  return { kind: "key", where: pathText([...d.path, d.key]), reason: givenTwice(d) };
}

/** A decimal number's value as one text: sign, digits without leading or trailing zeros, exponent ("0" for zero). */
function decimal(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return text;
  const frac = m[3] ?? "";
  const all = (m[2]! + frac).replace(/^0+/, "");
  const digits = all.replace(/0+$/, "");
  if (digits === "") return "0";
  // BigInt: an exponent of any length is compared exactly.
  const exp = BigInt(m[4] ?? "0") - BigInt(frac.length) + BigInt(all.length - digits.length);
  return `${m[1]}${digits}e${exp}`;
}
