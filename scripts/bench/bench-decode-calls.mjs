#!/usr/bin/env node
// npm run bench:decode-calls: decoding tool calls, unmasked vs masked vs masked + fast-forward, on
// the test model and every real model `npm run models -- --list` reports. The requests: the
// real-model suite's (scripts/lib/real-cases.mjs: 56 prompts, their tools and tool choices,
// greedy) on every model, BFCL's prompts (bfcl-eval's simple, multiple, parallel and
// parallel_multiple items, their tools, tool choice "required" as `bench:bfcl -- --tool-choice
// required`: under "auto" the small models here answer them in text; a fixed sample of
// --bfcl-sample per category, default 3; needs `npm run pyenv -- bfcl`) on every real model, and on the test model also the bench suite's
// calls (src/bench/suite.ts, its seeds and biases); one generation at a time, the three modes in
// turn per request. Per mode: tokens/s (every output
// token over decode time, generations of 8 tokens or more), wall time per completed call (a call
// parsed whole from an answer with no incomplete call), forward passes, the forced-token fraction, and each step's host work
// (sampling, the mask and fast-forward; p50/p99 after each model's first request), in wall time and in the
// decode thread's CPU time (CLOCK_THREAD_CPUTIME_ID), and the decode thread's waits at the grammar lock. With and
// without fast-forward (greedy in the real-model suite, the bench suite's seeds sampled): how often
// the parsed calls are the same, and where the others part. Written to the `toolCalls` field of
// bench/results/decode.json, one entry per model and workload as each is done (the rest of the
// file is bench:decode's). --workloads real-suite,bench-suite,bfcl picks (default all three).
// Flags: --cases N (a fixed sample, default all 56), --max-tokens N (default 96), --only NAME[,NAME]
// (model names; "test-model" is the random-weight Qwen3 test model), --out FILE.
// --smallest: the test model alone (real models only when --only names them), 2 cases of the
// real-model suite, the bench suite's cases at one seed, BFCL's at 1 per category on the test model
// (a stated skip without bfcl-eval), at most 32 tokens each; nothing written unless --out
// (test/test-model/bench-smallest-decode-calls.test.ts).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { realCases, sampleCases } from "../lib/real-cases.mjs";
import { arg, benchModelPath, outPath, quantile, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { pyenvHint, pythonWith } from "../lib/pyenv.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:decode-calls --",
  flags: {
    workloads: "real-suite,bench-suite,bfcl (all)",
    cases: "N (56)",
    "max-tokens": "N (96)",
    only: "NAME,NAME",
    "bfcl-sample": "N (3)",
    model: "FILE (the test model)",
    out: "FILE (bench/results/decode.json)",
    smallest: false,
  },
});

const dist = path.join(root, "dist");
if (!existsSync(path.join(dist, "index.js"))) {
  console.error("dist/ is missing: run npm run build:ts");
  process.exit(1);
}
const { loadModel } = await import(path.join(dist, "index.js"));
const { prepareGeneration, runGeneration, resultOf } = await import(path.join(dist, "engine", "generate.js"));
const { ToolCallStreamParser } = await import(path.join(dist, "parser", "stream.js"));
const { BUILTIN_SUITE } = await import(path.join(dist, "bench", "suite.js"));
const { biasIds, optionsOf } = await import(path.join(dist, "bench", "run.js"));

const caseCount = Number(arg("cases", smallest ? 2 : realCases().length));
const maxTokens = Number(arg("max-tokens", smallest ? 32 : 96));
const only = arg("only", null)?.split(",");
const cases = caseCount >= realCases().length ? realCases() : sampleCases(caseCount);
const MODES = { unmasked: { mask: false }, masked: { fastForward: false }, fastForward: {} };

