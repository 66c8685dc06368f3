#!/usr/bin/env node
// Serving benchmark: time to first token per turn of a 4-turn agent conversation whose prefix (the
// tools and the system prompt) is ~6,000 tokens, on toolmask's server and on llama.cpp's own
// llama-server (`--jinja`, cache_prompt on, the same GGUF, threads and context), in the same run.
// What it shows is the prompt cache: from turn 2 on, both servers decode only what the turn added.
//
// The conversation is written here (Claude Code's captured tools, test/fixtures/client-tools/, and
// a system prompt of numbered rules; each turn adds the assistant's tool call and the tool's result),
// so both servers are sent the same messages whatever their models answer. A turn's time to first
// token is the wall time of its chat-completions request with max_tokens 1 (the prompt decoded and
// one token sampled), tool_choice auto; the serving process's CPU time over the request is recorded
// beside it (on a shared machine the steadier figure). Each repetition starts a new conversation (its first
// system line differs), both servers in turn; medians per turn. The ratios printed and written are
// from this run.
//
// Usage: node scripts/bench/bench-serve.mjs [--model file.gguf] [--reps 3] [--threads N]
//          [--prefix 6000] [--out bench/results/serve.json]
//   default model: .cache/models/qwen2.5-coder-0.5b-instruct.gguf (npm run models);
//   needs llama-server (npm run build:llama-server; built here on first use).
//   --smallest: the test model, a ~600-token prefix, one repetition, nothing written unless --out
//   (test/programs/bench-smallest-serve.test.ts).
//
// --concurrent 1,2,4: throughput instead. For each count C, the servers are started with C
// sequence slots (toolmask parallel C, once with exactPrompts true, the default, and once false:
// llama-server's batching and prefix reuse; llama-server -np C) and C conversations (each its own first
// system line) run at once, each its 4 turns in order, tool_choice "required" (toolmask masks every
// token with its grammar; llama-server constrains with the grammar it builds for the same tools),
// max_tokens --answer (default 64). Turn 1 of every conversation is sent first, untimed (it fills
// the caches); turns 2-4 are timed: total completion tokens over the wall time from the first
// request to the last answer, per server, and the ratio. Written to bench/results/serve-concurrent.json.
//   --prefix defaults to 1500 here; --smallest: --answer 32.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { arg, benchModelPath, median, outPath, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { startLlamaServer } from "../oracles/llama-server/process.mjs";
import { cpuOf, ownCpu } from "./lib/process-cpu.mjs";
import { Agent, fetch as undiciFetch } from "undici";

readFlags(import.meta.url, {
  command: "npm run bench:serve --",
  flags: {
    model: "FILE (.cache/models/qwen2.5-coder-0.5b-instruct.gguf)",
    reps: "N (3)",
    threads: "N",
    prefix: "TOKENS (6000)",
    concurrent: "N,N (conversations at once, e.g. 1,2,4)",
    answer: "TOKENS (64; max_tokens of each concurrent turn)",
    out: "FILE (bench/results/serve.json)",
    smallest: false,
  },
});

const { startServer } = await import(path.join(root, "dist", "server", "index.js"));
const { defaultThreads, loadModel } = await import(path.join(root, "dist", "engine", "model.js"));
const { countPromptTokens } = await import(path.join(root, "dist", "engine", "prompt-tokens.js"));

const defaultModel = path.join(root, ".cache", "models", "qwen2.5-coder-0.5b-instruct.gguf");
const modelPath = smallest || arg("model", null) ? await benchModelPath() : defaultModel;
if (!existsSync(modelPath)) {
  console.error(`bench:serve: ${path.relative(root, modelPath)} is missing: run npm run models (or pass --model)`);
  process.exit(1);
}
const CONCURRENT = arg("concurrent", null)
  ?.split(",")
  .map((x) => Number(x));
if (CONCURRENT?.some((c) => !Number.isInteger(c) || c < 1)) {
  console.error("bench:serve: --concurrent takes counts of conversations, e.g. 1,2,4");
  process.exit(1);
}
const ANSWER = Number(arg("answer", smallest ? 32 : 64));
const REPS = Number(arg("reps", smallest ? 1 : 3));
const PREFIX = Number(arg("prefix", smallest ? 600 : CONCURRENT ? 1500 : 6000));
const threads = Number(arg("threads", defaultThreads()));
const CONTEXT = smallest ? 2048 : PREFIX + 2048;

