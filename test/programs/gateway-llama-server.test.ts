// The gateway in front of two llama.cpp llama-server replicas (built from node-llama-cpp's bundled
// llama.cpp by scripts/oracles/llama-server/build.mjs), serving the test model, driven by the
// real openai client: masked answers hold valid calls and say the grammar was confirmed by the
// engine (it echoes the GBNF it applied); greedy answers through llama-server + our GBNF are
// compared with our own engine's; and a replica killed under load loses no request: requests
// that had not begun on it are served by the other, streams cut by the kill end with an error
// event (never an answer that looks complete), and the gateway serves on.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { generate } from "../../src/engine/generate.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import {
  IM_END,
  TOOL_CALL,
  WANTS_TO_CALL,
  assemble,
  callProblems,
  client,
  toolSet,
} from "../support/server-fixtures.js";
import { LLAMA_SERVER_START_MS, startLlamaServer, type LlamaServerProcess } from "../support/llama-server-process.js";
import { testModelPath } from "../support/test-model.js";
import { fetchWithin, NO_TOKENS, timeoutFor, type Work } from "../support/timeouts.js";

const DIALECT = "qwen3-coder";
let replicas: LlamaServerProcess[] = [];
let gateway: ToolmaskServer;

beforeAll(async () => {
  replicas = await Promise.all([
    startLlamaServer(testModelPath(), ["--jinja"]),
    startLlamaServer(testModelPath(), ["--jinja"]),
  ]);
  gateway = await startServer({
    port: 0,
    dialect: DIALECT,
    upstreams: {
      urls: replicas.map((r) => r.url),
      engine: "llama-server",
      tokenizer: testModelPath(),
      healthInterval: 200,
    },
  });
}, 1_800_000);
afterAll(async () => {
  await gateway?.close();
  await Promise.all(replicas.map((r) => r.kill()));
});

const ask = (i: number, stream: boolean) => ({
  model: "test",
  messages: [{ role: "user" as const, content: `request ${i}` }],
  tools: toolSet(i),
  tool_choice: "required" as const,
  max_tokens: 60,
  logit_bias: WANTS_TO_CALL,
  seed: i,
  stream,
});

/** One ask(): at most 60 tokens decoded by a replica. */
const REQUEST: Work = { decode: 60 };
/**
 * The most one test here asks: a stream of 3,000 tokens and one ask() with a llama-server started
 * for them, or 16 + 3 ask()s on two replicas (the greedy test: 6 through the gateway, 6 here).
 */
const BY_WORK = {
  timeout: Math.max(
    timeoutFor({ decode: 3000 + 60, requests: 2 }) + LLAMA_SERVER_START_MS,
    timeoutFor({ decode: 60 * 19, requests: 19 }),
  ),
};

