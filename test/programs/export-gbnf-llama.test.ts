// The GBNF export, checked by llama.cpp's own grammar engine: node-llama-cpp's prebuilt libllama
// (the code llama-server and node-llama-cpp run) parses every dialect's exported grammar, and its
// GBNF sampler, over Qwen3's vocabulary, allows exactly the tokens our native matcher allows at
// every step of random walks — the one exception being special tokens, which llama.cpp also lets
// match by their text where characters are expected (see src/grammar/export/gbnf.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildToolGrammar,
  charClass,
  compileGrammar,
  dialects,
  getDialect,
  literal,
  seq,
  star,
  TokenKind,
  toGbnf,
  type DialectSpec,
  type Vocabulary,
} from "../../src/index.js";
import { callTriggerOf, triggerOf, type Glue } from "../../src/dialects/spec.js";
import { startLlamaGrammar, type LlamaGrammarOracle } from "../support/llama-grammar.js";
import { rng, Tokenizations } from "../support/tokenize.js";
import { FILE_TOOLS, TYPED_TOOLS } from "../support/tools.js";
import { allowedIds, qwen3 } from "../support/vocabs.js";

const WALKS = 3;
// A typed call can take ~200 tokens: GLM's glue costs ~25 tokens an argument, and the walk's
// longest-piece choice writes the long optional names (options, enabled) before "label".
const MAX_STEPS = 250;
const FULL_MASKS = 6;

let v: Vocabulary;
let oracle: LlamaGrammarOracle;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let llama: any;
beforeAll(async () => {
  v = qwen3();
  blankIds = new Set(
    Array.from({ length: v.size }, (_, i) => i).filter((id) =>
      v.tokenBytes(id).every((b) => b === 0x20 || b === 0x0a || b === 0x09 || b === 0x0d),
    ),
  );
  closers = new Set(['"', "}", "]", "<", "</"].map((c) => v.idOfPiece(c)).filter((id) => id !== undefined));
  specialIds = Array.from({ length: v.size }, (_, i) => i).filter(
    (id) => v.kind(id) === TokenKind.Special || v.kind(id) === TokenKind.EndOfGeneration,
  );
  oracle = await startLlamaGrammar();
  const nlc = await import("node-llama-cpp");
  llama = await nlc.getLlama({ gpu: false, build: "never", logLevel: "error" as never });
});
afterAll(async () => {
  oracle?.close();
  await llama?.dispose();
});

const show = (ids: number[]) =>
  ids
    .slice(0, 8)
    .map((id) => `${id} ${JSON.stringify(v.piece(id))}`)
    .join(", ");
const allows = (mask: Uint32Array, id: number) => ((mask[id >>> 5]! >>> (id & 31)) & 1) === 1;

/**
 * Both engines allow the same tokens among `ids`, with two differences that are llama.cpp's and
 * that no GBNF text can remove: its sampler refuses every token whose text starts with a NUL byte
 * (llama_grammar_apply_impl: `piece[0] == 0`; Qwen3's token 188 is the byte 0x00), and it lets
 * special tokens match by their text where characters are expected.
 */
function expectSame(
  ids: Iterable<number>,
  ours: Uint32Array,
  theirs: (id: number) => boolean,
  where: () => string,
  superset = false,
): void {
  const onlyOurs: number[] = [],
    onlyLlama: number[] = [];
  for (const id of ids) {
    const a = allows(ours, id),
      b = theirs(id);
    if (a && !b && v.tokenBytes(id)[0] !== 0) onlyOurs.push(id);
    if (b && !a && v.kind(id) !== TokenKind.Special && !superset) onlyLlama.push(id);
  }
  if (onlyOurs.length)
    expect(onlyOurs, `allowed by us, refused by llama.cpp ${where()}: ${show(onlyOurs)}`).toEqual([]);
  if (onlyLlama.length)
    expect(onlyLlama, `allowed by llama.cpp, refused by us ${where()}: ${show(onlyLlama)}`).toEqual([]);
}

