// The bench's JSON: per variant, validity, finish reasons, truncations, speed and mask time;
// XGrammar's mask time on the same grammar; every run, for whoever wants to look closer.
import os from "node:os";
import type { LlamaModel } from "../engine/model.js";
import type { BenchRun, RunRecord } from "./run.js";
import { median, p99, round } from "./stats.js";
import type { BenchSuite } from "./suite.js";
import { VARIANT_LABELS, type VariantName } from "./variants.js";
import { XGRAMMAR_VERSION } from "./xgrammar.js";

export interface Quantiles {
  median: number | null;
  p99: number | null;
  samples: number;
}
export interface Speed extends Quantiles {
  /** All sampled tokens / all decode time, over runs of two tokens or more. */ overall: number | null;
}

export interface VariantSummary {
  label: string;
  runs: number;
  valid: number;
  /** valid / runs (0..1); null when nothing ran. */
  validityRate: number | null;
  finishReasons: { stop: number; tool_calls: number; length: number };
  /** Runs whose output ended inside a call. */
  truncated: number;
  /** (case, seed) pairs cut inside a call unmasked that this variant answered validly. */
  truncationsBlocked: number;
  /** Why runs were not valid, counted. */
  invalidReasons: Record<string, number>;
  tokensPerSecond: Speed;
  /** Per mask, microseconds, from a replay of the sampled tokens (ours) — null for others. */
  maskMicrosPerToken: Quantiles | null;
  /** Per run, the in-decode mask cost per token (total / steps, includes the logits pass). */
  maskMicrosInDecode: Quantiles | null;
  errors: string[];
}

export interface BenchReport {
  tool: "toolmask bench";
  date: string;
  durationSeconds: number;
  machine: { cpu: string; cores: number; platform: string; node: string; loadavg: number[] };
  model: { path: string; vocabSize: number; threads: number; contextSize: number; gpu: string | false };
  suite: { name: string; seeds: number; cases: string[]; biasApplied: boolean };
  definitions: Record<string, string>;
  variants: Partial<Record<VariantName, VariantSummary>>;
  /** Per case, the untimed first masked run's in-decode mask µs/token. */
  coldMaskMicrosInDecode: Record<string, number | null>;
  xgrammar: {
    version: string;
    grammar: string;
    tokenizerInfoMillis: number | null;
    compileMillis: Record<string, number>;
    maskMicrosPerToken: Quantiles | null;
    refused: number;
    errors: string[];
  };
  /** The native engines asked for with --peers, on the same grammars and tokens as ours. */
  peers: Record<string, PeerSummary>;
  runs: RunRecord[];
}

export interface PeerSummary {
  /** The engine's package version; null when it did not start. */
  version: string | null;
  grammar: string;
  tokenizerMillis: number | null;
  /** Per case: compile, and compile + matcher + first mask (time to first mask), best of 3. */
  compileMillis: Record<string, number>;
  firstMaskMillis: Record<string, number>;
  maskMicrosPerToken: Quantiles | null;
  /** Ours / the engine's, per mask (below 1: ours is faster). */
  ratio: { median: number | null; p99: number | null };
  /** Walks with a token the engine refused. */
  refused: number;
  /** Its masks against ours along each case's first walk, beyond the differences known by construction (src/bench/native-agreement.ts). */
  agreement: {
    steps: number;
    maskDiffSteps: number;
    peerStricterSteps: number;
    peerLooserSteps: number;
    firstStricter: unknown;
    firstLooser: unknown;
  };
  errors: string[];
}

