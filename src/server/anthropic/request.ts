// An Anthropic Messages request body (POST /v1/messages), checked field by field, into generate()'s
// options. The fields this server reads are listed in FIELDS. Hints that change where or how fast
// Anthropic serves a request, never what it answers (`metadata`, `cache_control`, `service_tier`,
// `speed`, `inference_geo`, `output_config.effort`), are accepted and ignored, as clients such as
// Claude Code send them; any other field (server tools' containers, MCP servers, an output format
// the answer would have to follow, …) is refused with a 400 naming it rather than silently
// dropped. Each refusal names the field it is about, since Anthropic's error body has no `param`.
import type { ResponseFormat } from "../../dialects/response-format.js";
import type { ToolChoice } from "../../dialects/tools.js";
import { toolChoiceProblem } from "../../dialects/tool-choice.js";
import type { GenerateOptions } from "../../engine/generate.js";
import { invalidParam } from "../errors.js";
import { INT32_MAX, MAX_STOPS, bool, declaredNames, integer, number } from "../fields.js";
import { given, isObj, kind, shown } from "../values.js";
import type { ModelBounds } from "../../engine/chat-backend.js";
import { messagesOutputFormat } from "../response-format.js";
import { refuseIllFormed } from "../well-formed.js";
import { clearThinking, thinkingTurnsKept } from "./context-management.js";
import { deferLoading, offeredTools, type ToolReferences } from "./deferred-tools.js";
import { conversation, systemMessage } from "./messages.js";

export interface MessagesRequest {
  options: Omit<GenerateOptions, "signal">;
  stream: boolean;
  /** thinking.display "omitted": thinking blocks carry the thought in their signature, not in `thinking`. */
  thoughtOmitted: boolean;
}

/** Every top-level field read here; the hints of IGNORED are read and ignored. */
const FIELDS = [
  "model",
  "messages",
  "max_tokens",
  "system",
  "tools",
  "tool_choice",
  "stop_sequences",
  "temperature",
  "top_p",
  "top_k",
  "thinking",
  "stream",
  "output_config",
  "metadata",
  "cache_control",
  "service_tier",
  "speed",
  "inference_geo",
  "context_management",
];
const KNOWN = new Set(FIELDS);

interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

function refuseUnknown(body: Record<string, unknown>): void {
  for (const key of Object.keys(body))
    if (!KNOWN.has(key))
      throw invalidParam(
        key,
        `${key.length <= 64 ? key : shown(key)} is not supported by this server; it reads ${FIELDS.join(", ")}`,
        "unsupported_parameter",
      );
}

/**
 * Anthropic's client tools {name, description, input_schema} as OpenAI function tools, each with
 * its `defer_loading` (deferred-tools.ts).
 */
function tools(v: unknown): Array<{ tool: FunctionTool; deferred: boolean }> | undefined {
  if (!given(v)) return undefined;
  if (!Array.isArray(v))
    throw invalidParam("tools", `tools must be an array of {name, input_schema}, got ${kind(v)}`, "invalid_type");
  const out = v.map((t, i) => {
    const w = `tools[${i}]`;
    if (!isObj(t)) throw invalidParam(w, `${w} must be an object {name, input_schema}, got ${kind(t)}`);
    if (given(t.type) && t.type !== "custom")
      throw invalidParam(
        `${w}.type`,
        `${w}.type ${shown(t.type)} is a tool Anthropic runs on its servers, which this server does not; declare client tools {name, description, input_schema}`,
        "unsupported_value",
      );
    if (typeof t.name !== "string" || t.name === "")
      throw invalidParam(`${w}.name`, `${w}.name must be a non-empty string, got ${shown(t.name)}`);
    if (!isObj(t.input_schema) || t.input_schema.type !== "object")
      throw invalidParam(
        `${w}.input_schema`,
        `${w}.input_schema must be a JSON schema object with "type": "object", got ${shown(t.input_schema)}`,
      );
    if (given(t.description) && typeof t.description !== "string")
      throw invalidParam(`${w}.description`, `${w}.description must be a string`, "invalid_type");
    const fn: FunctionTool["function"] = { name: t.name, parameters: t.input_schema };
    if (typeof t.description === "string") fn.description = t.description;
    return { tool: { type: "function" as const, function: fn }, deferred: deferLoading(t, w) };
  });
  refuseIllFormed(v, "tools");
  return out;
}

