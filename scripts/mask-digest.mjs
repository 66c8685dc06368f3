#!/usr/bin/env node
// One digest of every mask along deterministic random walks of the real-model suite's grammars on
// the test model's vocabulary (Qwen3, 151,648 ordinary tokens): hermes and qwen3-coder with
// maxValueLength 8, hermes without; 3 walks of up to 60 tokens per grammar (GrammarMatcher.randomWalks:
// the tokens come from acceptance alone, so they are the same whatever builds the masks), each
// mask filled with no token budget and with 5 tokens left. Two addons give the same digest when
// every mask is byte for byte the same: `node scripts/mask-digest.mjs` beside
// `TOOLMASK_ADDON=<other toolmask.node> node scripts/mask-digest.mjs`. --cases N: the first N cases
// (default all 56); --each prints one digest per grammar. Needs dist/ (npm run build:ts).
import { createHash } from "node:crypto";
import path from "node:path";
import { arg, benchModelPath, has, readFlags, root } from "./bench/lib/bench-setup.mjs";
import { realCases } from "./lib/real-cases.mjs";

readFlags(import.meta.url, {
  command: "node scripts/mask-digest.mjs",
  flags: { cases: "N (56)", model: "FILE (the test model)", each: false },
});
const { loadModel } = await import(path.join(root, "dist", "index.js"));
const { prepareGeneration } = await import(path.join(root, "dist", "engine", "generate.js"));
const { CompiledGrammar } = await import(path.join(root, "dist", "grammar", "compile.js"));

const model = await loadModel({ path: await benchModelPath(), gpu: false, parallel: 1 });
const cases = realCases().slice(0, Number(arg("cases", realCases().length)));
const all = createHash("sha1");
let masks = 0;
const t0 = performance.now();
try {
  for (const extra of [{ maxValueLength: 8 }, {}, { dialect: "qwen3-coder", maxValueLength: 8 }]) {
    for (const c of cases) {
      const prepared = await prepareGeneration(model, {
        messages: [{ role: "user", content: c.prompt }],
        tools: c.tools,
        toolChoice: c.toolChoice,
        parallelToolCalls: c.parallel,
        maxTokens: 200,
        ...extra,
      });
      const native = prepared.request.grammar;
      if (!native) continue;
      const grammar = new CompiledGrammar(native, model.vocabulary);
      const h = createHash("sha1");
      const mask = new Uint32Array(model.vocabulary.bitmaskWords);
      for (const walk of grammar.createMatcher().randomWalks({ seed: 7, maxTokens: 60, count: 3 })) {
        const m = grammar.createMatcher();
        for (let i = 0; i <= walk.tokens.length; i++) {
          for (const left of [0, 5]) {
            m.fillNextTokenBitmask(mask, left ? { tokensLeft: left } : {});
            h.update(Buffer.from(mask.buffer));
            masks++;
          }
          if (i < walk.tokens.length && !m.acceptToken(walk.tokens[i]))
            throw new Error(`${c.id}: a walk's token was refused`);
        }
      }
      grammar.dispose();
      const d = h.digest("hex");
      all.update(d);
      if (has("each")) console.log(JSON.stringify(extra), c.id, d.slice(0, 12));
    }
  }
} finally {
  model.dispose();
}
console.log(`${masks} masks, digest ${all.digest("hex")}, ${Math.round(performance.now() - t0)} ms`);
