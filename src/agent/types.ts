// The shapes runAgent works with: OpenAI chat messages as they go over the wire, the tools a caller
// hands in, and the result it gets back.
import type { GenerateOptions } from "../engine/generate.js";
import type { LlamaModel } from "../engine/model.js";
import type { IncompleteCall, StreamEvent } from "../parser/types.js";

export interface AgentToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * One message of the conversation, exactly as it is sent. Assistant messages keep what the model
 * wrote beside its calls (`content`, `null` when it wrote nothing) and its reasoning fields verbatim.
 */
export type AgentMessage =
  | { role: "system" | "developer"; content: string }
  | { role: "user"; content: string | unknown[] }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: AgentToolCall[];
      /** Provider reasoning blocks (signature, id, format, index …), passed back unchanged and in order. */
      reasoning_details?: unknown[];
      reasoning?: string;
      reasoning_content?: string;
    }
  | { role: "tool"; tool_call_id: string; content: string };

export type AssistantAgentMessage = Extract<AgentMessage, { role: "assistant" }>;

export interface ToolContext {
  /** The id of the call being answered. */
  toolCallId: string;
  /**
   * Aborted when the run is aborted or the call's deadline passes (`timeoutMs`, `toolTimeoutMs`):
   * the tool should stop. Its result is abandoned then either way; the run does not wait for it.
   */
  signal: AbortSignal;
  /** The conversation up to and including the assistant message that made the call. */
  messages: readonly AgentMessage[];
}

export interface AgentTool {
  name: string;
  description?: string;
  /** A JSON schema for the arguments (an object schema); arguments are checked against it before `execute`. */
  parameters?: Record<string, unknown>;
  /** May run at the same time as other parallel-safe calls (default false: one at a time). */
  parallelSafe?: boolean;
  /** Milliseconds one call of this tool may run (default: the run's `toolTimeoutMs`); 1..2^31-1. */
  timeoutMs?: number;
  /** Returns the result text (other values are sent as JSON). A throw becomes a tool result that says so. */
  execute(args: Record<string, unknown>, ctx: ToolContext): unknown;
}

/** Any OpenAI-compatible chat completions endpoint (our server, llama-server, vLLM, hosted providers). */
export interface HttpAgentClient {
  /** The API root, e.g. `http://127.0.0.1:8080/v1` (requests go to `${baseURL}/chat/completions`). */
  baseURL: string;
  apiKey?: string;
  /** The request's `model` field. */
  model?: string;
  headers?: Record<string, string>;
  /**
   * More request fields (temperature, logit_bias, tool_choice, a provider's own): the same for every
   * turn, or per turn (0 is the first request). The loop's own fields (messages, tools, and the
   * options runAgent sets) win over these.
   */
  body?: Record<string, unknown> | ((turn: number) => Record<string, unknown>);
}

export type AgentGenerateOptions = Omit<GenerateOptions, "messages" | "tools" | "signal">;

/**
 * A loaded model with generate() options (sampling, logitBias, toolChoice, dialect …): the same
 * for every turn, or per turn (0 is the first request), e.g. a call required first, then free.
 */
export interface LocalAgentClient {
  model: LlamaModel;
  generateOptions?: AgentGenerateOptions | ((turn: number) => AgentGenerateOptions);
}

export type AgentClient = LlamaModel | LocalAgentClient | HttpAgentClient;

/** "high", "MAX" (→ "max") and the other effort names, or a token budget ("4096" or 4096); "off" or absent: none. */
export type ReasoningEffort = string | number;

