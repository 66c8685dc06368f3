// "format" names the grammar does not enforce (src/grammar/json-schema/formats.ts lists those it
// does). As JSON Schema 2020-12 has it, such a format is an annotation: the value is held to the
// schema's other keywords only, the tool is accepted, and the request carries one notice saying so.
// With strictFormats the tool is refused instead, naming where the format stands.
import { childPath, UnsupportedSchemaError } from "../grammar/json-schema/errors.js";
import { FORMATS, isEnforcedFormat } from "../grammar/json-schema/formats.js";
import type { ToolDef } from "./tools.js";

/** A schema besides the tools' (a response format's), with where it sits in the request. */
export interface PlacedSchema {
  schema: unknown;
  path: string;
}

/** Keywords whose value is a schema, and those whose value is a list or a map of schemas. */
const ONE = [
  "additionalProperties",
  "items",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
];
const LIST = ["prefixItems", "items", "anyOf", "oneOf", "allOf"];
const MAP = ["properties", "$defs", "definitions", "patternProperties", "dependentSchemas"];
/** Schemas nested deeper than this are not looked into (the lowering refuses them: SCHEMA_LIMITS.schemaNesting). */
const MAX_DEPTH = 128;
/** Places a notice names at most. */
const NAMED = 10;

export interface UnenforcedFormat {
  /** Where the `format` keyword stands, e.g. `tools[0].function.parameters.properties.when.format`. */
  path: string;
  format: string;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Every `format` whose name is a string the grammar does not enforce, in the tools' schemas and `more`. */
export function unenforcedFormats(tools: readonly ToolDef[], more?: PlacedSchema): UnenforcedFormat[] {
  const out: UnenforcedFormat[] = [];
  const seen = new Set<object>();
  const walk = (s: unknown, path: string, depth: number): void => {
    if (!isObj(s) || seen.has(s) || depth > MAX_DEPTH) return;
    seen.add(s);
    if (typeof s.format === "string" && !isEnforcedFormat(s.format))
      out.push({ path: childPath(path, "format"), format: s.format });
    for (const k of ONE) if (isObj(s[k])) walk(s[k], childPath(path, k), depth + 1);
    for (const k of LIST) {
      const v = s[k];
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, childPath(childPath(path, k), i), depth + 1));
    }
    for (const k of MAP) {
      const v = s[k];
      if (isObj(v)) for (const [name, x] of Object.entries(v)) walk(x, childPath(childPath(path, k), name), depth + 1);
    }
  };
  tools.forEach((t, i) => walk(t.parameters, t.path ?? `tools[${i}].function.parameters`, 0));
  if (more) walk(more.schema, more.path, 0);
  return out;
}

const ENFORCED = Object.keys(FORMATS).join(", ");

/** The request's notices about its tools: one for all the formats the grammar does not enforce, or none. */
export function toolNotices(tools: readonly ToolDef[], also?: PlacedSchema): string[] {
  const found = unenforcedFormats(tools, also);
  if (found.length === 0) return [];
  const named = found.slice(0, NAMED).map((f) => `${f.path} (${JSON.stringify(f.format)})`);
  const more = found.length > NAMED ? ` and ${found.length - NAMED} more` : "";
  return [
    `"format" not enforced, taken as an annotation (the value is held to the schema's other keywords only): ${named.join(", ")}${more}; the grammar enforces ${ENFORCED}; strictFormats (--strict-formats) refuses such tools instead`,
  ];
}

/** Refuses the first format the grammar does not enforce (strictFormats). */
export function checkStrictFormats(tools: readonly ToolDef[], more?: PlacedSchema): void {
  const f = unenforcedFormats(tools, more)[0];
  if (f)
    throw new UnsupportedSchemaError(
      f.path,
      "format",
      `"format": ${JSON.stringify(f.format)} is not enforced by the grammar, and strictFormats refuses a format it does not enforce; use one it does (${ENFORCED}), or remove "format" and describe the format in "description", or turn strictFormats off to take it as an annotation`,
    );
}
