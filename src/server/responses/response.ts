// generate()'s result as a Responses API Response: the thought as a reasoning item (its whole text
// as reasoning_text content), the text as an assistant message item, each complete and valid call
// as a function_call item (a call cut by max_output_tokens or invalid is in result.incomplete, never
// here); status "incomplete" with incomplete_details.reason "max_output_tokens" when the limit cut
// the answer. The streamed form (stream.ts) builds the same items from the same pieces.
import { randomUUID } from "node:crypto";
import type { GenerateResult } from "../../engine/generate.js";
import type { ToolCall } from "../../parser/types.js";
import { toolmaskField } from "../toolmask-field.js";
import type { Echo } from "./request.js";
import type { CallRoute } from "./tools.js";

const hex = () => randomUUID().replaceAll("-", "");
export const newResponseId = () => `resp_${hex()}`;
export const newItemId = (prefix: "msg" | "rs" | "fc" | "ctc" | "tsc") => `${prefix}_${hex()}`;

export type ItemStatus = "in_progress" | "completed" | "incomplete";

export interface OutputText {
  type: "output_text";
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface ReasoningText {
  type: "reasoning_text";
  text: string;
}

export const outputText = (text: string): OutputText => ({ type: "output_text", text, annotations: [], logprobs: [] });

export const messageItem = (id: string, status: ItemStatus, content: OutputText[]) => ({
  type: "message" as const,
  id,
  status,
  role: "assistant" as const,
  content,
});

export const reasoningItem = (id: string, status: ItemStatus, content: ReasoningText[]) => ({
  type: "reasoning" as const,
  id,
  summary: [] as never[],
  content,
  status,
});

export const functionCallItem = (
  id: string,
  call: ToolCall,
  status: ItemStatus,
  route?: CallRoute,
  args = call.function.arguments,
) => ({
  type: "function_call" as const,
  id,
  call_id: call.id,
  name: route?.kind === "function" ? route.name : call.function.name,
  ...(route?.kind === "function" && route.namespace !== undefined ? { namespace: route.namespace } : {}),
  arguments: args,
  status,
});

/**
 * A custom tool's call: the `input` argument its function was called with (tools.ts). A released
 * call fits its schema (a required string), so anything else is a fault, never an empty input.
 */
export const customInput = (call: ToolCall): string => {
  const v = (JSON.parse(call.function.arguments) as { input?: unknown }).input;
  if (typeof v !== "string") throw new Error(`custom tool call ${call.function.name} has no string input`);
  return v;
};

export const customToolCallItem = (
  id: string,
  call: ToolCall,
  route: CallRoute & { kind: "custom" },
  input: string,
) => ({
  type: "custom_tool_call" as const,
  id,
  call_id: call.id,
  name: route.name,
  ...(route.namespace !== undefined ? { namespace: route.namespace } : {}),
  input,
});

export const toolSearchCallItem = (id: string, call: ToolCall, status: ItemStatus) => ({
  type: "tool_search_call" as const,
  id,
  call_id: call.id,
  execution: "client" as const,
  arguments: JSON.parse(call.function.arguments) as unknown,
  status,
});

export type OutputItem =
  | ReturnType<typeof messageItem>
  | ReturnType<typeof reasoningItem>
  | ReturnType<typeof functionCallItem>
  | ReturnType<typeof customToolCallItem>
  | ReturnType<typeof toolSearchCallItem>;

/** A complete call as the item its tool's route says (a function_call when the route is unknown). */
export function callItem(call: ToolCall, routes: ReadonlyMap<string, CallRoute>): OutputItem {
  const route = routes.get(call.function.name);
  if (route?.kind === "custom") return customToolCallItem(newItemId("ctc"), call, route, customInput(call));
  if (route?.kind === "tool_search") return toolSearchCallItem(newItemId("tsc"), call, "completed");
  return functionCallItem(newItemId("fc"), call, "completed", route);
}

export function outputOf(r: GenerateResult, routes: ReadonlyMap<string, CallRoute>): OutputItem[] {
  const m = r.message;
  const out: OutputItem[] = [];
  if (m.reasoning_content)
    out.push(reasoningItem(newItemId("rs"), "completed", [{ type: "reasoning_text", text: m.reasoning_content }]));
  if (m.content)
    out.push(
      messageItem(newItemId("msg"), r.finishReason === "length" ? "incomplete" : "completed", [outputText(m.content)]),
    );
  for (const call of m.tool_calls ?? []) out.push(callItem(call, routes));
  return out;
}

/**
 * Output tokens of the thought are not counted apart (reasoning_tokens 0); cached_tokens: of
 * input_tokens, those reused from the prompt cache (0 from a gateway, which does not read them).
 */
export const usageOf = (r: GenerateResult) => ({
  input_tokens: r.usage.prompt_tokens,
  input_tokens_details: { cached_tokens: r.usage.prompt_tokens_details?.cached_tokens ?? 0 },
  output_tokens: r.usage.completion_tokens,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: r.usage.prompt_tokens + r.usage.completion_tokens,
});

export interface ResponseHead {
  id: string;
  model: string;
  createdAt: number;
  echo: Echo;
}

export const newHead = (model: string, echo: Echo): ResponseHead => ({
  id: newResponseId(),
  model,
  createdAt: Math.floor(Date.now() / 1000),
  echo,
});

/** The Response with no output yet, as response.created and response.in_progress carry it. */
export function openingResponse(h: ResponseHead) {
  return {
    id: h.id,
    object: "response" as const,
    created_at: h.createdAt,
    status: "in_progress" as "in_progress" | "completed" | "incomplete",
    error: null,
    incomplete_details: null as { reason: "max_output_tokens" } | null,
    instructions: h.echo.instructions,
    max_output_tokens: h.echo.max_output_tokens,
    model: h.model,
    output: [] as OutputItem[],
    parallel_tool_calls: h.echo.parallel_tool_calls,
    previous_response_id: null,
    reasoning: h.echo.reasoning,
    store: false,
    temperature: h.echo.temperature,
    text: { format: h.echo.format },
    tool_choice: h.echo.tool_choice,
    tools: h.echo.tools,
    top_p: h.echo.top_p,
    truncation: "disabled" as const,
    usage: null as ReturnType<typeof usageOf> | null,
    metadata: h.echo.metadata,
    ...notOfferedField(h.echo),
  };
}

/**
 * The declared tools the model was not offered (hosted tools this server cannot run), in an
 * extension field of every Response object (response.created's on): clients that do not know it
 * ignore it.
 */
const notOfferedField = (echo: Echo) =>
  echo.notOffered.length > 0 ? { toolmask: { tools_not_offered: echo.notOffered } } : {};

/** The finished Response around `output`: completed, or incomplete when max_output_tokens cut it. */
export function finishedResponse(h: ResponseHead, r: GenerateResult, output: OutputItem[]) {
  const cut = r.finishReason === "length";
  return {
    ...openingResponse(h),
    status: cut ? ("incomplete" as const) : ("completed" as const),
    incomplete_details: cut ? { reason: "max_output_tokens" as const } : null,
    output,
    usage: usageOf(r),
    ...mergedToolmask(h.echo, r),
  };
}

/** The toolmask extension field: the gateway's upstream (toolmaskField) and the tools not offered. */
function mergedToolmask(echo: Echo, r: GenerateResult) {
  const f = toolmaskField(r);
  const n = notOfferedField(echo);
  const upstream = "toolmask" in f ? f.toolmask : undefined;
  const tools = "toolmask" in n ? n.toolmask : undefined;
  return upstream || tools ? { toolmask: { ...upstream, ...tools } } : {};
}

export const responseBody = (h: ResponseHead, r: GenerateResult, routes: ReadonlyMap<string, CallRoute>) =>
  finishedResponse(h, r, outputOf(r, routes));
