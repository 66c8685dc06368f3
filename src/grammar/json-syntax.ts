// The literal syntaxes a JSON-schema value can be written in: JSON, or Python literals (what
// Python's str()/repr() writes, e.g. Seed-OSS's template `{'a': [1, True, None]}`). Only the
// spellings differ: strings, constants and the fixed texts of enum/const values and declared
// keys. Containers, separators and numbers are the same in both (Python writes numbers JSON
// reads: 2.5, 1e-05, 1e+16, 1.0; inf and nan have no JSON value, so no schema can ask for them).

export type Ranges = Array<[number, number]>;
export type SyntaxName = "json" | "python";

/** `\<letter>` followed by exactly `digits` hex digits (either case), for code points ≤ `max`. */
export interface HexEscape { letter: string; digits: number; max: number }

/** How characters are written inside strings delimited by one quote character. */
export interface QuoteSyntax {
  quote: string;
  /** A short name for rule names ("dq", "sq"). */
  id: string;
  /** `\<letter>` escapes standing for one code point. */
  short: Array<[string, number]>;
  /** Code points that may not appear raw. */
  rawExcluded: Ranges;
  hex: HexEscape[];
  /** `\uD83D\uDE00` (a high and a low surrogate escape) is one astral character (JSON); in Python it is two lone surrogates. */
  surrogatePairs: boolean;
}

export interface LiteralSyntax {
  name: SyntaxName;
  /** Every string may be written with any of these quotes. */
  quotes: QuoteSyntax[];
  constants: { null: string; true: string; false: string };
  /** The fixed texts an enum/const value is accepted as (one value, one or a few spellings). */
  valueTexts(v: unknown): string[];
  /** The fixed texts a declared property name is accepted as. */
  keyTexts(name: string): string[];
}

const SURROGATES: [number, number] = [0xd800, 0xdfff];
const CONTROLS: [number, number] = [0, 0x1f];

export const JSON_SYNTAX: LiteralSyntax = {
  name: "json",
  quotes: [{
    quote: '"',
    id: "dq",
    short: [['"', 0x22], ["\\", 0x5c], ["/", 0x2f], ["b", 0x08], ["f", 0x0c], ["n", 0x0a], ["r", 0x0d], ["t", 0x09]],
    rawExcluded: [CONTROLS, [0x22, 0x22], [0x5c, 0x5c], SURROGATES],
    hex: [{ letter: "u", digits: 4, max: 0xffff }],
    surrogatePairs: true,
  }],
  constants: { null: "null", true: "true", false: "false" },
  valueTexts: (v) => [JSON.stringify(v)],
  keyTexts: (name) => [JSON.stringify(name)],
};

const pyQuote = (quote: string, id: string): QuoteSyntax => ({
  quote,
  id,
  short: [["\\", 0x5c], ["'", 0x27], ['"', 0x22], ["n", 0x0a], ["r", 0x0d], ["t", 0x09]],
  rawExcluded: [CONTROLS, [quote.codePointAt(0)!, quote.codePointAt(0)!], [0x5c, 0x5c], SURROGATES],
  hex: [{ letter: "x", digits: 2, max: 0xff }, { letter: "u", digits: 4, max: 0xffff }, { letter: "U", digits: 8, max: 0x10ffff }],
  surrogatePairs: false,
});

export const PYTHON_SYNTAX: LiteralSyntax = {
  name: "python",
  quotes: [pyQuote("'", "sq"), pyQuote('"', "dq")],
  constants: { null: "None", true: "True", false: "False" },
  valueTexts: (v) => {
    if (typeof v === "string") return pyStringTexts(v);
    if (typeof v === "number") return pyNumberTexts(v);
    return [pyRepr(v)];
  },
  keyTexts: (name) => pyStringTexts(name),
};

export function literalSyntax(name: SyntaxName): LiteralSyntax {
  return name === "python" ? PYTHON_SYNTAX : JSON_SYNTAX;
}

// ---------------------------------------------------------------------------------------------
// Python spellings of fixed values

/** `s` in quote `q`, escaping only what must be escaped (backslash, the quote, controls). */
function pyQuoted(s: string, q: string): string {
  let out = q;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\" || ch === q) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (cp < 0x20 || cp === 0x7f) out += "\\x" + cp.toString(16).padStart(2, "0");
    else if (cp >= 0xd800 && cp <= 0xdfff) out += "\\u" + cp.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + q;
}

/** Python's repr of a string: single quotes unless it holds ' and no ". */
function pyString(s: string): string {
  return pyQuoted(s, s.includes("'") && !s.includes('"') ? '"' : "'");
}
/** Either quote: repr's choice depends on the content, a model's may not. */
const pyStringTexts = (s: string): string[] => [...new Set([pyQuoted(s, "'"), pyQuoted(s, '"')])];

/** Python's repr of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloat(x: number): string {
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mant, e] = Math.abs(x).toExponential().split("e") as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 16) return `${sign}${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const digits = mant.replace(".", "");
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  return `${sign}${int}.${digits.slice(exp + 1) || "0"}`;
}

/** A JSON number is an int or a float on the Python side: whole numbers may be written either way. */
function pyNumberTexts(x: number): string[] {
  const out = Number.isSafeInteger(x) ? [String(x)] : [];
  return [...new Set([...out, pyFloat(x)])];
}

/** Python's str() of a JSON value (whole numbers as ints, str()'s `, ` and `: `). */
export function pyRepr(v: unknown): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return pyString(v);
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : pyFloat(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(v as object).map(([k, x]) => `${pyString(k)}: ${pyRepr(x)}`).join(", ")}}`;
}
