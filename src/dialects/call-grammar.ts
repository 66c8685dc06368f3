// A call's grammar, from just after its trigger to its end, for every call format: XML parameters,
// JSON call objects, named JSON calls and Python calls; values from the tool's JSON schema. The
// answer around the calls is src/dialects/grammar.ts (and harmony.ts, envelope.ts).
import {
  alt,
  charClass,
  declaredCall,
  jsonSchema,
  literal,
  marker,
  optional,
  perm,
  plus,
  seq,
  spelled,
} from "../grammar/builders.js";
import type { GrammarNode } from "../grammar/ir.js";
import type { DialectSpec, Glue, JsonCallFormat, XmlCallFormat } from "./spec.js";
import { afterTrigger } from "./spec.js";
import { idChars, jsonWs } from "./grammar-forms.js";
import type { ToolDef } from "./tools.js";
import { childPath, invalid } from "../grammar/json-schema/errors.js";
import { departure } from "../grammar/departure.js";
import { analyze, impliedTypes } from "../grammar/json-schema/keywords.js";
import { lowerJsonSchemas } from "../grammar/json-schema/index.js";
import { checkEnumSize } from "../grammar/schema-limits.js";

/** Fixed glue strings are markers: atomic special tokens in vocabularies that have them. */
export function glue(g: Glue): GrammarNode {
  return seq(...g.map((p) => (typeof p === "string" ? marker(p) : optional(literal(p.optional)))));
}

/** Where `$ref`s in a tool's parameter schemas resolve: the tool's parameters. */
export const valueDocument = (tool: ToolDef) => ({ schema: tool.parameters, path: paramsPath(tool) });

/** `doc` where `schema` holds a `$ref` (a value grammar names its document only then: it is part of the grammar's key). */
const refDoc = (schema: unknown, doc?: { schema: unknown; path: string }) =>
  doc && JSON.stringify(schema ?? null).includes('"$ref"') ? doc : undefined;

/** The JSON pointer `pointer` in `doc`, or undefined. */
function pointed(doc: unknown, pointer: string): unknown {
  if (!pointer.startsWith("#")) return undefined;
  let cur = doc;
  for (const seg of pointer.slice(1).split("/").slice(1)) {
    const k = seg.replace(/~1/g, "/").replace(/~0/g, "~");
    cur =
      cur !== null && typeof cur === "object" && Object.hasOwn(cur, k)
        ? (cur as Record<string, unknown>)[k]
        : undefined;
  }
  return cur;
}

/** Whether some string is a value of `schema` (at a glance: the lowering decides which ones). */
function admitsString(schema: unknown, doc: unknown, seen = 0): boolean {
  if (schema === true || schema === undefined) return true;
  if (schema === false || schema === null || typeof schema !== "object" || seen > 32) return schema !== false;
  const s = schema as Record<string, unknown>;
  const values = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
  if (Array.isArray(values)) return values.some((v) => typeof v === "string");
  if (s.type !== undefined) return s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"));
  // an untyped schema has the types its keywords imply, as the lowering reads it ({"maximum": 3} is a number)
  const implied = impliedTypes(s);
  if (implied.size > 0 && !implied.has("string")) return false;
  if (typeof s.$ref === "string") {
    const target = pointed(doc ?? schema, s.$ref);
    return target === undefined || admitsString(target, doc, seen + 1);
  }
  const branches = (s.anyOf ?? s.oneOf) as unknown;
  if (Array.isArray(branches)) return branches.some((b) => admitsString(b, doc, seen + 1));
  if (Array.isArray(s.allOf)) return s.allOf.every((b) => admitsString(b, doc, seen + 1));
  return true;
}

/**
 * Whether an XML value is raw text (the lowering's raw spelling: a string, unquoted) or a JSON
 * value: raw text for a `string` type, string enums and consts, and untyped schemas that admit a
 * string; `false` (no value) is neither.
 */
export function isRawText(schema: unknown, doc?: unknown): boolean {
  if (schema === false) return false;
  if (schema === null || typeof schema !== "object") return true;
  const s = schema as Record<string, unknown>;
  const values = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
  if (values !== undefined)
    return Array.isArray(values) && values.length > 0 && values.every((v) => typeof v === "string");
  if (s.type === "string") return true;
  return s.type === undefined && admitsString(schema, doc);
}

