// `toolmask bench --peers`: the native mask engines timed on each case's grammar along the tokens
// our masked runs sampled, as bench:mask times them — llguidance on our IR exported with toLark,
// XGrammar 0.2.x on the EBNF its WASM build gets; outlines-core takes only a regex or a JSON
// schema, so a dialect's grammar is out of its reach and the report says so. Each engine runs in
// its own Python process over the model's own token bytes (writeVocabularyFile).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toLark } from "../grammar/export/lark.js";
import type { Grammar } from "../grammar/ir.js";
import type { Vocabulary } from "../vocab/vocabulary.js";
import { compareWithGrammar, knownDifferences, type MaskAgreement } from "./native-agreement.js";
import { openNativePeer, writeVocabularyFile, type NativePeer, type NativePeerName } from "./native-peers.js";
import { xgrammarEbnf } from "./xgrammar.js";

/** Timed passes over each case's walks (after the adapter's one untimed pass). */
const PASSES = 3;

export type NativePeerInfo = { version: string; tokenizerMillis: number } | { error: string };
export type NativeCaseTiming =
  | {
      ns: number[];
      compileMillis: number;
      firstMaskMillis: number;
      refused: number;
      grammar: "lark" | "ebnf";
      agreement: MaskAgreement | null;
    }
  | { error: string };

export interface NativePeers {
  peers: NativePeer[];
  info: Record<string, NativePeerInfo>;
  close(): Promise<void>;
}

/** Starts each named engine under `python`; one that cannot start is reported, not thrown. */
export async function openNativePeers(
  python: string,
  names: readonly NativePeerName[],
  vocab: Vocabulary,
): Promise<NativePeers> {
  const dir = mkdtempSync(join(tmpdir(), "toolmask-peers-"));
  const file = join(dir, "vocabulary.json");
  writeVocabularyFile(vocab, file);
  const peers: NativePeer[] = [],
    info: Record<string, NativePeerInfo> = {};
  for (const name of names) {
    if (name === "outlines-core") {
      info[name] = {
        error:
          "outlines-core takes a regex or a JSON schema only; a dialect's grammar (markers, until()) has no export to either",
      };
      continue;
    }
    try {
      const p = await openNativePeer(python, name, file, vocab.endOfGenerationIds);
      if (p.vocabSize !== vocab.size) {
        await p.close();
        info[name] = { error: `${name} read ${p.vocabSize} tokens, the model has ${vocab.size}` };
        continue;
      }
      peers.push(p);
      info[name] = { version: p.version, tokenizerMillis: Math.round(p.tokenizerMs * 100) / 100 };
    } catch (e) {
      info[name] = { error: (e as Error).message };
    }
  }
  return {
    peers,
    info,
    async close() {
      await Promise.all(peers.map((p) => p.close()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const knownByVocabulary = new WeakMap<Vocabulary, Uint8Array>();
const known = (v: Vocabulary) => {
  let k = knownByVocabulary.get(v);
  if (!k) knownByVocabulary.set(v, (k = knownDifferences(v)));
  return k;
};

/** One engine on one case: compile (best of 3), PASSES timed passes over every walk, its masks against ours on the first. */
export async function timeNativePeer(
  peer: NativePeer,
  id: string,
  grammar: Grammar,
  vocab: Vocabulary,
  walks: number[][],
): Promise<NativeCaseTiming> {
  try {
    const kind = peer.name === "llguidance" ? ("lark" as const) : ("ebnf" as const);
    const text = kind === "lark" ? toLark(grammar, vocab) : xgrammarEbnf(grammar, vocab);
    const c = await peer.request({ op: "compile", id, grammar: { kind, text }, repeat: 3 });
    const ns: number[] = [];
    let refused = 0;
    const eog = new Set(vocab.endOfGenerationIds);
    // A run that ended on an end-of-generation token: the walk's last mask is the one that chose
    // it (the engines refuse to fill a mask after accepting a stop token).
    const trimmed = walks.map((w) => (w.length > 0 && eog.has(w[w.length - 1]!) ? w.slice(0, -1) : w));
    for (const tokens of trimmed) {
      const w = await peer.request({ op: "walk", id, tokens, passes: PASSES });
      ns.push(...(w.samples_ns as number[]));
      if (w.refused !== null) refused++;
    }
    // The masks compared with ours along the first walk.
    const agreement = trimmed.length
      ? await compareWithGrammar(peer, id, grammar, vocab, trimmed[0]!, known(vocab))
      : null;
    await peer.request({ op: "free", id });
    return {
      ns,
      compileMillis: Number(c.compile_ms),
      firstMaskMillis: Number(c.first_mask_ms),
      refused,
      grammar: kind,
      agreement,
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
