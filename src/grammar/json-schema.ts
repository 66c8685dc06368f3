/**
 * JSON Schema → grammar IR lowering.
 *
 * The native compiler knows every IR node kind except `jsonSchema`; this module replaces
 * `jsonSchema` nodes with literal/charClass/seq/alt/repeat/perm/ref nodes whose language is
 * exactly the set of JSON texts (in the whitespace style below) whose value the schema accepts,
 * under the semantics listed under "Semantics". Anything that cannot be lowered exactly is an
 * error (UnsupportedSchemaError / InvalidSchemaError) that names the JSON path of the offending
 * keyword and says what to do, never a silently looser or stricter grammar.
 *
 * WHITESPACE (`options.whitespace`)
 *   - "compact": no whitespace anywhere (`{"a":1,"b":[1,2]}`).
 *   - "single" (default): at most one space (U+0020) directly after each `:` and each `,`;
 *     nothing else (`{"a": 1,"b":[1, 2]}`, the shape of `JSON.stringify` and of Python's
 *     `json.dumps`). No space after `{`/`[` or before `}`/`]`/`:`/`,`.
 *   - "any": a run of 0..ANY_WHITESPACE_MAX characters from [space, \t, \n, \r] in every gap
 *     between two structural tokens inside an object or array (after `{`/`[`, before and after
 *     `:`, before and after `,`, before `}`/`]`). Exactly one run per gap, so the grammar
 *     stays unambiguous.
 *   In every mode there is no whitespace before or after the top-level value (the surrounding
 *   grammar owns that), and `enum`/`const` values are emitted as one fixed text (below).
 *
 * SYNTAX (`options.syntax`, spellings in json-syntax.ts)
 *   - "json" (default): JSON texts, as everything below describes.
 *   - "python": the same VALUES written as Python literals (what Python's str() writes, e.g. a
 *     chat template's `{{ value | string }}`): strings in '…' or "…" with the escapes
 *     `\\ \' \" \n \r \t \xHH \uHHHH \UHHHHHHHH` (hex in either case; no surrogate code points,
 *     Python does not pair them), raw characters except the quote, backslash and controls < 0x20;
 *     `True`/`False`/`None`; keys are such strings; separators, whitespace and numbers as in JSON
 *     (Python writes 2.5, 1e-05, 1e+16, 1.0, all JSON number syntax). Fixed texts: a declared
 *     property name or an enum/const string is accepted in either quote with only the necessary
 *     escapes; an enum/const number as Python's int and float spellings (1, 1.0, 1e-05); other
 *     enum/const values as str() writes them (`{'k': [1, True]}`). No tuples, sets or bytes.
 *
 * SEMANTICS (where they differ from plain JSON Schema, on purpose)
 *   - `properties` without `additionalProperties` means `additionalProperties: false`
 *     (a tool call should not invent arguments). A schema with no `properties` keyword and no
 *     `additionalProperties` keyword (e.g. bare `{"type":"object"}`) is a free-form object.
 *   - No `type`: the type-specific keywords present decide the type (`{"properties":…}` is an
 *     object, `{"minLength":1}` a string); plain JSON Schema would also accept every value of
 *     the other types. Without type-specific keywords, every type is allowed.
 *   - `enum`/`const`: each value is emitted as the single text `JSON.stringify(value)` gives
 *     (compact, keys in the schema's order, strings escaped the way JSON.stringify escapes).
 *     Other spellings of the same value (another key order, `1.0`, `"\u0061"`) are rejected.
 *   - Declared property names are accepted only as `JSON.stringify(name)` spells them.
 *   - `oneOf` is lowered like `anyOf`: exclusivity is NOT enforced (a value matching two
 *     alternatives is accepted).
 *   - `integer` is written without fraction or exponent (`-?(0|[1-9][0-9]*)`); JSON Schema
 *     would also accept `1.0` or `1e2`. `-0` is accepted wherever 0 is.
 *   - Strings: any code point except `"`, `\` and controls < 0x20 raw, or the escapes
 *     `\" \\ \/ \b \f \n \r \t \uXXXX` (hex in either case). `\u` escapes of surrogates are
 *     accepted only as a valid high+low pair (one character); lone surrogate escapes are
 *     rejected. `minLength`/`maxLength` count characters (code points): a raw code point, a
 *     short escape, a `\uXXXX` escape or a surrogate-pair escape is one character each,
 *     which is how ajv counts them.
 *   - Duplicate keys: declared properties can appear at most once; keys in free-form objects
 *     and undeclared keys allowed by `additionalProperties` are not checked for duplicates.
 *   - When both declared properties and undeclared keys are allowed, the undeclared keys must
 *     form one contiguous run (anywhere among the declared ones). Undeclared keys never equal a
 *     declared name, under any escape spelling.
 *   - Unconstrained values (`true`, `{}`, missing `items`, `additionalProperties: true`) are any
 *     JSON value with at most `maxFreeNesting` (default 6) nested objects/arrays; a free-form
 *     object/array (`{"type":"object"}`) counts itself as one of those levels.
 *   - `$ref` (local JSON pointers only: `#`, `#/$defs/…`, `#/definitions/…`, any `#/…`) becomes a
 *     `ref` node, so recursive schemas work up to the grammar's `maxRecursionDepth`.
 *   - Numeric bounds: exact for `integer` (|bound| ≤ 2^53); for `number` only bounds equal to 0
 *     (`minimum: 0`, `exclusiveMinimum: 0`, …) are supported.
 *   - `pattern`: exact, as ajv tests it (`new RegExp(pattern, "u").test(decodedString)`: unanchored
 *     unless the pattern starts with `^` / ends with `$`), for the regex subset listed at
 *     `parsePattern`; each character may be written raw or escaped. Not combinable with
 *     `minLength`/`maxLength` (the IR has no intersection).
 *   - Keywords next to `$ref` apply too (2019-09+ semantics); next to `$ref`/`anyOf`/`oneOf`/`allOf`
 *     only `type`/`nullable` (which narrow the alternatives) and annotations are supported.
 *
 * COST ON THE NATIVE ENGINE (which inlines every ref and occurrence into one NFA, 4M states max):
 * a separated list `e (, e)*` holds two copies of `e`, and a `perm` of k items builds each item
 * 2^(k-1) times. So free-form values cost ~4^maxFreeNesting states (~1M at the default 6), and an
 * object with k properties multiplies the cost of each property's value by 2^(k-1).
 *
 * Ignored (annotations): title, description, examples, example (OpenAPI), default, $comment,
 * $schema, $id, deprecated, readOnly, writeOnly, and vendor extensions `x-…`. Every other
 * keyword that is not supported is an UnsupportedSchemaError.
 */
import type { Grammar, GrammarNode, JsonSchemaOptions, PermNode } from "./ir.js";
import { JSON_SYNTAX, literalSyntax, type HexEscape, type LiteralSyntax, type QuoteSyntax } from "./json-syntax.js";

/** Longest whitespace run accepted in one gap in "any" mode. */
export const ANY_WHITESPACE_MAX = 32;
/** Default for `maxFreeNesting`. */
export const DEFAULT_MAX_FREE_NESTING = 6;

// ---------------------------------------------------------------------------------------------
// Errors

/** A schema keyword (or keyword value) that this lowering does not implement. */
export class UnsupportedSchemaError extends Error {
  /** JSON path of the offending keyword, e.g. `$.properties.path.format`. */
  readonly path: string;
  readonly keyword: string;
  constructor(path: string, keyword: string, detail: string) {
    super(`${path}: ${detail}`);
    this.name = "UnsupportedSchemaError";
    this.path = path;
    this.keyword = keyword;
  }
}

/** A schema that is malformed, or that no value can match. */
export class InvalidSchemaError extends Error {
  /** JSON path of the offending schema or keyword. */
  readonly path: string;
  /** The keyword at fault, when there is one. */
  readonly keyword: string | undefined;
  constructor(path: string, keyword: string | undefined, detail: string) {
    super(`${path}: ${detail}`);
    this.name = "InvalidSchemaError";
    this.path = path;
    this.keyword = keyword;
  }
}

const unsupported = (path: string, kw: string, hint: string) =>
  new UnsupportedSchemaError(childPath(path, kw), kw, `"${kw}" is not supported; ${hint}`);
const invalid = (path: string, kw: string | undefined, detail: string) =>
  new InvalidSchemaError(kw === undefined ? path : childPath(path, kw), kw, detail);

// ---------------------------------------------------------------------------------------------
// Keywords