/** A JSON value of `schema` (found at `path` in the request), any JSON whitespace inside, no string value longer than `maxValueLength`; `$ref`s resolve in `doc`. */
export function schemaValue(
  schema: unknown,
  maxValueLength?: number,
  syntax: "json" | "python" = "json",
  path?: string,
  depth?: number,
  doc?: { schema: unknown; path: string },
): GrammarNode {
  return jsonSchema(
    schema,
    {
      whitespace: "any",
      ...(syntax === "python" ? { syntax } : {}),
      ...(maxValueLength === undefined ? {} : { maxStringLength: maxValueLength }),
    },
    path,
    depth,
    refDoc(schema, doc),
  );
}

/** Where a tool's parameters sit in the request. */
const paramsPath = (tool: ToolDef) => tool.path ?? "parameters";

/**
 * An XML parameter's value up to and including the value close; `path` is the value's schema in
 * the request, `doc` the document its `$ref`s resolve in (the tool's parameters). Strings are raw
 * text, the JSON-schema lowering's raw spelling (src/grammar/json-schema/raw-text.ts): every
 * string keyword means there what it means in JSON.
 */
export function xmlValue(
  f: XmlCallFormat,
  schema: unknown,
  maxValueLength?: number,
  path = "$",
  doc?: { schema: unknown; path: string },
): GrammarNode {
  const pad = f.trimNewline ? optional(literal("\n")) : seq();
  // The value's own keywords get the JSON lowering's checks, raw text too (a keyword not
  // supported, an empty enum, an unknown type …): an XML dialect refuses what a JSON one refuses.
  if (schema !== null && typeof schema === "object") analyze(schema, path);
  if (isRawText(schema, doc?.schema)) {
    const s = schema as Record<string, unknown>;
    const values = s?.enum ?? (s?.const !== undefined ? [s.const] : undefined);
    if (Array.isArray(values)) checkEnumSize(values.length, childPath(path, "enum"));
    return jsonSchema(
      schema,
      {
        syntax: "raw",
        raw: { close: f.valueClose, trimNewline: f.trimNewline },
        ...(maxValueLength === undefined ? {} : { maxStringLength: maxValueLength }),
      },
      path,
      1,
      refDoc(schema, doc),
    );
  }
  const s = schema as Record<string, unknown>;
  // Templates render scalars with Python's str(): True, False, None are read as JSON's.
  if (s.type === "boolean")
    return seq(pad, alt(...["true", "false", "True", "False"].map(literal)), pad, literal(f.valueClose));
  if (s.type === "null") return seq(pad, alt(literal("null"), literal("None")), pad, literal(f.valueClose));
  // the value's schema is nested in its tool's parameters
  const json = schemaValue(schema, maxValueLength, "json", path, 1, doc);
  const value = f.pythonLiterals ? alt(json, schemaValue(schema, maxValueLength, "python", path, 1, doc)) : json;
  return seq(pad, value, pad, literal(f.valueClose));
}

/**
 * The parameters a call may write, for grammars that write each one on its own (XML, Python): a
 * parameter whose schema is `false` has no value, so it is left out, as the JSON lowering leaves
 * such a property out; when it is required, no call can be written, which is the schema's error.
 */
export function writableParameters(tool: ToolDef): Array<[string, unknown]> {
  const required = new Set(tool.required);
  return Object.entries(tool.properties).filter(([k, schema]) => {
    if (schema !== false) return true;
    if (required.has(k))
      throw invalid(
        paramsPath(tool),
        "required",
        `"${k}" is required but its schema matches no value, so no call can be written; fix the schema of ${childPath(`${paramsPath(tool)}.properties`, k)}`,
      );
    return false;
  });
}

/**
 * The checks a JSON dialect makes of the parameters, in a dialect that writes them one by one
 * (XML, Python): the object's own keywords (property count and names, enum sizes, unsupported
 * keywords), and, where `additionalProperties` is a schema (which such a call never writes: it has
 * no name outside "properties"), the whole parameters lowered as one JSON value, as a JSON dialect
 * lowers them, the result dropped: that schema is refused exactly where a JSON dialect refuses it.
 */
function checkParameters(tool: ToolDef, maxValueLength?: number): void {
  analyze(tool.parameters, paramsPath(tool));
  const extra = tool.parameters.additionalProperties;
  if (extra !== null && typeof extra === "object")
    lowerJsonSchemas({ root: schemaValue(tool.parameters, maxValueLength, "json", paramsPath(tool)) });
}

