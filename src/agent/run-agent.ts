// runAgent: ask the model, run the tools it called, send the results back, until it answers
// without calls. Nothing is lost on the way: every message sent is in the result, a cut answer
// is reported cut with its text, a failed request ends the run with the reason.
import { LlamaModel } from "../engine/model.js";
import { checkOptionNames, optionNames } from "../engine/options-check.js";
import { toolDefOf } from "./arguments.js";
import { AgentRequestError, type ModelClient, type ModelTurn } from "./client.js";
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_TIMEOUT_MS,
  RequestTimeoutError,
  withDeadline,
} from "./deadline.js";
import { checkMessage } from "./history.js";
import { httpClient } from "./http-client.js";
import { modelClient } from "./model-client.js";
import { isTruncatedFinish, reasoningField, requestExtras } from "./request-options.js";
import type { StreamEvent } from "../parser/types.js";
import { TurnToolRunner, type DeclaredTool, type ToolMessage } from "./tool-runner.js";
import type {
  AgentToolCall,
  AgentClient,
  AgentError,
  AgentMessage,
  AgentResult,
  AgentStatus,
  AgentTurn,
  RunAgentOptions,
} from "./types.js";

const DEFAULT_MAX_TURNS = 16;
const DEFAULT_MAX_PARALLEL = 4;
const OPTION_NAMES = optionNames<RunAgentOptions>({
  client: true,
  tools: true,
  messages: true,
  prompt: true,
  instructions: true,
  maxTurns: true,
  maxParallelToolCalls: true,
  reasoningEffort: true,
  requireProviderParameters: true,
  includeUsage: true,
  maxTokens: true,
  requestTimeoutMs: true,
  toolTimeoutMs: true,
  signal: true,
  startToolsEarly: true,
  onEvent: true,
});

export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const o = options ?? ({} as RunAgentOptions);
  checkOptionNames("runAgent", o, OPTION_NAMES);
  const client = clientOf(o.client);
  const toolTimeoutMs = positiveInt(o.toolTimeoutMs, DEFAULT_TOOL_TIMEOUT_MS, "toolTimeoutMs", MAX_TIMEOUT_MS);
  const tools = declareTools(o.tools ?? [], toolTimeoutMs);
  const maxTurns = positiveInt(o.maxTurns, DEFAULT_MAX_TURNS, "maxTurns");
  const limit = positiveInt(o.maxParallelToolCalls, DEFAULT_MAX_PARALLEL, "maxParallelToolCalls");
  const maxTokens = o.maxTokens === undefined ? undefined : positiveInt(o.maxTokens, 0, "maxTokens");
  const timeoutMs = positiveInt(o.requestTimeoutMs, DEFAULT_REQUEST_TIMEOUT_MS, "requestTimeoutMs", MAX_TIMEOUT_MS);
  const reasoning = reasoningField(o.reasoningEffort);
  const extras = requestExtras({
    requireProviderParameters: o.requireProviderParameters ?? true,
    includeUsage: o.includeUsage ?? true,
    reasoning,
    maxTokens,
  });
  const wireTools = [...tools.values()].map(({ tool }) => ({
    type: "function",
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.parameters ?? { type: "object", properties: {} },
    },
  }));
  const messages = initialMessages(o);
  const early = o.startToolsEarly ?? true;
  if (typeof early !== "boolean")
    throw new TypeError(`runAgent: startToolsEarly must be true or false, got ${typeof early}`);
  if (o.onEvent !== undefined && typeof o.onEvent !== "function")
    throw new TypeError("runAgent: onEvent must be a function (event, turn) => void");
  const signal = o.signal ?? new AbortController().signal;

  const turns: AgentTurn[] = [];
  let unanswered: ToolMessage[] = [];
  const finish = (status: AgentStatus, error?: AgentError): AgentResult => ({
    ...resultOf(status, messages, turns, error),
    ...(unanswered.length > 0 ? { earlyResults: unanswered } : {}),
  });
  for (let turn = 0; turn < maxTurns; turn++) {
    if (signal.aborted) return finish("aborted");
    let answer: ModelTurn;
    const runner = new TurnToolRunner({ tools, limit, signal, messages: [...messages] });
    // The answer's calls as the stream completes them: a parallel-safe call may start at once.
    const completed: AgentToolCall[] = [];
    const onEvent = (e: StreamEvent) => {
      o.onEvent?.(e, turn);
      if (!early || e.type !== "tool_call_end") return;
      completed.push(e.call);
      runner.offer(completed.length - 1, e.call, [
        ...messages,
        { role: "assistant", content: null, tool_calls: [...completed] },
      ]);
    };
    try {
      const request = { messages: [...messages], tools: wireTools, extras, reasoning, maxTokens, turn };
      answer = await withDeadline(timeoutMs, signal, (s) => client.complete(request, s, onEvent));
    } catch (e) {
      // Calls that started early have run by the time the run ends; their results are kept.
      unanswered = await runner.settleEarly();
      if (signal.aborted) return finish("aborted");
      if (e instanceof RequestTimeoutError)
        return finish("error", {
          message: `${client.target}: ${e.message}; the request was aborted (raise requestTimeoutMs for a slower model or endpoint)`,
        });
      const err = e as Error;
      return finish(
        "error",
        e instanceof AgentRequestError
          ? {
              message: err.message,
              ...(e.httpStatus !== undefined ? { httpStatus: e.httpStatus } : {}),
              ...(e.body !== undefined ? { body: e.body } : {}),
            }
          : { message: `the model request failed: ${err?.message ?? String(e)}` },
      );
    }
    turns.push({
      finishReason: answer.finishReason,
      usage: answer.usage,
      reportedCostUsd: answer.reportedCostUsd,
      ...(answer.incompleteCalls ? { incompleteCalls: answer.incompleteCalls } : {}),
      ...(runner.startedEarly.length > 0 ? { startedEarly: runner.startedEarly } : {}),
    });
    messages.push(answer.message);
    // A cut answer's calls may be cut too: none is run but those its stream had completed and
    // started early, whose results follow it; the partial text is the result.
    if (isTruncatedFinish(answer.finishReason)) {
      messages.push(...(await runner.settleEarly()));
      noteAbandoned(turns.at(-1)!, runner);
      return finish("truncated");
    }
    const calls = answer.message.tool_calls ?? [];
    if (calls.length === 0) return finish("completed");
    messages.push(...(await runner.finish(calls)));
    noteAbandoned(turns.at(-1)!, runner);
  }
  return finish(signal.aborted ? "aborted" : "max_turns");
}