const ANNOTATIONS = new Set([
  "title", "description", "examples", "example", "default", "$comment", "$schema", "$id",
  "deprecated", "readOnly", "writeOnly",
]);
const DEFS = new Set(["$defs", "definitions"]);
const STRING_KW = ["minLength", "maxLength", "pattern"] as const;
const NUMBER_KW = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const OBJECT_KW = ["properties", "required", "additionalProperties"] as const;
const ARRAY_KW = ["items", "prefixItems", "additionalItems", "minItems", "maxItems"] as const;
const SUPPORTED = new Set<string>([
  "type", "nullable", "enum", "const", "anyOf", "oneOf", "allOf", "$ref", "uniqueItems",
  ...STRING_KW, ...NUMBER_KW, ...OBJECT_KW, ...ARRAY_KW,
]);
const ENUM_ALT = 'or list the allowed values with "enum"';
const UNSUPPORTED_HINTS: Record<string, string> = {
  format: `remove it (formats are not enforced by the grammar; describe the format in "description"), ${ENUM_ALT}`,
  multipleOf: `remove it, or ${ENUM_ALT}`,
  minProperties: 'remove it; list the properties that must be present in "required" instead',
  maxProperties: 'remove it; set "additionalProperties": false and declare the allowed properties',
  patternProperties: 'use "additionalProperties" with a value schema instead',
  propertyNames: "remove it",
  dependentRequired: 'remove it, or split the alternatives with "anyOf"',
  dependentSchemas: 'remove it, or split the alternatives with "anyOf"',
  dependencies: 'remove it, or split the alternatives with "anyOf"',
  unevaluatedProperties: 'use "additionalProperties" instead',
  unevaluatedItems: 'use "items" instead',
  contains: "remove it",
  minContains: "remove it",
  maxContains: "remove it",
  not: 'rewrite the schema without it (list the allowed cases with "anyOf" or "enum")',
  if: 'rewrite the condition as "anyOf" alternatives',
  then: 'rewrite the condition as "anyOf" alternatives',
  else: 'rewrite the condition as "anyOf" alternatives',
  $dynamicRef: 'use "$ref" to "#/$defs/…"',
  $dynamicAnchor: 'use "$ref" to "#/$defs/…"',
  $recursiveRef: 'use "$ref" to "#/$defs/…"',
  $recursiveAnchor: 'use "$ref" to "#/$defs/…"',
  $anchor: 'refer to the schema with "$ref": "#/$defs/…" instead',
  $vocabulary: "remove it",
  contentEncoding: "remove it",
  contentMediaType: "remove it",
  contentSchema: "remove it",
  discriminator: 'remove it ("anyOf"/"oneOf" alternatives are matched by their own schemas)',
};

type TypeName = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";
const TYPE_ORDER: TypeName[] = ["null", "boolean", "integer", "number", "string", "array", "object"];
const ALL_TYPES: ReadonlySet<TypeName> = new Set(TYPE_ORDER.filter((t) => t !== "integer"));

/** A set of types; "number" includes "integer", so a normalised set never holds both. */
function normTypes(ts: Iterable<TypeName>): Set<TypeName> {
  const s = new Set(ts);
  if (s.has("number")) s.delete("integer");
  return s;
}
function intersectTypes(a: ReadonlySet<TypeName>, b: ReadonlySet<TypeName>): Set<TypeName> {
  const out = new Set<TypeName>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if ((t === "integer" && b.has("number")) || (t === "number" && b.has("integer"))) out.add("integer");
  }
  return normTypes(out);
}
function typeKey(ts: ReadonlySet<TypeName>): string {
  return TYPE_ORDER.filter((t) => ts.has(t)).join(",");
}
function typeOk(v: unknown, ts: ReadonlySet<TypeName>): boolean {
  if (v === null) return ts.has("null");
  switch (typeof v) {
    case "boolean": return ts.has("boolean");
    case "string": return ts.has("string");
    case "number": return ts.has("number") || (ts.has("integer") && Number.isInteger(v));
    case "object": return Array.isArray(v) ? ts.has("array") : ts.has("object");
    default: return false;
  }
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/** The keywords of one schema object, checked and sorted by role. */
interface Info {
  path: string;
  s: Obj;
  /** From `type` (+ "null" from `nullable: true`); null when there is no `type`. */
  types: Set<TypeName> | null;
  /** Types whose keywords appear (for schemas without `type`). */
  implied: Set<TypeName>;
  /** Constraining keywords other than type/nullable/enum/const/composition. */
  constraining: string[];
  /** enum ∩ const, deduplicated; null when neither appears. */
  values: unknown[] | null;
  anyOf?: unknown[];
  oneOf?: unknown[];
  allOf?: unknown[];
  ref?: string;
}

function analyze(schema: unknown, path: string): Info {
  if (!isObj(schema)) {
    throw invalid(path, undefined, `a schema must be an object or a boolean, got ${describe(schema)}; fix the schema`);
  }
  const s = schema;
  const info: Info = { path, s, types: null, implied: new Set(), constraining: [], values: null };
  for (const kw of Object.keys(s)) {
    if (ANNOTATIONS.has(kw) || DEFS.has(kw) || kw.startsWith("x-")) continue;
    if (!SUPPORTED.has(kw)) {
      const hint = UNSUPPORTED_HINTS[kw];
      if (hint !== undefined) throw unsupported(path, kw, hint);
      throw new UnsupportedSchemaError(childPath(path, kw), kw,
        `"${kw}" is not supported (not a JSON Schema keyword this lowering knows); remove it, or prefix vendor extensions with "x-"`);
    }
  }
  for (const kw of DEFS) {
    if (hasOwn(s, kw) && !isObj(s[kw])) throw invalid(path, kw, `"${kw}" must be an object mapping names to schemas`);
  }
  // type / nullable
  if (hasOwn(s, "type")) {
    const t = s.type;
    const list = typeof t === "string" ? [t] : t;
    if (!Array.isArray(list) || list.length === 0 || !list.every((x): x is TypeName => typeof x === "string" && (TYPE_ORDER as string[]).includes(x))) {
      throw invalid(path, "type", `"type" must be one of ${TYPE_ORDER.join(", ")} or a non-empty array of them, got ${describe(t)}`);
    }
    info.types = normTypes(list);
  }
  if (hasOwn(s, "nullable")) {
    if (typeof s.nullable !== "boolean") throw invalid(path, "nullable", '"nullable" must be true or false');
    if (info.types === null) {
      throw invalid(path, "nullable", '"nullable" needs a "type" next to it; add "type", or write "anyOf": [<schema>, {"type": "null"}]');
    }
    if (s.nullable) info.types.add("null");
    else if (info.types.has("null")) throw invalid(path, "nullable", '"type" includes "null" but "nullable" is false; remove one of them');
  }
  // enum / const
  if (hasOwn(s, "enum")) {
    const e = s.enum;
    if (!Array.isArray(e) || e.length === 0) throw invalid(path, "enum", '"enum" must be a non-empty array of values');
    e.forEach((v, i) => assertJson(v, childPath(childPath(path, "enum"), i)));
    info.values = e;
  }
  if (hasOwn(s, "const")) {
    assertJson(s.const, childPath(path, "const"));
    info.values = info.values === null ? [s.const] : info.values.filter((v) => deepEqual(v, s.const));
  }
  if (info.values !== null) {
    const seen = new Set<string>();
    info.values = info.values.filter((v) => { const k = JSON.stringify(v); if (seen.has(k)) return false; seen.add(k); return true; });
  }
  // composition
  for (const kw of ["anyOf", "oneOf", "allOf"] as const) {
    if (!hasOwn(s, kw)) continue;
    const v = s[kw];
    if (!Array.isArray(v) || v.length === 0) throw invalid(path, kw, `"${kw}" must be a non-empty array of schemas`);
    info[kw] = v;
  }
  if (hasOwn(s, "$ref")) {
    if (typeof s.$ref !== "string") throw invalid(path, "$ref", '"$ref" must be a string');
    info.ref = s.$ref;
  }
  // type-specific keywords
  const nonNegInt = (kw: string) => {
    const v = s[kw];
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) throw invalid(path, kw, `"${kw}" must be a non-negative integer, got ${describe(v)}`);
  };
  for (const kw of ["minLength", "maxLength"]) if (hasOwn(s, kw)) nonNegInt(kw);
  if (hasOwn(s, "pattern")) {
    if (typeof s.pattern !== "string") throw invalid(path, "pattern", '"pattern" must be a string (a regular expression)');
    try { new RegExp(s.pattern, "u"); } catch (e) {
      throw invalid(path, "pattern", `"pattern" is not a valid regular expression (${(e as Error).message}); fix it`);
    }
  }
  for (const kw of STRING_KW) if (hasOwn(s, kw)) { info.implied.add("string"); info.constraining.push(kw); }
  for (const kw of NUMBER_KW) {
    if (!hasOwn(s, kw)) continue;
    if (typeof s[kw] !== "number" || !Number.isFinite(s[kw])) {
      throw invalid(path, kw, `"${kw}" must be a number, got ${describe(s[kw])}${typeof s[kw] === "boolean" ? ' (the draft-04 boolean form is not supported; give the bound itself, e.g. "exclusiveMinimum": 0)' : ""}`);
    }
    info.implied.add("number"); info.constraining.push(kw);
  }
  if (hasOwn(s, "properties")) {
    if (!isObj(s.properties)) throw invalid(path, "properties", '"properties" must be an object mapping names to schemas');
  }
  if (hasOwn(s, "required")) {
    const r = s.required;
    if (!Array.isArray(r) || !r.every((x) => typeof x === "string")) throw invalid(path, "required", '"required" must be an array of property names');
  }
  if (hasOwn(s, "additionalProperties")) assertSchemaShape(s.additionalProperties, childPath(path, "additionalProperties"));
  for (const kw of OBJECT_KW) if (hasOwn(s, kw)) { info.implied.add("object"); info.constraining.push(kw); }
  if (hasOwn(s, "items") && !Array.isArray(s.items)) assertSchemaShape(s.items, childPath(path, "items"));
  if (hasOwn(s, "prefixItems") && !Array.isArray(s.prefixItems)) throw invalid(path, "prefixItems", '"prefixItems" must be an array of schemas');
  if (hasOwn(s, "additionalItems")) assertSchemaShape(s.additionalItems, childPath(path, "additionalItems"));
  if (hasOwn(s, "prefixItems") && Array.isArray(s.items)) throw invalid(path, "items", 'use either "prefixItems" or the array form of "items", not both');
  for (const kw of ["minItems", "maxItems"]) if (hasOwn(s, kw)) nonNegInt(kw);
  for (const kw of ARRAY_KW) if (hasOwn(s, kw)) { info.implied.add("array"); info.constraining.push(kw); }
  if (hasOwn(s, "uniqueItems")) {
    if (typeof s.uniqueItems !== "boolean") throw invalid(path, "uniqueItems", '"uniqueItems" must be true or false');
    if (s.uniqueItems) throw unsupported(path, "uniqueItems", "remove it (the grammar cannot exclude duplicate items)");
  }
  return info;
}

