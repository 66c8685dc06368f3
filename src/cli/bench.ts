// `toolmask bench`: unmasked vs masked (CPU path) vs masked (backend path) vs node-llama-cpp with
// our GBNF, on a model (the test model by default) and a suite of tool sets and prompts; XGrammar's
// mask time on the same grammar as the reference. Writes JSON, an HTML report and a PNG chart.
import { relative, resolve } from "node:path";
import { runBench } from "../bench/run.js";
import { benchReport } from "../bench/summarize.js";
import { BUILTIN_SUITE, checkSuite, type BenchSuite } from "../bench/suite.js";
import { VARIANTS, VARIANT_LABELS, type VariantName } from "../bench/variants.js";
import { NATIVE_PEER_NAMES, type NativePeerName } from "../bench/native-peers.js";
import { writeReport } from "../bench/write.js";
import { readGgufMetadata } from "../vocab/gguf.js";
import { intFlag, parseFlags, readJson } from "./args.js";
import type { Command } from "./command.js";
import { CliError, UsageError } from "./errors.js";
import { defaultTestModelPath, ensureTestModel, openModel } from "./model.js";
import { progress } from "./progress.js";

const usage =
  "usage: toolmask bench [--model PATH] [--suite FILE] [--out DIR] [options]\n" +
  "Decodes every prompt of a suite with each mode and reports validity, finish reasons, truncations,\n" +
  "tok/s and mask time (with XGrammar's on the same grammar): DIR/bench.json, DIR/report.html, DIR/validity.png (with the optional chart renderer).\n" +
  "  --model PATH      a .gguf (default: the random-weight test model, written when missing)\n" +
  "  --suite FILE      JSON { name, seeds, biasFor?, cases: [{ name, dialect, tools, prompt | messages,\n" +
  "                    toolChoice?, parallelToolCalls?, maxTokens?, temperature?, biasPieces? }] } (default: built-in)\n" +
  "  --out DIR         where the report goes (default ./toolmask-bench)\n" +
  "  --seeds N         seeds per case (default: the suite's)\n" +
  "  --cases N         only the first N cases\n" +
  `  --variants LIST   comma-separated, of ${VARIANTS.join(", ")} (default all)\n` +
  "  --no-xgrammar     skip XGrammar's reference timing (WASM)\n" +
  `  --peers LIST      native mask engines to time on the same grammars, of ${NATIVE_PEER_NAMES.join(", ")}\n` +
  "                    (each installed in the Python of --python: pip install llguidance xgrammar)\n" +
  "  --python PATH     the Python that runs them (default: python3)\n" +
  "  --threads N       CPU threads (default: half the CPUs)\n" +
  "  --progress        progress on stderr even when it is not a terminal";

function peersFlag(v: unknown): NativePeerName[] {
  if (v === undefined) return [];
  const list = String(v)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((x) => !(NATIVE_PEER_NAMES as readonly string[]).includes(x));
  if (bad.length > 0 || list.length === 0)
    throw new UsageError(
      `--peers: unknown ${JSON.stringify(bad[0] ?? "")}; choose from ${NATIVE_PEER_NAMES.join(", ")}`,
    );
  return NATIVE_PEER_NAMES.filter((x) => list.includes(x));
}

function variantsFlag(v: unknown): VariantName[] {
  if (v === undefined) return [...VARIANTS];
  const list = String(v)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = list.filter((x) => !(VARIANTS as readonly string[]).includes(x));
  if (bad.length > 0 || list.length === 0)
    throw new UsageError(`--variants: unknown ${JSON.stringify(bad[0] ?? "")}; choose from ${VARIANTS.join(", ")}`);
  return VARIANTS.filter((x) => list.includes(x));
}

/** The suite's biases stand in for a trained model's wishes; on a real model they only skew it. */
function biasApplies(suite: BenchSuite, modelPath: string): boolean {
  if (suite.biasFor === "any") return true;
  try {
    const name = readGgufMetadata(modelPath).get("general.name");
    return typeof name === "string" && name.startsWith("toolmask test model");
  } catch {
    return false;
  }
}

