#!/usr/bin/env node
// How long the server's event loop stalls while it answers a hostile body, against the time
// JSON.parse takes on the same body in the same process (the peer: what reading the body at all
// costs). The server runs here, on the random-weight test model (written in seconds if missing);
// each body is built before the measurement, sent over HTTP, and perf_hooks.monitorEventLoopDelay
// (1 ms resolution) records the longest stall between the request's first byte and its answer.
// Each case must get its expected status (else the run exits 1); stalls are printed, not judged:
// a noisy machine moves them, the ratio to JSON.parse moves less.
//   npm run bench:stalls              the sizes of issue 30 (4 MB, 4,000 messages, 70,000 tools …);
//                                     writes bench/results/stalls.json
//   npm run bench:stalls -- --smallest  every case at 1/20 of its size, nothing written (npm test
//                                     runs this: test/test-model/bench-stalls.test.ts)
//   --only SUBSTRING                  the cases whose name holds it (nothing written)
import { mkdirSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { arg, readFlags, smallest } from "./lib/bench-flags.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:stalls --",
  flags: { only: "SUBSTRING (nothing written)", smallest: false },
});
const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const only = arg("only");
const scale = smallest ? 1 / 20 : 1;
const n = (count) => Math.max(2, Math.round(count * scale));
const MB = 1 << 20;

const { startServer } = await import(join(root, "dist", "server", "index.js"));
const { loadModel } = await import(join(root, "dist", "index.js"));
const { writeTestModel } = await import(join(root, "dist", "model", "test-model.js"));

const modelPath = join(root, ".cache", "test-model", "qwen3-tiny-seed1.gguf");
const { existsSync, renameSync } = await import("node:fs");
if (!existsSync(modelPath)) {
  mkdirSync(dirname(modelPath), { recursive: true });
  const tmp = `${modelPath}.${process.pid}.tmp`;
  writeTestModel({ path: tmp, seed: 1 });
  renameSync(tmp, modelPath);
}

const user = (content) => ({ role: "user", content });
const turns = (count, text) =>
  Array.from({ length: count }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: text })).concat(
    count % 2 === 0 ? [user("and now?")] : [],
  );
const tool = (i) => ({ type: "function", function: { name: `f${i}`, parameters: { type: "object" } } });
const chat = (extra) => JSON.stringify({ model: "m", max_tokens: 1, messages: [user("hi")], ...extra });

/** Each case: the route, the body (built once), the status it must get. */
const CASES = [
  {
    name: `${n(4000)} messages of 1 KB (chat completions)`,
    path: "/v1/chat/completions",
    status: 400,
    body: () => JSON.stringify({ model: "m", max_tokens: 1, messages: turns(n(4000), "word ".repeat(200)) }),
  },
  {
    name: `${n(4000)} messages of 1 KB (Messages)`,
    path: "/v1/messages",
    status: 400,
    body: () => JSON.stringify({ model: "m", max_tokens: 1, messages: turns(n(4000) | 1, "word ".repeat(200)) }),
  },
  {
    name: `${n(4000)} input items of 1 KB (Responses)`,
    path: "/v1/responses",
    status: 400,
    body: () => JSON.stringify({ model: "m", max_output_tokens: 16, input: turns(n(4000) | 1, "word ".repeat(200)) }),
  },
  {
    // count_tokens refuses a prompt its length shows cannot fit the context, as /v1/messages does.
    name: `${n(4000)} messages of 1 KB, count_tokens`,
    path: "/v1/messages/count_tokens",
    status: 400,
    body: () => JSON.stringify({ model: "m", messages: turns(n(4000) | 1, "word ".repeat(200)) }),
  },
  {
    name: `${n(70_000)} tools`,
    path: "/v1/chat/completions",
    status: 400,
    body: () => chat({ tools: Array.from({ length: Math.max(n(70_000), 513) }, (_, i) => tool(i)) }),
  },
  {
    name: `an enum of ${n(700_000)} strings`,
    path: "/v1/chat/completions",
    status: 400,
    body: () =>
      chat({
        tools: [
          {
            type: "function",
            function: {
              name: "f",
              parameters: {
                type: "object",
                properties: { x: { enum: Array.from({ length: n(700_000) }, (_, i) => `v${i}`) } },
              },
            },
          },
        ],
      }),
  },
  {
    name: `JSON nested ${n(3_500_000)} deep`,
    path: "/v1/chat/completions",
    status: 400,
    body: () => `{"model":"m","x":${"[".repeat(n(3_500_000))}${"]".repeat(n(3_500_000))}}`,
  },
  {
    name: `malformed JSON of ${Math.round(n(7 * MB) / 1024)} KB`,
    path: "/v1/chat/completions",
    status: 400,
    body: () => `{"model":"m","messages":[{"role":"user","content":"${"x".repeat(n(7 * MB))}"}],`,
  },
  {
    name: `a lone surrogate after ${Math.round(n(7 * MB) / 1024)} KB of tool description`,
    path: "/v1/chat/completions",
    status: 400,
    body: () =>
      chat({ tools: [{ type: "function", function: { name: "f", description: `${"d".repeat(n(7 * MB))}\ud800` } }] }),
  },
  {
    name: `logit_bias of ${n(300_000)} keys`,
    path: "/v1/chat/completions",
    status: 400,
    body: () =>
      // Ids up to the vocabulary's size (151,669): only the last key is refused, after all the others are read.
      chat({
        logit_bias: Object.fromEntries(
          Array.from({ length: n(300_000) }, (_, i) => [Math.max(0, 151_670 - n(300_000)) + i, 1]),
        ),
      }),
  },
  {
    name: `metadata of ${n(200_000)} keys (Responses)`,
    path: "/v1/responses",
    status: 400,
    body: () =>
      JSON.stringify({
        model: "m",
        input: "hi",
        metadata: Object.fromEntries(Array.from({ length: n(200_000) }, (_, i) => [`k${i}`, "v"])),
      }),
  },
];

