#!/usr/bin/env node
// Prefill benchmark: prompt tokens per second on the prompt Claude Code sends (its captured request
// of `claude -p hi` with ENABLE_TOOL_SEARCH=false: 21 tools, 19,367 tokens on Qwen2.5-Coder), on
// toolmask's engine and on llama.cpp's own llama-server (the same GGUF, threads and context), in the
// same run. Both decode the very same token ids from an empty cache (cache_prompt off): toolmask's
// engine in this process (one generation, maxTokens 1), llama-server through /completion with the
// ids as its prompt (n_predict 1). Each side's prompt time is its own engine's timer (toolmask's
// promptMillis, llama-server's timings.prompt_ms); the wall time of the request and the CPU time the
// process used during it (this process's, llama-server's from /proc) are recorded beside it: on a
// shared machine the CPU time is the steadier figure. The sides alternate which goes first; medians.
//
// Usage: node scripts/bench/bench-prefill.mjs [--model file.gguf] [--reps 3] [--threads N]
//          [--tokens N] [--out bench/results/prefill.json]
//   default model: .cache/models/qwen2.5-coder-0.5b-instruct.gguf (npm run models);
//   the prompt: .cache/client-corpus/captures/claude-code-2.1.328.json (npm run corpus:capture,
//   scripts/corpus/capture-client-tools.mjs), else Claude Code's tools in
//   test/fixtures/client-tools/ repeated under new names and cut to the captured prompt's 19,367
//   tokens; --tokens cuts either to its first N tokens.
//   --smallest: the test model, 256 tokens, one repetition, nothing written unless --out
//   (test/programs/bench-smallest-prefill.test.ts).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, benchModelPath, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { startLlamaServer } from "../oracles/llama-server/process.mjs";
import { cpuOf } from "./lib/process-cpu.mjs";
import { Agent, fetch as undiciFetch } from "undici";

readFlags(import.meta.url, {
  command: "npm run bench:prefill --",
  flags: {
    model: "FILE (.cache/models/qwen2.5-coder-0.5b-instruct.gguf)",
    reps: "N (3)",
    threads: "N",
    tokens: "N (the whole captured prompt)",
    out: "FILE (bench/results/prefill.json)",
    smallest: false,
  },
});

const { defaultThreads, loadModel } = await import(path.join(root, "dist", "engine", "model.js"));
const { loadNative } = await import(path.join(root, "dist", "native.js"));
const { prepareChatAsync } = await import(path.join(root, "dist", "engine", "prepare-chat.js"));

const defaultModel = path.join(root, ".cache", "models", "qwen2.5-coder-0.5b-instruct.gguf");
const modelPath = smallest || arg("model", null) ? await benchModelPath() : defaultModel;
if (!existsSync(modelPath)) {
  console.error(`bench:prefill: ${path.relative(root, modelPath)} is missing: run npm run models (or pass --model)`);
  process.exit(1);
}
const REPS = Number(arg("reps", smallest ? 1 : 3));
const threads = Number(arg("threads", defaultThreads()));
const wanted = arg("tokens", smallest ? "256" : null);

// --- The prompt: Claude Code's request rendered by the model's chat template -----------------------
const capture = path.join(root, ".cache", "client-corpus", "captures", "claude-code-2.1.328.json");
const text = (c) =>
  typeof c === "string"
    ? c
    : c
        .filter((x) => x.type === "text")
        .map((x) => x.text)
        .join("\n");
let request;
let source = "";
if (existsSync(capture)) {
  const body = JSON.parse(readFileSync(capture, "utf8")).find((r) => r.run.includes("ENABLE_TOOL_SEARCH=false"))
    .requests[0].body;
  request = {
    messages: [
      { role: "system", content: text(body.system) },
      ...body.messages.map((m) => ({ role: m.role, content: text(m.content) })),
    ],
    tools: body.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.input_schema },
    })),
  };
  source = `${path.relative(root, capture)} (claude -p hi, ENABLE_TOOL_SEARCH=false)`;
}
/** The captured request's size on Qwen2.5-Coder: what the fixture's copies are cut to. */
const CAPTURED_TOKENS = 19_367;
const fixture = path.join(root, "test", "fixtures", "client-tools", "claude-code-2.1.328.json");
/** `k` copies of the fixture's tools under new names (the fixture has no descriptions). */
const copiesOf = (k) => {
  const tools = JSON.parse(readFileSync(fixture, "utf8")).tools;
  const copies = Array.from({ length: k }, (_, i) =>
    tools.map((t) => ({ type: "function", function: { name: `${t.name}${i || ""}`, parameters: t.parameters } })),
  ).flat();
  return { messages: [{ role: "user", content: "hi" }], tools: copies };
};

