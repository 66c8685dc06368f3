// Python-literal texts of JSON values for the "python" syntax of the JSON-schema lowering:
// a str()-style printer, a schema-guided serializer with random spellings (quotes, escapes,
// number forms, whitespace), and the property-test case check against ajv.
import fc from "fast-check";
import type { JsonSchemaOptions } from "../../src/grammar/ir.js";
import { readPythonLiteral } from "../../src/parser/python-literal.js";
import type { CaseStats, PropertyCase, PropertySchema, TextSyntax } from "./json-schema-cases.js";
import { arbValue, checkTextCase } from "./json-schema-cases.js";
import { type Json, type ValueSyntax, renderForSchema } from "./schema-text.js";

/** `s` in quote `q` with only the escapes Python needs (backslash, the quote, controls). */
export function pyQuote(s: string, q: "'" | '"'): string {
  let out = q;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\" || ch === q) out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + q;
}

/** Python's str() of a JSON value, whole numbers as ints (what a template's `| string` writes). */
export function pyRepr(v: unknown, sep = { item: ", ", key: ": " }): string {
  if (v === null) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return pyQuote(v, v.includes("'") && !v.includes('"') ? '"' : "'");
  if (typeof v === "number") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x, sep)).join(sep.item)}]`;
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${pyRepr(k, sep)}${sep.key}${pyRepr(x, sep)}`)
    .join(sep.item)}}`;
}

/** Python's spellings for renderForSchema: either quote, \\x \\u \\U escapes, 1e-05 and 3.0 number forms. */
const pySyntax: ValueSyntax = {
  string(x, canonical, r) {
    const q = r(2) ? "'" : '"';
    if (canonical) return pyQuote(x, q);
    let out = q;
    for (const ch of x) {
      const cp = ch.codePointAt(0)!;
      const hex = (letter: string, width: number) => {
        const h = cp.toString(16).padStart(width, "0");
        return `\\${letter}${r(2) ? h : h.toUpperCase()}`;
      };
      const k = r(6);
      if (k === 0 && cp <= 0xff) out += hex("x", 2);
      else if (k === 1 && cp <= 0xffff) out += hex("u", 4);
      else if (k === 2) out += hex("U", 8);
      else if (k === 3 && ch === (q === "'" ? '"' : "'"))
        out += `\\${ch}`; // the other quote, escaped anyway
      else out += pyQuote(ch, q).slice(1, -1);
    }
    return out + q;
  },
  number(x, floatOk, r) {
    const k = floatOk ? r(3) : 0;
    if (k === 1) {
      const [m, e] = x.toExponential().split("e") as [string, string];
      return `${m}e${e[0]}${e.slice(1).padStart(2, "0")}`; // Python's 1e-05
    }
    if (k === 2 && Number.isSafeInteger(x)) return `${x}.0`;
    return JSON.stringify(x);
  },
  scalar: (x) => (x === null ? "None" : x ? "True" : "False"),
  fixed: (x, r) => (typeof x === "string" ? pySyntax.string(x, true, r) : pyRepr(x)),
  whole: (x, mode) => pyRepr(x, mode === "compact" ? { item: ",", key: ":" } : { item: ", ", key: ": " }),
  spaceOdds: 4,
};

/**
 * v as a Python literal the grammar must accept when v is valid: enum/const values and declared
 * keys in their fixed spellings (either quote), undeclared keys as one run, integers as ints;
 * elsewhere random quotes, escapes (\\x \\u \\U, short ones), number forms and whitespace.
 */
export function serializePy(
  v: Json,
  root: unknown,
  mode: NonNullable<JsonSchemaOptions["whitespace"]>,
  seed: number,
): string {
  return renderForSchema(v, root, mode, seed, pySyntax);
}

export const arbPyCase = (ps: PropertySchema) =>
  fc.record({
    value: arbValue(ps.schema),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    mutation: fc.option(
      fc.record({
        at: fc.nat(),
        op: fc.nat(2),
        ch: fc.constantFrom(..."'\"\\,:{}[]01-.eE+ \n\t\rxuUTN\u001f\u00e9".split("")),
      }),
      { freq: 2 },
    ),
  });

const pyText: TextSyntax = { name: "not a Python literal", serialize: serializePy, read: readPythonLiteral };

/** checkTextCase for Python-literal texts; returns the text checked. */
export function checkPyCase(
  ps: PropertySchema,
  accepts: (text: string) => boolean,
  valid: (v: unknown) => boolean,
  c: PropertyCase,
  stats: CaseStats,
): string {
  return checkTextCase(pyText, ps, accepts, valid, c, stats);
}