function post(url, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: "POST", headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (res) => {
        const parts = [];
        res.on("data", (c) => parts.push(c));
        res.on("end", () => resolve({ status: res.statusCode, text: Buffer.concat(parts).toString("utf8") }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** JSON.parse's time on `body` (a refusal of malformed text included), the best of three. */
function parseMillis(body) {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const t0 = performance.now();
    try {
      JSON.parse(body);
    } catch {
      /* malformed on purpose: the time to find out is the peer */
    }
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

const model = await loadModel({ path: modelPath, threads: 1 });
const server = await startServer({ model, port: 0 });
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const results = [];
let wrong = 0;
try {
  await post(server.url, "/v1/chat/completions", chat({})); // warm: the first request loads what it needs
  for (const c of CASES) {
    if (only !== undefined && !c.name.includes(only)) continue;
    const body = c.body();
    const parse = parseMillis(body);
    await new Promise((r) => setTimeout(r, 20));
    delay.reset();
    const t0 = performance.now();
    const r = await post(server.url, c.path, body);
    const wallMs = performance.now() - t0;
    const stallMs = delay.max / 1e6;
    const ok = r.status === c.status;
    if (!ok) wrong++;
    let message = "";
    try {
      const j = JSON.parse(r.text);
      message = j.error?.message ?? "";
    } catch {
      /* not JSON */
    }
    results.push({
      name: c.name,
      path: c.path,
      bytes: Buffer.byteLength(body),
      status: r.status,
      expected: c.status,
      stallMs: +stallMs.toFixed(1),
      parseMs: +parse.toFixed(1),
      ratio: +(stallMs / Math.max(parse, 0.1)).toFixed(2),
      wallMs: Math.round(wallMs),
      message: message.slice(0, 160),
    });
  }
} finally {
  await server.close();
  model.dispose();
}

const pad = (s, w) => String(s).padEnd(w);
console.log(
  `${pad("case", 58)} ${pad("MB", 6)} ${pad("status", 7)} ${pad("stall ms", 9)} ${pad("parse ms", 9)} stall/parse`,
);
for (const r of results)
  console.log(
    `${pad(r.name, 58)} ${pad((r.bytes / MB).toFixed(2), 6)} ${pad(r.status === r.expected ? r.status : `${r.status}!`, 7)} ${pad(r.stallMs, 9)} ${pad(r.parseMs, 9)} ${r.ratio}`,
  );
if (!smallest && only === undefined) {
  const out = join(root, "bench", "results", "stalls.json");
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        command: "npm run bench:stalls",
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
        loadavg: (await import("node:os")).loadavg().map((x) => +x.toFixed(2)),
        note: "stallMs: the longest event-loop delay (monitorEventLoopDelay, 1 ms resolution) while the server answered the body; parseMs: JSON.parse of the same body here (best of 3); ratio = stallMs / parseMs",
        cases: results,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${out}`);
}
if (wrong > 0) {
  for (const r of results.filter((x) => x.status !== x.expected))
    console.error(`${r.name}: status ${r.status}, expected ${r.expected}: ${r.message}`);
  process.exit(1);
}
