// The keywords of one schema object: checked, sorted by role, and the limits they may state.
import { childPath, describe, invalid, unsupported, InvalidSchemaError, UnsupportedSchemaError } from "./errors.js";
import { SCHEMA_LIMITS, checkEnumSize, limitError } from "../schema-limits.js";
import { isEnforcedFormat } from "./formats.js";

/** Resolves a `$ref` pointer met at `path`. */
export type Resolve = (pointer: string, path: string) => { schema: unknown; path: string };

export const ANNOTATIONS = new Set([
  "title",
  "description",
  "examples",
  "example",
  "default",
  "$comment",
  "$schema",
  "$id",
  "deprecated",
  "readOnly",
  "writeOnly",
]);
/** Keywords that hold schemas for `$ref` to name. */
export const DEFS: ReadonlySet<string> = new Set(["$defs", "definitions"]);
const STRING_KW = ["minLength", "maxLength", "pattern"] as const;
export const NUMBER_KW = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const OBJECT_KW = ["properties", "required", "additionalProperties", "propertyNames"] as const;
const ARRAY_KW = ["items", "prefixItems", "additionalItems", "minItems", "maxItems"] as const;
/** The keywords the lowering reads (docs/json-schema.md has them in one table, scripts/keyword-table.mjs). */
export const SUPPORTED: ReadonlySet<string> = new Set<string>([
  "type",
  "nullable",
  "enum",
  "const",
  "anyOf",
  "oneOf",
  "allOf",
  "$ref",
  "uniqueItems",
  "format",
  ...STRING_KW,
  ...NUMBER_KW,
  ...OBJECT_KW,
  ...ARRAY_KW,
]);
export const ENUM_ALT = 'or list the allowed values with "enum"';
/** The JSON Schema keywords refused by name, each with what to write instead. */
export const UNSUPPORTED_HINTS: Readonly<Record<string, string>> = {
  multipleOf: `remove it, ${ENUM_ALT}`,
  minProperties: 'remove it; list the properties that must be present in "required" instead',
  maxProperties: 'remove it; set "additionalProperties": false and declare the allowed properties',
  patternProperties: 'use "additionalProperties" with a value schema instead',
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

export type TypeName = "null" | "boolean" | "integer" | "number" | "string" | "array" | "object";
export const TYPE_ORDER: TypeName[] = ["null", "boolean", "integer", "number", "string", "array", "object"];
export const ALL_TYPES: ReadonlySet<TypeName> = new Set(TYPE_ORDER.filter((t) => t !== "integer"));

/** A set of types; "number" includes "integer", so a normalised set never holds both. */
export function normTypes(ts: Iterable<TypeName>): Set<TypeName> {
  const s = new Set(ts);
  if (s.has("number")) s.delete("integer");
  return s;
}
export function intersectTypes(a: ReadonlySet<TypeName>, b: ReadonlySet<TypeName>): Set<TypeName> {
  const out = new Set<TypeName>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if ((t === "integer" && b.has("number")) || (t === "number" && b.has("integer"))) out.add("integer");
  }
  return normTypes(out);
}
export function typeKey(ts: ReadonlySet<TypeName>): string {
  return TYPE_ORDER.filter((t) => ts.has(t)).join(",");
}
export function typeOk(v: unknown, ts: ReadonlySet<TypeName>): boolean {
  if (v === null) return ts.has("null");
  switch (typeof v) {
    case "boolean":
      return ts.has("boolean");
    case "string":
      return ts.has("string");
    case "number":
      return ts.has("number") || (ts.has("integer") && Number.isInteger(v));
    case "object":
      return Array.isArray(v) ? ts.has("array") : ts.has("object");
    default:
      return false;
  }
}

export type Obj = Record<string, unknown>;
export const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
export const hasOwn = (o: object, k: string) => Object.hasOwn(o, k);

/** The keywords of one schema object, checked and sorted by role. */
export interface Info {
  path: string;
  s: Obj;
  /** From `type` (+ "null" from `nullable: true`); null when there is no `type`. */
  types: Set<TypeName> | null;
  /** Types whose keywords appear (for schemas without `type`). */
  implied: ReadonlySet<TypeName>;
  /** Constraining keywords other than type/nullable/enum/const/composition. */
  constraining: string[];
  /** enum ∩ const, deduplicated; null when neither appears. */
  values: unknown[] | null;
  anyOf?: unknown[];
  oneOf?: unknown[];
  allOf?: unknown[];
  ref?: string;
}

/** The type each type-specific keyword implies. */
const IMPLIED = new Map<string, TypeName>([
  ...STRING_KW.map((kw) => [kw, "string"] as const),
  ...NUMBER_KW.map((kw) => [kw, "number"] as const),
  ...OBJECT_KW.map((kw) => [kw, "object"] as const),
  ...ARRAY_KW.map((kw) => [kw, "array"] as const),
]);

const NO_TYPES: ReadonlySet<TypeName> = new Set();