function assertSchemaShape(x: unknown, path: string): void {
  if (typeof x !== "boolean" && !isObj(x)) throw new InvalidSchemaError(path, undefined, `a schema must be an object or a boolean, got ${describe(x)}; fix the schema`);
}

function assertJson(v: unknown, path: string): void {
  const ok = (x: unknown): boolean => {
    if (x === null || typeof x === "string" || typeof x === "boolean") return true;
    if (typeof x === "number") return Number.isFinite(x);
    if (Array.isArray(x)) return x.every(ok);
    if (isObj(x)) return Object.values(x).every(ok);
    return false;
  };
  if (!ok(v)) throw new InvalidSchemaError(path, undefined, "value is not JSON (undefined, NaN, Infinity, functions, … have no JSON text); fix the schema");
}

/** Types the schema's value may have, or null for "any" (before restrictions from outside). */
function effectiveTypes(info: Info): Set<TypeName> | null {
  if (info.types !== null) return info.types;
  return info.implied.size > 0 ? normTypes(info.implied) : null;
}

// ---------------------------------------------------------------------------------------------
// Paths

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
function childPath(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
function describe(x: unknown): string {
  if (x === undefined) return "undefined";
  if (Array.isArray(x)) return "an array";
  if (x === null) return "null";
  if (typeof x === "object") return "an object";
  try { return JSON.stringify(x) ?? String(x); } catch { return String(x); }
}

// ---------------------------------------------------------------------------------------------
// IR helpers: small, flattened, literal-merged nodes.

type Node = GrammarNode;
const lit = (text: string): Node => ({ type: "literal", text });
const cls = (ranges: Array<[number, number]>, negated = false): Node =>
  ({ type: "charClass", ranges: mergeRanges(ranges), ...(negated ? { negated } : {}) });
const rep = (item: Node, min: number, max: number | null): Node => ({ type: "repeat", item, min, max });
const opt = (item: Node): Node => rep(item, 0, 1);
const refTo = (name: string): Node => ({ type: "ref", name });

/** seq that drops nulls, flattens nested seqs and merges adjacent literals. */
function seq(...parts: Array<Node | null | undefined>): Node {
  const out: Node[] = [];
  const push = (n: Node) => {
    if (n.type === "seq") { n.items.forEach(push); return; }
    const last = out[out.length - 1];
    if (n.type === "literal" && last?.type === "literal") { out[out.length - 1] = lit(last.text + n.text); return; }
    if (n.type === "literal" && n.text === "") return;
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 1) return out[0]!;
  if (out.length === 0) return lit(""); // not reached by the lowering: every call has a token
  return { type: "seq", items: out };
}

/** alt that drops nulls, flattens and deduplicates; null when nothing is left (empty language). */
function alt(parts: Array<Node | null | undefined>): Node | null {
  const out: Node[] = [];
  const seen = new Set<string>();
  const push = (n: Node) => {
    if (n.type === "alt") { n.items.forEach(push); return; }
    const k = JSON.stringify(n);
    if (seen.has(k)) return;
    seen.add(k);
    out.push(n);
  };
  for (const p of parts) if (p) push(p);
  if (out.length === 0) return null;
  if (out.length === 1) return out[0]!;
  return { type: "alt", items: out };
}

function mergeRanges(ranges: Array<[number, number]>): Array<[number, number]> {
  const sorted = ranges.map(([a, b]): [number, number] => [a, b]).sort((x, y) => x[0] - y[0]);
  const out: Array<[number, number]> = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1]);
    else out.push(r);
  }
  return out;
}

