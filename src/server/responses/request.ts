// A Responses API request body (POST /v1/responses), checked field by field, into generate()'s
// options and the request fields the Response object echoes. This server keeps no responses: each
// request carries its whole conversation in `input` (as clients do with store: false), and
// previous_response_id / conversation are refused with a 400 saying so. Hints that change how
// OpenAI bills, caches or logs a request, never what it answers (user, store, prompt_cache_key,
// service_tier, …), are read and ignored; `metadata` is checked as OpenAI checks it and echoed in
// the Response, as OpenAI does; any other field is refused with a 400 naming it rather than
// silently dropped.
import type { ResponseFormat } from "../../dialects/response-format.js";
import type { ToolChoice } from "../../dialects/tools.js";
import { toolChoiceProblem } from "../../dialects/tool-choice.js";
import type { GenerateOptions } from "../../engine/generate.js";
import { invalidParam } from "../errors.js";
import { INT32_MAX, bool, declaredNames, given, integer, isObj, kind, number, shown, type Obj } from "../validate.js";
import type { ModelBounds } from "../../engine/chat-backend.js";
import { responsesTextFormat } from "../response-format.js";
import { refuseIllFormed } from "../well-formed.js";
import { inputMessages } from "./input.js";

/** What the Response object repeats of the request. */
export interface Echo {
  instructions: string | null;
  tools: FunctionToolDef[];
  tool_choice: "auto" | "none" | "required" | { type: "function"; name: string };
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  metadata: Record<string, string> | null;
  reasoning: { effort: string | null; summary: string | null } | null;
  /** The request's text.format as given ({"type": "text"} when absent). */
  format: Obj;
}

export interface ResponsesRequest {
  options: Omit<GenerateOptions, "signal">;
  stream: boolean;
  echo: Echo;
}

/** A function tool as the Responses API declares it (flat: no `function` wrapper). */
export interface FunctionToolDef {
  type: "function";
  name: string;
  description?: string | null;
  parameters: Obj;
  strict: boolean;
}

const READ = [
  "model",
  "input",
  "instructions",
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_output_tokens",
  "temperature",
  "top_p",
  "reasoning",
  "text",
  "stream",
  "include",
  "truncation",
];
const IGNORED = [
  "store",
  "metadata", // echoed, otherwise unused
  "user",
  "safety_identifier",
  "prompt_cache_key",
  "prompt_cache_retention",
  "service_tier",
  "stream_options",
];
const KNOWN = new Set([...READ, ...IGNORED]);
const STATELESS =
  "this server keeps no responses: send the whole conversation in input (earlier function_call and function_call_output items included) and leave it unset";

/** OpenAI's bounds on metadata: at most 16 pairs, keys of at most 64 characters, string values of at most 512. */
export const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

/**
 * `metadata`, checked as OpenAI checks it and echoed in the Response as OpenAI does; nothing else
 * reads it. Bounded, the echo cannot carry what the answer could not hold (a value nested
 * thousands deep, megabytes of text).
 */
function metadata(v: unknown): Record<string, string> | null {
  if (!given(v)) return null;
  if (!isObj(v)) throw invalidParam("metadata", `metadata must be an object, got ${kind(v)}`, "invalid_type");
  const keys = Object.keys(v);
  const { pairs, keyLength, valueLength } = METADATA_LIMITS;
  if (keys.length > pairs)
    throw invalidParam("metadata", `metadata has ${keys.length} keys; send at most ${pairs} key-value pairs`);
  for (const key of keys) {
    const value = v[key];
    const at = /^[A-Za-z_$][\w$]*$/.test(key) ? `metadata.${key}` : `metadata[${JSON.stringify(key)}]`;
    if (key.length > keyLength)
      throw invalidParam(
        "metadata",
        `metadata keys are at most ${keyLength} characters; ${shown(key)} is ${key.length}`,
      );
    if (typeof value !== "string" || value.length > valueLength)
      throw invalidParam(
        at,
        `${at} must be a string of at most ${valueLength} characters, got ${typeof value === "string" ? `${value.length} characters` : kind(value)}`,
        typeof value === "string" ? "invalid_value" : "invalid_type",
      );
  }
  return v as Record<string, string>;
}

