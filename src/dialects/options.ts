// Options every dialect honours, checked once.
import { getDialect } from "./index.js";
import { FENCED_CALLS } from "./opening.js";
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
  /**
   * Calls may also open the answer as JSON objects without the dialect's markers, bare or in a
   * ```json fence, one after another (what Qwen2.5 models write besides `<tool_call>`; the
   * qwen2.5-coder dialect always reads them). For dialects whose calls are a JSON object inside
   * markers (hermes). Default false; docs/dialects.md, "Fenced and bare calls".
   */
  fencedCalls?: boolean;
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
  const named = typeof o.dialect === "string" ? getDialect(o.dialect) : o.dialect;
  if (!named || typeof named !== "object" || !named.call)
    throw new ToolDefinitionError("options.dialect must be a dialect name or definition");
  const spec = withFencedCalls(named, o.fencedCalls);
  const declared = normalizeTools(o.tools, spec);
  if (o.strictFormats !== undefined && typeof o.strictFormats !== "boolean")
    throw new ToolDefinitionError(`strictFormats must be true or false, got ${JSON.stringify(o.strictFormats)}`);
  if (o.strictFormats) checkStrictFormats(declared);
  const tools = allowedTools(declared, o.toolChoice);
  if (o.reasoning !== undefined && typeof o.reasoning !== "boolean" && o.reasoning !== "forced-open")
    throw new ToolDefinitionError(`reasoning must be false, true or "forced-open", got ${JSON.stringify(o.reasoning)}`);
  if (o.reasoning && !spec.reasoning)
    throw new ToolDefinitionError(`the ${spec.name} dialect has no thought block; use reasoning: false`);
  // Text that spells a thought where none opened the answer is text to the grammar and a thought to
  // the parser, which then reads a fenced call after its close: one the grammar never checked.
  if (o.reasoning === true && spec.openingCalls)
    throw new ToolDefinitionError(
      'fenced and bare calls (fencedCalls) cannot be combined with reasoning: true (the answer may or may not open with a thought, and a fenced call right after one would not be held to its schema); use reasoning: "forced-open" where the prompt opens the thought, or false',
    );
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

/**
 * The dialect as `fencedCalls` asks: unchanged when left out or already so; with FENCED_CALLS for a
 * JSON call inside markers (hermes). A dialect that cannot take them, or always has them, says so.
 */
function withFencedCalls(spec: DialectSpec, fenced: unknown): DialectSpec {
  if (fenced === undefined || fenced === Boolean(spec.openingCalls)) return spec;
  if (typeof fenced !== "boolean")
    throw new ToolDefinitionError(`fencedCalls must be true or false, got ${JSON.stringify(fenced)}`);
  if (!fenced)
    throw new ToolDefinitionError(
      `the ${spec.name} dialect always reads fenced and bare JSON calls; leave fencedCalls out (or use the llama3 form through a dialect definition)`,
    );
  const f = spec.call;
  if (f.kind !== "json" || f.open.length === 0 || spec.section || f.id)
    throw new ToolDefinitionError(
      `fencedCalls is for dialects whose call is a {"name", "arguments"} object inside markers (hermes); the ${spec.name} dialect writes its calls otherwise`,
    );
  return { ...spec, openingCalls: FENCED_CALLS };
}
