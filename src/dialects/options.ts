// Options every dialect honours, checked once: resolveRequest turns them into a ResolvedRequest.
import { getDialect } from "./index.js";
import { FENCED_CALLS } from "./opening.js";
import type { DialectSpec } from "./spec.js";
import { normalizeTools, ToolDefinitionError, type ToolChoice, type ToolDef } from "./tools.js";
import {
  allowedTools,
  choiceMode,
  choiceName,
  requiresCall,
  toolChoiceProblem,
  type ChoiceMode,
} from "./tool-choice.js";
import { checkStrictFormats } from "./format-notices.js";
import {
  ResponseFormatError,
  resolveResponseFormat,
  type ResolvedResponseFormat,
  type ResponseFormat,
} from "./response-format.js";

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
  /**
   * The answer's content as JSON that fits a schema (response-format.ts); `{type: "text"}` or
   * absent: any text.
   */
  responseFormat?: ResponseFormat;
}

const RESOLVED: unique symbol = Symbol("toolmask.resolvedRequest");

/**
 * A request's options resolved once, at the edge (prepareChat, the gateway, or the first public
 * function given plain options): the dialect, the tools normalised, the tool choice decided
 * (tool-choice.ts), and what was checked of them. The grammar builder, the parser, the verifier
 * and the gateway take it as it is and resolve nothing again. Made only by resolveRequest and
 * requestWith; a copy (`{...r}`) is one too.
 */
export interface ResolvedRequest {
  readonly [RESOLVED]: true;
  spec: DialectSpec;
  /** Every declared tool, normalised (tools.ts). */
  declared: ToolDef[];
  /** The tools a call may name under the tool choice (allowedTools). */
  tools: ToolDef[];
  toolChoice: ChoiceMode;
  /** The answer must hold a call (requiresCall): "required" or a named tool. */
  callRequired: boolean;
  parallelToolCalls: boolean;
  reasoning: boolean | "forced-open";
  maxValueLength?: number;
  /** The content's JSON format; absent: any text. Tool calls stay as the tool choice allows. */
  outputFormat?: ResolvedResponseFormat;
  /**
   * What was checked of this request and passed, so that it is checked once: `toolLimits`, the
   * tools' grammar lowered within the schema limits (src/parser/tool-limits.ts).
   */
  readonly checked: { toolLimits: boolean };
}

/** Whether `o` is a ResolvedRequest (resolveRequest's answer), not plain options. */
export function isResolvedRequest(o: unknown): o is ResolvedRequest {
  return typeof o === "object" && o !== null && (o as { [RESOLVED]?: unknown })[RESOLVED] === true;
}

/**
 * Checks the options and resolves them: the dialect, the tools normalised once, the tool choice.
 * A ResolvedRequest is returned as it is.
 */
export function resolveRequest(o: DialectOptions | ResolvedRequest): ResolvedRequest {
  if (isResolvedRequest(o)) return o;
  if (o === null || typeof o !== "object")
    throw new ToolDefinitionError("options must be an object with at least { dialect }");
  const named = typeof o.dialect === "string" ? getDialect(o.dialect) : o.dialect;
  if (!named || typeof named !== "object" || !named.call)
    throw new ToolDefinitionError("options.dialect must be a dialect name or definition");
  const spec = withFencedCalls(named, o.fencedCalls);
  const declared = normalizeTools(o.tools, spec);
  if (o.strictFormats !== undefined && typeof o.strictFormats !== "boolean")
    throw new ToolDefinitionError(`strictFormats must be true or false, got ${JSON.stringify(o.strictFormats)}`);
  const outputFormat = resolveResponseFormat(o.responseFormat);
  if (o.strictFormats) checkStrictFormats(declared, outputFormat);
  const toolChoice = choiceMode(o.toolChoice);
  const problem = toolChoiceProblem(
    toolChoice,
    declared.map((t) => t.name),
    choiceName(o.toolChoice),
  );
  if (problem?.rule === "undeclared")
    throw new ToolDefinitionError(`toolChoice names "${String(problem.name)}", which is not among the declared tools`);
  checkReasoning(spec, o.reasoning);
  if (o.maxValueLength !== undefined && (!Number.isInteger(o.maxValueLength) || o.maxValueLength < 0))
    throw new ToolDefinitionError("maxValueLength must be a non-negative integer");
  if (problem?.rule === "needs-tools")
    throw new ToolDefinitionError("toolChoice requires a call but no tools are declared");
  const tools = allowedTools(declared, o.toolChoice);
  if (outputFormat) checkContentBesideCalls(spec, tools.length > 0 && !requiresCall(toolChoice));
  return {
    [RESOLVED]: true,
    spec,
    declared,
    tools,
    toolChoice,
    callRequired: requiresCall(toolChoice),
    parallelToolCalls: o.parallelToolCalls ?? true,
    reasoning: o.reasoning ?? false,
    ...(o.maxValueLength !== undefined ? { maxValueLength: o.maxValueLength } : {}),
    ...(outputFormat ? { outputFormat } : {}),
    checked: { toolLimits: false },
  };
}