function refuseUnknown(body: Obj): void {
  for (const key of ["previous_response_id", "conversation"])
    if (given(body[key])) throw invalidParam(key, `${key} is not supported: ${STATELESS}`, "unsupported_parameter");
  if (given(body.background) && body.background !== false)
    throw invalidParam(
      "background",
      "background is not supported: this server answers while the connection is open (use stream: true)",
      "unsupported_parameter",
    );
  for (const key of Object.keys(body))
    if (!KNOWN.has(key) && key !== "previous_response_id" && key !== "conversation" && key !== "background")
      throw invalidParam(
        key,
        `${key.length <= 64 ? key : shown(key)} is not supported by this server; it reads ${READ.join(", ")} (and ignores ${IGNORED.join(", ")})`,
        "unsupported_parameter",
      );
}

function tools(v: unknown): FunctionToolDef[] {
  if (!given(v)) return [];
  if (!Array.isArray(v))
    throw invalidParam(
      "tools",
      `tools must be an array of {"type": "function", "name", "parameters"}, got ${kind(v)}`,
      "invalid_type",
    );
  const out = v.map((t, i): FunctionToolDef => {
    const w = `tools[${i}]`;
    if (!isObj(t))
      throw invalidParam(w, `${w} must be {"type": "function", "name", "parameters"}, got ${kind(t)}`, "invalid_type");
    if (t.type !== "function")
      throw invalidParam(
        `${w}.type`,
        `${w}.type ${shown(t.type)} is not supported: this server runs no hosted tools and takes function tools {"type": "function", "name", "parameters"} only`,
        "unsupported_value",
      );
    if (isObj(t.function))
      throw invalidParam(
        w,
        `${w} is in the chat-completions shape; the Responses API declares {"type": "function", "name", "parameters"} without a "function" wrapper`,
      );
    if (typeof t.name !== "string" || t.name === "")
      throw invalidParam(`${w}.name`, `${w}.name must be a non-empty string, got ${shown(t.name)}`);
    const parameters = given(t.parameters) ? t.parameters : { type: "object", properties: {} };
    if (!isObj(parameters))
      throw invalidParam(
        `${w}.parameters`,
        `${w}.parameters must be a JSON schema object, got ${kind(parameters)}`,
        "invalid_type",
      );
    if (given(t.description) && typeof t.description !== "string")
      throw invalidParam(`${w}.description`, `${w}.description must be a string`, "invalid_type");
    if (given(t.strict) && typeof t.strict !== "boolean")
      throw invalidParam(`${w}.strict`, `${w}.strict must be true or false`, "invalid_type");
    const def: FunctionToolDef = { type: "function", name: t.name, parameters, strict: t.strict !== false };
    if (typeof t.description === "string") def.description = t.description;
    return def;
  });
  refuseIllFormed(v, "tools");
  return out;
}

function toolChoice(v: unknown, declared: FunctionToolDef[]): Echo["tool_choice"] {
  if (!given(v)) return "auto";
  const names = declared.map((t) => t.name);
  if (v === "auto" || v === "none") return v;
  if (v === "required" || (isObj(v) && v.type === "function")) {
    const name = v === "required" ? undefined : (v as Obj).name;
    const problem = toolChoiceProblem(v === "required" ? "required" : "named", names, name);
    if (problem?.rule === "needs-tools")
      throw invalidParam(
        "tool_choice",
        `tool_choice ${shown(v === "required" ? v : "function")} needs tools; declare at least one in tools`,
      );
    if (problem?.rule === "undeclared")
      throw invalidParam(
        "tool_choice",
        `tool_choice names ${shown(problem.name)}, which is not among the declared tools (${declaredNames(names)})`,
      );
    return v === "required" ? v : { type: "function", name: name as string };
  }
  throw invalidParam(
    "tool_choice",
    `tool_choice must be "auto", "none", "required" or {"type": "function", "name"}, got ${isObj(v) ? `type ${shown(v.type)}` : shown(v)}`,
    "unsupported_value",
  );
}

const EFFORTS = new Set(["none", "minimal", "low", "medium", "high", "xhigh"]);

/** reasoning.effort turns the template's thinking on ("none": off); summaries are the whole thought. */
function reasoning(v: unknown): Echo["reasoning"] {
  if (!given(v)) return null;
  if (!isObj(v))
    throw invalidParam("reasoning", `reasoning must be an object {effort, summary}, got ${kind(v)}`, "invalid_type");
  for (const key of Object.keys(v))
    if (key !== "effort" && key !== "summary" && key !== "generate_summary")
      throw invalidParam(
        `reasoning.${key.slice(0, 64)}`,
        `reasoning.${key.slice(0, 64)} is not supported; reasoning reads effort and summary`,
        "unsupported_parameter",
      );
  if (given(v.effort) && !EFFORTS.has(v.effort as string))
    throw invalidParam(
      "reasoning.effort",
      `reasoning.effort must be one of ${[...EFFORTS].join(", ")}, got ${shown(v.effort)}`,
    );
  const summary = v.summary ?? v.generate_summary;
  if (given(summary) && !["auto", "concise", "detailed"].includes(summary as string))
    throw invalidParam(
      "reasoning.summary",
      `reasoning.summary must be "auto", "concise" or "detailed", got ${shown(summary)}`,
    );
  return { effort: (v.effort as string | undefined) ?? null, summary: (summary as string | undefined) ?? null };
}

