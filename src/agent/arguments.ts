// Arguments are checked with the same grammar the mask uses for them (the tool's JSON schema,
// lowered to our IR and matched over bytes): a call runs only with arguments its schema accepts.
import { jsonArgumentsText } from "../dialects/call-grammar.js";
import type { ToolDef } from "../dialects/tools.js";
import { invalidJsonReason } from "../parser/calls.js";
import { readExactJson } from "../parser/exact-json.js";
import { grammarAccepts } from "../parser/validate.js";
import type { AgentTool } from "./types.js";

/** A tool's schema in the form the grammar builders take; throws when the schema cannot be checked. */
export function toolDefOf(tool: AgentTool, where: string): ToolDef {
  const p = tool.parameters ?? { type: "object", properties: {} };
  if (p === null || typeof p !== "object" || Array.isArray(p) || (p.type !== undefined && p.type !== "object"))
    throw new TypeError(`${where}.parameters must be a JSON schema of an object (type "object")`);
  const properties = (p.properties ?? {}) as Record<string, unknown>;
  const required = (Array.isArray(p.required) ? p.required : []) as string[];
  const def: ToolDef = { name: tool.name, parameters: p, properties, required };
  try {
    // Lowers and compiles the schema now, so an unsupported schema fails before any request.
    grammarAccepts(jsonArgumentsText(def), "{}");
  } catch (e) {
    throw new TypeError(`${where}.parameters cannot be checked: ${(e as Error).message}`);
  }
  return def;
}

/**
 * The parsed arguments, or why they are not arguments this tool can be run with. They are read
 * so that the tool gets exactly what was written (src/parser/exact-json.ts): a repeated key, or a
 * number whose double is another number (1e999, 12345678901234567891), is refused naming it. The
 * text then passes when the grammar accepts it as written (what the mask lets a model write: the
 * arguments object with the JSON whitespace the call envelopes allow around it, jsonArgumentsText) or
 * once written again by JSON.stringify (the same value in a spelling the grammar does not take:
 * `1.0` for an integer, `\u0061` in a key; JSON.parse also moves integer-like keys first, which
 * is why the text as written is tried first).
 */
export function checkArguments(def: ToolDef, text: string): { args: Record<string, unknown> } | { error: string } {
  const read = readExactJson(text);
  if ("error" in read)
    return {
      error: read.json
        ? `the arguments cannot be passed as written: ${read.error}`
        : `the arguments are not JSON (${read.error}): ${JSON.stringify(text.slice(0, 200))}`,
    };
  const value = read.value;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return { error: "the arguments must be a JSON object" };
  const grammar = jsonArgumentsText(def);
  if (!grammarAccepts(grammar, text) && !grammarAccepts(grammar, JSON.stringify(value)))
    return {
      error: `the arguments do not fit the tool's parameters: ${undeclaredReason(def, value as Record<string, unknown>) ?? invalidJsonReason(def, value)}`,
    };
  return { args: value as Record<string, unknown> };
}

/**
 * Why undeclared keys are refused, when that is why: the grammar (src/grammar/json-schema/index.ts)
 * reads "properties" without "additionalProperties" as no other properties.
 */
function undeclaredReason(def: ToolDef, args: Record<string, unknown>): string | undefined {
  const p = def.parameters as Record<string, unknown>;
  if (!Object.hasOwn(p, "properties") || (Object.hasOwn(p, "additionalProperties") && p.additionalProperties !== false))
    return undefined;
  const names = Object.keys(def.properties);
  const extra = Object.keys(args).filter((k) => !Object.hasOwn(def.properties, k));
  if (extra.length === 0) return undefined;
  const list = (ks: string[]) => ks.map((k) => JSON.stringify(k)).join(", ");
  return (
    `${list(extra)} ${extra.length === 1 ? "is" : "are"} not declared; "${def.name}" takes ${names.length ? list(names) : "no arguments"}` +
    ` (a schema with "properties" and no "additionalProperties" takes no other keys, as the mask does; "additionalProperties": true allows more)`
  );
}