/**
 * Whether JSON content may stand beside calls (tools under toolChoice "auto" and a response
 * format): only where a call opens with a marker that JSON text cannot be read as. Where a call is
 * itself a JSON object opening the answer (llama3, qwen2.5-coder's bare calls, the generic
 * envelope), JSON content could not be told from a call.
 */
function checkContentBesideCalls(spec: DialectSpec, beside: boolean): void {
  if (!beside) return;
  if (spec.callOpensAnswer || spec.openingCalls || spec.call.kind === "envelope")
    throw new ResponseFormatError(
      `a JSON response format beside tools under toolChoice "auto" is not supported in the ${spec.name} dialect: its calls open the answer as JSON objects, which JSON content could not be told from; use toolChoice "none" (JSON content only) or "required" (calls only)`,
    );
}

/**
 * `r` with another tool choice or thought setting, its tools normalised as they were (nothing is
 * normalised again); what was checked of `r` is checked again for it.
 */
export function requestWith(
  r: ResolvedRequest,
  change: { toolChoice?: "auto" | "required"; reasoning?: boolean | "forced-open" },
): ResolvedRequest {
  const toolChoice = change.toolChoice ?? r.toolChoice;
  const reasoning = change.reasoning ?? r.reasoning;
  if (change.reasoning !== undefined) checkReasoning(r.spec, reasoning);
  if (
    toolChoiceProblem(
      toolChoice,
      r.declared.map((t) => t.name),
    )?.rule === "needs-tools"
  )
    throw new ToolDefinitionError("toolChoice requires a call but no tools are declared");
  const tools = change.toolChoice ? allowedTools(r.declared, change.toolChoice) : r.tools;
  if (r.outputFormat) checkContentBesideCalls(r.spec, tools.length > 0 && !requiresCall(toolChoice));
  return {
    ...r,
    tools,
    toolChoice,
    callRequired: requiresCall(toolChoice),
    reasoning,
    checked: { toolLimits: false },
  };
}

function checkReasoning(spec: DialectSpec, reasoning: unknown): void {
  if (reasoning !== undefined && typeof reasoning !== "boolean" && reasoning !== "forced-open")
    throw new ToolDefinitionError(`reasoning must be false, true or "forced-open", got ${JSON.stringify(reasoning)}`);
  if (reasoning && !spec.reasoning)
    throw new ToolDefinitionError(`the ${spec.name} dialect has no thought block; use reasoning: false`);
  // Text that spells a thought where none opened the answer is text to the grammar and a thought to
  // the parser, which then reads a fenced call after its close: one the grammar never checked.
  if (reasoning === true && spec.openingCalls)
    throw new ToolDefinitionError(
      'fenced and bare calls (fencedCalls) cannot be combined with reasoning: true (the answer may or may not open with a thought, and a fenced call right after one would not be held to its schema); use reasoning: "forced-open" where the prompt opens the thought, or false',
    );
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
