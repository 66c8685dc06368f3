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
import { INT32_MAX, bool, declaredNames, integer, number } from "../fields.js";
import { given, isObj, kind, shown, type Obj } from "../values.js";
import type { ModelBounds } from "../../engine/chat-backend.js";
import { responsesTextFormat } from "../response-format.js";
import { inputMessages } from "./input.js";
import { type CallRoute, type DeclaredTools, declaredTools, HOSTED, loadedTools, type NotOffered } from "./tools.js";

/** What the Response object repeats of the request. */
export interface Echo {
  instructions: string | null;
  tools: Obj[];
  tool_choice: "auto" | "none" | "required" | { type: "function" | "custom"; name: string };
  parallel_tool_calls: boolean;
  temperature: number | null;
  top_p: number | null;
  max_output_tokens: number | null;
  metadata: Record<string, string> | null;
  reasoning: { effort: string | null; summary: string | null } | null;
  /** The declared tools the model is not offered (hosted tools), as the Response's toolmask.tools_not_offered says. */
  notOffered: NotOffered[];
  /** The request's text.format as given ({"type": "text"} when absent). */
  format: Obj;
}

export interface ResponsesRequest {
  options: Omit<GenerateOptions, "signal">;
  stream: boolean;
  echo: Echo;
  /** By the name the model calls: the item each call comes back as. */
  routes: Map<string, CallRoute>;
  /** Where each offered tool is in the request, by its index in options.tools (engine errors name it). */
  toolPaths: string[];
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
  "client_metadata", // Codex: ids of its installation, session and turn (an object of strings)
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

/** `client_metadata` (Codex sends its installation, session and turn ids): checked as an object of strings, then unused. */
function clientMetadata(v: unknown): void {
  if (!given(v)) return;
  if (!isObj(v))
    throw invalidParam(
      "client_metadata",
      `client_metadata must be an object of strings, got ${kind(v)}`,
      "invalid_type",
    );
  for (const [key, value] of Object.entries(v))
    if (typeof value !== "string")
      throw invalidParam(
        "client_metadata",
        `client_metadata[${JSON.stringify(key.slice(0, 64))}] must be a string, got ${kind(value)}`,
        "invalid_type",
      );
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

function toolChoice(v: unknown, declared: DeclaredTools): Echo["tool_choice"] {
  if (!given(v)) return "auto";
  const names = [...declared.routes.keys()];
  if (v === "auto" || v === "none") return v;
  const named = isObj(v) && (v.type === "function" || v.type === "custom");
  if (v === "required" || named) {
    const name = v === "required" ? undefined : (v as Obj).name;
    const problem = toolChoiceProblem(v === "required" ? "required" : "named", names, name);
    if (problem?.rule === "needs-tools")
      throw invalidParam(
        "tool_choice",
        `tool_choice ${shown(v === "required" ? v : (v as Obj).type)} needs tools; declare at least one in tools${declared.notOffered.length > 0 ? " (hosted tools are not offered: this server cannot run them)" : ""}`,
      );
    if (problem?.rule === "undeclared")
      throw invalidParam(
        "tool_choice",
        `tool_choice names ${shown(problem.name)}, which is not among the declared tools (${declaredNames(names)})`,
      );
    if (v === "required") return v;
    const route = declared.routes.get(name as string)!;
    const kindOf = route.kind === "custom" ? "custom" : "function";
    if ((v as Obj).type !== kindOf)
      throw invalidParam(
        "tool_choice",
        `tool_choice names ${shown(name)} as a ${(v as Obj).type} tool, but it is a ${route.kind === "tool_search" ? "tool_search" : kindOf} tool: send {"type": "${kindOf}", "name": ${JSON.stringify(name)}}`,
      );
    return { type: kindOf, name: name as string };
  }
  throw invalidParam(
    "tool_choice",
    `tool_choice must be "auto", "none", "required", {"type": "function", "name"} or {"type": "custom", "name"}, got ${isObj(v) ? `type ${shown(v.type)}` : shown(v)}${isObj(v) && typeof v.type === "string" && HOSTED.has(v.type) ? " (a hosted tool this server cannot run)" : ""}`,
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
  const declared = declaredTools(body.tools, loadedTools(body.input));
  if (declared.offered.length > 0) options.tools = declared.offered;
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
  clientMetadata(body.client_metadata);
  const meta = metadata(body.metadata);
  const echo: Echo = {
    instructions,
    tools: declared.echo,
    tool_choice: choice,
    parallel_tool_calls: parallel ?? true,
    temperature: temperature ?? null,
    top_p: topP ?? null,
    max_output_tokens: maxTokens ?? null,
    metadata: meta,
    reasoning: thought,
    notOffered: declared.notOffered,
    format: isObj(body.text) && isObj(body.text.format) ? body.text.format : { type: "text" },
  };
  return { options, stream: bool(body, "stream") ?? false, echo, routes: declared.routes, toolPaths: declared.paths };
}
