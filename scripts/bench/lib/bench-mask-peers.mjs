// The native peers of bench:mask: on the tool cases (500-tools, corpus/*) each through its own
// JSON-schema compiler; on the others llguidance reads our IR as toLark, XGrammar toEbnf (the same
// text the WASM row gets), outlines-core (JSON-schema cases only, through its own schema-to-regex
// compiler: we have no regex export, and the XML grammars' until() would need a regex complement)
// and GLRMask (JSON-schema cases through its own JSON-schema compiler, the others as toLark, which
// python/peers/glrmask_lark.py rewrites into the Lark it reads).
// Each peer is its own Python process (scripts/lib/mask-peers.mjs) over the same tokenizer.json,
// timed the way its users call it (fill_next_token_bitmask / write_mask_into a preallocated
// int32 array); the driver interleaves rounds of ours and every peer on each case.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openPeer, peerHint, peerPython } from "../../lib/mask-peers.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const { compareNativeMasks } = await import(path.join(ROOT, "dist/bench/native-agreement.js"));
export const { NATIVE_PEER_NAMES: PEER_NAMES, MASK_ENGINE_NAMES } = await import(
  path.join(ROOT, "dist/bench/native-peers.js")
);

/**
 * Starts every installed peer. Returns { peers: [peer], skipped: { name: why }, vocab: { name:
 * { version, import_ms, tokenizer_ms } } }; a peer that is not installed or fails to load is skipped.
 */
export async function openPeers(names, tokenizerJson, stopIds) {
  const peers = [],
    skipped = {},
    vocab = {};
  for (const name of names) {
    if (!peerPython(name)) {
      skipped[name] = `not installed: ${peerHint(name)}`;
      continue;
    }
    try {
      const p = await openPeer(name, tokenizerJson, stopIds);
      peers.push(p);
      vocab[name] = {
        version: p.version,
        vocab_size: p.vocabSize,
        tokenizer_ms: round(p.tokenizerMs),
        import_ms: round(p.importMs),
      };
    } catch (e) {
      skipped[name] = e.message;
    }
  }
  return { peers, skipped, vocab };
}

/** What `peer` gets for case `c`: { kind, text } or { skip: why }. */
export function peerGrammar(name, c, { vocab, lark, ebnf }) {
  if (c.peerSkip?.[name]) return { skip: c.peerSkip[name] };
  // the tool cases: every peer through its own JSON-schema compiler (our exports cannot spell every
  // real schema: toEbnf/toLark stop at an any-order set of more than 8 members)
  if (c.peerSchema) return { kind: "json_schema", text: JSON.stringify(c.xgrammarJsonSchema), mode: "fast_masks" };
  if (name === "llguidance") return lark ? { kind: "lark", text: lark(c.grammar, vocab) } : { skip: "no toLark" };
  if (name === "xgrammar") return ebnf ? { kind: "ebnf", text: ebnf } : { skip: "no EBNF for this case" };
  if (name === "glrmask")
    // its documented fastest mode (engines.py: MaskStrategy.FAST_MASKS, its default where it refuses that)
    return c.xgrammarJsonSchema
      ? { kind: "json_schema", text: JSON.stringify(c.xgrammarJsonSchema), mode: "fast_masks" }
      : lark
        ? { kind: "lark", text: lark(c.grammar, vocab), mode: "fast_masks" }
        : { skip: "no toLark" };
  if (name === "outlines-core")
    return c.xgrammarJsonSchema
      ? { kind: "json_schema", text: JSON.stringify(c.xgrammarJsonSchema) }
      : {
          skip: "outlines-core takes a regex or a JSON schema; toolmask has no regex export (until() would need a regex complement)",
        };
  return { skip: `unknown peer ${name}` };
}

const round = (x, d = 2) => (x === null || x === undefined ? null : Math.round(x * 10 ** d) / 10 ** d);