/** text: its format (responseFormat, response-format.ts); verbosity is read and ignored. */
function textConfig(v: unknown): ResponseFormat | undefined {
  if (!given(v)) return undefined;
  if (!isObj(v))
    throw invalidParam("text", `text must be an object {format, verbosity}, got ${kind(v)}`, "invalid_type");
  const format = responsesTextFormat(v.format);
  if (given(v.verbosity) && !["low", "medium", "high"].includes(v.verbosity as string))
    throw invalidParam("text.verbosity", `text.verbosity must be "low", "medium" or "high", got ${shown(v.verbosity)}`);
  return format;
}

/** include: reasoning.encrypted_content is accepted (reasoning items carry their whole text instead). */
function include(v: unknown): void {
  if (!given(v)) return;
  if (!Array.isArray(v))
    throw invalidParam("include", `include must be an array of strings, got ${kind(v)}`, "invalid_type");
  for (const [k, s] of v.entries())
    if (s !== "reasoning.encrypted_content")
      throw invalidParam(
        `include[${k}]`,
        `include[${k}] ${shown(s)} is not supported; this server can include only "reasoning.encrypted_content" (its reasoning items carry their text instead)`,
        "unsupported_value",
      );
}

export function parseResponsesRequest(body: unknown, { contextSize }: ModelBounds): ResponsesRequest {
  if (!isObj(body))
    throw invalidParam("body", `the request body must be a JSON object, got ${kind(body)}`, "invalid_type");
  refuseUnknown(body);
  if (given(body.model) && typeof body.model !== "string")
    throw invalidParam("model", `model must be a string, got ${kind(body.model)}`, "invalid_type");
  const instructions = typeof body.instructions === "string" ? body.instructions : null;
  const options: Omit<GenerateOptions, "signal"> = {
    messages: inputMessages(body.input, body.instructions, contextSize),
  };
  const declared = tools(body.tools);
  if (declared.length > 0)
    options.tools = declared.map((t) => ({
      type: "function",
      function: { name: t.name, parameters: t.parameters, ...(t.description ? { description: t.description } : {}) },
    }));
  const choice = toolChoice(body.tool_choice, declared);
  if (given(body.tool_choice))
    options.toolChoice = (
      typeof choice === "string" ? choice : { type: "function", function: { name: choice.name } }
    ) as ToolChoice;
  const parallel = bool(body, "parallel_tool_calls");
  if (parallel !== undefined) options.parallelToolCalls = parallel;
  const maxTokens = integer(body, "max_output_tokens", 1, INT32_MAX);
  if (maxTokens !== undefined) options.maxTokens = maxTokens;
  const temperature = number(body, "temperature", 0, 2);
  if (temperature !== undefined) options.temperature = temperature;
  const topP = number(body, "top_p", 0, 1);
  if (topP !== undefined) options.topP = topP;
  const thought = reasoning(body.reasoning);
  if (thought?.effort) options.reasoning = thought.effort !== "none";
  const format = textConfig(body.text);
  if (format) options.responseFormat = format;
  include(body.include);
  if (given(body.truncation) && body.truncation !== "disabled")
    throw invalidParam(
      "truncation",
      `truncation must be "disabled", got ${shown(body.truncation)}: this server does not drop earlier input to fit the context (a prompt too long is a 400)`,
      "unsupported_value",
    );
  bool(body, "store");
  const meta = metadata(body.metadata);
  const echo: Echo = {
    instructions,
    tools: declared,
    tool_choice: choice,
    parallel_tool_calls: parallel ?? true,
    temperature: temperature ?? null,
    top_p: topP ?? null,
    max_output_tokens: maxTokens ?? null,
    metadata: meta,
    reasoning: thought,
    format: isObj(body.text) && isObj(body.text.format) ? body.text.format : { type: "text" },
  };
  return { options, stream: bool(body, "stream") ?? false, echo };
}