// --- The conversation ----------------------------------------------------------------------
const corpus = JSON.parse(
  readFileSync(path.join(root, "test", "fixtures", "client-tools", "claude-code-2.1.328.json")),
);
// SendMessage's schema has an allOf of two constraining schemas, which the grammar refuses (400
// invalid_tool_schema, docs/json-schema.md): the tools sent are taken from the other 22.
const allTools = corpus.tools
  .filter((t) => !JSON.stringify(t.parameters).includes('"allOf"'))
  .map((t) => ({ type: "function", function: { name: t.name, parameters: t.parameters } }));

/** Numbered rules, as an agent's system prompt lists them: about 12 tokens each. */
const rules = (n) =>
  Array.from(
    { length: n },
    (_, i) =>
      `${i + 1}. When step ${i + 1} of a task touches file ${i % 17}.ts, read it first and keep edits small (${(i * 7919) % 1000}).`,
  ).join("\n");

const call = (id, name, args) => ({
  role: "assistant",
  content: "",
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const result = (id, content) => ({ role: "tool", tool_call_id: id, content });
const source = Array.from(
  { length: 30 },
  (_, i) => `export function step${i}(config: Config): number {\n  return config.values[${i}] * ${i + 1};\n}`,
).join("\n");

/** The messages of turns 1..4 of conversation `rep`, the system prompt sized by `ruleCount`. */
function conversation(rep, ruleCount) {
  const system = {
    role: "system",
    content: `Session ${rep}: you are a coding agent working in a TypeScript repository.\n${rules(ruleCount)}`,
  };
  const turns = [
    [system, { role: "user", content: "The config loader crashes on an empty file. Find it and fix it." }],
  ];
  const add = (...m) => turns.push([...turns.at(-1), ...m]);
  add(
    call("c1", "Bash", { command: "grep -rn loadConfig src" }),
    result("c1", "src/config.ts:12: export function loadConfig(path: string) {"),
  );
  add(call("c2", "Read", { file_path: "src/config.ts" }), result("c2", source));
  add(
    call("c3", "Edit", {
      file_path: "src/config.ts",
      old_string: "JSON.parse(text)",
      new_string: 'JSON.parse(text || "{}")',
    }),
    result("c3", "The file src/config.ts has been updated."),
  );
  return turns;
}

// --- The servers -------------------------------------------------------------------------------
/** How long one turn may take: turn 1 took 289 s at load average 13 (6,000 tokens, 1 thread). */
const TURN_MS = 30 * 60_000;
// Node's own fetch stops waiting for a response's headers after undici's 300 s, which a first turn's
// prefill on a loaded machine passes: requests go through an Agent with the turn's limit.
const dispatcher = new Agent({ headersTimeout: TURN_MS, bodyTimeout: TURN_MS });
async function request(url, messages, tools, answer = 1) {
  const t0 = performance.now();
  const r = await undiciFetch(`${url}/v1/chat/completions`, {
    dispatcher,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      model: "m",
      messages,
      ...(tools ? { tools, tool_choice: answer > 1 ? "required" : "auto" } : {}),
      max_tokens: answer,
      temperature: 0,
      cache_prompt: true,
    }),
    signal: AbortSignal.timeout(TURN_MS),
  });
  const body = await r.json();
  const ms = performance.now() - t0;
  if (!r.ok) throw new Error(`${url}: ${r.status} ${JSON.stringify(body).slice(0, 500)}`);
  return {
    ms: +ms.toFixed(1),
    promptTokens: body.usage.prompt_tokens,
    cachedTokens: body.usage.prompt_tokens_details?.cached_tokens ?? null,
    completionTokens: body.usage.completion_tokens,
  };
}

const model = await loadModel({ path: modelPath, threads, contextSize: CONTEXT, parallel: 1, gpu: false });
const ours = await startServer({ model, port: 0 });
// The prefix: tools in the corpus's order while they take at most 70 % of it (Bash, Read and Edit
// at the smallest size), then as many rules as bring turn 1's prompt to PREFIX tokens (counted by
// the model's tokenizer, nothing decoded).
const count = (tools, ruleCount) =>
  countPromptTokens(model, { messages: conversation(0, ruleCount)[0], tools }).catch((e) => {
    if (e.name === "ContextLengthError") return Infinity; // past the context: more than PREFIX
    throw e;
  });
const tools = allTools.filter((t) => ["Bash", "Read", "Edit"].includes(t.function.name));
if (!smallest)
  for (const t of allTools.filter((t) => !tools.includes(t))) {
    if ((await count([...tools, t], 1)) > 0.7 * PREFIX) break;
    tools.push(t);
  }