/**
 * Compiles `grammar` in `peer` (best of `repeat` compile + matcher; first mask after it, in wall and
 * process CPU time; the process's resident memory growth over the compiles and its peak; the
 * engine's mode where it has several: GLRMask's mask strategy). `pauseMs`: each compile after that
 * long asleep (as a bench that times its own compiles after such a pause gives the peer).
 */
export async function compilePeer(peer, id, grammar, repeat = 3, pauseMs = 0) {
  const r = await peer.request({ op: "compile", id, grammar, repeat, ...(pauseMs > 0 ? { pause_ms: pauseMs } : {}) });
  return {
    compileMs: round(r.compile_ms),
    firstMaskMs: round(r.first_mask_ms),
    firstMaskCpuMs: round(r.first_mask_cpu_ms),
    rssGrowthBytes: r.rss_growth_bytes,
    peakRssBytes: r.peak_rss_bytes,
    mode: r.mode ?? null,
  };
}

/**
 * compilePeer on `native.peers[k]` within `limitMs`: a compile past it ends the peer's process (it
 * cannot be interrupted otherwise), native.peers[k] becomes a new one from `reopen()`, and the
 * answer is { error: "compile past N s (the process was ended)", overLimit: true }; a process that
 * dies in the compile is replaced the same way ({ error: "<name> exited (SIGKILL)…", died: true }).
 */
export async function compilePeerWithin(native, k, id, grammar, repeat, limitMs, reopen) {
  const peer = native.peers[k];
  let timer;
  const compiling = compilePeer(peer, id, grammar, repeat);
  compiling.catch(() => {}); // rejected when the process is killed
  let comp;
  try {
    comp = await Promise.race([
      compiling,
      new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), limitMs);
      }),
    ]);
  } catch (e) {
    // The process died in the compile (outlines-core on 500-tools: the kernel's OOM killer at 12.5
    // GB resident): the next case gets a new one.
    if (/ exited \(/.test(e.message)) {
      native.peers[k] = await reopen();
      return { error: e.message, died: true };
    }
    throw e;
  } finally {
    clearTimeout(timer);
  }
  if (comp !== null) return comp;
  peer.kill();
  native.peers[k] = await reopen();
  const n = repeat > 1 ? ` (${repeat} compiles, the best kept)` : "";
  return { error: `compile past ${limitMs / 1000} s${n} (the process was ended)`, overLimit: true };
}

/** One round of `passes` timed passes of the peer over `tokens` (after an untimed one when `warmup`): samples in ns, and the first refusal. */
export async function walkPeer(peer, id, tokens, passes, warmup = true) {
  const r = await peer.request({ op: "walk", id, tokens, passes, warmup });
  return { samples: r.samples_ns, refused: r.refused };
}

/**
 * Steps where the peer's mask differs from ours along `tokens`. `known` marks token ids whose
 * difference is explained (bench-mask's knownDifferences: added/special tokens, bytes that never
 * occur in UTF-8, padding bits; and our end-of-generation ids). Beyond those, a step counts as
 * `peer_stricter` (tokens only we allow) and/or `peer_looser` (tokens only the peer allows), with
 * the first example of each (src/bench/native-agreement.ts compares; mask.json keeps these names).
 */
export async function comparePeerMasks(peer, id, ours, tokens, pieces, known) {
  ours.reset();
  const r = await compareNativeMasks(peer, id, ours, tokens, known, (t) => `${t}:${JSON.stringify(pieces[t] ?? "")}`);
  return {
    steps: r.steps,
    refused_at: r.refusedAt,
    mask_diff_steps: r.maskDiffSteps,
    peer_stricter_steps: r.peerStricterSteps,
    peer_looser_steps: r.peerLooserSteps,
    first_stricter: r.firstStricter && {
      step: r.firstStricter.step,
      n: r.firstStricter.n,
      only_ours: r.firstStricter.onlyOurs,
    },
    first_looser: r.firstLooser && { step: r.firstLooser.step, n: r.firstLooser.n, only_peer: r.firstLooser.onlyPeer },
  };
}
