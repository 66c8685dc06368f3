// The request's tools, checked once: every later stage can trust names and schemas.
import type { DialectSpec } from "./spec.js";
import { resolvePointer } from "../grammar/json-schema/pointer.js";
import { keptNames, nameLanguage } from "../grammar/json-schema/property-names.js";
import { checkTopLevel } from "./parameters-top.js";

export interface ToolDef {
  name: string;
  /** The parameters schema (an object schema, `type: "object"` added where absent; `{type:"object", properties:{}}` when absent). */
  parameters: Record<string, unknown>;
  properties: Record<string, unknown>;
  required: string[];
  /** Where `parameters` sits in the request (`tools[3].function.parameters`): schema errors name paths from here. */
  path?: string;
}

export type ToolChoice = "auto" | "required" | "none" | { type: "function"; function: { name: string } };

export class ToolDefinitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolDefinitionError";
  }
}

/** OpenAI tools (`{type:"function", function:{name, parameters}}`) or bare `{name, parameters}`. */
export function normalizeTools(tools: unknown, spec: DialectSpec): ToolDef[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw new ToolDefinitionError("tools must be an array of OpenAI tool objects");
  const seen = new Set<string>();
  return tools.map((t, i) => {
    const where = `tools[${i}]`;
    if (t === null || typeof t !== "object") throw new ToolDefinitionError(`${where} must be an object`);
    const o = t as Record<string, unknown>;
    const wrapped = o.type === "function" && !!o.function && typeof o.function === "object";
    const fn = (wrapped ? o.function : o) as Record<string, unknown>;
    const name = fn.name;
    if (typeof name !== "string" || name.length === 0)
      throw new ToolDefinitionError(`${where}.function.name must be a non-empty string`);
    if (seen.has(name))
      throw new ToolDefinitionError(`${where}: duplicate tool name "${name}"; tool names must be unique`);
    seen.add(name);
    checkCarriable(name, `${where}.function.name`, spec);
    const params = fn.parameters ?? { type: "object", properties: {} };
    if (params === null || typeof params !== "object" || Array.isArray(params))
      throw new ToolDefinitionError(`${where}.function.parameters must be a JSON schema object`);
    const p = params as Record<string, unknown>;
    if (p.type !== undefined && p.type !== "object")
      throw new ToolDefinitionError(
        `${where}.function.parameters must describe an object (type "object"), got type ${JSON.stringify(p.type)}`,
      );
    const properties = (p.properties ?? {}) as Record<string, unknown>;
    if (properties === null || typeof properties !== "object" || Array.isArray(properties))
      throw new ToolDefinitionError(`${where}.function.parameters.properties must be an object`);
    const required = (p.required ?? []) as unknown;
    if (!Array.isArray(required) || required.some((r) => typeof r !== "string"))
      throw new ToolDefinitionError(`${where}.function.parameters.required must be an array of names`);
    const path = `${where}${wrapped ? ".function" : ""}.parameters`;
    checkTopLevel(p, properties, required as string[], path);
    // "propertyNames": a parameter it refuses is no parameter (a required one: no call can be written).
    const named = withNames(p, properties, required as string[], path);
    if (spec.call.kind === "xml")
      for (const k of Object.keys(properties)) checkCarriable(k, `${where}.function.parameters.properties.${k}`, spec);
    if (spec.call.kind === "python")
      for (const k of Object.keys(properties)) checkKeyword(k, `${where}.function.parameters.properties.${k}`, spec);
    // untyped parameters are an object: keywords of other types there constrain nothing, in every dialect
    const parameters = p.type === undefined ? { type: "object", ...p } : p;
    return { name, parameters, properties: named, required: required as string[], path };
  });
}

/** `properties` less those whose names the parameters' "propertyNames" refuses. */
function withNames(
  p: Record<string, unknown>,
  properties: Record<string, unknown>,
  required: string[],
  path: string,
): Record<string, unknown> {
  if (!Object.hasOwn(p, "propertyNames")) return properties;
  const language = nameLanguage(p.propertyNames, `${path}.propertyNames`, (ptr, at) =>
    resolvePointer(p, path, ptr, at),
  );
  const kept = keptNames([...Object.keys(properties), ...required], required, language, path);
  return Object.fromEntries(Object.entries(properties).filter(([k]) => kept.has(k)));
}

/** A name must not contain what ends it on the wire, or the call could not be read back. */
function checkCarriable(name: string, where: string, spec: DialectSpec): void {
  const c = spec.call;
  const enders =
    c.kind === "xml"
      ? [...(c.nameClose === null ? [] : [c.nameClose]), c.paramNameClose, "<", "\n"]
      : c.kind === "named"
        ? [c.nameClose, ...(typeof c.id === "object" ? [c.id.open] : []), "\n"]
        : c.kind === "harmony"
          ? [" ", "<|", "\n"]
          : c.kind === "python"
            ? [c.nameClose, ")", ",", "[", "]", " ", "\n"]
            : ['"', "\\", "\n"];
  for (const e of enders)
    if (name.includes(e))
      throw new ToolDefinitionError(
        `${where}: "${name}" contains ${JSON.stringify(e)}, which the ${spec.name} dialect uses to end a name`,
      );
  if (/[\u0000-\u001f]/.test(name)) throw new ToolDefinitionError(`${where}: "${name}" contains a control character`);
}

/** A Python call's argument name is a keyword (`key=value`): an identifier. */
function checkKeyword(name: string, where: string, spec: DialectSpec): void {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new ToolDefinitionError(
      `${where}: "${name}" is not an identifier, and the ${spec.name} dialect writes arguments as key=value (Python keyword arguments); rename the parameter to letters, digits and "_"`,
    );
}
