// Runs a suite: every case, seed and variant on one model; collects each answer's verdict and
// timings, then our per-token mask times (replayed) and XGrammar's on the same grammar and tokens.
import { buildToolGrammar } from "../dialects/grammar.js";
import { generate, prepareGeneration, type GenerateOptions } from "../engine/generate.js";
import type { LlamaModel } from "../engine/model.js";
import { toGbnf } from "../grammar/export/gbnf.js";
import type { Grammar } from "../grammar/ir.js";
import { parseToolCalls } from "../parser/stream.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { FinishReason } from "../parser/types.js";
import { TokenKind } from "../vocab/types.js";
import type { Vocabulary } from "../vocab/vocabulary.js";
import { replayMasks } from "./mask-replay.js";
import type { Peer } from "./peer.js";
import type { BenchCase, BenchSuite } from "./suite.js";
import { verdictOf, type Verdict } from "./validity.js";
import type { VariantName } from "./variants.js";
import { closeXGrammar, openXGrammar, timeXGrammar, xgrammarEbnf, type XgEnv } from "./xgrammar.js";
import type { NativePeerName } from "./native-peers.js";
import {
  openNativePeers,
  timeNativePeer,
  type NativeCaseTiming,
  type NativePeerInfo,
  type NativePeers,
} from "./native-timing.js";

export interface RunRecord {
  case: string;
  seed: number;
  variant: VariantName;
  finishReason: FinishReason | null;
  verdict: Verdict;
  tokens: number;
  tokensPerSecond: number | null;
  /** Decode time of the sampled tokens (prompt excluded), ms. */
  decodeMillis: number | null;
  /** In-decode mask cost per token of this run (total / steps), ours only. */
  maskMicrosPerToken: number | null;
  text: string;
  /** Set when the run could not happen (e.g. node-llama-cpp refused the grammar). */
  error?: string;
}

export interface CaseTimings {
  case: string;
  /** Ours, replayed: ns per mask. */
  oursNs: number[];
  oursRefused: number;
  /** The untimed first masked run's in-decode mask µs/token (cold caches); null when none ran. */
  coldMaskMicrosInDecode?: number | null;
  xgrammar?:
    | { ns: number[]; compileMillis: number; refused: number; grammar: "same" | "json-schema"; note?: string }
    | { error: string };
  /** The native engines (--peers) on the same grammar and tokens. */
  peers?: Record<string, NativeCaseTiming>;
}

export interface BenchRun {
  records: RunRecord[];
  timings: CaseTimings[];
  biasApplied: boolean;
  xgrammarTokenizerInfoMillis: number | null;
  xgrammarError: string | null;
  peerThreads: number | null;
  peerError: string | null;
  /** The native engines asked for: version, or why it did not run. */
  nativePeers: Record<string, NativePeerInfo>;
}

export interface RunOptions {
  model: LlamaModel;
  suite: BenchSuite;
  variants: readonly VariantName[];
  /** Apply the cases' biasPieces (the caller decides: test model, or the suite says "any"). */
  applyBias: boolean;
  xgrammar: boolean;
  /** Native mask engines to time (python/peers/mask_peer.py under `python`). */
  peers?: { python: string; names: readonly NativePeerName[] };
  onProgress?: (done: number, total: number, what: string) => void;
}

/** A case's logit bias as token ids: its pieces, and its whitespace bias on every whitespace-only token; pieces the vocabulary lacks are left out. */
export function biasIds(
  vocab: Vocabulary,
  pieces: Record<string, number> | undefined,
  whitespace: number | undefined,
): Record<number, number> {
  const out: Record<number, number> = {};
  if (whitespace !== undefined)
    for (let id = 0; id < vocab.size; id++) {
      const b = vocab.tokenBytes(id);
      if (b.length > 0 && b.every((x) => x === 32 || x === 10 || x === 9 || x === 13)) out[id] = whitespace;
    }
  for (const [piece, v] of Object.entries(pieces ?? {})) {
    const id = vocab.idOfPiece(piece);
    if (id !== undefined) out[id] = v;
  }
  return out;
}

/** The generate() options of one case and seed. */
export function optionsOf(c: BenchCase, seed: number, bias: Record<number, number>): GenerateOptions {
  return {
    messages: c.messages ?? [{ role: "user", content: c.prompt ?? "" }],
    tools: c.tools,
    dialect: c.dialect,
    maxTokens: c.maxTokens ?? 128,
    temperature: c.temperature ?? 0.8,
    seed,
    ...(c.toolChoice !== undefined ? { toolChoice: c.toolChoice } : {}),
    ...(c.parallelToolCalls !== undefined ? { parallelToolCalls: c.parallelToolCalls } : {}),
    ...(Object.keys(bias).length > 0 ? { logitBias: bias } : {}),
  } as GenerateOptions;
}

