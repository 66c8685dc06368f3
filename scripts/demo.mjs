#!/usr/bin/env node
// The README's main job, no download: the random-weight Qwen3 test model decodes the same prompt
// with tools unmasked and masked, side by side, and the dialect's parser gives its verdict on each.
//   node scripts/demo.mjs [--model PATH] [--seeds N] [--max-tokens N]
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const usage = "usage: npm run demo -- [--model PATH] [--seeds N] [--max-tokens N]\n" +
  "  --model       the test model (written there when missing; default .cache/test-model/qwen3-tiny-seed1.gguf)\n" +
  "  --seeds       seeds per scenario (default 3)\n  --max-tokens  tokens per answer at most (default 80)";
function fail(message, code = 1) {
  console.error(`toolmask demo: ${message}`);
  process.exit(code);
}

let args;
try {
  args = parseArgs({ options: { model: { type: "string" }, seeds: { type: "string", default: "3" }, "max-tokens": { type: "string", default: "80" }, help: { type: "boolean", short: "h" } } }).values;
} catch (e) {
  fail(`${e.message}\n${usage}`, 2);
}
if (args.help) {
  console.log(usage);
  process.exit(0);
}
const positive = (s, what, max) => (/^\d+$/.test(s) && +s >= 1 && +s <= max ? +s : fail(`${what} must be an integer in 1..${max}, got ${JSON.stringify(s)}\n${usage}`, 2));
const seeds = positive(args.seeds, "--seeds", 50);
const maxTokens = positive(args["max-tokens"], "--max-tokens", 4096);

const lib = await import(join(root, "dist", "index.js")).catch((e) =>
  fail(`cannot load the built package (${e.message}). Run \`npm install\` (it builds dist/ and the addon) first.`));
const { writeTestModel } = await import(join(root, "dist", "model", "test-model.js"));
const { loadModel, generate } = lib;