const listed = JSON.parse(
  execFileSync(process.execPath, [path.join(root, "scripts", "models.mjs"), "--list"], { encoding: "utf8" }),
).filter((m) => m.present && m.dialect);
// The random-weight test model never calls or stops of its own accord: a push toward <tool_call> and
// <|im_end|> stands in for a trained model's wish (the mask decides where it applies), and string
// values are bounded so that masked calls close.
const testModel = {
  name: "test-model",
  path: await benchModelPath(),
  extra: { maxValueLength: 8, logitBias: { 151657: 100, 151645: 110 } },
};
// The same model under the Qwen3-Coder XML dialect (its template carries the tools; the calls are XML).
const testModelXml = {
  ...testModel,
  name: "test-model-qwen3-coder",
  extra: { ...testModel.extra, dialect: "qwen3-coder" },
};
const models = [testModel, testModelXml, ...listed].filter((m) =>
  only ? only.includes(m.name) : !smallest || m.name.startsWith("test-model"),
);
if (smallest && !only && listed.length)
  console.log(`--smallest: the real models (${listed.map((m) => m.name).join(", ")}) are left out; --only names them`);

/** The real-model suite's requests, greedy, with a model's extra options. */
const realRequests = (extra = {}) =>
  cases.map((c) => ({
    id: c.id,
    options: {
      messages: [{ role: "user", content: c.prompt }],
      tools: c.tools,
      toolChoice: c.toolChoice,
      parallelToolCalls: c.parallel,
      temperature: 0,
      maxTokens,
      ...extra,
    },
  }));

/** BFCL's prompts and tools (bfcl-eval's data, installed by `npm run pyenv -- bfcl`), greedy, a call required. */
async function bfclRequests(extra = {}) {
  const python = pythonWith(["bfcl"]);
  if (!python) throw new Error(`the bfcl workload needs bfcl-eval: ${pyenvHint(["bfcl"])}`);
  const { bfclInstall } = await import(path.join(dist, "bench", "bfcl", "oracle.js"));
  const { loadCategory, sampleItems } = await import(path.join(dist, "bench", "bfcl", "data.js"));
  const { toOpenAiTools } = await import(path.join(dist, "bench", "bfcl", "convert.js"));
  const { dataDir } = await bfclInstall({ python, script: path.join(root, "scripts", "bench", "bfcl", "oracle.py") });
  const per = Number(arg("bfcl-sample", smallest ? 1 : 3));
  return ["simple", "multiple", "parallel", "parallel_multiple"].flatMap((category) =>
    sampleItems(loadCategory(dataDir, category), per).map((item) => ({
      id: item.id,
      options: {
        messages: item.messages,
        tools: toOpenAiTools(item.functions).tools,
        toolChoice: "required",
        parallelToolCalls: true,
        temperature: 0,
        maxTokens,
        ...extra,
      },
    })),
  );
}

/** The bench suite's calls (`toolmask bench`, src/bench/suite.ts): its cases, seeds and biases, as that bench runs them on the test model. */
const suiteRequests = (model) =>
  BUILTIN_SUITE.cases.flatMap((c) =>
    Array.from({ length: smallest ? 1 : BUILTIN_SUITE.seeds }, (_, k) => {
      const options = optionsOf(c, k + 1, biasIds(model.vocabulary, c.biasPieces, c.biasWhitespace));
      return { id: `${c.name} seed ${k + 1}`, options: smallest ? { ...options, maxTokens } : options };
    }),
  );

/** One generation with its parsed answer and the native counts (step times recorded). */
async function run(model, request, mode) {
  const options = { ...request.options, ...MODES[mode] };
  const t0 = performance.now();
  const prepared = await prepareGeneration(model, options);
  prepared.request.recordStepTimes = true;
  const native = await runGeneration(model, prepared, undefined, () => {});
  const bytes = Buffer.concat(
    native.tokens
      .filter((id) => model.vocabulary.kind(id) !== 2)
      .map((id) => Buffer.from(model.vocabulary.tokenBytes(id))),
  );
  const text = bytes.toString();
  const parser = new ToolCallStreamParser(prepared.resolved);
  parser.feed(text);
  const r = resultOf(
    native,
    text,
    parser.end(native.finishReason === "stop" ? "stop" : "length"),
    prepared.prepareMillis,
  );
  const wallMillis = performance.now() - t0;
  const completed = r.incomplete.length === 0 ? (r.message.tool_calls?.length ?? 0) : 0;
  return { r, native, wallMillis, completed };
}