// The context: the prompt and one sampled token, rounded up.
const probe = await loadModel({ path: modelPath, threads, contextSize: 65536, parallel: 1, gpu: false });
const tokenize = async (r) =>
  Array.from(await probe.native.tokenizePrompt((await prepareChatAsync(probe, { ...r, mask: false })).prompt));
let tokens;
if (request) tokens = await tokenize(request);
else {
  // Without the capture: copies of Claude Code's tools until the prompt is the captured one's size.
  const target = Number(wanted ?? CAPTURED_TOKENS);
  let k = 1;
  for (tokens = await tokenize(copiesOf(k)); tokens.length < target; tokens = await tokenize(copiesOf(k))) k++;
  source = `${path.relative(root, fixture)}'s tools, ${k} copies under new names, cut to ${target} tokens (no capture in .cache/client-corpus)`;
}
probe.dispose();
if (wanted || !existsSync(capture)) tokens = tokens.slice(0, Number(wanted ?? CAPTURED_TOKENS));
const CONTEXT = Math.ceil((tokens.length + 64) / 256) * 256;

// --- The two engines -------------------------------------------------------------------------------
/** How long one prefill may take: 19,367 tokens took 265 s on 1 thread at load average 18. */
const PREFILL_MS = 60 * 60_000;
const dispatcher = new Agent({ headersTimeout: PREFILL_MS, bodyTimeout: PREFILL_MS });
const model = await loadModel({ path: modelPath, threads, contextSize: CONTEXT, parallel: 1, gpu: false });
let peer;
const stopPeer = () => peer?.child.kill("SIGKILL");
process.on("exit", stopPeer);
peer = await startLlamaServer(modelPath, [
  ...["-c", String(CONTEXT), "-np", "1", "-t", String(threads), "-tb", String(threads), "-ngl", "0"],
]);

async function ours(ids) {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await loadNative().llamaGenerate(
    model.native,
    { prompt: "", promptTokens: Int32Array.from(ids), maxTokens: 1, cachePrompt: false },
    () => {},
  ).done;
  const wall = performance.now() - t0;
  const c = process.cpuUsage(c0);
  if (r.promptCachedTokens !== 0) throw new Error(`toolmask read ${r.promptCachedTokens} prompt tokens from a cache`);
  return { promptMillis: r.promptMillis, wallMillis: wall, cpuMillis: (c.user + c.system) / 1000 };
}

async function theirs(ids) {
  const c0 = cpuOf(peer.child.pid);
  const t0 = performance.now();
  const r = await undiciFetch(`${peer.url}/completion`, {
    dispatcher,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ prompt: ids, n_predict: 1, cache_prompt: false, temperature: 0 }),
    signal: AbortSignal.timeout(PREFILL_MS),
  });
  const body = await r.json();
  const wall = performance.now() - t0;
  if (!r.ok) throw new Error(`llama-server: ${r.status} ${JSON.stringify(body).slice(0, 500)}`);
  if (body.timings.prompt_n !== ids.length)
    throw new Error(`llama-server decoded ${body.timings.prompt_n} of the ${ids.length} prompt tokens`);
  return { promptMillis: body.timings.prompt_ms, wallMillis: wall, cpuMillis: cpuOf(peer.child.pid) - c0 };
}

/**
 * llama-server's CPU time is read from /proc in 10 ms ticks: a measurement repeats the prefill until
 * it is at least this long (the test model's 256 tokens take a few ms), both sides the same number
 * of times, and reports the mean of one.
 */
