// 50 streams dropped mid-way: each dropped client's generation stops and its slot frees, a later
// request is served without waiting behind any of them, and the process's memory does not grow
// with the drops. That a generation stopped is the engine's own account (test/support/engine-
// generations.ts): it ended "aborted", having sampled at most one token after abort() was called
// (one that ran on would end "length" at the end of the context); nothing here is timed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { client } from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, timeoutFor } from "../support/timeouts.js";
import { notStoppedOnAbort, watchEngineGenerations, type EngineGenerations } from "../support/engine-generations.js";
import { until } from "../support/until.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let model: LlamaModel;
let server: ToolmaskServer;
let engine: EngineGenerations;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, maxQueue: 8 });
  engine = watchEngineGenerations();
});
afterAll(async () => {
  engine?.restore();
  await server?.close();
  model?.dispose();
});

const slots = async () =>
  ((await (await fetchWithin(NO_TOKENS, `${server.url}/health`)).json()) as { slots: { busy: number; queued: number } })
    .slots;

/** Once no slot is busy or queued: every generation since `from` settled, as the engine says. */
async function idleFrom(from: number): Promise<void> {
  await until(async () => {
    const s = await slots();
    return s.busy === 0 && s.queued === 0;
  });
  expect(engine.running()).toBe(0);
  const wrong = engine.all.slice(from).map(notStoppedOnAbort);
  expect(wrong).toEqual(wrong.map(() => undefined));
}

/** A stream that would run to the end of the context; read a few chunks, then hang up. */
async function dropMidway(seed: number): Promise<number> {
  const ctl = new AbortController();
  // It reads 4 chunks and hangs up; the 5 of a batch may wait on one another's first chunks.
  const stream = await client(server.url, { decode: 5 * 4, requests: 5 }).chat.completions.create(
    {
      model: "m",
      messages: [{ role: "user", content: `tell me everything (${seed})` }],
      max_tokens: 100_000,
      stream: true,
      seed,
      logit_bias: { 1688: 100 }, // a visible token every step: text streams at once
    },
    { signal: ctl.signal },
  );
  let chunks = 0;
  for await (const _ of stream) if (++chunks === 4) break;
  ctl.abort(); // hang up (breaking out already closed the response body)
  return chunks;
}

async function dropBatch(n: number, first: number): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, (_, j) => dropMidway(first + j)));
}

function memory() {
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}
const mb = (n: number) => (n / 2 ** 20).toFixed(1);

// 60 streams that read 4 chunks each, then one request of 4 tokens.
describe("dropped streams", { timeout: timeoutFor({ decode: 60 * 4 + 4, requests: 61 }) }, () => {
  it("50 streams dropped mid-way: the engine stops each within a token of its abort, their slots free, a later request waits behind none, memory does not grow", async () => {
    // Warm up (first contexts, code paths, allocator arenas) before the baseline.
    // Measured once: rss rises ~40 MB over the first 50 drops (the shared context's KV cache and
    // buffers, allocator arenas), then stays within ~3 MB over 200 more; a leak would keep rising.
    await dropBatch(5, 1000);
    await dropBatch(5, 1005);
    await idleFrom(0);
    const before = memory();

    for (let batch = 0; batch < 10; batch++) {
      // 5 at a time on fewer slots: some wait in line, get a slot when others drop, then drop too.
      const from = engine.all.length;
      const read = await dropBatch(5, batch * 5);
      expect(read).toEqual([4, 4, 4, 4, 4]);
      // Each of the 5 ran in the engine and stopped there when its client left; none holds a sequence.
      await idleFrom(from);
      expect(engine.all.length - from).toBe(5);
    }
    const dropped = engine.all.slice(10);
    // The later request is the only generation in the engine: it waits behind none of the dropped.
    const t0 = Date.now();
    const later = await client(server.url, { decode: 4 }).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 4,
    });
    const servedIn = Date.now() - t0;
    expect(later.choices[0]!.finish_reason).toBe("length");
    expect(engine.all.at(-1)!.runningAtStart).toBe(0);
    expect(engine.all.at(-1)!.result?.finishReason).toBe("length");

    const after = memory();
    const heap = after.heapUsed - before.heapUsed,
      rss = after.rss - before.rss;
    const decoded = dropped.map((g) => g.result!.tokens.length);
    console.log(
      `50 dropped streams: each stopped by the engine after ${Math.min(...decoded)}–${Math.max(...decoded)} tokens, ` +
        `at most ${Math.max(...dropped.map((g) => g.result!.tokensAfterAbort))} after its abort; a later request served in ${servedIn} ms; ` +
        `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB (${mb(heap)}), rss ${mb(before.rss)} → ${mb(after.rss)} MB (${mb(rss)})`,
    );
    // One leaked llama context (KV cache, logits, compute buffers) is megabytes; 50 would be far
    // beyond these bounds. The bounds leave room for allocator noise.
    expect(heap).toBeLessThan(8 * 2 ** 20);
    expect(rss).toBeLessThan(48 * 2 ** 20);
  });
});