/** Ranges of [lo,hi] minus the given points. */
function subtractPoints(ranges: Array<[number, number]>, points: Iterable<number>): Array<[number, number]> {
  const pts = [...new Set(points)].sort((a, b) => a - b);
  const out: Array<[number, number]> = [];
  for (const [a, b] of ranges) {
    let start = a;
    for (const p of pts) {
      if (p < start || p > b) continue;
      if (p > start) out.push([start, p - 1]);
      start = p + 1;
    }
    if (start <= b) out.push([start, b]);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fixed-width digit ranges (integer bounds, \uXXXX escapes)

type DigitFn = (a: number, b: number) => Node;
const decDigit: DigitFn = (a, b) => (a === b ? lit(String(a)) : cls([[0x30 + a, 0x30 + b]]));
/** Hex digit values a..b, letters in either case. */
const hexDigit: DigitFn = (a, b) => {
  if (a === b && a <= 9) return lit(String(a));
  const ranges: Array<[number, number]> = [];
  const dl = a, dh = Math.min(b, 9);
  if (dl <= dh) ranges.push([0x30 + dl, 0x30 + dh]);
  const ll = Math.max(a, 10), lh = b;
  if (ll <= lh) { ranges.push([0x61 + ll - 10, 0x61 + lh - 10]); ranges.push([0x41 + ll - 10, 0x41 + lh - 10]); }
  return cls(ranges);
};

/** Strings of exactly `width` digits (base `base`, leading zeros allowed) whose value is in [lo, hi]. */
function fixedRange(lo: bigint, hi: bigint, width: number, base: number, digit: DigitFn): Node {
  const B = BigInt(base);
  if (width === 1) return digit(Number(lo), Number(hi));
  const p = B ** BigInt(width - 1);
  const a = lo / p, b = hi / p, lr = lo % p, hr = hi % p;
  if (a === b) return seq(digit(Number(a), Number(a)), fixedRange(lr, hr, width - 1, base, digit));
  const anyTail = () => rep(digit(0, base - 1), width - 1, width - 1);
  const parts: Node[] = [];
  let midLo = a + 1n, midHi = b - 1n;
  if (lr === 0n) midLo = a;
  else parts.push(seq(digit(Number(a), Number(a)), fixedRange(lr, p - 1n, width - 1, base, digit)));
  const highFull = hr === p - 1n;
  if (highFull) midHi = b;
  if (midLo <= midHi) parts.push(seq(digit(Number(midLo), Number(midHi)), anyTail()));
  if (!highFull) parts.push(seq(digit(Number(b), Number(b)), fixedRange(0n, hr, width - 1, base, digit)));
  return alt(parts)!;
}

const hexRange = (lo: number, hi: number, width = 4) => fixedRange(BigInt(lo), BigInt(hi), width, 16, hexDigit);
const hexExact = (n: number, width = 4) => hexRange(n, n, width);

/** Decimal integers without leading zeros in [lo, hi] (lo ≥ 0; hi null = unbounded). */
function nonNegIntRange(lo: bigint, hi: bigint | null): Node | null {
  if (hi !== null && lo > hi) return null;
  const parts: Node[] = [];
  if (lo === 0n) { parts.push(lit("0")); lo = 1n; }
  for (let w = 1; ; w++) {
    const wLo = 10n ** BigInt(w - 1), wHi = 10n ** BigInt(w) - 1n;
    if (hi !== null && wLo > hi) break;
    const l = lo > wLo ? lo : wLo;
    const h = hi === null || hi > wHi ? wHi : hi;
    if (l > h) continue;
    if (hi === null && l === wLo) {
      // every width from here on is fully covered
      parts.push(seq(cls([[0x31, 0x39]]), rep(cls([[0x30, 0x39]]), w - 1, null)));
      break;
    }
    parts.push(fixedRange(l, h, w, 10, decDigit));
  }
  return alt(parts);
}

const MAX_EXACT = 2n ** 53n;

/** Integers (JSON integer syntax, `-0` when 0 is in range) in [lo, hi]; null bound = unbounded. */
function integerRange(lo: bigint | null, hi: bigint | null): Node | null {
  if (lo !== null && hi !== null && lo > hi) return null;
  const parts: Array<Node | null> = [];
  if (hi === null || hi >= 0n) parts.push(nonNegIntRange(lo !== null && lo > 0n ? lo : 0n, hi));
  const neg: Array<Node | null> = [];
  const zeroIn = (lo === null || lo <= 0n) && (hi === null || hi >= 0n);
  if (zeroIn) neg.push(lit("0"));
  if (lo === null || lo <= -1n) neg.push(nonNegIntRange(hi !== null && hi < 0n ? -hi : 1n, lo === null ? null : -lo));
  const n = alt(neg);
  if (n) parts.push(seq(lit("-"), n));
  return alt(parts);
}

// ---------------------------------------------------------------------------------------------
// String characters, in the quote syntax `q` (json-syntax.ts: JSON's "…", Python's '…' and "…")

const JSON_QUOTE = JSON_SYNTAX.quotes[0]!;
const rawAllowed = (cp: number, q: QuoteSyntax) => !inRanges(q.rawExcluded, cp);
const surrogates = (cp: number): [number, number] => {
  const v = cp - 0x10000;
  return [0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff)];
};
/** Code points a hex escape of `h` can stand for (never a lone surrogate). */
const hexDomain = (h: HexEscape): Ranges => intersect([[0, h.max]], ENCODABLE);
const letterClass = (short: Array<[string, number]>) => cls(short.map(([ch]): [number, number] => [ch.codePointAt(0)!, ch.codePointAt(0)!]));

/** One string character (raw or escaped) that does not decode to any code point in `except`. */
function charExcept(except: ReadonlySet<number>, q: QuoteSyntax = JSON_QUOTE): Node {
  const raw = cls([...q.rawExcluded, ...[...except].filter((c) => rawAllowed(c, q)).map((c): [number, number] => [c, c])], true);
  const shortChars = q.short.filter(([, cp]) => !except.has(cp));
  const hexes = q.hex.map((h) => {
    const parts: Array<Node | null> = subtractPoints(hexDomain(h), except).map(([a, b]) => hexRange(a, b, h.digits));
    if (h.letter === "u" && q.surrogatePairs) {
      // astral characters: a surrogate-pair escape
      const byHigh = new Map<number, number[]>();
      for (const c of except) {
        if (c <= 0xffff) continue;
        const [hi, lo] = surrogates(c);
        byHigh.set(hi, [...(byHigh.get(hi) ?? []), lo]);
      }
      const freeHighs = alt(subtractPoints([[0xd800, 0xdbff]], byHigh.keys()).map(([a, b]) => hexRange(a, b)));
      if (freeHighs) parts.push(seq(freeHighs, lit("\\u"), hexRange(0xdc00, 0xdfff)));
      for (const [hi, lows] of byHigh) {
        const l = alt(subtractPoints([[0xdc00, 0xdfff]], lows).map(([a, b]) => hexRange(a, b)));
        if (l) parts.push(seq(hexExact(hi), lit("\\u"), l));
      }
    }
    const body = alt(parts);
    return body ? seq(lit(h.letter), body) : null;
  });
  const escBody = alt([shortChars.length ? letterClass(shortChars) : null, ...hexes]);
  return alt([raw, escBody ? seq(lit("\\"), escBody) : null])!;
}

/** Every spelling of code point `cp` inside a string. */
function encodings(cp: number, q: QuoteSyntax = JSON_QUOTE): Node {
  const parts: Node[] = [];
  if (rawAllowed(cp, q)) parts.push(lit(String.fromCodePoint(cp)));
  const short = q.short.find(([, c]) => c === cp);
  if (short) parts.push(lit("\\" + short[0]));
  for (const h of q.hex) {
    if (inRanges(hexDomain(h), cp)) parts.push(seq(lit("\\" + h.letter), hexExact(cp, h.digits)));
    else if (h.letter === "u" && q.surrogatePairs && cp > 0xffff) {
      const [hi, lo] = surrogates(cp);
      parts.push(seq(lit("\\u"), hexExact(hi), lit("\\u"), hexExact(lo)));
    }
  }
  return alt(parts)!;
}

// ---------------------------------------------------------------------------------------------
// Numbers

const DIGIT = cls([[0x30, 0x39]]);
const DIGITS = rep(DIGIT, 1, null);
const FRAC = seq(lit("."), DIGITS);
const EXP = seq(cls([[0x45, 0x45], [0x65, 0x65]]), opt(cls([[0x2b, 0x2b], [0x2d, 0x2d]])), DIGITS);
const INT_PART = alt([lit("0"), seq(cls([[0x31, 0x39]]), rep(DIGIT, 0, null))])!;
/** Unsigned magnitude whose value is not 0. */
const MAG_NONZERO = seq(
  alt([seq(cls([[0x31, 0x39]]), rep(DIGIT, 0, null), opt(FRAC)), seq(lit("0."), rep(lit("0"), 0, null), cls([[0x31, 0x39]]), rep(DIGIT, 0, null))]),
  opt(EXP),
);
/** Unsigned spellings of zero: 0, 0.000, 0e5, 0.0E-3, … */
const MAG_ZERO = seq(lit("0"), opt(seq(lit("."), rep(lit("0"), 1, null))), opt(EXP));
const MAG_ANY = seq(INT_PART, opt(FRAC), opt(EXP));

// ---------------------------------------------------------------------------------------------
// Whitespace profiles

interface Ws {
  /** Before each member/element (after `{`, `[` or `,`). */
  lead?: Node;
  beforeColon?: Node;
  afterColon?: Node;
  beforeComma?: Node;
  afterComma?: Node;
  beforeClose?: Node;
}
function wsProfile(mode: NonNullable<JsonSchemaOptions["whitespace"]>): Ws {
  if (mode === "compact") return {};
  if (mode === "single") return { afterColon: opt(lit(" ")), afterComma: opt(lit(" ")) };
  const w = rep(cls([[0x20, 0x20], [0x09, 0x0a], [0x0d, 0x0d]]), 0, ANY_WHITESPACE_MAX);
  return { lead: w, beforeColon: w, afterColon: w, beforeComma: w, beforeClose: w };
}

// ---------------------------------------------------------------------------------------------
// The lowering

interface Names { shared: string; local: string }

class Lowerer {
  readonly rules: Record<string, Node> = {};
  private readonly ws: Ws;
  private readonly sep: Node;
  private readonly mode: NonNullable<JsonSchemaOptions["whitespace"]>;
  private readonly nest: number;
  private readonly cap: number | undefined;
  private readonly syn: LiteralSyntax;

  constructor(private readonly rootSchema: unknown, options: JsonSchemaOptions, private readonly rootPath: string, private readonly names: Names) {
    const mode = options.whitespace ?? "single";
    if (mode !== "compact" && mode !== "single" && mode !== "any") {
      throw new RangeError(`JsonSchemaOptions.whitespace must be "compact", "single" or "any", got ${describe(mode)}`);
    }
    const nest = options.maxFreeNesting ?? DEFAULT_MAX_FREE_NESTING;
    if (!Number.isSafeInteger(nest) || nest < 0) throw new RangeError(`JsonSchemaOptions.maxFreeNesting must be a non-negative integer, got ${describe(nest)}`);
    const syntax = options.syntax ?? "json";
    if (syntax !== "json" && syntax !== "python") throw new RangeError(`JsonSchemaOptions.syntax must be "json" or "python", got ${describe(syntax)}`);
    this.syn = literalSyntax(syntax);
    const cap = options.maxStringLength;
    if (cap !== undefined && !(Number.isSafeInteger(cap) && cap >= 0)) throw new RangeError(`JsonSchemaOptions.maxStringLength must be a non-negative integer, got ${describe(cap)}`);
    this.cap = cap;
    this.mode = mode;
    this.nest = nest;
    this.ws = wsProfile(mode);
    this.sep = seq(this.ws.beforeComma, lit(","), this.ws.afterComma);
  }

  // -- shared rules ---------------------------------------------------------------------------

  private rule(name: string, build: () => Node): Node {
    if (!hasOwn(this.rules, name)) {
      this.rules[name] = lit(""); // placeholder: build() never refers back to a shared rule
      this.rules[name] = build();
    }
    return refTo(name);
  }
  /** Shared rules of the Python syntax live under `py.`: equal names must mean equal rules. */
  private sharedName(n: string) { return `${this.names.shared}.${this.syn === JSON_SYNTAX ? "" : "py."}${this.cap === undefined ? "" : `max${this.cap}.`}${n}`; }
  private charName(q: QuoteSyntax) { return this.syn.quotes.length > 1 ? `char.${q.id}` : "char"; }
  /** Any one string character inside quote `q`. */
  char(q: QuoteSyntax): Node { return this.rule(this.sharedName(this.charName(q)), () => charExcept(new Set(), q)); }
  /** `body(q)` between quotes `q`, for each quote of the syntax. */
  private quoted(body: (q: QuoteSyntax) => Node | null): Node | null {
    return alt(this.syn.quotes.map((q) => { const b = body(q); return b && seq(lit(q.quote), b, lit(q.quote)); }));
  }
  string(): Node { return this.rule(this.sharedName("string"), () => this.quoted((q) => rep(this.char(q), 0, null))!); }
  /** A string value: any string, or at most `maxStringLength` characters. */
  valueString(): Node {
    if (this.cap === undefined) return this.string();
    return this.rule(this.sharedName("value-string"), () => this.quoted((q) => rep(this.char(q), 0, this.cap!))!);
  }
  /** The fixed spellings of `texts` (enum/const values, declared keys). */
  private fixed(texts: string[]): Node | null { return alt(texts.map(lit)); }
  number(): Node { return this.rule(this.sharedName("number"), () => seq(opt(lit("-")), MAG_ANY)); }
  integer(): Node { return this.rule(this.sharedName("integer"), () => integerRange(null, null)!); }

  /** Any JSON value with at most `d` levels of containers. */
  freeValue(d: number): Node {
    return this.rule(this.sharedName(`free.${this.mode}.value${d}`), () =>
      alt([lit(this.syn.constants.null), lit(this.syn.constants.true), lit(this.syn.constants.false), this.number(), this.valueString(), d > 0 ? this.freeArray(d) : null, d > 0 ? this.freeObject(d) : null])!);
  }
  /** A free-form object counting as one of `d` container levels. */
  freeObject(d: number): Node {
    return this.rule(this.sharedName(`free.${this.mode}.object${d}`), () =>
      this.objectOf([], d > 0 ? { key: this.string(), value: this.freeValue(d - 1) } : null));
  }
  freeArray(d: number): Node {
    return this.rule(this.sharedName(`free.${this.mode}.array${d}`), () =>
      this.arrayOf([], d > 0 ? this.freeValue(d - 1) : null, 0, null));
  }

  // -- containers -----------------------------------------------------------------------------

  private member(key: Node, value: Node): Node {
    return seq(this.ws.lead, key, this.ws.beforeColon, lit(":"), this.ws.afterColon, value);
  }
  private close(ch: string): Node { return seq(this.ws.beforeClose, lit(ch)); }

  /** `{ … }` with declared members (any order, at most once) and an optional run of extra members. */
  objectOf(declared: Array<{ node: Node; required: boolean }>, extra: { key: Node; value: Node } | null): Node {
    const items = [...declared];
    if (extra) {
      const m = this.member(extra.key, extra.value);
      items.push({ node: seq(m, rep(seq(this.sep, m), 0, null)), required: false });
    }
    let body: Node | null = null;
    if (items.length === 1) body = items[0]!.required ? items[0]!.node : opt(items[0]!.node);
    else if (items.length > 1) body = { type: "perm", items, separator: this.sep } satisfies PermNode;
    return seq(lit("{"), body, this.close("}"));
  }

  /**
   * `[ … ]`: element i matches prefix[i] for i < prefix.length, `rest` afterwards
   * (null = no further elements), with the element count in [min, max].
   */
  arrayOf(prefix: Node[], rest: Node | null, min: number, max: number | null): Node {
    const el = (n: Node, i: number) => seq(i > 0 ? this.sep : null, this.ws.lead, n);
    const from = (i: number): Node | null => {
      if (max !== null && i >= max) return null;
      if (i < prefix.length) {
        const tail = from(i + 1);
        const body = seq(el(prefix[i]!, i), tail);
        return i >= min ? opt(body) : body;
      }
      if (!rest) return null;
      const restMin = Math.max(0, min - i), restMax = max === null ? null : max - i;
      if (i === 0) {
        const core = seq(el(rest, 0), rep(el(rest, 1), Math.max(0, restMin - 1), restMax === null ? null : restMax - 1));
        return restMin >= 1 ? core : opt(core);
      }
      return rep(el(rest, i), restMin, restMax);
    };
    return seq(lit("["), from(0), this.close("]"));
  }

  // -- schemas --------------------------------------------------------------------------------

  /** The grammar of `schema`, restricted to `allowed` types; null = no value matches. */
  lower(schema: unknown, path: string, allowed: ReadonlySet<TypeName> | null = null): Node | null {
    if (schema === true) return allowed ? this.byTypes(allowed, true) : this.freeValue(this.nest);
    if (schema === false) return null;
    const info = analyze(schema, path);
    let types = effectiveTypes(info);
    if (allowed) types = intersectTypes(types ?? ALL_TYPES, allowed);

    if (info.values !== null) {
      // enum/const: the fixed texts of the values that also pass the sibling keywords
      const rest = { ...info.s };
      delete rest.enum; delete rest.const;
      const ok = info.values.filter((v) => this.check(v, rest, path, allowed));
      return alt(ok.map((v) => this.fixed(this.syn.valueTexts(v))));
    }

    const comps = (["$ref", "anyOf", "oneOf", "allOf"] as const).filter((k) => hasOwn(info.s, k));
    if (comps.length > 0) {
      const kw = comps[0]!;
      if (comps.length > 1) {
        throw new UnsupportedSchemaError(childPath(path, comps[1]!), comps[1]!, `"${comps[1]}" next to "${kw}" in one schema is not supported; merge them into a single "${kw}" or "${comps[1]}"`);
      }
      if (info.constraining.length > 0) {
        throw new UnsupportedSchemaError(childPath(path, kw), kw, `"${kw}" together with "${info.constraining[0]}" is not supported; move "${info.constraining[0]}" into the ${kw === "$ref" ? "referenced schema" : `"${kw}" alternatives`}`);
      }
      if (info.ref !== undefined) return this.refNode(info.ref, path, types);
      if (info.allOf) {
        const real = info.allOf.filter((x) => !isTrivial(x));
        if (real.length > 1) {
          throw new UnsupportedSchemaError(childPath(path, "allOf"), "allOf", '"allOf" with more than one constraining schema is not supported; merge them into one schema');
        }
        const i = real.length === 0 ? 0 : info.allOf.indexOf(real[0]);
        return this.lower(info.allOf[i], childPath(childPath(path, "allOf"), i), types);
      }
      const list = (info.anyOf ?? info.oneOf)!;
      return alt(list.map((b, i) => this.lower(b, childPath(childPath(path, kw), i), types)));
    }

    // no type and no type-specific keywords: any value
    if (types === null) return this.freeValue(this.nest);
    return this.byTypes(types, false, info);
  }

  /** One alternative per type; `info` supplies the type-specific keywords (none for `true`). */
  private byTypes(types: ReadonlySet<TypeName>, free: boolean, info?: Info): Node | null {
    const parts: Array<Node | null> = [];
    for (const t of TYPE_ORDER) {
      if (!types.has(t)) continue;
      switch (t) {
        case "null": parts.push(lit(this.syn.constants.null)); break;
        case "boolean": parts.push(lit(this.syn.constants.true), lit(this.syn.constants.false)); break;
        case "integer": parts.push(info ? this.lowerNumber(info, true) : this.integer()); break;
        case "number": parts.push(info ? this.lowerNumber(info, false) : this.number()); break;
        case "string": parts.push(info ? this.lowerString(info) : this.valueString()); break;
        case "array": parts.push(free || !info ? this.freeArray(this.nest) : this.lowerArray(info)); break;
        case "object": parts.push(free || !info ? this.freeObject(this.nest) : this.lowerObject(info)); break;
      }
    }
    return alt(parts);
  }

  private lowerString(info: Info): Node | null {
    const min = num(info.s.minLength) ?? 0, max = num(info.s.maxLength) ?? null;
    if (typeof info.s.pattern === "string") {
      if (min > 0 || max !== null) {
        throw new UnsupportedSchemaError(childPath(info.path, "pattern"), "pattern",
          `"pattern" together with "${min > 0 ? "minLength" : "maxLength"}" is not supported (the grammar cannot intersect them); drop the length bound, or bound the length inside an anchored pattern, e.g. "^[a-z]{1,10}$"`);
      }
      return this.lowerPattern(info.s.pattern, childPath(info.path, "pattern"));
    }
    if (min === 0 && max === null) return this.valueString();
    const bound = this.cap === undefined ? max : max === null ? this.cap : Math.min(max, this.cap);
    if (bound !== null && min > bound) return null;
    return this.quoted((q) => rep(this.char(q), min, bound));
  }

  /** Strings whose decoded value contains a match of `pattern` (ECMAScript, u flag), as ajv tests it. */
  private lowerPattern(pattern: string, path: string): Node | null {
    const alts = parsePattern(pattern, path);
    return this.quoted((q) => {
      const any = rep(this.char(q), 0, null);
      return alt(alts.map((a) => {
        const n = this.rxNode(a.rx, q);
        return n && seq(a.start ? null : any, n, a.end ? null : any);
      }));
    });
  }

  private rxNode(rx: Rx, q: QuoteSyntax): Node | null {
    switch (rx.k) {
      case "set": return this.setNode(rx.r, q);
      case "seq": {
        const parts = rx.items.map((x) => this.rxNode(x, q));
        return parts.includes(null) ? null : seq(...parts);
      }
      case "alt": return alt(rx.items.map((x) => this.rxNode(x, q)));
      case "rep": {
        const n = this.rxNode(rx.item, q);
        if (!n) return rx.min === 0 ? lit("") : null;
        return rx.max === 1 && rx.min === 1 ? n : rep(n, rx.min, rx.max);
      }
    }
  }

  /** One string character inside quote `q`, raw or escaped, whose decoded code point is in `ranges`. */
  private setNode(ranges: Ranges, q: QuoteSyntax): Node | null {
    const r = mergeRanges(ranges);
    if (intersect(complement(r), ENCODABLE).length === 0) return this.char(q);
    const raw = intersect(r, complement(q.rawExcluded));
    const short = q.short.filter(([, cp]) => inRanges(r, cp));
    const hexes = q.hex.map((h) => {
      const parts: Node[] = intersect(r, hexDomain(h)).map(([a, b]) => hexRange(a, b, h.digits));
      if (h.letter === "u" && q.surrogatePairs) {
        for (const [a, b] of intersect(r, [[0x10000, MAX_CP]])) {
          const [ha, la] = surrogates(a), [hb, lb] = surrogates(b);
          if (ha === hb) { parts.push(seq(hexExact(ha), lit("\\u"), hexRange(la, lb))); continue; }
          parts.push(seq(hexExact(ha), lit("\\u"), hexRange(la, 0xdfff)));
          if (ha + 1 <= hb - 1) parts.push(seq(hexRange(ha + 1, hb - 1), lit("\\u"), hexRange(0xdc00, 0xdfff)));
          parts.push(seq(hexExact(hb), lit("\\u"), hexRange(0xdc00, lb)));
        }
      }
      const body = alt(parts);
      return body ? seq(lit(h.letter), body) : null;
    });
    const esc = alt([short.length ? letterClass(short) : null, ...hexes]);
    return alt([raw.length ? cls(raw) : null, esc ? seq(lit("\\"), esc) : null]);
  }

  private lowerNumber(info: Info, integer: boolean): Node | null {
    const s = info.s, path = info.path;
    const has = (k: string) => hasOwn(s, k);
    if (!NUMBER_KW.some(has)) return integer ? this.integer() : this.number();
    if (integer) {
      let lo: bigint | null = null, hi: bigint | null = null;
      const bound = (k: string, v: number) => {
        if (Math.abs(v) > Number(MAX_EXACT)) throw unsupported(path, k, `bounds beyond ±2^53 cannot be checked exactly; use a smaller bound or remove it (got ${v})`);
      };
      const raise = (b: bigint) => { if (lo === null || b > lo) lo = b; };
      const lower = (b: bigint) => { if (hi === null || b < hi) hi = b; };
      if (has("minimum")) { const v = s.minimum as number; bound("minimum", v); raise(BigInt(Math.ceil(v))); }
      if (has("exclusiveMinimum")) { const v = s.exclusiveMinimum as number; bound("exclusiveMinimum", v); raise(BigInt(Math.floor(v)) + 1n); }
      if (has("maximum")) { const v = s.maximum as number; bound("maximum", v); lower(BigInt(Math.floor(v))); }
      if (has("exclusiveMaximum")) { const v = s.exclusiveMaximum as number; bound("exclusiveMaximum", v); lower(BigInt(Math.ceil(v)) - 1n); }
      return integerRange(lo, hi);
    }
    // numbers: only bounds at 0, decided by sign class (negative / zero / positive)
    let neg = true, zero = true, pos = true;
    for (const k of NUMBER_KW) {
      if (!has(k)) continue;
      if (s[k] !== 0) {
        throw new UnsupportedSchemaError(childPath(path, k), k,
          `"${k}": ${describe(s[k])} on a "number" is not supported (only 0 is supported as a bound for numbers); use "type": "integer" if whole numbers are meant, or remove the bound`);
      }
      if (k === "minimum") neg = false;
      if (k === "exclusiveMinimum") { neg = false; zero = false; }
      if (k === "maximum") pos = false;
      if (k === "exclusiveMaximum") { pos = false; zero = false; }
    }
    const unsigned = alt([pos && zero ? MAG_ANY : null, pos && !zero ? MAG_NONZERO : null, zero && !pos ? MAG_ZERO : null]);
    const signed = alt([neg && zero ? MAG_ANY : null, neg && !zero ? MAG_NONZERO : null, zero && !neg ? MAG_ZERO : null]);
    return alt([unsigned, signed ? seq(lit("-"), signed) : null]);
  }

  private lowerArray(info: Info): Node | null {
    const s = info.s, path = info.path;
    const tuple = Array.isArray(s.prefixItems) ? "prefixItems" : Array.isArray(s.items) ? "items" : null;
    const prefixSchemas = tuple ? (s[tuple] as unknown[]) : [];
    const restKw = tuple === "items" ? "additionalItems" : "items";
    // without the array form of "items", "additionalItems" has no effect (as in JSON Schema)
    const restSchema = hasOwn(s, restKw) ? s[restKw] : true;
    const min = num(s.minItems) ?? 0;
    let max = num(s.maxItems) ?? null;
    if (!tuple && restSchema === true && !hasOwn(s, "minItems") && !hasOwn(s, "maxItems")) return this.freeArray(this.nest);
    const prefix: Node[] = [];
    for (let i = 0; i < prefixSchemas.length; i++) {
      if (max !== null && i >= max) break;
      const n = this.lower(prefixSchemas[i], childPath(childPath(path, tuple!), i));
      if (!n) { max = i; break; } // no value fits slot i: the array ends before it
      prefix.push(n);
    }
    let rest: Node | null = null;
    if (prefix.length === prefixSchemas.length && (max === null || max > prefix.length)) {
      rest = this.lower(restSchema, hasOwn(s, restKw) ? childPath(path, restKw) : path);
      if (!rest) max = prefix.length;
    }
    if (max !== null && min > max) return null;
    return this.arrayOf(prefix, rest, min, max);
  }

  private lowerObject(info: Info): Node | null {
    const s = info.s, path = info.path;
    const props = (isObj(s.properties) ? s.properties : {}) as Obj;
    const required = [...new Set((s.required as string[] | undefined) ?? [])];
    const hasProps = hasOwn(s, "properties");
    const addl: unknown = hasOwn(s, "additionalProperties") ? s.additionalProperties : !hasProps;
    if (!hasProps && addl === true && required.length === 0) return this.freeObject(this.nest);
    const propsPath = childPath(path, "properties");
    const declared: Array<{ node: Node; required: boolean }> = [];
    for (const name of Object.keys(props)) {
      const value = this.lower(props[name], childPath(propsPath, name));
      const req = required.includes(name);
      if (!value) {
        if (req) throw invalid(path, "required", `"${name}" is required but its schema matches no value, so no object can match; fix the schema of ${childPath(propsPath, name)}`);
        continue;
      }
      declared.push({ node: this.member(this.fixed(this.syn.keyTexts(name))!, value), required: req });
    }
    const addlPath = childPath(path, "additionalProperties");
    const addlValue = addl === false ? null : this.lower(addl, hasOwn(s, "additionalProperties") ? addlPath : path);
    for (const name of required) {
      if (hasOwn(props, name)) continue;
      if (!addlValue) {
        throw invalid(path, "required", `"${name}" is required but is not declared in "properties" and additional properties are not allowed, so no object can match; declare "${name}" in "properties" (JSON Schema itself would accept this schema, but it matches nothing)`);
      }
      declared.push({ node: this.member(this.fixed(this.syn.keyTexts(name))!, addlValue), required: true });
    }
    let extra: { key: Node; value: Node } | null = null;
    if (addlValue) {
      const excluded = [...new Set([...Object.keys(props), ...required])];
      extra = { key: excluded.length ? this.keyExcept(excluded) : this.string(), value: addlValue };
    }
    return this.objectOf(declared, extra);
  }

  /** A string (any quote, any spelling) whose decoded value is none of `names`. */
  private keyExcept(names: string[]): Node {
    interface Trie { end: boolean; kids: Map<number, Trie> }
    const root: Trie = { end: false, kids: new Map() };
    for (const name of names) {
      const cps = Array.from(name, (c) => c.codePointAt(0)!);
      // a name with a lone surrogate has no spelling in this grammar, so it needs no exclusion
      if (cps.some((c) => c >= 0xd800 && c <= 0xdfff)) continue;
      let t = root;
      for (const c of cps) {
        let k = t.kids.get(c);
        if (!k) { k = { end: false, kids: new Map() }; t.kids.set(c, k); }
        t = k;
      }
      t.end = true;
    }
    return alt(this.syn.quotes.map((q) => {
      const tail = seq(rep(this.char(q), 0, null), lit(q.quote));
      const build = (t: Trie): Node => alt([
        t.end ? null : lit(q.quote),
        ...[...t.kids].map(([c, k]) => seq(encodings(c, q), build(k))),
        seq(t.kids.size ? charExcept(new Set(t.kids.keys()), q) : this.char(q), tail),
      ])!;
      return seq(lit(q.quote), build(root));
    }))!;
  }

  private refNode(pointer: string, path: string, types: ReadonlySet<TypeName> | null): Node {
    const target = this.resolve(pointer, path);
    const name = `${this.names.local}.ref${pointer}${types ? `|${typeKey(types)}` : ""}`;
    if (!hasOwn(this.rules, name)) {
      this.rules[name] = refTo(name); // placeholder while lowering, so recursion finds the name
      const n = this.lower(target.schema, target.path, types);
      if (!n) throw new InvalidSchemaError(target.path, undefined, `the schema referenced by "$ref": ${JSON.stringify(pointer)} matches no value${types ? ` of type ${typeKey(types)}` : ""}; fix it`);
      this.rules[name] = n;
    }
    return refTo(name);
  }

  private resolve(pointer: string, path: string): { schema: unknown; path: string } {
    const refPath = childPath(path, "$ref");
    if (!pointer.startsWith("#")) {
      throw new UnsupportedSchemaError(refPath, "$ref", `"$ref": ${JSON.stringify(pointer)} is not supported (only local references like "#/$defs/Name" are); inline the referenced schema under "$defs"`);
    }
    let frag: string;
    try { frag = decodeURIComponent(pointer.slice(1)); } catch { throw invalid(path, "$ref", `"$ref": ${JSON.stringify(pointer)} is not a valid URI fragment`); }
    if (frag !== "" && !frag.startsWith("/")) {
      throw new UnsupportedSchemaError(refPath, "$ref", `"$ref": ${JSON.stringify(pointer)} is not supported (anchors are not; only JSON pointers like "#/$defs/Name" are); refer to the schema by its pointer`);
    }
    let cur: unknown = this.rootSchema;
    let p = this.rootPath;
    if (frag !== "") {
      for (const raw of frag.slice(1).split("/")) {
        const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
        if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(seg) && Number(seg) < cur.length) { cur = cur[Number(seg)]; p = childPath(p, Number(seg)); }
        else if (isObj(cur) && hasOwn(cur, seg)) { cur = cur[seg]; p = childPath(p, seg); }
        else throw invalid(path, "$ref", `"$ref": ${JSON.stringify(pointer)} points to nothing in this schema; add the target (e.g. under "$defs") or fix the pointer`);
      }
    }
    if (typeof cur !== "boolean" && !isObj(cur)) throw invalid(path, "$ref", `"$ref": ${JSON.stringify(pointer)} points to ${describe(cur)}, not a schema; fix the pointer`);
    return { schema: cur, path: p };
  }

  // -- value check (for enum/const under sibling keywords), same semantics as the lowering ----

  check(v: unknown, schema: unknown, path: string, allowed: ReadonlySet<TypeName> | null): boolean {
    if (schema === true) return allowed ? typeOk(v, allowed) : true;
    if (schema === false) return false;
    const info = analyze(schema, path);
    let types = effectiveTypes(info);
    if (allowed) types = intersectTypes(types ?? ALL_TYPES, allowed);
    if (types && !typeOk(v, types)) return false;
    if (info.values !== null && !info.values.some((e) => deepEqual(e, v))) return false;
    const s = info.s;
    if (info.ref !== undefined) {
      const t = this.resolve(info.ref, path);
      if (!this.check(v, t.schema, t.path, null)) return false;
    }
    for (const kw of ["anyOf", "oneOf"] as const) {
      const list = info[kw];
      if (list && !list.some((b, i) => this.check(v, b, childPath(childPath(path, kw), i), null))) return false;
    }
    if (info.allOf && !info.allOf.every((b, i) => this.check(v, b, childPath(childPath(path, "allOf"), i), null))) return false;
    if (typeof v === "string") {
      const n = Array.from(v).length;
      if (n < (num(s.minLength) ?? 0) || n > (num(s.maxLength) ?? Infinity)) return false;
      if (typeof s.pattern === "string" && !new RegExp(s.pattern, "u").test(v)) return false;
    } else if (typeof v === "number") {
      if (hasOwn(s, "minimum") && !(v >= (s.minimum as number))) return false;
      if (hasOwn(s, "maximum") && !(v <= (s.maximum as number))) return false;
      if (hasOwn(s, "exclusiveMinimum") && !(v > (s.exclusiveMinimum as number))) return false;
      if (hasOwn(s, "exclusiveMaximum") && !(v < (s.exclusiveMaximum as number))) return false;
    } else if (Array.isArray(v)) {
      if (v.length < (num(s.minItems) ?? 0) || v.length > (num(s.maxItems) ?? Infinity)) return false;
      const tuple = Array.isArray(s.prefixItems) ? "prefixItems" : Array.isArray(s.items) ? "items" : null;
      const prefix = tuple ? (s[tuple] as unknown[]) : [];
      const restKw = tuple === "items" ? "additionalItems" : "items";
      const rest = hasOwn(s, restKw) ? s[restKw] : true;
      for (let i = 0; i < v.length; i++) {
        const sub = i < prefix.length ? prefix[i] : rest;
        const subPath = i < prefix.length ? childPath(childPath(path, tuple!), i) : childPath(path, restKw);
        if (!this.check(v[i], sub, subPath, null)) return false;
      }
    } else if (isObj(v)) {
      const o = v;
      const props = (isObj(s.properties) ? s.properties : {}) as Obj;
      const addl: unknown = hasOwn(s, "additionalProperties") ? s.additionalProperties : !hasOwn(s, "properties");
      for (const r of (s.required as string[] | undefined) ?? []) if (!hasOwn(o, r)) return false;
      for (const k of Object.keys(o)) {
        const sub = hasOwn(props, k) ? props[k] : addl;
        if (!this.check(o[k], sub, childPath(childPath(path, "properties"), k), null)) return false;
      }
    }
    return true;
  }
}

