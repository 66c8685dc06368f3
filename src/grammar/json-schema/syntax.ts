// The literal syntaxes a JSON-schema value can be written in: JSON, raw text (strings only), or Python literals (what
// Python's str()/repr() writes, e.g. Seed-OSS's template `{'a': [1, True, None]}`). Only the
// spellings differ: strings, constants and the fixed texts of enum/const values and declared
// keys. Containers, separators and numbers are the same in both (Python writes numbers JSON
// reads: 2.5, 1e-05, 1e+16, 1.0; inf and nan have no JSON value, so no schema can ask for them).

import type { Ranges } from "../code-ranges.js";

/** The longest whitespace run between JSON tokens (whitespace "any", and every call's JSON): bounded, so a model repeating whitespace is forced on. */
export const JSON_WS_MAX = 32;
import { pyFloat, pyQuoted, pyRepr } from "../python-repr.js";
export type SyntaxName = "json" | "python" | "raw";

/** `\<letter>` followed by exactly `digits` hex digits (either case), for code points ≤ `max`. */
export interface HexEscape {
  letter: string;
  digits: number;
  max: number;
}

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
  quotes: [
    {
      quote: '"',
      id: "dq",
      short: [
        ['"', 0x22],
        ["\\", 0x5c],
        ["/", 0x2f],
        ["b", 0x08],
        ["f", 0x0c],
        ["n", 0x0a],
        ["r", 0x0d],
        ["t", 0x09],
      ],
      rawExcluded: [CONTROLS, [0x22, 0x22], [0x5c, 0x5c], SURROGATES],
      hex: [{ letter: "u", digits: 4, max: 0xffff }],
      surrogatePairs: true,
    },
  ],
  constants: { null: "null", true: "true", false: "false" },
  valueTexts: (v) => [JSON.stringify(v)],
  keyTexts: (name) => [JSON.stringify(name)],
};

const pyQuote = (quote: string, id: string): QuoteSyntax => ({
  quote,
  id,
  short: [
    ["\\", 0x5c],
    ["'", 0x27],
    ['"', 0x22],
    ["n", 0x0a],
    ["r", 0x0d],
    ["t", 0x09],
  ],
  rawExcluded: [CONTROLS, [quote.codePointAt(0)!, quote.codePointAt(0)!], [0x5c, 0x5c], SURROGATES],
  hex: [
    { letter: "x", digits: 2, max: 0xff },
    { letter: "u", digits: 4, max: 0xffff },
    { letter: "U", digits: 8, max: 0x10ffff },
  ],
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

/**
 * Raw text (an XML parameter's value): a string is its characters as written, no quotes and no
 * escapes; only strings are raw text (raw-text.ts ends the text at the value's close). Values of
 * other types have no raw spelling: an enum/const value that is not a string is none.
 */
export const RAW_SYNTAX: LiteralSyntax = {
  name: "raw",
  quotes: [{ quote: "", id: "raw", short: [], rawExcluded: [SURROGATES], hex: [], surrogatePairs: false }],
  constants: JSON_SYNTAX.constants,
  valueTexts: (v) => (typeof v === "string" ? [v] : []),
  keyTexts: (name) => [JSON.stringify(name)],
};

export function literalSyntax(name: SyntaxName): LiteralSyntax {
  return name === "python" ? PYTHON_SYNTAX : name === "raw" ? RAW_SYNTAX : JSON_SYNTAX;
}

// ---------------------------------------------------------------------------------------------
// Python spellings of fixed values

/** Either quote, each with repr's escapes or only the escapes a literal needs: repr's choice depends on the content, a model's may not. */
const pyStringTexts = (s: string): string[] => [
  ...new Set([pyQuoted(s, "'"), pyQuoted(s, '"'), pyQuoted(s, "'", "minimal"), pyQuoted(s, '"', "minimal")]),
];

/** A JSON number is an int or a float on the Python side: whole numbers may be written either way. */
function pyNumberTexts(x: number): string[] {
  const out = Number.isSafeInteger(x) ? [String(x)] : [];
  return [...new Set([...out, pyFloat(x)])];
}
