// The tool_call_argument event: one top-level argument of a call, once its value is complete, with
// whether that value fits its schema. Checked by the same value grammar the call is checked with
// (schemaValue in src/dialects/call-grammar.ts), so an argument reported valid is one the mask
// would let a model write there.
import { schemaValue, valueDocument } from "../dialects/call-grammar.js";
import type { ToolDef } from "../dialects/tools.js";
import { JsonObject, jsonText, valueFault, type Json } from "./json-value.js";
import { readJson } from "./read-value.js";
import type { StreamEvent, ToolCallArgument } from "./types.js";
import { grammarAccepts } from "./validate.js";

/** The schema an argument's value must fit: its property's, else what additionalProperties allows. */
function argumentSchema(tool: ToolDef, key: string): unknown {
  if (Object.hasOwn(tool.properties, key)) return tool.properties[key];
  const p = tool.parameters;
  // Declared properties without additionalProperties mean no others (src/grammar/json-schema/index.ts).
  return Object.hasOwn(p, "additionalProperties") ? p.additionalProperties : !Object.hasOwn(p, "properties");
}

/** A JSON pointer to a top-level argument (RFC 6901: "~" as "~0", "/" as "~1"). */
export function argumentPointer(key: string): string {
  return `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Whether `value` (a complete value read from the output) fits the schema of argument `key`. */
function fits(tool: ToolDef, key: string, value: Json, maxValueLength: number | undefined): boolean {
  const schema = argumentSchema(tool, key);
  if (schema === false) return false;
  if (valueFault(value) !== undefined) return false;
  if (schema === true) return true;
  const path = `${tool.path ?? "parameters"}.properties.${key}`;
  return grammarAccepts(schemaValue(schema, maxValueLength, "json", path, 1, valueDocument(tool)), jsonText(value));
}

/**
 * The event of one complete top-level argument of call `index`. `admitted`: the reader has already
 * checked the value with the dialect's own value grammar and reads on only past values that fit
 * (XML parameters: src/parser/xml-call.ts typeValue), so the value is valid as read.
 */
export function argumentEvent(
  index: number,
  tool: ToolDef,
  [key, value]: [string, Json],
  maxValueLength: number | undefined,
  admitted = false,
): StreamEvent {
  return told(index, key, value, admitted || fits(tool, key, value, maxValueLength));
}

function told(
  index: number,
  key: string,
  value: Json,
  valid: boolean,
): Extract<StreamEvent, { type: "tool_call_argument" }> {
  const json = jsonText(value);
  return {
    type: "tool_call_argument",
    index,
    name: key,
    path: argumentPointer(key),
    value: nesting(json) <= MAX_VALUE_DEPTH ? (JSON.parse(json) as unknown) : undefined,
    json,
    valid,
  };
}

/** The argument events of a call verified whole elsewhere (a gateway's verify-only call): each valid. */
export function verifiedArgumentEvents(index: number, argumentsJson: string): StreamEvent[] {
  const args = readJson(argumentsJson);
  return args instanceof JsonObject ? [...args.entries].map(([k, v]) => told(index, k, v, true)) : [];
}

/**
 * Deepest nesting an event's `value` is given at. Node's JSON.stringify and recursive deep-equals
 * overflow the stack near 5,000 levels (`node -e` on an array 5,000 deep), well before the parser's
 * own limits; past this depth only `json` carries the value.
 */
export const MAX_VALUE_DEPTH = 512;

/** How deep arrays and objects nest in the JSON text `json`. */
function nesting(json: string): number {
  let depth = 0,
    max = 0,
    inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) max = Math.max(max, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return max;
}

/** The arguments the argument events among `events` tell, in order. */
export function argumentsOf(events: readonly StreamEvent[]): ToolCallArgument[] {
  const out: ToolCallArgument[] = [];
  for (const e of events)
    if (e.type === "tool_call_argument")
      out.push({ index: e.index, name: e.name, path: e.path, value: e.value, json: e.json, valid: e.valid });
  return out;
}