/** Token ids -> text the way generate() builds it: end-of-generation tokens are not text. */
function textOf(vocab: Vocabulary, ids: number[]): string {
  const d = new TextDecoder();
  let s = "";
  for (const id of ids)
    if (vocab.kind(id) !== TokenKind.EndOfGeneration) s += d.decode(vocab.tokenBytes(id), { stream: true });
  return s + d.decode();
}

const snippet = (s: string) => (s.length > 160 ? `${s.slice(0, 160)}…` : s);

export async function runBench(o: RunOptions): Promise<BenchRun> {
  const { model, suite } = o;
  const vocab = model.vocabulary;
  const records: RunRecord[] = [];
  const timings: CaseTimings[] = [];
  const total = suite.cases.length * suite.seeds * o.variants.length;
  let done = 0;

  let peer: Peer | undefined,
    peerError: string | null = null,
    peerLib: typeof import("./peer.js") | undefined;
  if (o.variants.includes("node-llama-cpp-gbnf")) {
    // node-llama-cpp loads only when its mode runs.
    try {
      peerLib = await import("./peer.js");
      peer = await peerLib.openPeer({ modelPath: model.path, threads: model.threads, contextSize: model.contextSize });
    } catch (e) {
      peerError = `node-llama-cpp could not open the model: ${(e as Error).message}`;
    }
  }
  let xg: XgEnv | undefined,
    xgrammarError: string | null = null;
  if (o.xgrammar) {
    try {
      xg = await openXGrammar(vocab);
    } catch (e) {
      xgrammarError = (e as Error).message;
    }
  }
  const native: NativePeers | undefined =
    o.peers && o.peers.names.length > 0 ? await openNativePeers(o.peers.python, o.peers.names, vocab) : undefined;

  try {
    for (const c of suite.cases) {
      const bias = o.applyBias ? biasIds(vocab, c.biasPieces, c.biasWhitespace) : {};
      const prepared = await prepareGeneration(model, optionsOf(c, 1, bias));
      prepared.request.grammar?.dispose(); // only its resolved request is used here
      const resolved = prepared.resolved!;
      const grammar: Grammar = buildToolGrammar(resolved);
      let peerGrammar: Awaited<ReturnType<Peer["llama"]["createGrammar"]>> | undefined,
        peerCaseError: string | undefined = peerError ?? undefined;
      let peerTokens: ReturnType<typeof import("./peer.js").peerPrompt> | undefined;
      if (peer) {
        try {
          peerGrammar = await peer.llama.createGrammar({ grammar: toGbnf(grammar, vocab) });
        } catch (e) {
          peerCaseError = `node-llama-cpp refused the exported GBNF: ${(e as Error).message}`;
        }
      }
      // One untimed masked run first: the grammar's compile and the mask cache's first fill happen
      // there, not inside whichever variant happens to run first. Its in-decode cost is kept apart.
      const warm = o.variants.some((v) => v.startsWith("masked"))
        ? (await generate(model, { ...optionsOf(c, 1, bias), mask: true })).timings.maskMicrosPerToken
        : null;
      const walks: number[][] = [];
      const argumentTexts: string[] = []; // for XGrammar's JSON-schema fallback
      let promptTokens: number | undefined;
      for (let seed = 1; seed <= suite.seeds; seed++) {
        const options = optionsOf(c, seed, bias);
        // Rotated per seed: a mask state first reached in a run is computed there (the cache fills
        // lazily), so whichever mode runs first on a seed pays for it; rotation spreads that cost.
        const order = o.variants.map((_, i) => o.variants[(i + seed - 1) % o.variants.length]!);
        for (const variant of order) {
          o.onProgress?.(done, total, `${c.name} seed ${seed} ${variant}`);
          records.push(await runOne(variant));
          done++;
        }
        async function runOne(variant: VariantName): Promise<RunRecord> {
          const base = { case: c.name, seed, variant };
          if (variant !== "node-llama-cpp-gbnf") {
            const r = await generate(model, {
              ...options,
              mask: variant !== "unmasked",
              ...(variant === "masked-backend" ? { maskPath: "backend" as const } : {}),
            });
            promptTokens = r.usage.prompt_tokens;
            if (variant === "masked-cpu") {
              walks.push(r.tokens);
              for (const call of r.message.tool_calls ?? []) argumentTexts.push(call.function.arguments);
            }
            const verdict = verdictOf(
              { finishReason: r.finishReason, toolCalls: r.message.tool_calls ?? [], incomplete: r.incomplete },
              c.tools,
              c.toolChoice,
              c.parallelToolCalls,
            );
            return {
              ...base,
              finishReason: r.finishReason,
              verdict,
              tokens: r.usage.completion_tokens,
              tokensPerSecond: r.timings.tokensPerSecond,
              decodeMillis: r.timings.decodeMillis,
              maskMicrosPerToken: variant === "unmasked" ? null : r.timings.maskMicrosPerToken,
              text: snippet(r.text),
            };
          }
          if (!peer || !peerGrammar) {
            return {
              ...base,
              finishReason: null,
              verdict: { valid: false, reason: "not run", calls: 0, truncated: false },
              tokens: 0,
              tokensPerSecond: null,
              decodeMillis: null,
              maskMicrosPerToken: null,
              text: "",
              error: peerCaseError ?? "node-llama-cpp unavailable",
            };
          }
          // Our prompt's token count checks node-llama-cpp tokenizes the prompt the same.
          promptTokens ??= (await generate(model, { ...options, maxTokens: 1, mask: false })).usage.prompt_tokens;
          peerTokens ??= peerLib!.peerPrompt(peer, prepared.request.prompt, promptTokens);
          const p = await peerLib!.runPeer(peer, peerTokens, {
            grammar: peerGrammar,
            maxTokens: options.maxTokens!,
            temperature: options.temperature!,
            topK: 40,
            topP: 0.95,
            minP: 0.05,
            seed,
            tokenBias: peerLib!.peerTokenBias(peer.model, bias),
          });
          const text = textOf(vocab, p.tokenIds);
          const parsed = parseToolCalls(text, {
            ...resolved,
            finishReason: p.stopReason === "maxTokens" ? "length" : "stop",
          });
          const verdict = verdictOf(parsed, c.tools, c.toolChoice, c.parallelToolCalls);
          return {
            ...base,
            finishReason: parsed.finishReason,
            verdict,
            tokens: p.tokens,
            tokensPerSecond: Number.isFinite(p.msPerToken) && p.msPerToken > 0 ? 1000 / p.msPerToken : null,
            decodeMillis: Number.isFinite(p.msPerToken) ? p.msPerToken * (p.tokens - 1) : null,
            maskMicrosPerToken: null,
            text: snippet(text),
          };
        }
      }
      timings.push({
        ...(await caseTimings(c, resolved, grammar, walks, argumentTexts)),
        coldMaskMicrosInDecode: warm,
      });
    }
  } finally {
    if (peer) await peerLib!.closePeer(peer);
    if (xg) closeXGrammar(xg);
    await native?.close();
  }
  return {
    records,
    timings,
    biasApplied: o.applyBias,
    xgrammarTokenizerInfoMillis: xg?.tokenizerInfoMillis ?? null,
    xgrammarError,
    peerThreads: peer?.threads ?? null,
    peerError,
    nativePeers: native?.info ?? {},
  };

  async function caseTimings(
    c: BenchCase,
    po: ResolvedRequest,
    grammar: Grammar,
    walks: number[][],
    args: string[],
  ): Promise<CaseTimings> {
    const ours = replayMasks(grammar, vocab, walks);
    const t: CaseTimings = { case: c.name, oursNs: ours.samplesNs, oursRefused: ours.refused };
    if (native?.peers.length) {
      t.peers = {};
      for (const p of native.peers) t.peers[p.name] = await timeNativePeer(p, c.name, grammar, vocab, walks);
    }
    if (!xg) return t;
    try {
      const x = await timeXGrammar(xg, xgrammarEbnf(grammar, vocab), false, walks);
      t.xgrammar = { ns: x.samplesNs, compileMillis: x.compileMillis, refused: x.refused, grammar: "same" };
    } catch (e) {
      t.xgrammar = await jsonSchemaFallback(po, args, `XGrammar could not take our grammar (${(e as Error).message})`);
    }
    return t;
  }

  /**
   * XGrammar's own JSON-schema path on the first allowed tool's parameters, walked along our calls'
   * arguments as node-llama-cpp tokenizes them: not the same grammar, and the report says so.
   */
  async function jsonSchemaFallback(
    po: ResolvedRequest,
    args: string[],
    why: string,
  ): Promise<CaseTimings["xgrammar"]> {
    const tool = po.declared[0];
    if (!xg || !tool) return { error: why };
    if (!peer) return { error: `${why}; its JSON-schema path needs node-llama-cpp to tokenize the arguments` };
    try {
      const walks = args.map((a) => [...peer!.model.tokenize(a, false)] as number[]);
      const x = await timeXGrammar(xg, JSON.stringify(tool.parameters), true, walks);
      return {
        ns: x.samplesNs,
        compileMillis: x.compileMillis,
        refused: x.refused,
        grammar: "json-schema",
        note: `${why}; timed on its JSON-schema path for the first tool's arguments instead`,
      };
    } catch (e) {
      return { error: `${why}; its JSON-schema path failed too (${(e as Error).message})` };
    }
  }
}
