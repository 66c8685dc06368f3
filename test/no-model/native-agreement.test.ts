// The mask comparison `toolmask bench --peers` and bench:mask make against a native engine
// (src/bench/native-agreement.ts), on an engine stand-in whose masks are written as the adapter
// writes them (little-endian int32 words per step): equal masks agree, a looser or stricter one is
// counted with its first example, and differences known by construction (tokens that are not
// text, padding bits) are not counted.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileGrammar, literal, seq, alt } from "../../src/index.js";
import { compareWithGrammar, knownDifferences } from "../../src/bench/native-agreement.js";
import type { NativePeer } from "../../src/bench/native-peers.js";
import { TokenKind } from "../../src/vocab/types.js";
import { qwen3 } from "../support/vocabs.js";

const grammar = { root: seq(literal("ab"), alt(literal("c"), literal("d"))) };

/** An engine whose mask at each step is ours, passed through `edit`. */
function engine(edit: (mask: Uint32Array, step: number) => void): NativePeer {
  const vocab = qwen3();
  return {
    name: "stand-in",
    version: "0",
    vocabSize: vocab.size,
    tokenizerMs: 0,
    importMs: 0,
    async request(req) {
      const tokens = req.tokens as number[];
      const m = compileGrammar(grammar, vocab).createMatcher();
      const out: Uint32Array[] = [];
      for (let i = 0; i <= tokens.length; i++) {
        const a = new Uint32Array(vocab.bitmaskWords);
        m.fillNextTokenBitmask(a);
        edit(a, i);
        out.push(a);
        if (i < tokens.length) m.acceptToken(tokens[i]!);
      }
      writeFileSync(req.path as string, Buffer.concat(out.map((a) => Buffer.from(a.buffer))));
      return { steps: out.length, refused: null };
    },
    async close() {},
    kill() {},
  };
}

describe("compareNativeMasks", () => {
  const vocab = qwen3();
  const id = (piece: string) => vocab.idOfPiece(piece)!;
  const walk = [id("ab"), id("c")];
  const known = knownDifferences(vocab);

  it("knows the tokens that are not text and the padding bits, and no ordinary token", () => {
    const special = [...Array(vocab.size).keys()].find((t) => vocab.kind(t) !== TokenKind.Normal)!;
    expect(known[special]).toBe(1);
    expect(known[id("ab")]).toBe(0);
    expect(known.length).toBe(vocab.bitmaskWords * 32);
    if (vocab.size < known.length) expect(known[vocab.size]).toBe(1);
  });

  it("equal masks agree at every step", async () => {
    const r = await compareWithGrammar(
      engine(() => {}),
      "g",
      grammar,
      vocab,
      walk,
      known,
    );
    expect(r).toMatchObject({ steps: 3, refusedAt: null, maskDiffSteps: 0, peerStricterSteps: 0, peerLooserSteps: 0 });
  });

  it("a token only the engine allows is looser, one only we allow stricter, each with its first example", async () => {
    const d = id("d"),
      c = id("c");
    const set = (a: Uint32Array, t: number, on: boolean) => {
      if (on) a[t >>> 5]! |= 1 << (t & 31);
      else a[t >>> 5]! &= ~(1 << (t & 31));
    };
    const looser = await compareWithGrammar(
      engine((a, step) => {
        if (step === 0) set(a, d, true);
      }),
      "g",
      grammar,
      vocab,
      walk,
      known,
    );
    expect(looser).toMatchObject({
      maskDiffSteps: 1,
      peerLooserSteps: 1,
      peerStricterSteps: 0,
      firstLooser: { step: 0, n: 1, onlyPeer: [`${d}:"d"`] },
    });
    const stricter = await compareWithGrammar(
      engine((a, step) => {
        if (step === 1) set(a, c, false);
      }),
      "g",
      grammar,
      vocab,
      walk,
      known,
    );
    expect(stricter).toMatchObject({
      maskDiffSteps: 1,
      peerStricterSteps: 1,
      peerLooserSteps: 0,
      firstStricter: { step: 1, n: 1, onlyOurs: [`${c}:"c"`] },
    });
  });

  it("a difference on a token known by construction is a differing step, not a stricter or looser one", async () => {
    const special = [...Array(vocab.size).keys()].find((t) => vocab.kind(t) === TokenKind.Special)!;
    const r = await compareWithGrammar(
      engine((a) => {
        a[special >>> 5]! |= 1 << (special & 31);
      }),
      "g",
      grammar,
      vocab,
      walk,
      known,
    );
    expect(r).toMatchObject({ maskDiffSteps: 3, peerStricterSteps: 0, peerLooserSteps: 0 });
  });
});