const num = (x: unknown): number | undefined => (typeof x === "number" ? x : undefined);

// ---------------------------------------------------------------------------------------------
// pattern: a regular expression over code points (ECMAScript syntax with the u flag, which is how
// ajv compiles "pattern"), parsed into sets/seq/alt/rep, then spelled as JSON string characters.
// Supported (parsePattern): literals, escapes (\d \w \s and negations, \n \t \xHH \uHHHH \u{H…} \cX \0, identity
// escapes), classes and negated classes, ".", groups ((…), (?:…), (?<name>…)), "|", quantifiers
// (greedy or lazy: same language), "^" at the start and "$" at the end of a top-level alternative.
// Everything else (lookaround, backreferences, \b, \p{…}, anchors elsewhere) is an error.

type Ranges = Array<[number, number]>;
type Rx =
  | { k: "set"; r: Ranges }
  | { k: "seq"; items: Rx[] }
  | { k: "alt"; items: Rx[] }
  | { k: "rep"; item: Rx; min: number; max: number | null };

const MAX_CP = 0x10ffff;
/** Code points a JSON string can hold in this grammar (no lone surrogates). */
const ENCODABLE: Ranges = [[0, 0xd7ff], [0xe000, MAX_CP]];
const LINE_TERMINATORS: Ranges = [[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]];
const DIGIT_R: Ranges = [[0x30, 0x39]];
const WORD_R: Ranges = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
const SPACE_R: Ranges = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029],
  [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];