function peerSummaries(run: BenchRun, ours: Quantiles): Record<string, PeerSummary> {
  const out: Record<string, PeerSummary> = {};
  for (const [name, info] of Object.entries(run.nativePeers)) {
    const ns: number[] = [],
      compileMillis: Record<string, number> = {},
      firstMaskMillis: Record<string, number> = {},
      errors: string[] = [];
    let refused = 0,
      grammar = "not run";
    const agreement: PeerSummary["agreement"] = {
      steps: 0,
      maskDiffSteps: 0,
      peerStricterSteps: 0,
      peerLooserSteps: 0,
      firstStricter: null,
      firstLooser: null,
    };
    if ("error" in info) errors.push(info.error);
    for (const t of run.timings) {
      const x = t.peers?.[name];
      if (!x) continue;
      if ("error" in x) {
        errors.push(`${t.case}: ${x.error}`);
        continue;
      }
      ns.push(...x.ns);
      compileMillis[t.case] = round(x.compileMillis, 2)!;
      firstMaskMillis[t.case] = round(x.firstMaskMillis, 2)!;
      refused += x.refused;
      if (x.agreement) {
        agreement.steps += x.agreement.steps;
        agreement.maskDiffSteps += x.agreement.maskDiffSteps;
        agreement.peerStricterSteps += x.agreement.peerStricterSteps;
        agreement.peerLooserSteps += x.agreement.peerLooserSteps;
        agreement.firstStricter ??= x.agreement.firstStricter && { case: t.case, ...x.agreement.firstStricter };
        agreement.firstLooser ??= x.agreement.firstLooser && { case: t.case, ...x.agreement.firstLooser };
      }
      grammar = `the same grammar (our IR exported with ${x.grammar === "lark" ? "toLark" : "toEbnf"}), walked along our masked runs' tokens`;
    }
    const q = ns.length ? quantiles(ns, 1e-3) : null;
    const ratio = (a: number | null, b: number | null | undefined) =>
      a !== null && b ? Number((a / b).toPrecision(3)) : null;
    out[name] = {
      version: "error" in info ? null : info.version,
      grammar,
      tokenizerMillis: "error" in info ? null : info.tokenizerMillis,
      compileMillis,
      firstMaskMillis,
      maskMicrosPerToken: q,
      ratio: { median: ratio(ours.median, q?.median), p99: ratio(ours.p99, q?.p99) },
      refused,
      agreement,
      errors,
    };
  }
  return out;
}

const quantiles = (xs: number[], scale = 1, digits = 2): Quantiles => ({
  median: round(median(xs) === null ? null : median(xs)! * scale, digits),
  p99: round(p99(xs) === null ? null : p99(xs)! * scale, digits),
  samples: xs.length,
});

function speed(runs: RunRecord[]): Speed {
  const long = runs.filter((r) => r.tokens >= 2 && r.decodeMillis !== null && r.tokensPerSecond !== null);
  const ms = long.reduce((a, r) => a + r.decodeMillis!, 0),
    n = long.reduce((a, r) => a + r.tokens, 0);
  return {
    overall: ms > 0 ? round((n * 1000) / ms, 1) : null,
    ...quantiles(
      long.map((r) => r.tokensPerSecond!),
      1,
      1,
    ),
  };
}

function summarize(variant: VariantName, runs: RunRecord[], all: RunRecord[], ourNs: number[]): VariantSummary {
  const ran = runs.filter((r) => !r.error);
  const cut = new Set(
    all.filter((r) => r.variant === "unmasked" && r.verdict.truncated).map((r) => `${r.case}\u0000${r.seed}`),
  );
  const invalidReasons: Record<string, number> = {};
  for (const r of ran)
    if (!r.verdict.valid) invalidReasons[r.verdict.reason] = (invalidReasons[r.verdict.reason] ?? 0) + 1;
  const ours = variant === "masked-cpu" || variant === "masked-backend";
  return {
    label: VARIANT_LABELS[variant],
    runs: ran.length,
    valid: ran.filter((r) => r.verdict.valid).length,
    validityRate: ran.length ? round(ran.filter((r) => r.verdict.valid).length / ran.length, 4) : null,
    finishReasons: {
      stop: ran.filter((r) => r.finishReason === "stop").length,
      tool_calls: ran.filter((r) => r.finishReason === "tool_calls").length,
      length: ran.filter((r) => r.finishReason === "length").length,
    },
    truncated: ran.filter((r) => r.verdict.truncated).length,
    truncationsBlocked:
      variant === "unmasked" ? 0 : ran.filter((r) => r.verdict.valid && cut.has(`${r.case}\u0000${r.seed}`)).length,
    invalidReasons,
    tokensPerSecond: speed(ran),
    // One replay serves both of our paths: the mask is the same computation; the paths differ in where it is applied.
    maskMicrosPerToken: ours ? quantiles(ourNs, 1e-3) : null,
    maskMicrosInDecode: ours
      ? quantiles(ran.map((r) => r.maskMicrosPerToken).filter((x): x is number => x !== null))
      : null,
    errors: [...new Set(runs.filter((r) => r.error).map((r) => r.error!))],
  };
}