/** The types a schema's type-specific keywords imply (`{"maximum": 3}` is a number schema), whatever its `type`. */
export function impliedTypes(s: Obj, keys: readonly string[] = Object.keys(s)): ReadonlySet<TypeName> {
  let out: Set<TypeName> | undefined;
  for (const kw of keys) {
    const t = IMPLIED.get(kw);
    if (t !== undefined) (out ??= new Set()).add(t);
  }
  if (isEnforcedFormat(s.format)) (out ??= new Set()).add("string");
  return out ?? NO_TYPES;
}

export function analyze(schema: unknown, path: string): Info {
  if (!isObj(schema)) {
    throw invalid(path, undefined, `a schema must be an object or a boolean, got ${describe(schema)}; fix the schema`);
  }
  const s = schema;
  // A schema object has a handful of keys: asking its key list is cheaper than a lookup per keyword.
  const keys = Object.keys(s);
  const own = (kw: string) => keys.includes(kw);
  const info: Info = { path, s, types: null, implied: impliedTypes(s, keys), constraining: [], values: null };
  for (const kw of keys) {
    if (ANNOTATIONS.has(kw) || DEFS.has(kw) || kw.startsWith("x-")) continue;
    if (!SUPPORTED.has(kw)) {
      const hint = UNSUPPORTED_HINTS[kw];
      if (hint !== undefined) throw unsupported(path, kw, hint);
      throw new UnsupportedSchemaError(
        childPath(path, kw),
        kw,
        `"${kw}" is not supported (not a JSON Schema keyword this lowering knows); remove it, or prefix vendor extensions with "x-"`,
      );
    }
  }
  for (const kw of DEFS) {
    if (own(kw) && !isObj(s[kw])) throw invalid(path, kw, `"${kw}" must be an object mapping names to schemas`);
  }
  // type / nullable
  if (own("type")) {
    const t = s.type;
    const list = typeof t === "string" ? [t] : t;
    if (
      !Array.isArray(list) ||
      list.length === 0 ||
      !list.every((x): x is TypeName => typeof x === "string" && (TYPE_ORDER as string[]).includes(x))
    ) {
      throw invalid(
        path,
        "type",
        `"type" must be one of ${TYPE_ORDER.join(", ")} or a non-empty array of them, got ${describe(t)}`,
      );
    }
    info.types = normTypes(list);
  }
  if (own("nullable")) {
    if (typeof s.nullable !== "boolean") throw invalid(path, "nullable", '"nullable" must be true or false');
    if (info.types === null) {
      throw invalid(
        path,
        "nullable",
        '"nullable" needs a "type" next to it; add "type", or write "anyOf": [<schema>, {"type": "null"}]',
      );
    }
    if (s.nullable) info.types.add("null");
    else if (info.types.has("null"))
      throw invalid(path, "nullable", '"type" includes "null" but "nullable" is false; remove one of them');
  }
  // enum / const
  if (own("enum")) {
    const e = s.enum;
    if (!Array.isArray(e) || e.length === 0) throw invalid(path, "enum", '"enum" must be a non-empty array of values');
    checkEnumSize(e.length, childPath(path, "enum"));
    e.forEach((v, i) => assertJson(v, childPath(childPath(path, "enum"), i)));
    info.values = e;
  }
  if (own("const")) {
    assertJson(s.const, childPath(path, "const"));
    info.values = info.values === null ? [s.const] : info.values.filter((v) => deepEqual(v, s.const));
  }
  if (info.values !== null) {
    const seen = new Set<string>();
    info.values = info.values.filter((v) => {
      const k = JSON.stringify(v);
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  // composition
  for (const kw of ["anyOf", "oneOf", "allOf"] as const) {
    if (!own(kw)) continue;
    const v = s[kw];
    if (!Array.isArray(v) || v.length === 0) throw invalid(path, kw, `"${kw}" must be a non-empty array of schemas`);
    info[kw] = v;
  }
  if (own("$ref")) {
    if (typeof s.$ref !== "string") throw invalid(path, "$ref", '"$ref" must be a string');
    info.ref = s.$ref;
  }
  // type-specific keywords
  // Length and item bounds of any size: the native engine counts them (schema-limits.ts COUNT_ABOVE).
  const nonNegInt = (kw: string) => {
    const v = s[kw];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0)
      throw invalid(path, kw, `"${kw}" must be a non-negative integer, got ${describe(v)}`);
  };
  for (const kw of ["minLength", "maxLength"]) if (own(kw)) nonNegInt(kw);
  if (own("pattern")) {
    if (typeof s.pattern !== "string")
      throw invalid(path, "pattern", '"pattern" must be a string (a regular expression)');
    try {
      new RegExp(s.pattern, "u");
    } catch (e) {
      throw invalid(path, "pattern", `"pattern" is not a valid regular expression (${(e as Error).message}); fix it`);
    }
  }
  if (own("format") && typeof s.format !== "string")
    throw invalid(path, "format", `"format" must be a string (a format name), got ${describe(s.format)}`);
  // an enforced format is a string keyword (formats.ts); any other format is an annotation
  for (const kw of [...STRING_KW, ...(isEnforcedFormat(s.format) ? ["format"] : [])])
    if (own(kw)) info.constraining.push(kw);
  for (const kw of NUMBER_KW) {
    if (!own(kw)) continue;
    if (typeof s[kw] !== "number" || !Number.isFinite(s[kw])) {
      throw invalid(
        path,
        kw,
        `"${kw}" must be a number, got ${describe(s[kw])}${typeof s[kw] === "boolean" ? ` (the draft-04 boolean form is not supported; give the bound itself, e.g. "${kw}": 0)` : ""}`,
      );
    }
    info.constraining.push(kw);
  }
  if (own("properties")) {
    if (!isObj(s.properties))
      throw invalid(path, "properties", '"properties" must be an object mapping names to schemas');
    const n = Object.keys(s.properties).length;
    checkNames(Object.keys(s.properties), childPath(path, "properties"));
    if (n > SCHEMA_LIMITS.properties)
      throw limitError(
        "anyOrderItems",
        childPath(path, "properties"),
        `the object declares ${n} properties, over the limit of ${SCHEMA_LIMITS.properties}; split the tool, or take the rarely used properties as one free-form object`,
      );
  }
  if (own("required")) {
    const r = s.required;
    if (!Array.isArray(r) || !r.every((x) => typeof x === "string"))
      throw invalid(path, "required", '"required" must be an array of property names');
    checkNames(r, childPath(path, "required"));
  }
  if (own("additionalProperties")) assertSchemaShape(s.additionalProperties, childPath(path, "additionalProperties"));
  if (own("propertyNames")) assertSchemaShape(s.propertyNames, childPath(path, "propertyNames"));
  for (const kw of OBJECT_KW) if (own(kw)) info.constraining.push(kw);
  if (own("items") && !Array.isArray(s.items)) assertSchemaShape(s.items, childPath(path, "items"));
  if (own("prefixItems") && !Array.isArray(s.prefixItems))
    throw invalid(path, "prefixItems", '"prefixItems" must be an array of schemas');
  if (own("additionalItems")) assertSchemaShape(s.additionalItems, childPath(path, "additionalItems"));
  if (own("prefixItems") && Array.isArray(s.items))
    throw invalid(path, "items", 'use either "prefixItems" or the array form of "items", not both');
  for (const kw of ["prefixItems", "items"]) {
    const t = s[kw];
    if (Array.isArray(t) && t.length > SCHEMA_LIMITS.tupleItems)
      throw limitError(
        "tupleItems",
        childPath(path, kw),
        `"${kw}" lists ${t.length} schemas, over the limit of ${SCHEMA_LIMITS.tupleItems}; use one schema for the items, or an object with named properties`,
      );
  }
  for (const kw of ["minItems", "maxItems"]) if (own(kw)) nonNegInt(kw);
  for (const kw of ARRAY_KW) if (own(kw)) info.constraining.push(kw);
  if (own("uniqueItems")) {
    if (typeof s.uniqueItems !== "boolean") throw invalid(path, "uniqueItems", '"uniqueItems" must be true or false');
    if (s.uniqueItems) throw unsupported(path, "uniqueItems", "remove it (the grammar cannot exclude duplicate items)");
  }
  return info;
}

/** Property names past the length limit (an object that allows other keys excludes each name character by character). */
function checkNames(names: string[], path: string): void {
  const long = names.find((k) => Array.from(k).length > SCHEMA_LIMITS.propertyName);
  if (long !== undefined) {
    throw limitError(
      "nameLength",
      path,
      `a property name of ${Array.from(long).length} characters (${JSON.stringify(Array.from(long).slice(0, 24).join(""))}…) exceeds the limit of ${SCHEMA_LIMITS.propertyName}; use a shorter name`,
    );
  }
}

function assertSchemaShape(x: unknown, path: string): void {
  if (typeof x !== "boolean" && !isObj(x))
    throw new InvalidSchemaError(
      path,
      undefined,
      `a schema must be an object or a boolean, got ${describe(x)}; fix the schema`,
    );
}

function assertJson(v: unknown, path: string): void {
  const ok = (x: unknown): boolean => {
    if (x === null || typeof x === "string" || typeof x === "boolean") return true;
    if (typeof x === "number") return Number.isFinite(x);
    if (Array.isArray(x)) return x.every(ok);
    if (isObj(x)) return Object.values(x).every(ok);
    return false;
  };
  if (!ok(v))
    throw new InvalidSchemaError(
      path,
      undefined,
      "value is not JSON (undefined, NaN, Infinity, functions, … have no JSON text); fix the schema",
    );
}

/** Types the schema's value may have, or null for "any" (before restrictions from outside). */
export function effectiveTypes(info: Info): Set<TypeName> | null {
  if (info.types !== null) return info.types;
  return info.implied.size > 0 ? normTypes(info.implied) : null;
}

export const num = (x: unknown): number | undefined => (typeof x === "number" ? x : undefined);

/** Schemas that constrain nothing (true, {}, annotations only). */
export function isTrivial(x: unknown): boolean {
  return x === true || (isObj(x) && Object.keys(x).every((k) => ANNOTATIONS.has(k) || k.startsWith("x-")));
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a),
      kb = Object.keys(b);
    return ka.length === kb.length && ka.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}