/** `hidden`: deferred tools no tool_reference loaded, which a choice cannot name. */
function toolChoice(
  v: unknown,
  declared: FunctionTool[],
  hidden: string[],
): { choice?: ToolChoice; parallel?: boolean } {
  if (!given(v)) return {};
  const names = declared.map((t) => t.function.name);
  if (!isObj(v) || !["auto", "any", "tool", "none"].includes(v.type as string))
    throw invalidParam(
      "tool_choice",
      `tool_choice must be {"type": "auto"}, {"type": "any"}, {"type": "tool", "name"} or {"type": "none"}, got ${isObj(v) ? `type ${shown(v.type)}` : shown(v)}`,
    );
  if (v.type === "none") return { choice: "none" };
  const noParallel = v.disable_parallel_tool_use;
  if (given(noParallel) && typeof noParallel !== "boolean")
    throw invalidParam(
      "tool_choice.disable_parallel_tool_use",
      `tool_choice.disable_parallel_tool_use must be true or false, got ${kind(noParallel)}`,
      "invalid_type",
    );
  const parallel = typeof noParallel === "boolean" ? { parallel: !noParallel } : {};
  if (v.type === "auto") return { choice: "auto", ...parallel };
  const problem = toolChoiceProblem(v.type === "any" ? "required" : "named", names, v.name);
  if (problem?.rule === "needs-tools")
    throw invalidParam(
      "tool_choice",
      hidden.length > 0
        ? `tool_choice {"type": ${shown(v.type)}} needs a tool the model can call, and every declared tool is deferred (defer_loading: true) with no tool_reference loading it`
        : `tool_choice {"type": ${shown(v.type)}} needs tools; declare at least one in tools`,
    );
  if (problem?.rule === "undeclared" && hidden.includes(problem.name as string))
    throw invalidParam(
      "tool_choice.name",
      `tool_choice.name ${shown(problem.name)} is deferred (defer_loading: true) and no tool_reference in the conversation loads it`,
    );
  if (problem?.rule === "undeclared")
    throw invalidParam(
      "tool_choice.name",
      `tool_choice.name ${shown(problem.name)} is not among the declared tools (${declaredNames(names)})`,
    );
  if (v.type === "any") return { choice: "required", ...parallel };
  return { choice: { type: "function", function: { name: v.name as string } }, ...parallel };
}

function stopSequences(v: unknown): string[] | undefined {
  if (!given(v)) return undefined;
  if (!Array.isArray(v) || v.length > MAX_STOPS || v.some((s) => typeof s !== "string" || s.length === 0))
    throw invalidParam(
      "stop_sequences",
      `stop_sequences must be an array of at most ${MAX_STOPS} non-empty strings, got ${Array.isArray(v) ? `${v.length} items, not all non-empty strings` : kind(v)}`,
    );
  return v.length > 0 ? (v as string[]) : undefined;
}

/**
 * thinking {type: "enabled", budget_tokens} and {type: "adaptive"} turn the template's thinking on
 * (the model decides how long it thinks either way: the budget is not enforced); "disabled" off.
 * `display`: "summarized" (the default) returns the whole thought; "omitted" returns thinking
 * blocks whose thought is in the signature (thought-signature.ts), as Anthropic's API omits it;
 * "updates" (Claude Code's default, the thinking-display-updates beta: the reasoning hidden, the
 * text written between calls returned) the same, since the answer's text blocks are that text.
 */
