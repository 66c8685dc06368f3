#!/usr/bin/env node
// The server's resident memory under requests that each bring tool schemas of their own: starts
// `toolmask serve` on the test model (or --model) as a child process, sends --requests requests
// --concurrency at a time (scripts/lib/varied-requests.mjs: the routes in turn, streamed every
// other turn, a call required half of the time; every --call-every-th request a call the parser
// reads, with the test model's WANTS_TO_CALL bias), and reads the child's RSS (/proc/PID/status
// VmRSS) before the first, every --every requests, and after --idle seconds with nothing sent.
// Usage: node scripts/bench/bench-memory.mjs [--requests 400] [--routes chat,messages,responses]
//        [--cache-mb N] [--max-tokens 16] [--call-every 20] [--concurrency 1] [--every 50]
//        [--idle 5] [--seed 1] [--model file.gguf] [--out bench/results/memory.json]
//   --smallest: 7 requests (each route streamed and not, then a call the parser reads), 4 tokens,
//   RSS read every 4, 1 s idle (test/test-model/bench-smallest-memory.test.ts); nothing is written
//   without --out.
// Needs dist/ (npm run build:ts).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { arg, benchModelPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { runSoak, startServeChild } from "../lib/memory-soak.mjs";
import { ROUTES } from "../lib/varied-requests.mjs";

readFlags(import.meta.url, {
  command: "node scripts/bench/bench-memory.mjs",
  flags: {
    requests: "N (400)",
    routes: "chat,messages,responses",
    "cache-mb": "N",
    "max-tokens": "N (16)",
    "call-every": "N (20)",
    concurrency: "N (1)",
    every: "N (50)",
    idle: "SECONDS (5)",
    seed: "N (1)",
    model: "FILE",
    out: "FILE",
    smallest: false,
  },
});

const REQUESTS = Number(arg("requests", smallest ? 7 : 400));
const routes = String(arg("routes", ROUTES.join(","))).split(",");
const cacheMb = arg("cache-mb", null);
const MAX_TOKENS = Number(arg("max-tokens", smallest ? 4 : 16));
const EVERY = Number(arg("every", smallest ? 4 : 50));
const CALL_EVERY = Number(arg("call-every", smallest ? 7 : 20));
const CONCURRENCY = Number(arg("concurrency", 1));
// test/support/server-fixtures.ts WANTS_TO_CALL: Qwen3's <tool_call>, <|im_end|>, "function", "parameter".
const CALL_BIAS = { 151657: 90, 151645: 100, 1688: 30, 16181: 30 };
const IDLE = Number(arg("idle", smallest ? 1 : 5));
const SEED = Number(arg("seed", 1));
const out = arg("out", null);
for (const r of routes) if (!ROUTES.includes(r)) throw new Error(`--routes: ${r} is not one of ${ROUTES.join(", ")}`);

const modelPath = await benchModelPath();
const server = await startServeChild({ root, model: modelPath, cacheMb });
let r;
try {
  r = await runSoak(server, {
    requests: REQUESTS,
    seed: SEED,
    mix: { maxTokens: MAX_TOKENS, routes, callEvery: CALL_EVERY, callBias: arg("model", null) ? undefined : CALL_BIAS },
    concurrency: CONCURRENCY,
    every: EVERY,
    idleMs: IDLE * 1000,
    log: console.log,
  });
} finally {
  await server.stop();
}
const result = {
  date: new Date().toISOString().slice(0, 10),
  model: path.basename(modelPath),
  routes,
  requests: REQUESTS,
  maxTokens: MAX_TOKENS,
  callEvery: CALL_EVERY,
  concurrency: CONCURRENCY,
  grammarCacheMb: cacheMb === null ? 256 : Number(cacheMb),
  seconds: Math.round(r.seconds),
  statuses: r.statuses,
  samples: r.samples.map((s) => ({ requests: s.requests, rssMb: Math.round(s.rssMb) })),
  idleAfterSeconds: IDLE,
  idleRssMb: Math.round(r.idleRssMb),
  peakMb: Math.round(r.peakMb),
  grownMb: Math.round(r.grownMb),
  // After a full garbage collection: what the server holds, without V8's uncollected garbage.
  afterGcRssMb: Math.round(r.afterGcMb),
};
console.log(JSON.stringify(result, null, 2));
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}