const MIN_MEASURE_MS = 200;
let times = 1;
/** `fn(ids)` `times` times: the sums of each figure over one. */
async function measure(fn, ids) {
  const sum = { promptMillis: 0, wallMillis: 0, cpuMillis: 0 };
  for (let i = 0; i < times; i++) {
    const r = await fn(ids);
    for (const k of Object.keys(sum)) sum[k] += r[k];
  }
  for (const k of Object.keys(sum)) sum[k] /= times;
  return sum;
}

const runs = { toolmask: [], "llama-server": [] };
try {
  // A short prompt first: our engine creates its llama_context on the first generation, and a
  // context's first decode pays for allocation and warm-up (llama-server's too).
  await ours(tokens.slice(0, 8));
  await theirs(tokens.slice(0, 8));
  const probeWall = (await theirs(tokens)).wallMillis;
  times = Math.min(1000, Math.max(1, Math.ceil(MIN_MEASURE_MS / Math.max(probeWall, 0.1))));
  for (let rep = 0; rep < REPS; rep++) {
    const order = rep % 2 === 0 ? ["toolmask", "llama-server"] : ["llama-server", "toolmask"];
    for (const name of order) runs[name].push(await measure(name === "toolmask" ? ours : theirs, tokens));
    const [a, b] = [runs.toolmask.at(-1), runs["llama-server"].at(-1)];
    console.error(
      `rep ${rep + 1}: toolmask ${a.promptMillis.toFixed(0)} ms (cpu ${a.cpuMillis.toFixed(0)}), llama-server ${b.promptMillis.toFixed(0)} ms (cpu ${b.cpuMillis.toFixed(0)})`,
    );
  }
} finally {
  model.dispose();
  await peer.kill();
}

const perSecond = (ms) => +((tokens.length * 1000) / ms).toFixed(2);
const side = (xs) => ({
  promptTokensPerSecond: perSecond(median(xs.map((x) => x.promptMillis))),
  wallTokensPerSecond: perSecond(median(xs.map((x) => x.wallMillis))),
  cpuTokensPerSecond: perSecond(median(xs.map((x) => x.cpuMillis))),
  runs: xs.map((x) => ({
    promptMillis: +x.promptMillis.toFixed(1),
    wallMillis: +x.wallMillis.toFixed(1),
    cpuMillis: +x.cpuMillis.toFixed(1),
  })),
});
const a = side(runs.toolmask);
const b = side(runs["llama-server"]);
const ratio = (x, y) => +(x / y).toFixed(3);
const report = {
  date: new Date().toISOString(),
  model: path.basename(modelPath),
  prompt: source,
  promptTokens: tokens.length,
  threads,
  contextSize: CONTEXT,
  cpus: os.availableParallelism(),
  loadavg: os.loadavg(),
  reps: REPS,
  how: "the same token ids decoded from an empty cache with one token sampled; prompt time by each engine's own timer, wall and process CPU time beside it; each measurement the mean of timesPerMeasure prefills (as many as make it at least 200 ms, for llama-server's CPU time read in 10 ms ticks); medians over reps, sides alternating",
  timesPerMeasure: times,
  toolmask: a,
  llamaServer: b,
  ratio_toolmask_llama_server: {
    prompt: ratio(a.promptTokensPerSecond, b.promptTokensPerSecond),
    wall: ratio(a.wallTokensPerSecond, b.wallTokensPerSecond),
    cpu: ratio(a.cpuTokensPerSecond, b.cpuTokensPerSecond),
  },
};
const out = outPath("bench/results/prefill.json");
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
}
const r = report.ratio_toolmask_llama_server;
console.log(
  `prefill ${tokens.length} tokens: toolmask ${a.promptTokensPerSecond} tok/s (cpu ${a.cpuTokensPerSecond}), ` +
    `llama-server ${b.promptTokensPerSecond} tok/s (cpu ${b.cpuTokensPerSecond}); ` +
    `ratio toolmask/llama-server ${r.prompt} (wall ${r.wall}, cpu ${r.cpu})`,
);
console.log(
  `(${report.model}, threads ${threads}, ${REPS} reps, load ${report.loadavg.map((x) => x.toFixed(1)).join(" ")})${out ? `; written to ${path.relative(root, out)}` : ""}`,
);