// The test model: written once (seconds, no download), atomically so a half-written file is never loaded.
const modelPath = resolve(args.model ?? join(root, ".cache", "test-model", "qwen3-tiny-seed1.gguf"));
if (!existsSync(modelPath)) {
  const t = performance.now();
  mkdirSync(dirname(modelPath), { recursive: true });
  const tmp = `${modelPath}.${process.pid}.tmp`;
  try {
    writeTestModel({ path: tmp, seed: 1 });
    renameSync(tmp, modelPath);
  } catch (e) {
    fail(`cannot write the test model to ${modelPath}: ${e.message}`);
  }
  console.log(`wrote the test model to ${modelPath} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}

const tLoad = performance.now();
let model;
try {
  // The CPU build: the demo's numbers are the same on every machine, GPU or not.
  model = await loadModel({ path: modelPath, gpu: false });
} catch (e) {
  fail(`cannot load llama.cpp or the model: ${e.message}\n` +
    "The addon is built by `npm install` (`npm run build:native` rebuilds it); the llama.cpp library comes from " +
    "node-llama-cpp's prebuilt package for this platform, or from the folder TOOLMASK_LLAMA_LIB_DIR names.");
}
const loadMillis = performance.now() - tLoad;

const v = model.vocabulary;
const TOOL_CALL = v.idOfPiece("<tool_call>"), IM_END = v.idOfPiece("<|im_end|>");
if (TOOL_CALL === undefined || IM_END === undefined) fail(`${modelPath} is not the Qwen3 test model (no <tool_call> / <|im_end|> token)`);

const tools = [{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather in a city",
    parameters: {
      type: "object",
      properties: { city: { type: "string", enum: ["Paris", "Rome", "Oslo"] }, days: { type: "integer", enum: [1, 2, 3] } },
      required: ["city"],
    },
  },
}];
const messages = [{ role: "user", content: "What is the weather in Paris?" }];
// Random weights repeat one token forever and never call a tool on their own; a logit bias stands
// in for a real model's wish to call and to stop. The mask decides where those wishes may act.
const scenarios = [
  { title: "a model that wants to call a tool, and to stop", bias: { [TOOL_CALL]: 100, [IM_END]: 110 } },
  { title: "a model that wants to call a tool, and hardly to stop", bias: { [TOOL_CALL]: 100, [IM_END]: 20 } },
];

/** The parser's verdict on one answer: [word, detail]. */
function verdict(r) {
  const bad = r.incomplete.find((c) => c.kind === "invalid") ?? r.incomplete.find((c) => c.kind === "cut");
  if (bad) return [bad.kind, `${bad.reason}; output ${snippet(r.text)}`];
  const calls = r.message.tool_calls ?? [];
  if (calls.length === 0) return ["no call", `output ${snippet(r.text)}`];
  // Text around a call is allowed (the parser keeps it as content); say so when there is some.
  const after = r.message.content ? `, with content ${snippet(r.message.content)}` : "";
  return ["complete call", calls.map((c) => `${c.function.name} ${c.function.arguments}`).join("; ") + after];
}
const snippet = (s) => JSON.stringify(s.length > 48 ? `${s.slice(0, 48)}…` : s);

console.log(`toolmask demo — random-weight Qwen3 test model (${modelPath.startsWith(process.cwd()) ? relative(process.cwd(), modelPath) : modelPath}, ` +
  `${v.size.toLocaleString("en-US")} tokens, loaded in ${(loadMillis / 1000).toFixed(1)} s, ${model.threads} thread${model.threads > 1 ? "s" : ""})`);
console.log(`prompt ${JSON.stringify(messages[0].content)}; tool get_weather(city*: Paris|Rome|Oslo, days: 1|2|3); ` +
  `dialect qwen3-coder, toolChoice "required", maxTokens ${maxTokens}`);
console.log("Random weights never call a tool themselves: a logit bias on <tool_call> and <|im_end|> stands in for that wish.");

const tally = { unmasked: { valid: 0, runs: 0, ms: 0, tokens: 0 }, masked: { valid: 0, runs: 0, ms: 0, tokens: 0, maskMicros: [] } };
const maskedFailures = [];
for (const s of scenarios) {
  console.log(`\n${s.title} (<tool_call> +${s.bias[TOOL_CALL]}, <|im_end|> +${s.bias[IM_END]})`);
  for (let seed = 1; seed <= seeds; seed++) {
    for (const side of ["unmasked", "masked"]) {
      const r = await generate(model, {
        messages, tools, dialect: "qwen3-coder", toolChoice: "required", parallelToolCalls: false,
        maxTokens, seed, logitBias: s.bias, mask: side === "masked",
      });
      const [word, detail] = verdict(r);
      const t = tally[side];
      t.runs++;
      t.ms += r.timings.decodeMillis;
      t.tokens += r.usage.completion_tokens;
      if (word === "complete call") t.valid++;
      else if (side === "masked") maskedFailures.push(`${s.title}, seed ${seed}: ${word} (${detail})${word === "cut" ? " — raise --max-tokens" : ""}`);
      if (side === "masked") t.maskMicros.push(r.timings.maskMicrosPerToken);
      const head = side === "unmasked" ? `  seed ${String(seed).padEnd(3)}` : " ".repeat(10);
      console.log(`${head}${side.padEnd(9)} ${word.padEnd(14)} finish ${r.finishReason.padEnd(10)} ${String(r.usage.completion_tokens).padStart(3)} tok  ${detail}`);
    }
  }
}
model.dispose();

const msPerToken = (t) => (t.tokens > 0 ? t.ms / t.tokens : 0).toFixed(2);
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1] ?? 0;
const { unmasked: u, masked: m } = tally;
console.log(`\nvalid calls: masked ${m.valid}/${m.runs}, unmasked ${u.valid}/${u.runs}; ` +
  `decoding ${msPerToken(m)} ms/token masked, ${msPerToken(u)} ms/token unmasked (the mask ${median(m.maskMicros).toFixed(0)} µs/token)`);
if (maskedFailures.length > 0)
  fail(`${maskedFailures.length} masked answer(s) without a valid call (one not cut by maxTokens is a toolmask bug; please report it):\n  ${maskedFailures.join("\n  ")}`);