/** A few hundred tokens to ask llama.cpp about: every special and end token, a sample of allowed and refused ones. */
function sampleIds(allowed: number[], r: () => number): number[] {
  const out = new Set<number>(specialIds);
  for (let i = 0; i < 150 && allowed.length; i++) out.add(allowed[Math.floor(r() * allowed.length)]!);
  for (let i = 0; i < 150; i++) out.add(Math.floor(r() * v.size));
  return [...out];
}
let specialIds: number[] = [];
let closers = new Set<number>();
/** Tokens of JSON whitespace only: walks mostly avoid them, or runs of blanks fill the walk. */
let blankIds = new Set<number>();

interface Config {
  label: string;
  tools: unknown[];
  toolChoice: "required" | "auto";
  parallelToolCalls: boolean;
}
const CONFIGS: Config[] = [
  { label: "file tools, required, one call", tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: false },
  { label: "typed tools, auto, parallel", tools: TYPED_TOOLS, toolChoice: "auto", parallelToolCalls: true },
];

/**
 * Random walks of our matcher, mirrored token by token in llama.cpp's sampler. At every step both
 * must agree on a sample of tokens (and on every token at FULL_MASKS random steps per grammar: a
 * full llama.cpp mask over Qwen3 costs 30-100 ms). Walks spell the trigger first (free text would
 * wander forever), take any allowed token, end where the grammar may end, and sometimes start
 * another call instead (early enough to finish it).
 */
async function walkBoth(
  spec: DialectSpec,
  options: object,
  seed: number,
  superset = false,
): Promise<{ finished: number; cutChecks: number; fullMasks: number }> {
  const grammar = buildToolGrammar(options as never);
  const gbnf = toGbnf(grammar, v);
  await expect(
    llama.createGrammar({ grammar: gbnf }),
    "node-llama-cpp's createGrammar parses it",
  ).resolves.toBeDefined();
  await oracle.load(gbnf);
  const m = compileGrammar(grammar, v).createMatcher();
  const mask = m.allocateBitmask();
  const eog = v.endOfGenerationIds;
  const r = rng(seed);
  const parallel = (options as { parallelToolCalls: boolean }).parallelToolCalls;
  let finished = 0,
    cutChecks = 0,
    fullMasks = 0;
  for (let w = 0; w < WALKS; w++) {
    m.reset();
    await oracle.reset();
    let spelling = Buffer.from(triggerOf(spec));
    let calls = 0;
    const text: number[] = [];
    for (let step = 0; step < MAX_STEPS && !m.isTerminated(); step++) {
      const t0 = performance.now();
      m.fillNextTokenBitmask(mask);
      const where = () =>
        `after ${JSON.stringify(Buffer.concat(text.map((id) => Buffer.from(v.tokenBytes(id)))).toString("utf8"))}`;
      const allowed = allowedIds(mask);
      if (fullMasks < FULL_MASKS && r() < 0.1) {
        const theirs = await oracle.mask();
        expectSame(
          Array.from({ length: v.size }, (_, i) => i),
          mask,
          (id) => allows(theirs, id),
          where,
          superset,
        );
        fullMasks++;
      } else {
        const ids = sampleIds(allowed, r);
        const theirs = await oracle.check(ids);
        expectSame(ids, mask, (id) => theirs.has(id), where, superset);
      }
      const t1 = performance.now();
      const ends = eog.filter((id) => allows(mask, id));
      if (ends.length === 0 && !spelling.length) cutChecks++; // a cut here: both refused to end (checked above)
      let id: number | undefined;
      if (spelling.length) {
        // The longest allowed token that spells more of the trigger.
        let best = -1;
        for (const a of allowed) {
          const b = v.tokenBytes(a);
          if (
            b.length > 0 &&
            b.length <= spelling.length &&
            Buffer.from(b).equals(spelling.subarray(0, b.length)) &&
            (best < 0 || b.length > v.tokenBytes(best).length)
          )
            best = a;
        }
        if (best >= 0) {
          id = best;
          spelling = spelling.subarray(v.tokenBytes(best).length);
        } else spelling = Buffer.alloc(0);
      }
      if (id === undefined && ends.length) {
        if (parallel && calls < 1 && step < MAX_STEPS / 3 && r() < 0.5) {
          calls++;
          spelling = Buffer.from(spec.section ? callTriggerOf(spec) : triggerOf(spec));
          continue;
        }
        id = ends[0]!;
      }
      // Later on, close strings, arrays, objects and XML elements (and start markers) where allowed, so walks end.
      const closing = step > 15 && r() < (step > 50 ? 0.9 : 0.6) ? allowed.filter((a) => closers.has(a)) : [];
      if (closing.length) id ??= closing[Math.floor(r() * closing.length)]!;
      // Few choices: a marker being spelled; the longest piece gets it done.
      if (id === undefined && allowed.length <= 64 && r() < 0.8)
        id = allowed.reduce((a, b) => (v.tokenBytes(b).length > v.tokenBytes(a).length ? b : a));
      if (id === undefined) {
        const texty = allowed.filter((a) => !blankIds.has(a));
        const from = texty.length && r() < 0.9 ? texty : allowed;
        id = from[Math.floor(r() * Math.min(from.length, r() < 0.5 ? 40 : from.length))]!;
      }
      expect(m.acceptToken(id)).toBe(true);
      if (!(await oracle.accept(id))) expect.fail(`llama.cpp refuses ${id} ${JSON.stringify(v.piece(id))} ${where()}`);
      text.push(id);
      if (process.env.WALK_TIMES === "2") console.log(step, (t1 - t0).toFixed(1), (performance.now() - t1).toFixed(1));
    }
    if (m.isTerminated()) finished++;
    if (process.env.WALK_TIMES)
      console.log(
        "WALK",
        m.isTerminated(),
        JSON.stringify(Buffer.concat(text.map((id) => Buffer.from(v.tokenBytes(id)))).toString("utf8")),
      );
  }
  return { finished, cutChecks, fullMasks };
}