function complement(r: Ranges): Ranges {
  const out: Ranges = [];
  let next = 0;
  for (const [a, b] of mergeRanges(r)) { if (a > next) out.push([next, a - 1]); next = b + 1; }
  if (next <= MAX_CP) out.push([next, MAX_CP]);
  return out;
}
function intersect(a: Ranges, b: Ranges): Ranges {
  const out: Ranges = [];
  for (const [x, y] of mergeRanges(a)) for (const [u, v] of mergeRanges(b)) {
    const lo = Math.max(x, u), hi = Math.min(y, v);
    if (lo <= hi) out.push([lo, hi]);
  }
  return mergeRanges(out);
}
const inRanges = (r: Ranges, cp: number) => r.some(([a, b]) => cp >= a && cp <= b);

/** Top-level alternatives of the pattern, each with its anchors. */
function parsePattern(src: string, path: string): Array<{ rx: Rx; start: boolean; end: boolean }> {
  const cps = Array.from(src, (c) => c.codePointAt(0)!);
  let i = 0;
  const peek = (o = 0) => cps[i + o];
  const is = (c: string, o = 0) => peek(o) === c.codePointAt(0);
  const fail = (what: string): never => {
    throw new UnsupportedSchemaError(path, "pattern",
      `"pattern": ${what} is not supported; rewrite the pattern without it, or remove "pattern" (describe it in "description") or ${ENUM_ALT}`);
  };
  const hex = (n: number): number => {
    let v = 0;
    for (let k = 0; k < n; k++) v = v * 16 + parseInt(String.fromCodePoint(cps[i++]!), 16);
    return v;
  };
  const hex4At = (o: number) => /^[0-9a-fA-F]{4}$/.test(String.fromCodePoint(...cps.slice(i + o, i + o + 4)));
  /** After a backslash: an escape standing for one code point. */
  const charEscape = (): number => {
    const c = String.fromCodePoint(cps[i++]!);
    switch (c) {
      case "n": return 0x0a;
      case "r": return 0x0d;
      case "t": return 0x09;
      case "v": return 0x0b;
      case "f": return 0x0c;
      case "0": return 0;
      case "c": return cps[i++]! % 32;
      case "x": return hex(2);
      case "u": {
        if (is("{")) { i++; let v = 0; while (!is("}")) v = v * 16 + parseInt(String.fromCodePoint(cps[i++]!), 16); i++; return v; }
        const v = hex(4);
        // with the u flag, an escaped surrogate pair is one code point
        if (v >= 0xd800 && v <= 0xdbff && is("\\") && is("u", 1) && hex4At(2)) {
          const save = i;
          i += 2;
          const lo = hex(4);
          if (lo >= 0xdc00 && lo <= 0xdfff) return 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
          i = save;
        }
        return v;
      }
      default: return c.codePointAt(0)!; // identity escape of a syntax character
    }
  };
  const classEscape = (c: string): Ranges | null => {
    switch (c) {
      case "d": return DIGIT_R;
      case "D": return complement(DIGIT_R);
      case "w": return WORD_R;
      case "W": return complement(WORD_R);
      case "s": return SPACE_R;
      case "S": return complement(SPACE_R);
      default: return null;
    }
  };
  const cls = (): Rx => {
    const negate = is("^") ? (i++, true) : false;
    const r: Ranges = [];
    const classAtom = (): number | Ranges => {
      if (!is("\\")) return cps[i++]!;
      i++;
      const set = classEscape(String.fromCodePoint(peek()!));
      if (set) { i++; return set; }
      if (is("b")) { i++; return 0x08; }
      if (is("-")) { i++; return 0x2d; }
      if (is("p") || is("P")) fail("a Unicode property escape (\\p{…})");
      return charEscape();
    };
    while (!is("]")) {
      const a = classAtom();
      if (typeof a === "number" && is("-") && !is("]", 1)) {
        i++;
        const b = classAtom();
        if (typeof b !== "number") fail("a class range ending in a class escape");
        r.push([a, b as number]);
      } else if (typeof a === "number") r.push([a, a]);
      else r.push(...a);
    }
    i++;
    return { k: "set", r: negate ? complement(r) : mergeRanges(r) };
  };
  const atom = (): Rx => {
    const c = String.fromCodePoint(cps[i++]!);
    switch (c) {
      case "(": {
        if (is("?")) {
          if (is(":", 1)) i += 2;
          else if (is("<", 1) && !is("=", 2) && !is("!", 2)) { while (!is(">")) i++; i++; }
          else fail(`a lookaround ("(?${String.fromCodePoint(peek(1) ?? 0x3f)}")`);
        }
        const items = [sequence(false).rx];
        while (is("|")) { i++; items.push(sequence(false).rx); }
        i++; // ")"
        return items.length === 1 ? items[0]! : { k: "alt", items };
      }
      case "[": return cls();
      case ".": return { k: "set", r: complement(LINE_TERMINATORS) };
      case "\\": {
        const e = String.fromCodePoint(peek()!);
        const set = classEscape(e);
        if (set) { i++; return { k: "set", r: set }; }
        if (e === "b" || e === "B") fail(`a word boundary (\\${e})`);
        if (/[1-9]/.test(e) || e === "k") fail("a backreference");
        if (e === "p" || e === "P") fail("a Unicode property escape (\\p{…})");
        const cp = charEscape();
        return { k: "set", r: [[cp, cp]] };
      }
      default: { const cp = c.codePointAt(0)!; return { k: "set", r: [[cp, cp]] }; }
    }
  };
  const quantified = (a: Rx): Rx => {
    let min: number, max: number | null;
    if (is("*")) { i++; min = 0; max = null; }
    else if (is("+")) { i++; min = 1; max = null; }
    else if (is("?")) { i++; min = 0; max = 1; }
    else if (is("{")) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(String.fromCodePoint(...cps.slice(i, i + 40)));
      if (!m) return a;
      i += m[0].length;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === "" ? null : Number(m[3]);
    } else return a;
    if (is("?")) i++; // lazy: same language
    return { k: "rep", item: a, min, max };
  };
  function sequence(top: boolean): { rx: Rx; end: boolean } {
    const items: Rx[] = [];
    while (i < cps.length && !is("|") && !is(")")) {
      if (is("$")) {
        if (top && (i + 1 === cps.length || is("|", 1))) { i++; return { rx: { k: "seq", items }, end: true }; }
        fail('"$" anywhere but at the end of the pattern (or of a top-level alternative)');
      }
      if (is("^")) fail('"^" anywhere but at the start of the pattern (or of a top-level alternative)');
      items.push(quantified(atom()));
    }
    return { rx: { k: "seq", items }, end: false };
  }
  const alts: Array<{ rx: Rx; start: boolean; end: boolean }> = [];
  for (;;) {
    const start = is("^") ? (i++, true) : false;
    const { rx, end } = sequence(true);
    alts.push({ rx, start, end });
    if (!is("|")) break;
    i++;
  }
  return alts;
}