function clientOf(c: AgentClient | undefined): ModelClient {
  if (c instanceof LlamaModel) return modelClient(c);
  if (c && typeof c === "object" && "baseURL" in c) return httpClient(c);
  if (c && typeof c === "object" && "model" in c && c.model instanceof LlamaModel)
    return modelClient(c.model, c.generateOptions);
  throw new TypeError(
    "runAgent: client must be a loaded model (loadModel()), { model: <loaded model>, generateOptions? }, or { baseURL, apiKey? } of an OpenAI-compatible endpoint",
  );
}

/** Calls of the turn whose results were abandoned, on the turn (none: no field). */
function noteAbandoned(turn: AgentTurn, runner: TurnToolRunner): void {
  const abandoned = runner.abandoned;
  if (abandoned.length > 0) turn.abandonedCalls = abandoned;
}

function declareTools(list: RunAgentOptions["tools"], toolTimeoutMs: number): Map<string, DeclaredTool> {
  if (!Array.isArray(list))
    throw new TypeError(
      "runAgent: tools must be an array of { name, description, parameters, parallelSafe?, execute }",
    );
  const tools = new Map<string, DeclaredTool>();
  list.forEach((tool, i) => {
    const where = `tools[${i}]`;
    if (!tool || typeof tool.name !== "string" || tool.name === "")
      throw new TypeError(`runAgent: ${where}.name must be a non-empty string`);
    if (typeof tool.execute !== "function")
      throw new TypeError(`runAgent: ${where} ("${tool.name}") needs an execute(args, ctx) function`);
    if (tools.has(tool.name))
      throw new TypeError(`runAgent: ${where}: the tool name "${tool.name}" is used twice; names must be unique`);
    const timeout =
      tool.timeoutMs === undefined
        ? { ms: toolTimeoutMs, option: "toolTimeoutMs" }
        : {
            ms: positiveInt(tool.timeoutMs, 0, `${where} ("${tool.name}").timeoutMs`, MAX_TIMEOUT_MS),
            option: "its timeoutMs",
          };
    tools.set(tool.name, { tool, def: toolDefOf(tool, `runAgent: ${where}`), timeout });
  });
  return tools;
}

function initialMessages(o: RunAgentOptions): AgentMessage[] {
  if (o.messages !== undefined && o.prompt !== undefined)
    throw new TypeError("runAgent: pass messages or prompt, not both");
  const given: AgentMessage[] =
    o.messages !== undefined
      ? [...o.messages]
      : typeof o.prompt === "string"
        ? [{ role: "user", content: o.prompt }]
        : [];
  if (given.length === 0) throw new TypeError("runAgent: pass a prompt or at least one message");
  given.forEach((m, i) => checkMessage(m, i));
  return o.instructions !== undefined ? [{ role: "system", content: o.instructions }, ...given] : given;
}

function positiveInt(v: number | undefined, fallback: number, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v < 1 || v > max)
    throw new RangeError(
      `runAgent: ${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ""}, got ${v}`,
    );
  return v;
}

function resultOf(
  status: AgentStatus,
  messages: AgentMessage[],
  turns: AgentTurn[],
  error: AgentError | undefined,
): AgentResult {
  const last = [...messages].reverse().find((m) => m.role === "assistant");
  const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const t of turns) {
    if (!t.usage) continue;
    usage.prompt_tokens += t.usage.prompt_tokens;
    usage.completion_tokens += t.usage.completion_tokens;
    usage.total_tokens += t.usage.total_tokens;
  }
  // A partial sum would understate the bill: the total is known only when every response told it.
  const costs = turns.map((t) => t.reportedCostUsd);
  const reportedCostUsd = costs.length > 0 && costs.every((c) => c !== null) ? costs.reduce((a, c) => a + c!, 0) : null;
  return {
    status,
    finalMessage: last && last.role === "assistant" ? last.content : null,
    messages,
    usage,
    reportedCostUsd,
    turns,
    ...(error ? { error } : {}),
  };
}
