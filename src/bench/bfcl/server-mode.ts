// npm run bench:bfcl's third mode: the same BFCL items sent to llama.cpp's own llama-server, serving
// the same GGUF with --jinja (its own chat template handling, tool-call parser and lazy grammar),
// through its OpenAI /v1/chat/completions with the same tools, tool_choice, parallel_tool_calls,
// greedy (temperature 0) and max_tokens as the in-process modes (run.ts). Each request carries
// cache_prompt: false: llama-server reuses a slot's cached prompt prefix otherwise, and its README
// says that "can cause nondeterministic results"; without it every prompt is processed whole, as
// generate() processes it. Format validity is toolmask's verdict on the calls llama-server returns;
// the AST verdict is the same bfcl-eval checker's (run.ts scoreAnswers).
import { request } from "node:http";
import { verdictOf } from "../validity.js";
import { toOpenAiTools } from "./convert.js";
import { choiceFor, pool, type BfclToolChoice, type DecodedGroup, type Unscored } from "./run.js";
import type { BfclCategory, BfclItem } from "./types.js";

/** A running llama-server (or any server with llama-server's /v1/chat/completions and timings). */
export interface ServerEndpoint {
  url: string;
}

export interface ServerDecodeOptions {
  toolChoice: BfclToolChoice;
  maxTokens: number;
  /** Requests in flight at once (the server's -np slots). */
  concurrency: number;
  /** How long one request may take before the run stops with an error. */
  requestTimeoutMs: number;
  onAnswer?: (a: Unscored, done: number, total: number) => void;
}

/** The fields of llama-server's chat completion this bench reads. */
interface ChatCompletion {
  choices?: Array<{
    finish_reason?: string;
    message?: {
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: Array<{ function?: { name?: string; arguments?: string } }>;
    };
  }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  timings?: { predicted_ms?: number };
}

function postJson(url: string, body: unknown, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "content-length": data.length } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") });
        });
        res.on("error", reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`${url}: no complete answer in ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(data);
  });
}

const FINISH = new Set(["stop", "tool_calls", "length"]);

/** One item through llama-server, as an unscored answer of mode "llama-server". */
async function askServer(
  server: ServerEndpoint,
  category: BfclCategory,
  item: BfclItem,
  o: ServerDecodeOptions,
): Promise<Unscored> {
  const { tools } = toOpenAiTools(item.functions);
  const toolChoice = choiceFor(category, o.toolChoice);
  const started = performance.now();
  const r = await postJson(
    `${server.url}/v1/chat/completions`,
    {
      messages: item.messages,
      tools,
      tool_choice: toolChoice,
      parallel_tool_calls: true,
      temperature: 0,
      max_tokens: o.maxTokens,
      cache_prompt: false,
    },
    o.requestTimeoutMs,
  );
  const base = { id: item.id, category, mode: "llama-server" as const };
  let json: ChatCompletion | undefined;
  try {
    json = r.status === 200 ? (JSON.parse(r.text) as ChatCompletion) : undefined;
  } catch {}
  const choice = json?.choices?.[0];
  if (!json || !choice?.message) {
    const serverError = `HTTP ${r.status}: ${r.text.slice(0, 500)}`;
    return {
      ...base,
      finishReason: "stop",
      serverError,
      valid: false,
      reason: `llama-server answered ${serverError.slice(0, 120)}`,
      calls: [],
      text: "",
      promptTokens: 0,
      completionTokens: 0,
      decodeMillis: performance.now() - started,
    };
  }
  const calls = (choice.message.tool_calls ?? []).map((c) => ({
    name: c.function?.name ?? "",
    arguments: c.function?.arguments ?? "",
  }));
  const finish = choice.finish_reason ?? "";
  if (!FINISH.has(finish)) throw new Error(`llama-server: unexpected finish_reason ${JSON.stringify(finish)}`);
  const finishReason = finish as Unscored["finishReason"];
  const v = verdictOf(
    {
      finishReason,
      toolCalls: calls.map((c, i) => ({ id: String(i), type: "function" as const, function: c })),
      incomplete: [],
    },
    tools,
    toolChoice,
    true,
  );
  const reasoning = choice.message.reasoning_content;
  return {
    ...base,
    finishReason,
    valid: v.valid,
    reason: v.reason,
    calls,
    text: `${reasoning ? `${reasoning}\n` : ""}${choice.message.content ?? ""}`,
    promptTokens: json.usage?.prompt_tokens ?? 0,
    completionTokens: json.usage?.completion_tokens ?? 0,
    decodeMillis: json.timings?.predicted_ms ?? 0,
  };
}

/** Every item of one category through llama-server, `concurrency` requests in flight. */
export async function decodeCategoryOnServer(
  server: ServerEndpoint,
  category: BfclCategory,
  items: readonly BfclItem[],
  o: ServerDecodeOptions,
): Promise<DecodedGroup> {
  const started = performance.now();
  let done = 0;
  const answers = await pool(items, o.concurrency, async (item) => {
    const a = await askServer(server, category, item, o);
    o.onAnswer?.(a, ++done, items.length);
    return a;
  });
  return { category, mode: "llama-server", wallMillis: performance.now() - started, answers };
}