let ruleCount = 1;
for (let step = 256; step >= 1; step /= 2) while ((await count(tools, ruleCount + step)) <= PREFIX) ruleCount += step;
// Killed however the run ends (an error included), so no llama-server outlives the bench.
let peer;
const stopPeer = () => peer?.child.kill("SIGKILL");
process.on("exit", stopPeer);
if (CONCURRENT) {
  await ours.close();
  model.dispose();
  await concurrent();
  process.exit(0);
}
peer = await startLlamaServer(modelPath, [
  "-c",
  String(CONTEXT),
  "-np",
  "1",
  "-t",
  String(threads),
  "-tb",
  String(threads),
  "--jinja",
  "-ngl",
  "0",
]);

/** The fields both reports (serve.json, serve-concurrent.json) open with: when, on what, how loaded. */
function reportHeader() {
  return {
    date: new Date().toISOString(),
    model: path.basename(modelPath),
    threads,
    contextSize: CONTEXT,
    cpus: os.availableParallelism(),
    loadavg: os.loadavg(),
    reps: REPS,
    tools: tools.map((t) => t.function.name),
    rules: ruleCount,
  };
}

const runs = { toolmask: [], "llama-server": [] };
try {
  // A short request first: our engine creates its llama_context on the first generation
  // (llama-server at start), and a context's first decode pays for allocation and warm-up.
  for (const url of [ours.url, peer.url]) await request(url, [{ role: "user", content: "hi" }], undefined);
  for (let rep = 0; rep < REPS; rep++) {
    const turns = conversation(rep, ruleCount);
    for (const [name, url] of rep % 2 === 0
      ? [
          ["toolmask", ours.url],
          ["llama-server", peer.url],
        ]
      : [
          ["llama-server", peer.url],
          ["toolmask", ours.url],
        ]) {
      // The serving process's CPU time over the request (ours: this process, the client's share
      // included; llama-server's from /proc).
      const cpu = () => (name === "toolmask" ? ownCpu() : cpuOf(peer.child.pid));
      const conv = [];
      for (const messages of turns) {
        const c0 = cpu();
        const r = await request(url, messages, tools);
        conv.push({ ...r, cpuMillis: +(cpu() - c0).toFixed(1) });
      }
      runs[name].push(conv);
    }
  }
} finally {
  await ours.close();
  model.dispose();
  await peer.kill();
}

const perTurn = (name) =>
  turnsOf(runs[name]).map((xs) => ({
    ttftMillis: median(xs.map((x) => x.ms)),
    cpuMillis: median(xs.map((x) => x.cpuMillis)),
    promptTokens: xs[0].promptTokens,
    cachedTokens: median(xs.map((x) => x.cachedTokens ?? 0)),
    runs: xs.map((x) => x.ms),
    cpuRuns: xs.map((x) => x.cpuMillis),
  }));
const turnsOf = (convs) => convs[0].map((_, t) => convs.map((c) => c[t]));
const summary = { toolmask: perTurn("toolmask"), "llama-server": perTurn("llama-server") };
const ratio = (a, b) => +(a / b).toFixed(3);
const turns = summary.toolmask.map((t, i) => ({
  turn: i + 1,
  toolmask: t,
  llamaServer: summary["llama-server"][i],
  ratio_toolmask_llama_server: ratio(t.ttftMillis, summary["llama-server"][i].ttftMillis),
  ratio_toolmask_llama_server_cpu: ratio(t.cpuMillis, summary["llama-server"][i].cpuMillis),
  ratio_toolmask_turn1: ratio(t.ttftMillis, summary.toolmask[0].ttftMillis),
}));
const out = outPath("bench/results/serve.json");
const report = {
  ...reportHeader(),
  how: "TTFT = wall time of the turn's /v1/chat/completions request, max_tokens 1, tool_choice auto; cpuMillis = the serving process's CPU time over the same request (ours: the bench's own process, which serves in process; llama-server's from /proc); the same messages to both servers; medians over reps",
  turns,
};
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(report, null, 2) + "\n");
}
for (const t of turns)
  console.log(
    `turn ${t.turn}: toolmask ${t.toolmask.ttftMillis} ms (${t.toolmask.cachedTokens} of ${t.toolmask.promptTokens} prompt tokens cached), ` +
      `llama-server ${t.llamaServer.ttftMillis} ms (${t.llamaServer.cachedTokens} of ${t.llamaServer.promptTokens}); ` +
      `ratio to llama-server ${t.ratio_toolmask_llama_server} (CPU time ${t.ratio_toolmask_llama_server_cpu}), to turn 1 ${t.ratio_toolmask_turn1}`,
  );
console.log(
  `(${report.model}, threads ${threads}, ${REPS} reps, load ${report.loadavg.map((x) => x.toFixed(1)).join(" ")})${out ? `; written to ${path.relative(root, out)}` : ""}`,
);