export interface RunAgentOptions {
  client: AgentClient;
  tools?: AgentTool[];
  /** The conversation so far; or use `prompt` for one user message. */
  messages?: AgentMessage[];
  prompt?: string;
  /** Sent first, as a system message. */
  instructions?: string;
  /** Model requests at most (default 16). */
  maxTurns?: number;
  /** Parallel-safe calls running at once at most (default 4). */
  maxParallelToolCalls?: number;
  reasoningEffort?: ReasoningEffort;
  /** Ask the provider to route only to hosts that honour every request parameter (default true; HTTP only). */
  requireProviderParameters?: boolean;
  /** Ask the provider to report usage and cost (default true; HTTP only). */
  includeUsage?: boolean;
  /** Output tokens per model request (`max_tokens`; generate()'s maxTokens). */
  maxTokens?: number;
  /**
   * Milliseconds one model request may take (an HTTP request until its body is read; a loaded
   * model's turn from queueing to its last token). Past it the request is aborted and the run ends
   * with status error. Default 600000 (10 minutes, the openai client's default); at most 2^31-1.
   */
  requestTimeoutMs?: number;
  /**
   * Milliseconds one tool call may run, unless the tool sets its own `timeoutMs`. Past it the
   * call's signal is aborted, its result abandoned, and the model gets an error result naming the
   * tool and the limit; the loop goes on. Default 600000 (10 minutes); at most 2^31-1.
   */
  toolTimeoutMs?: number;
  /**
   * Aborts the run: it returns at once with status aborted. A tool still running is told through
   * its ctx.signal and abandoned (its result says so; `turns[i].abandonedCalls` lists it).
   */
  signal?: AbortSignal;
  /**
   * Start a parallel-safe call as soon as the answer's stream shows it complete and valid, while
   * the model is still writing (default true). Only where the answer is read as it is decoded (a
   * loaded model); calls start in the order and under the rules they would once the answer ended.
   */
  startToolsEarly?: boolean;
  /**
   * Sees each parser event of each answer as it is decoded (a loaded model's answers): content,
   * each call's start, arguments (tool_call_argument: one complete argument and whether it fits
   * its schema) and end. `turn` is 0 for the first request.
   */
  onEvent?: (event: StreamEvent, turn: number) => void;
}

/**
 * - completed: the model answered without calls and the answer ended normally;
 * - truncated: an answer was cut at the output limit (its partial text is `finalMessage`);
 * - max_turns: `maxTurns` requests were made and the model still wanted tools;
 * - aborted: `signal` fired;
 * - error: a request failed (HTTP status, network, unreadable response, past requestTimeoutMs); see `error`.
 */
export type AgentStatus = "completed" | "truncated" | "max_turns" | "aborted" | "error";

export interface AgentUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface AgentTurn {
  finishReason: string | null;
  usage: AgentUsage | null;
  /** The cost this response reported, as reported; null when it reported none. */
  reportedCostUsd: number | null;
  /**
   * Calls a loaded model started but did not finish validly (cut by the output limit): not run,
   * not in the history's tool_calls, kept here with their text.
   */
  incompleteCalls?: IncompleteCall[];
  /** The calls (by id) that started before the answer ended (RunAgentOptions.startToolsEarly). */
  startedEarly?: string[];
  /** Calls whose results were abandoned: still running when the run was aborted, or past their deadline. */
  abandonedCalls?: AbandonedCall[];
}

export interface AbandonedCall {
  id: string;
  name: string;
  /** aborted: the run's signal fired while it ran; timeout: it ran past its timeoutMs / toolTimeoutMs. */
  why: "aborted" | "timeout";
}

export interface AgentError {
  message: string;
  /** The HTTP status, when the endpoint answered with one. */
  httpStatus?: number;
  /** The response body as received, when there was one. */
  body?: string;
}

export interface AgentResult {
  status: AgentStatus;
  /** The last assistant text (partial when truncated); null when there was none. */
  finalMessage: string | null;
  /** Every message that went over the wire, in order, and the last answer. */
  messages: AgentMessage[];
  /** Summed over the responses that reported usage. */
  usage: AgentUsage;
  /** The sum of reported costs; null unless every response reported one (never an estimate, never 0 for "unknown"). */
  reportedCostUsd: number | null;
  turns: AgentTurn[];
  error?: AgentError;
  /**
   * Results of calls that started early in an answer that then never arrived (the request failed
   * or the run was aborted mid-answer): they ran, but have no assistant message to follow.
   */
  earlyResults?: Array<Extract<AgentMessage, { role: "tool" }>>;
}