/** A glue's text with every optional part present. */
const glueText = (g: Glue) => g.map((p) => (typeof p === "string" ? p : p.optional)).join("");

/**
 * A call to `name` as the dialect definition writes it, every optional part present: `lead` is
 * the text before the name, `start` runs up to the arguments, `close` follows them.
 */
function callText(spec: DialectSpec, name: string): { lead: string; start: string; args: string; close: string } {
  const c = spec.call;
  const section = (spec.section?.open ?? "") + (spec.section?.arrayOpen ?? "");
  const sectionClose = spec.section?.close ?? "";
  switch (c.kind) {
    case "json": {
      const lead = `${section}${glueText(c.open)}{"${c.nameKey}": "`;
      const id = c.id ? `, "${c.id.key}": "${"a".repeat(c.id.length)}"` : "";
      return {
        lead,
        start: `${lead}${name}", "${c.argsKey}": `,
        args: "{}",
        close: `${id}}${glueText(c.close)}${sectionClose}`,
      };
    }
    case "named": {
      const lead = section + glueText(c.open);
      return {
        lead,
        start: `${lead}${name}${c.nameClose}${c.index ? "0" : ""}${glueText(c.argsOpen ?? [])}`,
        args: "{}",
        close: glueText(c.close) + sectionClose,
      };
    }
    case "xml": {
      const lead = section + glueText(c.open);
      return { lead, start: lead + name + (c.nameClose ?? ""), args: "", close: glueText(c.close) + sectionClose };
    }
    case "python": {
      // LFM2: <|tool_call_start|>[NAME(…)]<|tool_call_end|>; no arguments: "(" then ")".
      const lead = section;
      return {
        lead,
        start: `${lead}${name}${c.nameClose}`,
        args: "",
        close: `)${sectionClose}${spec.section?.end ?? ""}`,
      };
    }
    case "envelope": {
      const lead = `{"${c.callsKey}": [{"${c.nameKey}": "`;
      return { lead, start: `${lead}${name}", "${c.argsKey}": `, args: "{}", close: "}]}" };
    }
    case "harmony": {
      // The recipient in the role header, as the template writes it: ` to=functions.NAME<|channel|>commentary json<|message|>`.
      const lead = glueText(c.open);
      return {
        lead,
        start: `${lead}${name}${c.channel}${c.channels.calls}${glueText(c.contentType)}${c.message}`,
        args: "{}",
        close: c.callEnd,
      };
    }
  }
}