function summarize(rows) {
  const tokens = rows.reduce((s, x) => s + x.native.tokens.length, 0);
  // tokens/s over generations of 8 tokens or more: decodeMillis runs from the first sampled token to
  // the last, so an answer that ends at once (the test model unmasked) has next to no decode time.
  const timed = rows.filter((x) => x.native.tokens.length >= 8);
  const timedTokens = timed.reduce((s, x) => s + x.native.tokens.length, 0);
  const decodeMillis = timed.reduce((s, x) => s + x.native.decodeMillis, 0);
  const wallMillis = rows.reduce((s, x) => s + x.wallMillis, 0);
  const calls = rows.reduce((s, x) => s + x.completed, 0);
  const forced = rows.reduce((s, x) => s + x.native.forcedTokens, 0);
  const steps = rows.reduce((s, x) => s + x.native.decodeSteps, 0);
  const hostMicros = rows.slice(1).flatMap((x) => Array.from(x.native.stepHostMicros ?? []));
  const cpuMicros = rows.slice(1).flatMap((x) => Array.from(x.native.stepHostCpuMicros ?? []));
  const work = rows.slice(1).flatMap((x) => Array.from(x.native.stepDecodeWork ?? []));
  const slow = cpuMicros.map((us, i) => [us, work[i] ?? 0]).filter(([us]) => us > 1000);
  const lockWaits = (k) => rows.reduce((n, x) => n + (x.native.maskLockWaits?.[k] ?? 0), 0);
  return {
    generations: rows.length,
    tokens,
    forwardPasses: steps,
    forcedTokens: forced,
    forcedFraction: tokens ? +(forced / tokens).toFixed(3) : 0,
    completedCalls: calls,
    tokensPerSecond: decodeMillis ? +((timedTokens * 1000) / decodeMillis).toFixed(1) : null,
    timedGenerations: timed.length,
    wallMillisPerCompletedCall: calls ? +(wallMillis / calls).toFixed(1) : null,
    wallMillis: Math.round(wallMillis),
    hostMicrosPerStep: {
      p50: +(quantile(hostMicros, 0.5) ?? 0).toFixed(1),
      p99: +(quantile(hostMicros, 0.99) ?? 0).toFixed(1),
      max: +Math.max(0, ...hostMicros).toFixed(1),
    },
    // The same steps in the decode thread's CPU time (CLOCK_THREAD_CPUTIME_ID): what a busy machine's
    // preemption and the thread's lock waits leave out.
    hostCpuMicrosPerStep: {
      p50: +(quantile(cpuMicros, 0.5) ?? 0).toFixed(1),
      p99: +(quantile(cpuMicros, 0.99) ?? 0).toFixed(1),
      max: +Math.max(0, ...cpuMicros).toFixed(1),
      over1ms: cpuMicros.filter((x) => x > 1000).length,
      steps: cpuMicros.length,
    },
    // The decode thread at a grammar's lock (native/core/grammar_lock.hpp), every generation.
    lockWaits: {
      waits: lockWaits("waits"),
      handoffs: lockWaits("handoffs"),
      joins: lockWaits("joins"),
      waitMicros: Math.round(lockWaits("waitNanos") / 1000),
    },
    // What the decode thread made itself (not found made by the prefetch thread), every generation, and
    // among the steps over 1 ms of its CPU time.
    decodeThreadWork: {
      masksBuilt: lockWaits("masksBuilt"),
      budgetWalks: lockWaits("budgetWalks"),
      stepsOver1msBuildingAMask: slow.filter(([, w]) => w & 1).length,
      stepsOver1msWalkingForTheBudget: slow.filter(([, w]) => w & 2).length,
      stepsOver1msWithNeither: slow.filter(([, w]) => !w).length,
    },
  };
}

