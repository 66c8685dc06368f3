// 50 streams dropped mid-way: each dropped client's generation stops and its slot frees, a later
// request is served promptly, and the process's memory does not grow with the drops.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { startServer, type ToolmaskServer } from "../../src/server/index.js";
import { testModelPath } from "../support/test-model.js";
import { client } from "../support/server-fixtures.js";
import { fetchWithin, NO_TOKENS, timeoutFor } from "../support/timeouts.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let model: LlamaModel;
let server: ToolmaskServer;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
  server = await startServer({ model, port: 0, maxQueue: 8 });
});
afterAll(async () => {
  await server?.close();
  model?.dispose();
});

const slots = async () =>
  ((await (await fetchWithin(NO_TOKENS, `${server.url}/health`)).json()) as { slots: { busy: number; queued: number } })
    .slots;

async function idleWithin(ms: number): Promise<number> {
  const t0 = Date.now();
  for (;;) {
    const s = await slots();
    if (s.busy === 0 && s.queued === 0) return Date.now() - t0;
    if (Date.now() - t0 > ms) throw new Error(`slots still busy after ${ms} ms: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
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
  it("50 streams dropped mid-way free their slots, a later request is served promptly, memory does not grow", async () => {
    // Warm up (first contexts, code paths, allocator arenas) before the baseline.
    // Measured once: rss rises ~40 MB over the first 50 drops (the shared context's KV cache and
    // buffers, allocator arenas), then stays within ~3 MB over 200 more; a leak would keep rising.
    await dropBatch(5, 1000);
    await dropBatch(5, 1005);
    await idleWithin(2000);
    const before = memory();

    const freedAfter: number[] = [];
    for (let batch = 0; batch < 10; batch++) {
      // 5 at a time on fewer slots: some wait in line, get a slot when others drop, then drop too.
      const read = await dropBatch(5, batch * 5);
      expect(read).toEqual([4, 4, 4, 4, 4]);
      freedAfter.push(await idleWithin(1000));
    }
    const t0 = Date.now();
    const later = await client(server.url, { decode: 4 }).chat.completions.create({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      max_tokens: 4,
    });
    const servedIn = Date.now() - t0;
    expect(later.choices[0]!.finish_reason).toBe("length");
    expect(servedIn).toBeLessThan(3000);

    await idleWithin(1000);
    const after = memory();
    const heap = after.heapUsed - before.heapUsed,
      rss = after.rss - before.rss;
    console.log(
      `50 dropped streams: slots idle ${Math.max(...freedAfter)} ms (worst) after each batch of 5; a later request served in ${servedIn} ms; ` +
        `heapUsed ${mb(before.heapUsed)} → ${mb(after.heapUsed)} MB (${mb(heap)}), rss ${mb(before.rss)} → ${mb(after.rss)} MB (${mb(rss)})`,
    );
    // One leaked llama context (KV cache, logits, compute buffers) is megabytes; 50 would be far
    // beyond these bounds. The bounds leave room for allocator noise.
    expect(heap).toBeLessThan(8 * 2 ** 20);
    expect(rss).toBeLessThan(48 * 2 ** 20);
  });
});