async function run(argv: string[]): Promise<number> {
  const args = parseFlags(argv, {
    model: { type: "string" },
    suite: { type: "string" },
    out: { type: "string" },
    seeds: { type: "string" },
    cases: { type: "string" },
    variants: { type: "string" },
    "no-xgrammar": { type: "boolean" },
    threads: { type: "string" },
    peers: { type: "string" },
    python: { type: "string" },
  });
  const variants = variantsFlag(args.variants);
  const peers = peersFlag(args.peers);
  if (args.python !== undefined && peers.length === 0)
    throw new UsageError("--python is the Python of --peers; give --peers too");
  if (peers.length > 0 && !variants.includes("masked-cpu"))
    throw new UsageError("--peers walks the masked (CPU path) runs' tokens; keep masked-cpu in --variants");
  let suite: BenchSuite = BUILTIN_SUITE;
  if (args.suite !== undefined) {
    const path = String(args.suite);
    try {
      suite = checkSuite(readJson(path, "suite file"), path);
    } catch (e) {
      throw e instanceof CliError ? e : new CliError((e as Error).message);
    }
  }
  if (args.seeds !== undefined) suite = { ...suite, seeds: intFlag(args.seeds, "--seeds", 1, 1000) };
  if (args.cases !== undefined)
    suite = { ...suite, cases: suite.cases.slice(0, intFlag(args.cases, "--cases", 1, suite.cases.length)) };
  const threads = args.threads !== undefined ? intFlag(args.threads, "--threads", 1, 1024) : undefined;
  const shown = args.progress === true;

  const modelPath = resolve((args.model as string | undefined) ?? defaultTestModelPath());
  if (args.model === undefined) {
    const wrote = ensureTestModel(modelPath);
    if (wrote !== undefined) process.stderr.write(`wrote the test model to ${modelPath} in ${wrote.toFixed(1)} s\n`);
  }
  const model = await openModel(modelPath, { gpu: false, ...(threads ? { threads } : {}), showProgress: shown });
  const t0 = performance.now();
  let report;
  try {
    const bar = progress("bench", shown);
    const result = await runBench({
      model,
      suite,
      variants,
      applyBias: biasApplies(suite, modelPath),
      xgrammar: args["no-xgrammar"] !== true,
      ...(peers.length > 0
        ? { peers: { python: (args.python as string | undefined) ?? "python3", names: peers } }
        : {}),
      onProgress: (done, total, what) => bar.update(done / total, `${done}/${total} ${what}`),
    });
    bar.done(`${suite.cases.length * suite.seeds * variants.length} answers`);
    report = benchReport(result, model, suite, variants, (performance.now() - t0) / 1000);
  } finally {
    model.dispose();
  }
  const out = writeReport(report, (args.out as string | undefined) ?? "toolmask-bench");

  const pad = Math.max(...variants.map((v) => VARIANT_LABELS[v].length));
  const say = (s: string) => process.stdout.write(`${s}\n`);
  say(
    `toolmask bench: ${suite.name}, ${suite.cases.length} cases × ${suite.seeds} seeds on ${relative(process.cwd(), modelPath) || modelPath} in ${report.durationSeconds} s`,
  );
  for (const v of variants) {
    const s = report.variants[v]!;
    const rate =
      s.validityRate === null ? "not run" : `${(s.validityRate * 100).toFixed(0)}% valid (${s.valid}/${s.runs})`;
    const mask = s.maskMicrosPerToken
      ? `, mask ${s.maskMicrosPerToken.median} µs median / ${s.maskMicrosPerToken.p99} µs p99`
      : "";
    say(
      `  ${s.label.padEnd(pad)}  ${rate.padEnd(20)} truncated ${s.truncated}, blocked ${s.truncationsBlocked}, ${s.tokensPerSecond.overall ?? "—"} tok/s${mask}${s.errors.length ? ` (${s.errors[0]})` : ""}`,
    );
  }
  const x = report.xgrammar;
  say(
    x.maskMicrosPerToken
      ? `  XGrammar ${x.maskMicrosPerToken.median} µs median / ${x.maskMicrosPerToken.p99} µs p99 per mask (${x.grammar.split(",")[0]})`
      : `  XGrammar: ${x.errors[0] ?? "not run"}`,
  );
  const ours = report.variants["masked-cpu"]?.maskMicrosPerToken;
  for (const [name, p] of Object.entries(report.peers)) {
    say(
      p.maskMicrosPerToken
        ? `  ${name} ${p.version} ${p.maskMicrosPerToken.median} µs median / ${p.maskMicrosPerToken.p99} µs p99 per mask; ours ${ours?.median} / ${ours?.p99} µs = ${p.ratio.median}× / ${p.ratio.p99}× of it${p.refused ? `; refused ${p.refused} walks` : ""}; masks stricter than ours on ${p.agreement.peerStricterSteps}, looser on ${p.agreement.peerLooserSteps} of ${p.agreement.steps} steps`
        : `  ${name}: ${(p.errors[0] ?? "not run").replace(`${name}: `, "")}`,
    );
  }
  const written = [out.json, out.html, ...(out.png ? [out.png] : [])].map((f) => relative(process.cwd(), f));
  say(`wrote ${written.join(", ")}`);
  if (out.pngMissing) say(`no validity.png: ${out.pngMissing}`);
  return 0;
}

export const benchCommand: Command = { name: "bench", usage, run };