/** Where greedy masked and masked + fast-forward part: the first differing token and the text around it. */
function parting(a, b, model) {
  let i = 0;
  while (i < a.tokens.length && i < b.tokens.length && a.tokens[i] === b.tokens[i]) i++;
  const piece = (id) => (id === undefined ? null : Buffer.from(model.vocabulary.tokenBytes(id)).toString());
  const at = Buffer.concat(a.tokens.slice(0, i).map((id) => Buffer.from(model.vocabulary.tokenBytes(id)))).toString();
  return {
    token: i,
    textBefore: at.slice(-40),
    masked: piece(a.tokens[i]),
    fastForward: piece(b.tokens[i]),
    forced: b.forcedAt.includes(i),
  };
}

const out = outPath("bench/results/decode.json");
/** Puts one model's entry into decode.json's toolCalls (other models' entries stay): a long run keeps what it measured. */
function save(entry) {
  if (!out) return;
  const all = existsSync(out) ? JSON.parse(readFileSync(out, "utf8")) : {};
  const kept = (all.toolCalls?.models ?? []).filter(
    (e) => e.model !== entry.model || (e.workload ?? "real-suite") !== entry.workload,
  );
  all.toolCalls = {
    maxTokens,
    models: [
      ...kept,
      {
        ...entry,
        date: new Date().toISOString(),
        cpus: os.availableParallelism(),
        loadavg: os.loadavg().map((x) => +x.toFixed(2)),
      },
    ],
  };
  writeFileSync(out, JSON.stringify(all, null, 2) + "\n");
}

const wanted = arg("workloads", "real-suite,bench-suite,bfcl").split(",");
const workloads = [];
for (const m of models) {
  workloads.push({ m, name: "real-suite", requests: () => realRequests(m.extra) });
  if (m.name === "test-model") workloads.push({ m, name: "bench-suite", requests: suiteRequests });
  // The random-weight test model answers BFCL's questions no better than the real-model suite's
  // (under --smallest it runs them: the workload's code on the model at hand).
  if (!m.name.startsWith("test-model") || (smallest && m.name === "test-model"))
    workloads.push({ m, name: "bfcl", requests: () => bfclRequests(m.extra) });
}
const chosen = workloads.filter((w) => wanted.includes(w.name));

