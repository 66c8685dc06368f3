// Arguments are checked with the same grammar the mask uses for them (the tool's JSON schema,
// lowered to our IR and matched over bytes): a call runs only with arguments its schema accepts.
import { jsonArguments } from "../dialects/grammar.js";
import type { ToolDef } from "../dialects/tools.js";
import { invalidJsonReason } from "../parser/calls.js";
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
    grammarAccepts(jsonArguments(def), "{}");
  } catch (e) {
    throw new TypeError(`${where}.parameters cannot be checked: ${(e as Error).message}`);
  }
  return def;
}

/** The parsed arguments, or why they are not arguments this tool can be run with. */
export function checkArguments(def: ToolDef, text: string): { args: Record<string, unknown> } | { error: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { error: `the arguments are not JSON (${(e as Error).message}): ${JSON.stringify(text.slice(0, 200))}` };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { error: "the arguments must be a JSON object" };
  if (!grammarAccepts(jsonArguments(def), JSON.stringify(value))) return { error: `the arguments do not fit the tool's parameters: ${invalidJsonReason(def, value)}` };
  return { args: value as Record<string, unknown> };
}