/** Feeds the tokens to both engines; the index where each first refuses (tokens.length: end of generation refused). */
async function firstRefusal(options: object, tokens: number[]): Promise<{ ours: number | null; llama: number | null }> {
  const m = compileGrammar(buildToolGrammar(options as never), v).createMatcher();
  await oracle.reset();
  let ours: number | null = null,
    theirs: number | null = null;
  for (let i = 0; i < tokens.length; i++) {
    if (ours === null && !m.acceptToken(tokens[i]!)) ours = i;
    if (theirs === null && !(await oracle.accept(tokens[i]!))) theirs = i;
    if (ours !== null && theirs !== null) break;
  }
  const eog = v.endOfGenerationIds[0]!;
  if (ours === null && !m.acceptToken(eog)) ours = tokens.length;
  if (theirs === null && !(await oracle.accept(eog))) theirs = tokens.length;
  return { ours, llama: theirs };
}

describe("GBNF export → llama.cpp's grammar engine (Qwen3 vocabulary)", () => {
  it("llama.cpp reads the vocabulary exactly as we do (pieces and end-of-generation tokens)", async () => {
    const d = await oracle.vocab();
    expect(d.pieces.length).toBe(v.size);
    const wrong: string[] = [];
    for (let id = 0; id < v.size; id++) {
      if (v.kind(id) === TokenKind.Unused) continue;
      if (!d.pieces[id]!.equals(Buffer.from(v.tokenBytes(id))))
        wrong.push(`${id}: ${JSON.stringify(d.pieces[id]!.toString("latin1"))}`);
      if (d.eog[id] !== (v.kind(id) === TokenKind.EndOfGeneration)) wrong.push(`${id}: eog ${d.eog[id]}`);
    }
    expect(wrong.slice(0, 10)).toEqual([]);
  });

  it("refuses what is not GBNF, so a pass means the grammar was read", async () => {
    await expect(oracle.load('root ::= "a" undefined-rule\n')).rejects.toThrow(/llama_sampler_init_grammar failed/);
    await expect(llama.createGrammar({ grammar: 'root ::= "a\n' })).rejects.toThrow();
  });

  // The bug the walks found: with `[^\ud800-\udfff]` for "any character", llama.cpp refused every
  // token ending in byte 0xED (a partial U+D000-U+D7FF) because the class excludes the surrogates.
  it("a token that ends inside a multi-byte character is judged as our matcher judges it", async () => {
    const byteToken = (b: number) => {
      for (let id = 0; id < v.size; id++) {
        const t = v.tokenBytes(id);
        if (t.length === 1 && t[0] === b) return id;
      }
      throw new Error(`no single-byte token for 0x${b.toString(16)}`);
    };
    const [ed, x9f, xa0] = [0xed, 0x9f, 0xa0].map(byteToken) as [number, number, number];
    const g = { root: seq(star(charClass([[0, 0x10ffff]])), literal("!")) };
    await oracle.load(toGbnf(g, v));
    const m = compileGrammar(g, v).createMatcher();
    const mask = m.allocateBitmask();
    m.fillNextTokenBitmask(mask);
    expect([allows(mask, ed), (await oracle.check([ed])).has(ed)]).toEqual([true, true]);
    expect(m.acceptToken(ed) && (await oracle.accept(ed))).toBe(true);
    // ED 9F .. is U+D7C0-U+D7FF (allowed); ED A0 .. would be a surrogate (refused by both).
    m.fillNextTokenBitmask(mask);
    const theirs = await oracle.check([x9f, xa0]);
    expect([allows(mask, x9f), theirs.has(x9f), allows(mask, xa0), theirs.has(xa0)]).toEqual([
      true,
      true,
      false,
      false,
    ]);
  });

  for (const dialect of dialects) {
    describe(dialect, () => {
      CONFIGS.forEach((c, k) => {
        it(`${c.label}: llama.cpp allows exactly our tokens along random walks`, async () => {
          const spec = getDialect(dialect);
          const options = {
            dialect,
            tools: c.tools,
            toolChoice: c.toolChoice,
            parallelToolCalls: c.parallelToolCalls,
            maxValueLength: 12,
          };
          const { finished, cutChecks, fullMasks } = await walkBoth(spec, options, 1000 * k + dialect.length);
          expect(finished).toBeGreaterThan(0);
          expect(cutChecks).toBeGreaterThan(0);
          expect(fullMasks).toBeGreaterThan(0);
        });
      });

      it("both refuse an undeclared name and a call closed before its required arguments, at the same token", async () => {
        const spec = getDialect(dialect);
        const options = { dialect, tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: false };
        await oracle.load(toGbnf(buildToolGrammar(options as never), v));
        const tok = new Tokenizations(v);
        const r = rng(dialect.length);
        const bytes = (t: string) => Buffer.byteLength(t);
        const nope = callText(spec, "nope"),
          write = callText(spec, "write");
        // Each text, and the byte before which neither engine may refuse it (the refusing token
        // must reach past it): an undeclared name is refused in the name, an empty call at its
        // arguments, a call cut after its name at the end of generation.
        const cases: Array<[string, number]> = [
          [nope.start, bytes(nope.lead)],
          [write.start + write.args + write.close, bytes(write.start)],
          [write.start, Infinity],
        ];
        for (const [text, notBefore] of cases) {
          for (let t = 0; t < 3; t++) {
            const tokens = tok.random(text, r);
            const got = await firstRefusal(options, tokens);
            expect(got.ours, `our matcher accepts ${JSON.stringify(text)}`).not.toBeNull();
            const reached = tokens.slice(0, got.ours! + 1).reduce((n, id) => n + v.tokenBytes(id).length, 0);
            if (notBefore === Infinity)
              expect(got.ours, `${JSON.stringify(text)} refused before its end`).toBe(tokens.length);
            else
              expect(
                reached,
                `${JSON.stringify(text)} refused at token ${got.ours}, before byte ${notBefore}`,
              ).toBeGreaterThan(notBefore);
            expect(got.llama, JSON.stringify(text)).toBe(got.ours);
          }
        }
      });
    });
  }

  // llama.cpp also matches a special token by its text where characters are expected, and keeps
  // both readings: after `<|box_start|>` its state is "in the call" or "still in free text". So a
  // dialect whose markers are special tokens is looser in llama.cpp than in our mask: every token
  // we allow, it allows (checked here), but it also lets the marker be read as text (not checked).
  it("special-token markers become <[id]> terminals; llama.cpp allows every token we allow", async () => {
    const hermes = getDialect("hermes");
    if (hermes.call.kind !== "json") throw new Error("hermes is a JSON dialect");
    // Qwen3's <|box_start|> / <|box_end|> are special tokens: a dialect built on them.
    const spec: DialectSpec = {
      ...hermes,
      name: "hermes-box",
      call: { ...hermes.call, open: ["<|box_start|>", { optional: "\n" }], close: [{ optional: "\n" }, "<|box_end|>"] },
    };
    const options = { dialect: spec, tools: FILE_TOOLS, toolChoice: "required", parallelToolCalls: false };
    const gbnf = toGbnf(buildToolGrammar(options as never), v);
    expect(gbnf).toContain(`<[${v.idOfPiece("<|box_start|>")}]>`);
    expect(gbnf).toContain(`<[${v.idOfPiece("<|box_end|>")}]>`);
    const { finished } = await walkBoth(spec, options, 7, true);
    expect(finished).toBeGreaterThan(0);
  });
});