function xmlCall(f: XmlCallFormat, tool: ToolDef, maxValueLength?: number): GrammarNode {
  // The parameters object is not lowered as one JSON value here (checkParameters).
  checkParameters(tool, maxValueLength);
  const required = new Set(tool.required);
  const params = writableParameters(tool).map(([k, schema]) => ({
    node: seq(
      glue(f.paramOpen),
      literal(k),
      literal(f.paramNameClose),
      glue(f.valueOpen ?? []),
      xmlValue(f, schema, maxValueLength, childPath(`${paramsPath(tool)}.properties`, k), valueDocument(tool)),
    ),
    required: required.has(k),
  }));
  // Without a name close, what follows the name (a parameter or the call's close) ends it.
  return seq(spelled(tool.name), f.nameClose === null ? seq() : literal(f.nameClose), perm(params));
}

/** The call object: name first, then arguments (then the id where the dialect has one), any JSON whitespace between tokens. */
export function jsonCallObject(f: JsonCallFormat, tool: ToolDef, maxValueLength?: number): GrammarNode {
  return seq(jsonCallHead(f), jsonCallNamed(f, tool, maxValueLength));
}

/**
 * One of `tools`' call objects: jsonCallObject's language, with the part every call shares (up to
 * the name's opening quote) written once rather than once per tool.
 */
export function jsonCallObjects(f: JsonCallFormat, tools: ToolDef[], maxValueLength?: number): GrammarNode {
  return seq(jsonCallHead(f), alt(...tools.map((t) => jsonCallNamed(f, t, maxValueLength))));
}

/** A call object up to its name's opening quote. */
function jsonCallHead(f: JsonCallFormat): GrammarNode {
  return seq(literal("{"), jsonWs, literal(JSON.stringify(f.nameKey)), jsonWs, literal(":"), jsonWs, literal('"'));
}

/** A call object after its name's opening quote: the rest of the name, then jsonCallTail. */
function jsonCallNamed(f: JsonCallFormat, tool: ToolDef, maxValueLength?: number): GrammarNode {
  return seq(spelled(JSON.stringify(tool.name).slice(1)), ...jsonCallTail(f, tool, maxValueLength));
}

/** The call object after its name's closing quote: the arguments, the id where the dialect has one, the "}". */
export function jsonCallTail(f: JsonCallFormat, tool: ToolDef, maxValueLength?: number): GrammarNode[] {
  const ws = jsonWs;
  const id = f.id
    ? seq(
        literal(","),
        ws,
        literal(JSON.stringify(f.id.key)),
        ws,
        literal(":"),
        ws,
        literal('"'),
        idChars(f.id.length),
        literal('"'),
        ws,
      )
    : seq();
  return [
    ws,
    literal(","),
    ws,
    literal(JSON.stringify(f.argsKey)),
    ws,
    literal(":"),
    ws,
    schemaValue(tool.parameters, maxValueLength, "json", paramsPath(tool)),
    ws,
    id,
    literal("}"),
  ];
}

/** The value of a Python call's argument `key`: a Python literal or JSON of its schema. */
export function pythonValue(tool: ToolDef, key: string, maxValueLength?: number): GrammarNode {
  const schema = tool.properties[key];
  const path = childPath(`${paramsPath(tool)}.properties`, key);
  return alt(
    schemaValue(schema, maxValueLength, "python", path, 1, valueDocument(tool)),
    schemaValue(schema, maxValueLength, "json", path, 1, valueDocument(tool)),
  );
}

/** A Python call's keyword arguments: `k=v` in any order, "," between, required ones present; values Python literals or JSON. */
export function pythonArguments(tool: ToolDef, maxValueLength?: number): GrammarNode {
  // As in xmlCall: the parameters get the JSON dialects' checks and limits.
  checkParameters(tool, maxValueLength);
  const required = new Set(tool.required);
  const items = writableParameters(tool).map(([k]) => ({
    node: seq(literal(k), literal("="), pythonValue(tool, k, maxValueLength)),
    required: required.has(k),
  }));
  return seq(literal("("), jsonWs, perm(items, seq(literal(","), jsonWs)), jsonWs, literal(")"));
}