function thinking(v: unknown): { on: boolean; omitted: boolean } | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v) || (v.type !== "enabled" && v.type !== "disabled" && v.type !== "adaptive"))
    throw invalidParam(
      "thinking",
      `thinking must be {"type": "enabled", "budget_tokens"}, {"type": "adaptive"} or {"type": "disabled"}, got ${isObj(v) ? `type ${shown(v.type)}` : shown(v)}`,
      "unsupported_value",
    );
  if (v.type === "disabled") return { on: false, omitted: false };
  const budget = v.budget_tokens;
  if (
    v.type === "enabled" &&
    (typeof budget !== "number" || !Number.isInteger(budget) || budget < 1 || budget > INT32_MAX)
  )
    throw invalidParam(
      "thinking.budget_tokens",
      `thinking.budget_tokens must be an integer from 1 to ${INT32_MAX}, got ${shown(budget)}`,
    );
  if (given(v.display) && v.display !== "summarized" && v.display !== "omitted" && v.display !== "updates")
    throw invalidParam(
      "thinking.display",
      `thinking.display must be "summarized", "omitted" or "updates", got ${shown(v.display)}`,
      "unsupported_value",
    );
  return { on: true, omitted: v.display === "omitted" || v.display === "updates" };
}

/** output_config: its format (responseFormat, response-format.ts); its effort hint is read and ignored. */
function outputConfig(v: unknown): ResponseFormat | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v)) throw invalidParam("output_config", `output_config must be an object, got ${kind(v)}`, "invalid_type");
  for (const key of Object.keys(v)) {
    if (key === "effort" && (v.effort === null || typeof v.effort === "string")) continue;
    if (key === "format") continue;
    throw invalidParam(
      `output_config.${key.length <= 64 ? key : shown(key)}`,
      key === "effort"
        ? `output_config.effort must be a string, got ${kind(v.effort)}`
        : `output_config.${key.length <= 64 ? key : shown(key)} is not supported by this server; it reads format and effort (ignored)`,
      "unsupported_parameter",
    );
  }
  return messagesOutputFormat(v.format);
}

/** `counting`: for count_tokens, where max_tokens is not asked for. */
export function parseMessagesRequest(body: unknown, { contextSize }: ModelBounds, counting = false): MessagesRequest {
  if (!isObj(body))
    throw invalidParam("body", `the request body must be a JSON object, got ${kind(body)}`, "invalid_type");
  refuseUnknown(body);
  if (typeof body.model !== "string")
    throw invalidParam(
      "model",
      `model must be a string, got ${kind(body.model)}`,
      given(body.model) ? "invalid_type" : "missing_required_parameter",
    );
  const maxTokens = integer(body, "max_tokens", 1, INT32_MAX);
  if (maxTokens === undefined && !counting)
    throw invalidParam("max_tokens", "max_tokens is required: an integer from 1 up", "missing_required_parameter");
  const system = systemMessage(body.system);
  const kept = thinkingTurnsKept(body.context_management);
  const refs: ToolReferences = new Map();
  const said = conversation(body.messages, contextSize, refs);
  const messages = kept === undefined ? said : clearThinking(said, kept);
  const options: Omit<GenerateOptions, "signal"> = { messages: system ? [system, ...messages] : messages };
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  const { offered, hidden } = offeredTools(tools(body.tools) ?? [], refs);
  if (offered.length > 0) options.tools = offered;
  const { choice, parallel } = toolChoice(body.tool_choice, offered, hidden);
  if (choice !== undefined) options.toolChoice = choice;
  if (parallel !== undefined) options.parallelToolCalls = parallel;
  const stops = stopSequences(body.stop_sequences);
  if (stops) options.stop = stops;
  const temperature = number(body, "temperature", 0, 1);
  if (temperature !== undefined) options.temperature = temperature;
  const topP = number(body, "top_p", 0, 1);
  if (topP !== undefined) options.topP = topP;
  const topK = integer(body, "top_k", 1, INT32_MAX);
  if (topK !== undefined) options.topK = topK;
  const format = outputConfig(body.output_config);
  if (format) options.responseFormat = format;
  const reasoning = thinking(body.thinking);
  if (reasoning !== undefined) options.reasoning = reasoning.on;
  return { options, stream: bool(body, "stream") ?? false, thoughtOmitted: reasoning?.omitted ?? false };
}
