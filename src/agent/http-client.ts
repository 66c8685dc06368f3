// Any OpenAI-compatible chat completions endpoint, over the global fetch. One request per turn:
// a failure is reported, never retried behind the caller's back; an answer whose calls' arguments
// JSON.parse changed (sent as objects), or that gives a key twice anywhere, is refused naming what
// and where.
import { AgentRequestError, type ModelClient, type ModelTurn, type TurnRequest } from "./client.js";
import { valueChange } from "../parser/exact-json.js";
import { duplicateKeys, givenTwice } from "../parser/json-scan.js";
import { JsonObject, type Json } from "../parser/json-value.js";
import { readJson } from "../parser/read-value.js";
import { assistantMessage } from "./history.js";
import type { AgentUsage, HttpAgentClient } from "./types.js";

const BODY_IN_MESSAGE = 500;

export function httpClient(c: HttpAgentClient): ModelClient {
  if (typeof c.baseURL !== "string" || !/^https?:\/\//.test(c.baseURL))
    throw new TypeError(
      `client.baseURL must be an http(s) URL such as "http://127.0.0.1:8080/v1", got ${JSON.stringify(c.baseURL)}`,
    );
  const url = `${c.baseURL.replace(/\/+$/, "")}/chat/completions`;
  const headers: Record<string, string> = { "content-type": "application/json", ...c.headers };
  if (c.apiKey) headers.authorization = `Bearer ${c.apiKey}`;
  if (
    c.body !== undefined &&
    typeof c.body !== "function" &&
    (typeof c.body !== "object" || c.body === null || Array.isArray(c.body))
  )
    throw new TypeError(
      `client.body must be an object of request fields or a function (turn) => fields, got ${JSON.stringify(c.body)}`,
    );

  return {
    target: `POST ${url}`,
    async complete(req: TurnRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
      const extra = typeof c.body === "function" ? c.body(req.turn) : c.body;
      const body = {
        ...extra,
        ...(c.model !== undefined ? { model: c.model } : {}),
        messages: req.messages,
        ...(req.tools.length > 0 ? { tools: req.tools } : {}),
        ...req.extras,
      };
      let res: Response;
      try {
        res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), ...(signal ? { signal } : {}) });
      } catch (e) {
        if (signal?.aborted) throw e;
        throw new AgentRequestError(
          `POST ${url} failed before an answer: ${causeOf(e)}; is the server running at that address?`,
        );
      }
      const text = await res.text();
      if (!res.ok)
        throw new AgentRequestError(
          `POST ${url} answered HTTP ${res.status}: ${text.slice(0, BODY_IN_MESSAGE)}`,
          res.status,
          text,
        );
      return turnOf(text, url, res.status, req.turn);
    },
  };
}

function causeOf(e: unknown): string {
  const err = e as { message?: string; cause?: { message?: string; code?: string } };
  const cause = err.cause?.code ?? err.cause?.message;
  return cause ? `${err.message} (${cause})` : String(err.message ?? e);
}

function turnOf(text: string, url: string, status: number, turn: number): ModelTurn {
  const fail = (why: string) =>
    new AgentRequestError(
      `POST ${url} answered HTTP ${status}, but ${why}: ${text.slice(0, BODY_IN_MESSAGE)}`,
      status,
      text,
    );
  let json: { choices?: Array<{ message?: unknown; finish_reason?: unknown }>; usage?: unknown; error?: unknown };
  try {
    json = JSON.parse(text);
  } catch {
    throw fail("the body is not JSON");
  }
  // Some providers answer 200 with an error object.
  if (json && typeof json === "object" && json.error) throw fail("the body is an error");
  const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
  if (!choice || typeof choice !== "object") throw fail("the body has no choices[0]");
  const changed = objectArgumentsChange(choice.message, text);
  if (changed !== undefined) throw fail(`arguments sent as an object hold what JSON.parse changes: ${changed}`);
  // JSON.parse kept a repeated key's last value: two tool_calls lists, two arguments of one call.
  const repeated = duplicateKeys(text, 1)[0];
  if (repeated !== undefined)
    throw fail(`the body ${givenTwice(repeated)}; JSON.parse would keep the last one, so which is meant is unknown`);
  let message;
  try {
    message = assistantMessage(choice.message, `call_${turn}`);
  } catch (e) {
    throw fail((e as Error).message);
  }
  return {
    message,
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage: usageOf(json.usage),
    reportedCostUsd: costOf(json.usage),
  };
}

/**
 * Arguments sent as an object (some servers do) were read by JSON.parse with the body, which keeps
 * a repeated key's last value and changes numbers a double does not hold (1e999 → Infinity, then
 * null once written again): the body is read again exactly (src/parser/exact-json.ts) and what
 * changed is named. undefined when no call's arguments are an object, or nothing changed.
 */
function objectArgumentsChange(message: unknown, text: string): string | undefined {
  const calls = (message as { tool_calls?: unknown } | null)?.tool_calls;
  const isObject = (a: unknown) => a !== null && typeof a === "object";
  if (
    !Array.isArray(calls) ||
    !calls.some((c) => isObject((c as { function?: { arguments?: unknown } })?.function?.arguments))
  )
    return undefined;
  const at = (v: Json | undefined, key: string | number): Json | undefined =>
    typeof key === "number"
      ? Array.isArray(v)
        ? v[key]
        : undefined
      : v instanceof JsonObject
        ? v.entries.get(key)
        : undefined;
  const list = at(at(at(at(readJson(text), "choices"), 0), "message"), "tool_calls");
  if (!Array.isArray(list)) return undefined;
  for (const [i, call] of list.entries()) {
    const args = at(at(call, "function"), "arguments");
    const change = args instanceof JsonObject ? valueChange(args, `tool_calls[${i}].function.arguments`) : undefined;
    if (change !== undefined) return change.reason;
  }
  return undefined;
}

function usageOf(u: unknown): AgentUsage | null {
  if (!u || typeof u !== "object") return null;
  const o = u as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : 0);
  const prompt = n(o.prompt_tokens),
    completion = n(o.completion_tokens);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: typeof o.total_tokens === "number" ? o.total_tokens : prompt + completion,
  };
}

/** The cost exactly as reported (OpenRouter's `usage.cost`); null when none is, never an estimate. */
function costOf(u: unknown): number | null {
  const cost = u && typeof u === "object" ? (u as { cost?: unknown }).cost : undefined;
  return typeof cost === "number" && Number.isFinite(cost) ? cost : null;
}
