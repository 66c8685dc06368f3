// Whether a native engine's masks equal ours along a walk: each step's mask from the engine
// (python/peers/mask_peer.py "masks") against our matcher's, after the differences known by
// construction — tokens that are not text to us (control, end of generation, unused: the engines
// may take them as text), tokens holding bytes that never occur in UTF-8 (0xC0, 0xC1, 0xF5–0xFF),
// and the padding bits past the vocabulary. What is left counts as steps where the engine is
// stricter (tokens only we allow) or looser (tokens only it allows), each with its first example.
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileGrammar } from "../grammar/compile.js";
import type { Grammar } from "../grammar/ir.js";
import { TokenKind } from "../vocab/types.js";
import type { Vocabulary } from "../vocab/vocabulary.js";
import type { NativePeer } from "./native-peers.js";

export interface MaskAgreement {
  steps: number;
  /** The step at which the engine refused the walk's token, or null. */
  refusedAt: number | null;
  maskDiffSteps: number;
  peerStricterSteps: number;
  peerLooserSteps: number;
  firstStricter: { step: number; n: number; onlyOurs: string[] } | null;
  firstLooser: { step: number; n: number; onlyPeer: string[] } | null;
}

/** Per token id: 1 where a difference is explained by construction. */
export function knownDifferences(vocab: Vocabulary): Uint8Array {
  const known = new Uint8Array(vocab.bitmaskWords * 32).fill(1, vocab.size);
  for (let id = 0; id < vocab.size; id++) {
    if (vocab.kind(id) !== TokenKind.Normal) {
      known[id] = 1;
      continue;
    }
    for (const b of vocab.tokenBytes(id))
      if (b === 0xc0 || b === 0xc1 || b >= 0xf5) {
        known[id] = 1;
        break;
      }
  }
  return known;
}

/** The matcher side of a comparison: ours, at the start of the walk. */
export interface MaskSource {
  readonly bitmaskWords: number;
  fillNextTokenBitmask(out: Uint32Array): void;
  acceptToken(id: number): boolean;
}

/**
 * The engine's masks for `id` (compiled there) against `ours` (a fresh matcher of the same
 * grammar) along `tokens`; `show` spells a token id for the examples.
 */
export async function compareNativeMasks(
  peer: NativePeer,
  id: string,
  ours: MaskSource,
  tokens: readonly number[],
  known: Uint8Array,
  show: (t: number) => string,
): Promise<MaskAgreement> {
  const file = join(tmpdir(), `toolmask-peer-masks-${process.pid}-${peer.name}.bin`);
  try {
    const r = await peer.request({ op: "masks", id, tokens, path: file });
    const buf = readFileSync(file);
    const words = ours.bitmaskWords;
    const theirs = new Uint32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const a = new Uint32Array(words);
    const out: MaskAgreement = {
      steps: Number(r.steps),
      refusedAt: r.refused === null ? null : Number(r.refused),
      maskDiffSteps: 0,
      peerStricterSteps: 0,
      peerLooserSteps: 0,
      firstStricter: null,
      firstLooser: null,
    };
    for (let i = 0; i < out.steps; i++) {
      ours.fillNextTokenBitmask(a);
      const onlyOurs: number[] = [],
        onlyPeer: number[] = [];
      let differs = false;
      for (let w = 0; w < words; w++) {
        const x = a[w]! ^ theirs[i * words + w]!;
        if (x === 0) continue;
        differs = true;
        for (let bit = 0; bit < 32; bit++) {
          const t = w * 32 + bit;
          if ((x >>> bit) & 1 && !known[t]) ((a[w]! >>> bit) & 1 ? onlyOurs : onlyPeer).push(t);
        }
      }
      if (differs) out.maskDiffSteps++;
      if (onlyOurs.length) {
        out.peerStricterSteps++;
        out.firstStricter ??= { step: i, n: onlyOurs.length, onlyOurs: onlyOurs.slice(0, 6).map(show) };
      }
      if (onlyPeer.length) {
        out.peerLooserSteps++;
        out.firstLooser ??= { step: i, n: onlyPeer.length, onlyPeer: onlyPeer.slice(0, 6).map(show) };
      }
      if (i < tokens.length && !ours.acceptToken(tokens[i]!)) break;
    }
    return out;
  } finally {
    rmSync(file, { force: true });
  }
}

/** compareNativeMasks with a fresh matcher of `grammar` over `vocab`, tokens shown by their text. */
export function compareWithGrammar(
  peer: NativePeer,
  id: string,
  grammar: Grammar,
  vocab: Vocabulary,
  tokens: readonly number[],
  known: Uint8Array,
): Promise<MaskAgreement> {
  const show = (t: number) => `${t}:${JSON.stringify(new TextDecoder().decode(vocab.tokenBytes(t)))}`;
  return compareNativeMasks(peer, id, compileGrammar(grammar, vocab).createMatcher(), tokens, known, show);
}
