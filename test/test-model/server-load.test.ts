// Load: 1,000 requests, 8 at a time, through the real openai client against the real server on
// the test model: none fails, and every call in every answer fits the tools of the request it
// answers (each request's tool set has its own names and enum values, so cross-talk would show).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type OpenAI from "openai";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { WANTS_TO_CALL, assemble, callProblems, client, toolSet } from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, timeoutFor } from "../support/timeouts.js";

const REQUESTS = 1000;
const CONCURRENT = 8;
/** Every request decodes at most 40 tokens. */
const BY_WORK = { timeout: timeoutFor({ decode: 40 * REQUESTS, requests: REQUESTS }) };
const TOOL_SETS = 25;

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, dialect: "qwen3-coder", maxQueue: CONCURRENT });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

interface Plan {
  body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming;
  stream: boolean;
  onlyName: string | undefined;
  /** Long enough for a whole call (most finish "tool_calls"); the rest are cut short. */
  whole: boolean;
}

/** Request i: its own tool set, tool choice, length, seed, and streamed or not. */
function plan(i: number): Plan {
  const k = i % TOOL_SETS;
  const whole = i % 4 === 0;
  const choices = whole
    ? ([
        "required",
        { type: "function", function: { name: `ping_${k}` } },
        { type: "function", function: { name: `pick_${k}` } },
      ] as const)
    : (["auto"] as const); // a required call needs more tokens than these have (400 max_tokens_too_small)
  const choice = choices[Math.floor(i / 4) % choices.length]!;
  return {
    body: {
      model: "test",
      messages: [{ role: "user", content: `request ${i}: use a tool` }],
      tools: toolSet(k),
      tool_choice: choice,
      parallel_tool_calls: false,
      max_tokens: whole ? 40 : 4 + (i % 5),
      seed: i,
      temperature: 0.8,
      logit_bias: WANTS_TO_CALL,
    },
    stream: Math.floor(i / 2) % 2 === 1,
    onlyName: typeof choice === "object" ? choice.function.name : undefined,
    whole,
  };
}

interface Outcome {
  finish: string | null;
  calls: number;
  problem: string;
}

async function run(api: OpenAI, p: Plan): Promise<Outcome> {
  const tools = p.body.tools as Parameters<typeof callProblems>[1];
  const max = p.body.max_tokens!;
  if (!p.stream) {
    const r = await api.chat.completions.create(p.body);
    const c = r.choices[0]!;
    const calls = c.message.tool_calls ?? [];
    const problem =
      callProblems(calls, tools, p.onlyName) ||
      (r.usage!.completion_tokens > max ? `${r.usage!.completion_tokens} tokens > max_tokens ${max}` : "") ||
      ((c.finish_reason === "tool_calls") !== calls.length > 0
        ? `finish ${c.finish_reason} with ${calls.length} calls`
        : "");
    return { finish: c.finish_reason, calls: calls.length, problem };
  }
  const s = await assemble(
    await api.chat.completions.create({ ...p.body, stream: true, stream_options: { include_usage: true } }),
  );
  const usage = s.usage as { completion_tokens: number } | undefined;
  // A "length" stream may end inside its last call: only finished answers validate whole.
  const problem =
    s.problems.join("; ") ||
    (s.finishReason === "tool_calls"
      ? callProblems(s.toolCalls, tools, p.onlyName)
      : namesProblem(
          s.toolCalls.map((c) => c.function.name),
          tools,
        )) ||
    (!usage || usage.completion_tokens > max ? `usage ${JSON.stringify(s.usage)} (max_tokens ${max})` : "") ||
    (s.finishReason === "tool_calls" && s.toolCalls.length === 0 ? "finish tool_calls without calls" : "");
  return { finish: s.finishReason, calls: s.toolCalls.length, problem };
}

/** A cut call's arguments are unfinished; its name is whole and must be this request's. */
function namesProblem(names: string[], tools: Parameters<typeof callProblems>[1]): string {
  const own = tools.map((t) => t.function.name);
  const stray = names.find((n) => !own.includes(n));
  return stray ? `streamed call names ${stray}, not one of ${own.join(", ")}` : "";
}

describe("load", BY_WORK, () => {
  it(`${REQUESTS} requests, ${CONCURRENT} at a time: no failures, every call fits its own request's tools`, async () => {
    // A request decodes at most 40 tokens, and may wait behind the other CONCURRENT - 1.
    const api = client(server.url, { decode: 40 * CONCURRENT, requests: CONCURRENT });
    const outcomes: Outcome[] = new Array(REQUESTS);
    const failures: string[] = [];
    let next = 0;
    const t0 = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENT }, async () => {
        for (let i = next++; i < REQUESTS; i = next++) {
          const p = plan(i);
          try {
            outcomes[i] = await run(api, p);
            if (outcomes[i]!.problem) failures.push(`request ${i}: ${outcomes[i]!.problem}`);
          } catch (err) {
            failures.push(`request ${i}: ${(err as Error).message}`);
          }
        }
      }),
    );
    const seconds = (Date.now() - t0) / 1000;
    const done = outcomes.filter(Boolean);
    const whole = done.filter((_, i) => plan(i).whole);
    const withCalls = whole.filter((o) => o.finish === "tool_calls").length;
    const finishes: Record<string, number> = {};
    for (const o of done) finishes[String(o.finish)] = (finishes[String(o.finish)] ?? 0) + 1;
    console.log(
      `${REQUESTS} requests at ${CONCURRENT} concurrent on ${server.parallel} slots in ${seconds.toFixed(1)} s ` +
        `(${(REQUESTS / seconds).toFixed(1)} req/s); finishes ${JSON.stringify(finishes)}; ` +
        `${withCalls}/${whole.length} long requests ended in complete calls; ${done.reduce((n, o) => n + o.calls, 0)} calls checked`,
    );
    expect(failures.slice(0, 10)).toEqual([]);
    expect(done.length).toBe(REQUESTS);
    // The check has teeth only if many answers carry calls.
    expect(withCalls).toBeGreaterThan(whole.length * 0.6);
    const h = (await (await fetchWithin(NO_TOKENS, `${server.url}/health`)).json()) as {
      slots: { busy: number; queued: number };
    };
    expect(h.slots).toMatchObject({ busy: 0, queued: 0 });
  });
});
