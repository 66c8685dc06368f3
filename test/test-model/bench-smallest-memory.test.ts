// scripts/bench/bench-memory.mjs at its smallest size (--smallest): `toolmask serve` on the test
// model as a child process, 7 requests with tool schemas of their own (each route, streamed and
// not, then a call the parser reads), its RSS read before, every 4 answers, after 1 s idle and after
// a full collection. The memory figures are printed, not judged here; their bounds are
// server-memory-soak.test.ts's (the same scripts/lib/memory-soak.mjs, 2,000 requests).
import { expect, it } from "vitest";
import { distBuilt, resultsSnapshot, runBench } from "../support/bench-run.js";
import { timeoutFor } from "../support/timeouts.js";

// 7 requests of at most 4 tokens (the call at most 64), a server started; 4.2 s at load average 4.
const TIMEOUT = timeoutFor({ decode: 6 * 4 + 64, requests: 7 });

it.skipIf(!distBuilt)(
  "bench-memory --smallest: every route answered 200 or 400, never 5xx, the RSS sampled and after idle",
  () => {
    const before = resultsSnapshot();
    const r = runBench("bench-memory.mjs", ["--smallest"], TIMEOUT);
    expect(r.status, r.all).toBe(0);
    const json = r.stdout.slice(r.stdout.lastIndexOf("\n{\n") + 1);
    const result = JSON.parse(json);
    expect(
      Object.keys(result.statuses)
        .map((k) => k.split(" ")[0])
        .sort(),
    ).toEqual(["call", "chat", "chat+stream", "messages", "messages+stream", "responses", "responses+stream"].sort());
    for (const key of Object.keys(result.statuses)) expect(key, json).toMatch(/ (200|400)$/);
    expect(result.statuses["call 200"], json).toBe(1);
    expect(result.samples.map((s: { requests: number }) => s.requests)).toEqual([0, 4, 7]);
    for (const s of result.samples) expect(s.rssMb).toBeGreaterThan(0);
    expect(result.idleRssMb).toBeGreaterThan(0);
    expect(result.afterGcRssMb).toBeGreaterThan(0);
    expect(resultsSnapshot()).toEqual(before);
    console.log(json);
  },
  TIMEOUT,
);