// --- --concurrent: throughput with C conversations at once --------------------------------------------
/** One server with `slots` sequence slots, started, used by `work(url)`, stopped. */
async function withServer(name, slots, work) {
  if (name.startsWith("toolmask")) {
    // toolmask-inexact: exactPrompts false (LoadModelOptions), llama-server's batching and reuse.
    const exactPrompts = name === "toolmask";
    const m = await loadModel({
      path: modelPath,
      threads,
      contextSize: CONTEXT,
      parallel: slots,
      gpu: false,
      exactPrompts,
    });
    const server = await startServer({ model: m, port: 0 });
    try {
      return await work(server.url);
    } finally {
      await server.close();
      m.dispose();
    }
  }
  peer = await startLlamaServer(modelPath, [
    ...["-c", String(CONTEXT * slots), "-np", String(slots), "-t", String(threads), "-tb", String(threads)],
    ...["--jinja", "-ngl", "0"],
  ]);
  try {
    return await work(peer.url);
  } finally {
    await peer.kill();
  }
}

function sum(xs) {
  return xs.reduce((a, b) => a + b, 0);
}

/** C conversations at once on `url`: turn 1 of each untimed, then turns 2-4 of each in order, timed. */
async function throughputRun(url, c, first) {
  const convs = Array.from({ length: c }, (_, k) => conversation(first + k, ruleCount));
  await Promise.all(convs.map((turns) => request(url, turns[0], tools, ANSWER)));
  const t0 = performance.now();
  const answers = await Promise.all(
    convs.map(async (turns) => {
      const out = [];
      for (const messages of turns.slice(1)) out.push(await request(url, messages, tools, ANSWER));
      return out;
    }),
  );
  const wallMillis = performance.now() - t0;
  const all = answers.flat();
  const completionTokens = sum(all.map((a) => a.completionTokens));
  return {
    wallMillis: +wallMillis.toFixed(1),
    completionTokens,
    promptTokensDecoded: sum(all.map((a) => a.promptTokens - (a.cachedTokens ?? 0))),
    tokensPerSecond: +((completionTokens * 1000) / wallMillis).toFixed(2),
  };
}

async function concurrent() {
  const rows = [];
  for (const [i, c] of CONCURRENT.entries()) {
    const sides = {};
    const order =
      i % 2 === 0 ? ["toolmask", "llama-server", "toolmask-inexact"] : ["toolmask-inexact", "llama-server", "toolmask"];
    for (const name of order)
      sides[name] = await withServer(name, c, async (url) => {
        await request(url, [{ role: "user", content: "hi" }], undefined); // the context's first decode
        const reps = [];
        for (let rep = 0; rep < REPS; rep++) reps.push(await throughputRun(url, c, 1000 * (rep + 1)));
        return reps;
      });
    const side = (reps) => ({ tokensPerSecond: median(reps.map((r) => r.tokensPerSecond)), runs: reps });
    const a = side(sides.toolmask);
    const b = side(sides["llama-server"]);
    const x = side(sides["toolmask-inexact"]);
    rows.push({
      conversations: c,
      toolmask: a,
      llamaServer: b,
      toolmaskInexact: x,
      ratio_toolmask_llama_server: +(a.tokensPerSecond / b.tokensPerSecond).toFixed(3),
      ratio_toolmask_inexact_llama_server: +(x.tokensPerSecond / b.tokensPerSecond).toFixed(3),
    });
    console.log(
      `${c} conversation${c > 1 ? "s" : ""}: toolmask ${a.tokensPerSecond} tok/s (masked), ` +
        `llama-server ${b.tokensPerSecond} tok/s (its grammar); ratio ${rows.at(-1).ratio_toolmask_llama_server}; ` +
        `toolmask with exactPrompts false ${x.tokensPerSecond} tok/s, ratio ${rows.at(-1).ratio_toolmask_inexact_llama_server}`,
    );
  }
  const out = outPath("bench/results/serve-concurrent.json");
  const report = {
    ...reportHeader(),
    maxTokens: ANSWER,
    how:
      'C conversations at once, each its turns 2-4 in order after an untimed turn 1; tool_choice "required", temperature 0; ' +
      "toolmask loaded twice: exactPrompts true (the default; toolmask) and false (toolmaskInexact: llama-server's batching and prefix reuse); " +
      "tok/s = completion tokens of all timed answers / wall time from the first request to the last answer; medians over reps",
    rows,
  };
  if (out) {
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  }
  console.log(
    `(${report.model}, threads ${threads}, ${REPS} reps, max_tokens ${ANSWER}, load ${report.loadavg.map((x) => x.toFixed(1)).join(" ")})${out ? `; written to ${path.relative(root, out)}` : ""}`,
  );
}