export function benchReport(
  run: BenchRun,
  model: LlamaModel,
  suite: BenchSuite,
  variants: readonly VariantName[],
  seconds: number,
): BenchReport {
  const ourNs = run.timings.flatMap((t) => t.oursNs);
  const xgNs: number[] = [],
    compileMillis: Record<string, number> = {},
    errors: string[] = [];
  let refused = 0;
  const kinds = new Set<string>();
  if (run.xgrammarError) errors.push(run.xgrammarError);
  for (const t of run.timings) {
    const x = t.xgrammar;
    if (!x) continue;
    if ("error" in x) {
      errors.push(`${t.case}: ${x.error}`);
      continue;
    }
    xgNs.push(...x.ns);
    compileMillis[t.case] = round(x.compileMillis, 1)!;
    refused += x.refused;
    kinds.add(
      x.grammar === "same"
        ? "the same grammar (our IR exported with toEbnf), walked along our masked runs' tokens"
        : `JSON-schema path (${x.note})`,
    );
  }
  const cpu = os.cpus()[0]?.model ?? "unknown";
  return {
    tool: "toolmask bench",
    date: new Date().toISOString(),
    durationSeconds: round(seconds, 1)!,
    machine: {
      cpu,
      cores: os.availableParallelism(),
      platform: `${os.platform()} ${os.arch()}`,
      node: process.version,
      loadavg: os.loadavg().map((x) => round(x, 2)!),
    },
    model: {
      path: model.path,
      vocabSize: model.vocabulary.size,
      threads: model.threads,
      contextSize: model.contextSize,
      gpu: model.gpu,
    },
    suite: {
      name: suite.name,
      seeds: suite.seeds,
      cases: suite.cases.map((c) => c.name),
      biasApplied: run.biasApplied,
    },
    definitions: {
      valid:
        "every call complete (the output did not end inside one), to a tool the request allows, with its required arguments; a call present when tool_choice requires one; at most one when parallel calls are off (text cut by maxTokens after complete calls does not spoil them: see the finish reasons)",
      truncated: "the output ended inside a call",
      truncationsBlocked:
        "(case, seed) pairs whose unmasked answer was cut inside a call and which this variant answered validly",
      tokensPerSecond:
        "overall: all sampled tokens / all decode time (prompt excluded) over runs of two tokens or more; median and p99 of the same runs' rates",
      coldStart:
        "before each case's timed runs, one untimed masked run compiles the grammar and fills the mask cache; its in-decode mask µs/token is coldMaskMicrosInDecode. Mask states first reached later are still computed in the run that reaches them (the cache fills lazily), so the order of the modes is rotated per seed",
      maskMicrosPerToken:
        "ours: each fillNextTokenBitmask timed while replaying the masked (CPU) runs' tokens through a matcher of the same grammar; median and p99 over masks",
      maskMicrosInDecode:
        "ours: per run, the mask's total time inside decoding / steps (the CPU path includes the pass over the logits; the backend path the dense input's fill and upload)",
      xgrammar:
        "XGrammar's GetNextTokenBitmask (C++ fill, embind dispatch and the result vector) per step along the same tokens",
      peers:
        "native engines (--peers), each in its own Python process over the model's token bytes: llguidance's fill_next_token_bitmask and XGrammar's fill_next_token_bitmask into a preallocated int32 bitmask, each call timed alone (perf_counter_ns), 3 passes over every walk after one untimed; ratio = ours / theirs",
      nodeLlamaCppGbnf: `node-llama-cpp ${"3.21.1"} with the GBNF toGbnf exports for the same grammar and vocabulary; same prompt tokens, seed, temperature, top-k 40, top-p 0.95, min-p 0.05; its output read by our parser; its grammar time is inside its tok/s (not reported apart)`,
    },
    variants: Object.fromEntries(
      variants.map((v) => [
        v,
        summarize(
          v,
          run.records.filter((r) => r.variant === v),
          run.records,
          ourNs,
        ),
      ]),
    ),
    coldMaskMicrosInDecode: Object.fromEntries(
      run.timings.map((t) => [t.case, round(t.coldMaskMicrosInDecode ?? null)]),
    ),
    xgrammar: {
      version: `@mlc-ai/web-xgrammar ${XGRAMMAR_VERSION} (WASM)`,
      grammar: kinds.size ? [...kinds].join("; ") : "not run",
      tokenizerInfoMillis: round(run.xgrammarTokenizerInfoMillis, 1),
      compileMillis,
      maskMicrosPerToken: xgNs.length ? quantiles(xgNs, 1e-3) : null,
      refused,
      errors,
    },
    peers: peerSummaries(run, quantiles(ourNs, 1e-3)),
    runs: run.records,
  };
}