/** Schemas that constrain nothing (true, {}, annotations only). */
function isTrivial(x: unknown): boolean {
  return x === true || (isObj(x) && Object.keys(x).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-")));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a), kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Public API

/**
 * Lower one JSON schema to grammar IR. `path` prefixes the JSON paths in error messages.
 * Rule names start with `json.`; use `lowerJsonSchemas` to embed the result in a larger grammar.
 */
export function jsonSchemaToIR(
  schema: unknown, options: JsonSchemaOptions = {}, path = "$",
): { root: GrammarNode; rules: Record<string, GrammarNode> } {
  return lowerWith(schema, options, path, { shared: "json", local: "json" });
}

function lowerWith(schema: unknown, options: JsonSchemaOptions, path: string, names: Names) {
  const l = new Lowerer(schema, options, path, names);
  const root = l.lower(schema, path);
  if (!root) throw new InvalidSchemaError(path, undefined, "this schema matches no value, so no tool call could be generated; fix the schema");
  return { root, rules: l.rules };
}

/** Replace every `jsonSchema` node in `grammar` (root and rules) by its lowering; rule names stay unique. */
export function lowerJsonSchemas(grammar: Grammar): Grammar {
  const existing = isObj(grammar.rules) ? Object.keys(grammar.rules) : [];
  let ns = "json";
  for (let i = 1; existing.some((n) => n.startsWith(`${ns}.`)); i++) ns = `json_${i}`;
  const rules: Record<string, GrammarNode> = isObj(grammar.rules) ? { ...grammar.rules } : {};
  let count = 0;
  let changed = false;
  // Malformed nodes are passed through untouched: the native compiler reports them with their path.
  const walk = (n: GrammarNode): GrammarNode => {
    if (!isObj(n)) return n;
    switch (n.type) {
      case "jsonSchema": {
        changed = true;
        const out = lowerWith(n.schema, n.options ?? {}, "$", { shared: ns, local: `${ns}.${count++}` });
        // shared rules are named after everything they depend on, so equal names mean equal rules
        for (const [k, v] of Object.entries(out.rules)) if (!hasOwn(rules, k)) rules[k] = v;
        return out.root;
      }
      case "seq": case "alt": return Array.isArray(n.items) ? { ...n, items: n.items.map(walk) } : n;
      case "repeat": return { ...n, item: walk(n.item) };
      case "perm":
        return {
          ...n,
          ...(Array.isArray(n.items) ? { items: n.items.map((it) => (isObj(it) ? { ...it, node: walk(it.node) } : it)) } : {}),
          ...(n.separator ? { separator: walk(n.separator) } : {}),
        };
      default: return n;
    }
  };
  const root = walk(grammar.root);
  if (isObj(grammar.rules)) for (const [k, v] of Object.entries(grammar.rules)) rules[k] = walk(v);
  if (!changed) return grammar;
  return { ...grammar, root, rules };
}
