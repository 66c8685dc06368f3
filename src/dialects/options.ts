// Options every dialect honours, checked once.
import { getDialect } from "./index.js";
import type { DialectSpec } from "./spec.js";
import { allowedTools, normalizeTools, ToolDefinitionError, type ToolChoice, type ToolDef } from "./tools.js";
import { checkStrictFormats } from "./format-notices.js";

export interface DialectOptions {
  /** A dialect name (see `dialects`) or a definition. */
  dialect: string | DialectSpec;
  /** OpenAI-style tools. Absent or [] → no calls: call text is content. */
  tools?: unknown;
  toolChoice?: ToolChoice;
  /** false → at most one call. Default true. */
  parallelToolCalls?: boolean;
  /** false (off), true (a thought may open the answer) or "forced-open" (the prompt opened it). Default false. */
  reasoning?: boolean | "forced-open";
  /** Per-value size limit (characters of a raw XML value). */
  maxValueLength?: number;
  /**
   * true: a tool whose schema names a "format" the grammar does not enforce is refused
   * (UnsupportedSchemaError naming the keyword). Default false: such a format is an annotation
   * (format-notices.ts).
   */
  strictFormats?: boolean;
}

export interface ResolvedOptions {
  spec: DialectSpec;
  /** Every declared tool. */
  declared: ToolDef[];
  /** The tools a call may name under toolChoice. */
  tools: ToolDef[];
  toolChoice: "auto" | "required" | "none" | "named";
  parallelToolCalls: boolean;
  reasoning: boolean | "forced-open";
  maxValueLength?: number;
}

export function resolveOptions(o: DialectOptions): ResolvedOptions {
  if (o === null || typeof o !== "object")
    throw new ToolDefinitionError("options must be an object with at least { dialect }");
  const spec = typeof o.dialect === "string" ? getDialect(o.dialect) : o.dialect;
  if (!spec || typeof spec !== "object" || !spec.call)
    throw new ToolDefinitionError("options.dialect must be a dialect name or definition");
  const declared = normalizeTools(o.tools, spec);
  if (o.strictFormats !== undefined && typeof o.strictFormats !== "boolean")
    throw new ToolDefinitionError(`strictFormats must be true or false, got ${JSON.stringify(o.strictFormats)}`);
  if (o.strictFormats) checkStrictFormats(declared);
  const tools = allowedTools(declared, o.toolChoice);
  if (o.reasoning !== undefined && typeof o.reasoning !== "boolean" && o.reasoning !== "forced-open")
    throw new ToolDefinitionError(`reasoning must be false, true or "forced-open", got ${JSON.stringify(o.reasoning)}`);
  if (o.reasoning && !spec.reasoning)
    throw new ToolDefinitionError(`the ${spec.name} dialect has no thought block; use reasoning: false`);
  if (o.maxValueLength !== undefined && (!Number.isInteger(o.maxValueLength) || o.maxValueLength < 0))
    throw new ToolDefinitionError("maxValueLength must be a non-negative integer");
  const choice = o.toolChoice ?? "auto";
  const required = choice === "required" || typeof choice === "object";
  if (required && tools.length === 0)
    throw new ToolDefinitionError("toolChoice requires a call but no tools are declared");
  return {
    spec,
    declared,
    tools,
    toolChoice: typeof choice === "object" ? "named" : choice,
    parallelToolCalls: o.parallelToolCalls ?? true,
    reasoning: o.reasoning ?? false,
    ...(o.maxValueLength !== undefined ? { maxValueLength: o.maxValueLength } : {}),
  };
}
