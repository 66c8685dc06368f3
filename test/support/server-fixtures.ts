// Shared by the server suites: tool sets that differ per request (names and enum values carry the
// set's number, so a call that strays into another request's tools is caught), the logit bias
// that makes the random-weight test model want to call and stop, and a checker that validates a
// response's calls against the request's own tools with ajv.
import Anthropic from "@anthropic-ai/sdk";
import AjvModule from "ajv";
import OpenAI from "openai";
import { timedFetch, timeoutFor, type Work } from "./timeouts.js";

export const TOOL_CALL = 151657;
export const IM_END = 151645;
/**
 * Wanting to call (<tool_call>) and to stop (<|im_end|>), stopping winning where the grammar
 * allows it; "function" and "parameter" as whole tokens make a call take ~16–32 tokens, not ~45.
 */
export const WANTS_TO_CALL: Record<string, number> = { [TOOL_CALL]: 90, [IM_END]: 100, 1688: 30, 16181: 30 };

export interface FunctionTool {
  type: "function";
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** Tool set k: `pick_k` with an enum argument only set k uses, and `ping_k` without arguments. */
export function toolSet(k: number): FunctionTool[] {
  return [
    {
      type: "function",
      function: {
        name: `pick_${k}`,
        parameters: {
          type: "object",
          properties: { n: { type: "integer", enum: [1000 + k, 2000 + k] } },
          required: ["n"],
        },
      },
    },
    { type: "function", function: { name: `ping_${k}`, parameters: { type: "object", properties: {} } } },
  ];
}

type Validate = ((v: unknown) => boolean) & { errors?: unknown };
const Ajv = ((AjvModule as unknown as { default?: unknown }).default ?? AjvModule) as new (
  o: object,
) => { compile(s: unknown): Validate };
const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map<string, Validate>();

export interface CallLike {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

/** Why these calls do not fit these tools ("" when every one does). */
export function callProblems(calls: CallLike[] | undefined, tools: FunctionTool[], onlyName?: string): string {
  for (const [i, c] of (calls ?? []).entries()) {
    const tool = tools.find((t) => t.function.name === c.function?.name);
    if (!tool)
      return `call ${i} names ${JSON.stringify(c.function?.name)}, not one of ${tools.map((t) => t.function.name).join(", ")}`;
    if (onlyName && tool.function.name !== onlyName)
      return `call ${i} names ${tool.function.name}, but tool_choice named ${onlyName}`;
    if (c.type !== "function" || typeof c.id !== "string" || c.id === "")
      return `call ${i} lacks type "function" or an id`;
    let args: unknown;
    try {
      args = JSON.parse(c.function?.arguments ?? "");
    } catch {
      return `call ${i} arguments are not JSON: ${c.function?.arguments}`;
    }
    const key = JSON.stringify(tool.function.parameters);
    let v = validators.get(key);
    if (!v) validators.set(key, (v = ajv.compile({ ...tool.function.parameters, additionalProperties: false })));
    if (!v(args))
      return `call ${i} arguments ${c.function?.arguments} do not fit ${tool.function.name}: ${JSON.stringify(v.errors)}`;
  }
  return "";
}

/** Calls without their ids, which the server mints per answer (server-call-ids.test.ts): two answers compared. */
export const withoutIds = (calls: CallLike[] | undefined) => (calls ?? []).map(({ id: _id, ...rest }) => rest);

/**
 * The openai client on a server, its timeout sized by `work`: the most one request of it decodes
 * (test/support/timeouts.ts), never the client's 60 s default.
 */
export function client(baseURL: string, work: Work, apiKey = "unused"): OpenAI {
  // No retries: a 429 or a 5xx must show up in the test, not be retried away.
  return new OpenAI({
    baseURL: `${baseURL}/v1`,
    apiKey,
    maxRetries: 0,
    timeout: timeoutFor(work),
    fetch: timedFetch(work),
  });
}

/**
 * A Messages answer's prompt tokens: input_tokens counts those decoded for it, cache_read_input_tokens
 * those reused from the prompt cache (as Anthropic and llama-server count them).
 */
export const messagePromptTokens = (u: { input_tokens: number | null; cache_read_input_tokens?: number | null }) =>
  (u.input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);

/** The Anthropic SDK's client of a server, its timeouts sized by `work`, no retries. */
export function anthropicClient(baseURL: string, work: Work, apiKey = "unused"): Anthropic {
  return new Anthropic({ baseURL, apiKey, maxRetries: 0, timeout: timeoutFor(work), fetch: timedFetch(work) });
}

/** What a client raised: its class, status and the error body's fields, or "answered" when it did not raise. */
export async function raised(p: Promise<unknown>) {
  try {
    const r = await p;
    // a stream raises on its first read at the latest
    if (r && typeof r === "object" && Symbol.asyncIterator in r) for await (const _ of r as AsyncIterable<unknown>);
    return "answered";
  } catch (e) {
    if (e instanceof OpenAI.APIError)
      return { openai: e.constructor.name, status: e.status, error: e.error as Record<string, unknown> };
    if (e instanceof Anthropic.APIError)
      return { anthropic: e.constructor.name, status: e.status, error: (e.error as { error?: unknown })?.error };
    throw e;
  }
}

export interface AssembledStream {
  content: string;
  reasoning: string;
  toolCalls: Array<{ id: string; type: "function"; function: { name: string; arguments: string } }>;
  finishReason: string | null;
  usage: unknown;
  /** A gateway's `toolmask` field, which the last choice chunk carries. */
  toolmask?: { incomplete: unknown };
  /** Protocol breaks seen while assembling ("" when none). */
  problems: string[];
}

/**
 * Assembles streamed chunks the way OpenAI documents them, checking the protocol as it goes:
 * role in the first chunk; a call's index, id, type and name once, then argument fragments only;
 * finish_reason once, on the last choice chunk.
 */
export async function assemble(
  chunks: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
): Promise<AssembledStream> {
  const out: AssembledStream = {
    content: "",
    reasoning: "",
    toolCalls: [],
    finishReason: null,
    usage: undefined,
    problems: [],
  };
  let first = true;
  for await (const chunk of chunks) {
    if (chunk.usage) out.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (first && choice.delta.role !== "assistant") out.problems.push("the first chunk has no role");
    if (!first && choice.delta.role !== undefined) out.problems.push("role sent twice");
    first = false;
    if (out.finishReason !== null) out.problems.push("a chunk after finish_reason");
    if (choice.delta.content) out.content += choice.delta.content;
    const thought = (choice.delta as { reasoning_content?: string }).reasoning_content;
    if (thought) out.reasoning += thought;
    const verdict = (chunk as { toolmask?: AssembledStream["toolmask"] }).toolmask;
    if (verdict) out.toolmask = verdict;
    for (const d of choice.delta.tool_calls ?? []) {
      const known = out.toolCalls[d.index];
      if (!known) {
        if (d.index !== out.toolCalls.length) out.problems.push(`call index ${d.index} skips ahead`);
        if (!d.id || !d.function?.name || d.type !== "function")
          out.problems.push(`call ${d.index} starts without id, type or name`);
        out.toolCalls[d.index] = {
          id: d.id ?? "",
          type: "function",
          function: { name: d.function?.name ?? "", arguments: d.function?.arguments ?? "" },
        };
      } else {
        if (d.id !== undefined || d.function?.name !== undefined)
          out.problems.push(`call ${d.index} repeats its id or name`);
        known.function.arguments += d.function?.arguments ?? "";
      }
    }
    if (choice.finish_reason) out.finishReason = choice.finish_reason;
  }
  return out;
}

/**
 * Reads `events` until they end or throw, calling `stop` (closing the server) at the first event
 * `trigger` picks: how many events came, and what the stream threw (undefined when it ended).
 */
export async function readUntilStopped<E>(
  events: AsyncIterable<E>,
  trigger: (e: E) => boolean,
  stop: () => Promise<void>,
): Promise<{ n: number; err: unknown }> {
  let n = 0;
  let stopping: Promise<void> | undefined;
  let err: unknown;
  try {
    for await (const e of events) {
      n++;
      if (!stopping && trigger(e)) stopping = stop();
    }
  } catch (e) {
    err = e;
  }
  await stopping;
  return { n, err };
}