/** A close glue split at its last fixed string: [before it, it and after]. */
export function splitScope(close: Glue): [Glue, Glue] {
  let k = close.length - 1;
  while (k >= 0 && typeof close[k] !== "string") k--;
  return [close.slice(0, k), close.slice(k)];
}

/** A call's arguments as a JSON object, any JSON whitespace inside. */
export function jsonArguments(tool: ToolDef, maxValueLength?: number): GrammarNode {
  return schemaValue(tool.parameters, maxValueLength, "json", paramsPath(tool));
}

/**
 * A call's arguments as a whole JSON text (an OpenAI call's `arguments` string): the object with
 * JSON whitespace around it, as much as the call envelopes allow around it (jsonWs).
 */
export function jsonArgumentsText(tool: ToolDef, maxValueLength?: number): GrammarNode {
  return seq(jsonWs, jsonArguments(tool, maxValueLength), jsonWs);
}

/** One call, from just after the trigger to its end (without the scope close when that may be left out). */
export function callAfterTrigger(
  spec: DialectSpec,
  tools: ToolDef[],
  maxValueLength?: number,
  withScope = true,
): GrammarNode {
  const f = spec.call;
  if (f.kind === "harmony")
    throw new Error(`dialect ${spec.name}: harmony calls are messages; see buildHarmonyGrammar`);
  // A JSON call's opening and close are the same for every tool: written once, around the tools.
  if (f.kind === "json")
    return declaredCall(
      seq(glue(afterTrigger(f.open)), jsonCallObjects(f, tools, maxValueLength), glue(f.close)),
      spec.callOpensAnswer === true,
    );
  const bodies = tools.map((t) => {
    if (f.kind === "python") return seq(spelled(t.name), pythonArguments(t, maxValueLength));
    if (f.kind === "envelope")
      throw new Error(`dialect ${spec.name}: an envelope holds its calls; see buildEnvelopeGrammar`);
    if (f.kind === "named") {
      const id = typeof f.id === "object" ? optional(seq(marker(f.id.open), idChars(f.id.length))) : seq();
      return seq(
        spelled(t.name),
        id,
        marker(f.nameClose),
        f.index ? plus(charClass(["0-9"])) : seq(),
        glue(f.argsOpen ?? []),
        jsonArguments(t, maxValueLength),
        glue(f.close),
      );
    }
    const body = xmlCall(f, t, maxValueLength);
    return withScope || !f.scopeCloseOptionalAtEnd ? seq(body, glue(f.close)) : seq(body, glue(splitScope(f.close)[0]));
  });
  // A call that opens the answer (no trigger) is entered without a byte: the budget acts at its entry.
  return declaredCall(seq(glue(afterTrigger(f.open)), alt(...bodies)), spec.callOpensAnswer === true);
}

/**
 * A call the parser takes for text, from just after the trigger to the character that decides it:
 * the call written as the grammar writes one up to its name, and the name leaving every name the
 * call may have (src/parser/calls.ts readName, json-call.ts readHead). What follows is content.
 * Undefined where the grammar has no such path: calls in a section (where the parser decides a
 * refused first call makes the opener content), a name without a close, Python and envelope calls.
 */
export function refusedCall(spec: DialectSpec, tools: ToolDef[]): GrammarNode | undefined {
  const f = spec.call;
  if (spec.section) return undefined;
  const names = tools.map((t) => t.name);
  // The refused call ends on the character that leaves every declared name; the parser reads
  // content on from just past it (src/parser/departure.ts), so a trigger it begins is text.
  if (f.kind === "json") {
    // The name as the head reader takes it: no quote, backslash or control character inside.
    const head = seq(
      literal("{"),
      jsonWs,
      literal(JSON.stringify(f.nameKey)),
      jsonWs,
      literal(":"),
      jsonWs,
      literal('"'),
    );
    return seq(
      glue(afterTrigger(f.open)),
      head,
      departure(
        names.map((n) => `${n}"`),
        ["\\", [0, 0x1f]],
      ),
    );
  }
  if ((f.kind === "xml" && f.nameClose !== null) || f.kind === "named") {
    const closes = f.kind === "named" && typeof f.id === "object" ? [f.nameClose, f.id.open] : [f.nameClose!];
    return seq(
      glue(afterTrigger(f.open)),
      departure(
        names.flatMap((n) => closes.map((c) => n + c)),
        [],
      ),
    );
  }
  return undefined;
}