for (const { m, name: workload, requests } of chosen) {
  if (workload === "bfcl" && smallest && !pythonWith(["bfcl"])) {
    console.log(`${m.name}, bfcl: skipped: ${pyenvHint(["bfcl"])}`);
    continue;
  }
  const model = await loadModel({ path: m.path, gpu: false, parallel: 1 });
  const list = await requests(model);
  const dialect =
    workload === "bench-suite"
      ? [...new Set(list.map((r) => r.options.dialect))].join(", ")
      : (m.extra?.dialect ?? model.dialect);
  const rows = { unmasked: [], masked: [], fastForward: [] };
  const differences = [];
  let sameCalls = 0,
    sameTokens = 0;
  try {
    await run(model, list[0], "masked"); // warm-up: the first request's compile and caches
    for (const request of list) {
      const got = {};
      for (const mode of Object.keys(MODES)) rows[mode].push((got[mode] = await run(model, request, mode)));
      const callsOf = (x) => JSON.stringify((x.r.message.tool_calls ?? []).map((t) => t.function));
      if (
        callsOf(got.masked) === callsOf(got.fastForward) &&
        got.masked.r.finishReason === got.fastForward.r.finishReason
      )
        sameCalls++;
      else
        differences.push({
          case: request.id,
          masked: got.masked.r.message.tool_calls?.map((t) => t.function) ?? got.masked.r.text.slice(0, 120),
          fastForward:
            got.fastForward.r.message.tool_calls?.map((t) => t.function) ?? got.fastForward.r.text.slice(0, 120),
          ...parting(got.masked.native, got.fastForward.native, model),
        });
      if (got.masked.native.tokens.join() === got.fastForward.native.tokens.join()) sameTokens++;
    }
  } finally {
    model.dispose();
  }
  const s = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, summarize(v)]));
  const ratio = (x, y) => (x && y ? +(x / y).toFixed(3) : null);
  const entry = {
    model: m.name,
    workload,
    dialect,
    cases: list.length,
    ...s,
    ratio_fastForward_unmasked_tokensPerSecond: ratio(s.fastForward.tokensPerSecond, s.unmasked.tokensPerSecond),
    ratio_fastForward_masked_tokensPerSecond: ratio(s.fastForward.tokensPerSecond, s.masked.tokensPerSecond),
    // > 1: a completed call takes less wall time with fast-forward than without the mask / with the mask alone.
    ratio_unmasked_fastForward_wallPerCall: ratio(
      s.unmasked.wallMillisPerCompletedCall,
      s.fastForward.wallMillisPerCompletedCall,
    ),
    ratio_masked_fastForward_wallPerCall: ratio(
      s.masked.wallMillisPerCompletedCall,
      s.fastForward.wallMillisPerCompletedCall,
    ),
    greedySameCalls: sameCalls,
    greedySameTokens: sameTokens,
    differences,
  };
  save(entry);
  const slow = (x) =>
    `${x.hostCpuMicrosPerStep.over1ms} (mask ${x.decodeThreadWork.stepsOver1msBuildingAMask}, budget ${x.decodeThreadWork.stepsOver1msWalkingForTheBudget}, neither ${x.decodeThreadWork.stepsOver1msWithNeither})`;
  const lw = (x) => `${x.lockWaits.waits}/${x.lockWaits.handoffs}/${x.lockWaits.joins}`;
  const cpu = (x) => `${x.hostCpuMicrosPerStep.p50}/${x.hostCpuMicrosPerStep.p99}/${x.hostCpuMicrosPerStep.max}`;
  console.log(
    `${m.name}, ${workload} (${dialect}, ${list.length} requests): tok/s unmasked ${s.unmasked.tokensPerSecond}, masked ${s.masked.tokensPerSecond}, ` +
      `fast-forward ${s.fastForward.tokensPerSecond} (${(100 * s.fastForward.forcedFraction).toFixed(1)}% forced; ×${entry.ratio_fastForward_unmasked_tokensPerSecond} unmasked, ×${entry.ratio_fastForward_masked_tokensPerSecond} masked); ` +
      `ms per completed call unmasked ${s.unmasked.wallMillisPerCompletedCall} (${s.unmasked.completedCalls} calls), masked ${s.masked.wallMillisPerCompletedCall} (${s.masked.completedCalls}), ` +
      `fast-forward ${s.fastForward.wallMillisPerCompletedCall} (${s.fastForward.completedCalls}); host µs/step p99: masked ${s.masked.hostMicrosPerStep.p99}, fast-forward ${s.fastForward.hostMicrosPerStep.p99}; ` +
      `host CPU µs/step (thread clock) p50/p99/max: masked ${cpu(s.masked)}, fast-forward ${cpu(s.fastForward)}; ` +
      `decode-thread lock waits/handoffs/joins: masked ${lw(s.masked)}, fast-forward ${lw(s.fastForward)}; ` +
      `steps over 1 ms CPU (what the decode thread made itself): masked ${slow(s.masked)}, fast-forward ${slow(s.fastForward)}; ` +
      `masked vs fast-forward: same calls ${sameCalls}/${list.length}, same tokens ${sameTokens}/${list.length}${out ? `; written to ${path.relative(root, out)} (toolCalls)` : ""}`,
  );
}