describe("the gateway over llama-server replicas (the openai client)", BY_WORK, () => {
  it("answers masked requests, whole and streamed, with calls valid against their own tools, the grammar confirmed", async () => {
    const api = client(gateway.url, REQUEST);
    for (let i = 0; i < 4; i++) {
      const r = await api.chat.completions.create({ ...ask(i, false), stream: false });
      const choice = r.choices[0]!;
      expect(choice.finish_reason, JSON.stringify(r)).toBe("tool_calls");
      expect(callProblems(choice.message.tool_calls as never, toolSet(i))).toBe("");
      expect((r as unknown as { toolmask: { grammar: string } }).toolmask.grammar).toBe("confirmed");
      const s = await assemble(await api.chat.completions.create({ ...ask(i, true), stream: true }));
      expect(s.problems).toEqual([]);
      expect(s.finishReason).toBe("tool_calls");
      expect(callProblems(s.toolCalls, toolSet(i))).toBe("");
    }
    // both replicas took requests (least outstanding, ties to the least recently used)
    expect(gateway.upstreams!.every((u) => u.sent > 0)).toBe(true);
  });

  it("tool_choice auto (a lazy grammar from the call's trigger): content, or calls valid against their tools", async () => {
    const api = client(gateway.url, REQUEST);
    const finishes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await api.chat.completions.create({
        ...ask(500 + i, false),
        tool_choice: "auto",
        parallel_tool_calls: false, // one call, then the grammar ends the answer
        // <tool_call> wins over stopping before a call: the trigger comes first
        logit_bias: { [TOOL_CALL]: 100, [IM_END]: 90, 1688: 30, 16181: 30 },
        stream: false,
      });
      const choice = r.choices[0]!;
      finishes.push(choice.finish_reason);
      expect((r as unknown as { toolmask: { grammar: string } }).toolmask.grammar).toBe("confirmed");
      expect(callProblems(choice.message.tool_calls as never, toolSet(500 + i))).toBe("");
      if (choice.finish_reason === "tool_calls") expect(choice.message.tool_calls!.length).toBeGreaterThan(0);
      // "length": the calls finished before the cut are valid (checked above); the cut one is not among them
      else if (choice.finish_reason === "stop") expect(choice.message.tool_calls ?? []).toEqual([]);
    }
    console.log(`tool_choice auto through llama-server: ${finishes.join(", ")}`);
    expect(finishes).toContain("tool_calls");
  });

  it("greedy answers through llama-server + our GBNF against our own engine's", async () => {
    let model: LlamaModel | undefined;
    try {
      model = await loadModel({ path: testModelPath(), threads: 1 });
      const api = client(gateway.url, REQUEST);
      const rows: string[] = [];
      let same = 0;
      const N = 6;
      for (let i = 0; i < N; i++) {
        const request = { ...ask(i, false), stream: false as const, temperature: 0 };
        const viaGateway = await api.chat.completions.create(request);
        const ours = await generate(model, {
          messages: request.messages,
          tools: request.tools,
          toolChoice: "required",
          maxTokens: 60,
          temperature: 0,
          logitBias: WANTS_TO_CALL,
          dialect: DIALECT,
        });
        const a = JSON.stringify(
          viaGateway.choices[0]!.message.tool_calls?.map((c) => (c as { function: unknown }).function),
        );
        const b = JSON.stringify(ours.message.tool_calls?.map((c) => c.function));
        if (a === b) same++;
        else rows.push(`request ${i}: llama-server ${a} / ours ${b}`);
      }
      console.log(
        `greedy: ${same}/${N} the same calls through llama-server + GBNF as in our engine\n  ${rows.join("\n  ")}`,
      );
      // Same weights, same greedy choice, same language: the calls agree.
      expect(same, rows.join("\n")).toBe(N);
    } finally {
      model?.dispose();
    }
  });

  it("verify-only (--engine openai) over llama-server's own chat route: no invalid call passed on as valid", async () => {
    const verifying = await startServer({
      port: 0,
      upstreams: { urls: [replicas[1]!.url], engine: "openai", tokenizer: testModelPath() },
      dialect: DIALECT,
    });
    try {
      const api = client(verifying.url, REQUEST);
      let calls = 0;
      let flagged = 0;
      for (let i = 0; i < 6; i++) {
        const r = await api.chat.completions.create({ ...ask(300 + i, false), stream: false });
        const choice = r.choices[0]!;
        const ext = (r as unknown as { toolmask: { grammar: string; incomplete: unknown[] } }).toolmask;
        expect(ext.grammar).toBe("verify-only");
        // Whatever llama-server's parser made of the random model's text, what comes back as a call is valid.
        expect(callProblems(choice.message.tool_calls as never, toolSet(300 + i))).toBe("");
        if (choice.message.tool_calls?.length) expect(choice.finish_reason).toBe("tool_calls");
        calls += choice.message.tool_calls?.length ?? 0;
        flagged += ext.incomplete.length;
      }
      console.log(`verify-only over llama-server's chat route: ${calls} valid calls passed on, ${flagged} flagged`);
    } finally {
      await verifying.close();
    }
  });

  it("a stream whose replica dies mid-answer ends with an error (an event once chunks went out, else a 502), never a finish; the next request goes to the other", async () => {
    const doomed = await startLlamaServer(testModelPath());
    const gw = await startServer({
      port: 0,
      dialect: DIALECT,
      upstreams: { urls: [doomed.url, replicas[1]!.url], engine: "llama-server", tokenizer: testModelPath() },
    });
    try {
      // The stream runs until its replica is killed (max_tokens 3000); the next one is ask()'s.
      const api = client(gw.url, { decode: 3000 });
      const victim = gw.upstreams!.find((u) => u.url === doomed.url)!;
      const started = api.chat.completions.create({
        model: "test",
        messages: [{ role: "user", content: "write at length" }],
        max_tokens: 3000,
        logit_bias: { [IM_END]: -100, 151643: -100 }, // no end token: the answer runs until cut (~15 s)
        stream: true,
      });
      started.catch(() => {}); // awaited below
      // Killed a second into its answer: the stream has begun (llama-server sent its headers).
      for (let t = 0; victim.outstanding < 1 && t < 10_000; t += 5) await new Promise((r) => setTimeout(r, 5));
      expect(victim.outstanding).toBe(1);
      await new Promise((r) => setTimeout(r, 1000));
      await doomed.kill();
      let finish: string | null = null;
      let error: unknown;
      try {
        for await (const c of await started) {
          finish ??= c.choices[0]?.finish_reason ?? null;
        }
      } catch (err) {
        error = err;
      }
      expect(finish, "no finish_reason after the upstream died").toBeNull();
      expect(String((error as Error)?.message), "the client sees the upstream's failure").toMatch(
        /upstream|stream|broke/i,
      );
      const r = await api.chat.completions.create({ ...ask(400, false), stream: false });
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
      expect((r as unknown as { toolmask: { upstream: string } }).toolmask.upstream).toBe(replicas[1]!.url);
    } finally {
      await gw.close();
      await doomed.kill();
    }
  });

  it("loses no request when a replica is killed under load, and serves on", async () => {
    const N = 16;
    // The N requests are sent at once: one may wait for all the others' tokens before its own.
    const api = client(gateway.url, { decode: REQUEST.decode * N, requests: N });
    const results = Array.from({ length: N }, (_, i) =>
      (async () => {
        try {
          if (i % 2 === 0) {
            const r = await api.chat.completions.create({ ...ask(100 + i, false), stream: false });
            return {
              i,
              finish: r.choices[0]!.finish_reason,
              problems: callProblems(r.choices[0]!.message.tool_calls as never, toolSet(100 + i)),
            };
          }
          const s = await assemble(await api.chat.completions.create({ ...ask(100 + i, true), stream: true }));
          return {
            i,
            finish: s.finishReason,
            problems: [...s.problems, callProblems(s.toolCalls, toolSet(100 + i))].filter(Boolean).join("; "),
          };
        } catch (err) {
          return { i, error: `${(err as { status?: number }).status ?? ""} ${(err as Error).message}` };
        }
      })(),
    );
    // Killed while it holds requests: theirs are cut mid-answer, or had not begun and go to the other.
    const victim = gateway.upstreams!.find((u) => u.url === replicas[0]!.url)!;
    for (let t = 0; victim.outstanding < 2 && t < 10_000; t += 5) await new Promise((r) => setTimeout(r, 5));
    const inFlight = victim.outstanding;
    await replicas[0]!.kill();
    const done = await Promise.all(results);
    expect(inFlight, "the replica held requests when it was killed").toBeGreaterThanOrEqual(2);
    const errors = done.filter((d) => "error" in d);
    const answered = done.filter((d) => !("error" in d)) as Array<{
      i: number;
      finish: string | null;
      problems: string;
    }>;
    console.log(
      `killed a replica holding ${inFlight} of ${N} requests: ${answered.length} answered, ${errors.length} ended with an error\n  ${errors.map((e) => JSON.stringify(e)).join("\n  ")}`,
    );
    // Every request came back: an answer, or an error the client sees (a stream cut mid-way).
    expect(answered.length + errors.length).toBe(N);
    // No answer that looks complete is cut: each is tool_calls with valid calls.
    for (const a of answered) {
      expect(a.finish, `request ${a.i}`).toBe("tool_calls");
      expect(a.problems, `request ${a.i}`).toBe("");
    }
    // Errors are the upstream's (502 or an error event), never the gateway's own fault.
    for (const e of errors) expect((e as { error: string }).error).toMatch(/upstream|502|stream/i);
    // Requests that had not reached the killed replica were retried on the other.
    expect(answered.length).toBeGreaterThan(N / 2 - 1);
    // And afterwards every request is served by the replica left.
    for (let i = 0; i < 3; i++) {
      const r = await api.chat.completions.create({ ...ask(200 + i, false), stream: false });
      expect(r.choices[0]!.finish_reason).toBe("tool_calls");
    }
    const dead = gateway.upstreams!.find((u) => u.url === replicas[0]!.url)!;
    expect(dead.healthy).toBe(false);
    // /health lists the upstreams: ok while one is healthy
    const health = (await (await fetchWithin(NO_TOKENS, `${gateway.url}/health`)).json()) as {
      status: string;
      upstreams: Array<{ url: string; healthy: boolean }>;
    };
    expect(health.status).toBe("ok");
    expect(health.upstreams.map((u) => [u.url, u.healthy])).toEqual([
      [replicas[0]!.url, false],
      [replicas[1]!.url, true],
    ]);
  });
});
