// The request bodies the gateway sends vLLM and SGLang, which cannot run here (no GPU, no CPU
// build): their fields are held to the engines' documented request schemas, and the grammars they
// carry are run by the engines' own grammar backends: llguidance (vLLM's `guidance`, SGLang's
// `llguidance`) parses the Lark body and XGrammar 0.2.8 (their default) the EBNF body, each fed
// token by token our matcher's random walks (all must be accepted to their end) and mutations of
// them (a token our matcher refuses, put in a walk: the engine must refuse it at that position).
// llguidance runs in npm test; XGrammar (5.9 GB with torch) with TOOLMASK_PEERS=llguidance,xgrammar
// after `npm run pyenv -- xgrammar`.
import { dirname } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileGrammar, TokenKind, type Vocabulary } from "../../src/index.js";
import { prepareChat, type ChatModel } from "../../src/engine/prepare-chat.js";
import { loadModelSource } from "../../src/gateway/model-source.js";
import { llamaServer, llamaServerEngine } from "../../src/gateway/engines/llama-server.js";
import { toGbnf } from "../../src/grammar/export/gbnf.js";
import { sglang } from "../../src/gateway/engines/sglang.js";
import { vllm } from "../../src/gateway/engines/vllm.js";
import type { EngineAdapter } from "../../src/gateway/engines/types.js";
import type { GenerateOptions } from "../../src/engine/generate-options.js";
import { openPeer, peerHint, peerPython, type MaskPeer, type PeerName } from "../../scripts/lib/mask-peers.mjs";
import { FILE_TOOLS } from "../support/tools.js";
import { QWEN3_TOKENIZER } from "../support/vocabs.js";

const inCi = process.env.CI === "true";
const RUN = (process.env.TOOLMASK_PEERS ?? "llguidance").split(",") as PeerName[];

// vLLM's CompletionRequest fields (vllm/entrypoints/openai/protocol.py, 0.12) that the gateway may set.
const VLLM_FIELDS = new Set([
  "model",
  "prompt",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "repetition_penalty",
  "seed",
  "stop",
  "logit_bias",
  "stream",
  "stream_options",
  "skip_special_tokens",
  "spaces_between_special_tokens",
  "structured_outputs",
]);
// SGLang's SamplingParams (python/sglang/srt/sampling/sampling_params.py) the gateway may set.
const SGLANG_SAMPLING = new Set([
  "max_new_tokens",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "repetition_penalty",
  "sampling_seed",
  "stop",
  "logit_bias",
  "skip_special_tokens",
  "spaces_between_special_tokens",
  "no_stop_trim",
  "ebnf",
]);

let model: ChatModel;
beforeAll(() => {
  model = loadModelSource(dirname(QWEN3_TOKENIZER), () => {});
});

const request = (tools: boolean, extra: Partial<GenerateOptions> = {}): GenerateOptions => ({
  messages: [{ role: "user", content: "Read /etc/hosts" }],
  ...(tools ? { tools: FILE_TOOLS, toolChoice: "required" as const } : {}),
  temperature: 0,
  maxTokens: 64,
  ...extra,
});

function body(engine: EngineAdapter, options: GenerateOptions, stream = false) {
  const chat = prepareChat(model, options);
  return { chat, ...engine.request({ chat, options, vocabulary: model.vocabulary, stream, upstreamModel: "m" }) };
}

describe("the model read from a Hugging Face folder (tokenizer.json + tokenizer_config.json)", () => {
  it("has Qwen3's vocabulary, template and dialect", () => {
    expect(model.vocabulary.size).toBeGreaterThan(150_000);
    expect(model.chatTemplate).toContain("<tool_call>");
    expect(model.dialect).toBe("hermes");
    expect(model.eosToken).toBe("<|im_end|>");
  });
});

describe("vLLM: POST /v1/completions", () => {
  it("carries the prompt, the grammar in structured_outputs.grammar, special tokens kept, only documented fields", () => {
    const b = body(vllm(), request(true), true);
    expect(b.request.path).toBe("/v1/completions");
    expect(Object.keys(b.request.body).filter((k) => !VLLM_FIELDS.has(k))).toEqual([]);
    expect(b.request.body).toMatchObject({
      model: "m",
      prompt: b.chat.prompt,
      max_tokens: 64,
      temperature: 0,
      seed: 0,
      stream: true,
      stream_options: { include_usage: true },
      skip_special_tokens: false,
      structured_outputs: { grammar: b.grammar },
    });
    expect(b.grammar).toMatch(/^root ::= /m);
    // the fields vLLM 0.12 removed: it ignores unknown fields, so sending them would decode unconstrained
    expect(JSON.stringify(b.request.body)).not.toMatch(/guided_/);
  });
  it("sends a grammar whenever generate() would mask (also with no tools: the template's dialect), none with mask off", () => {
    expect(body(vllm(), request(false)).request.body.structured_outputs).toMatchObject({ grammar: /root ::= / });
    expect(body(vllm(), request(true, { mask: false })).request.body.structured_outputs).toBeUndefined();
  });
  it("reads a whole answer and a stream's events, usage from the last one", () => {
    const e = vllm();
    expect(
      e.readBody({
        choices: [{ text: "hi", finish_reason: "length" }],
        usage: { prompt_tokens: 3, completion_tokens: 2 },
      }),
    ).toMatchObject({ text: "hi", end: { finish: "length", promptTokens: 3, completionTokens: 2 } });
    const state = { text: "" };
    expect(e.readEvent({ choices: [{ text: "a", finish_reason: null }] }, state)).toEqual({ text: "a" });
    expect(e.readEvent({ choices: [{ text: "b", finish_reason: "stop" }] }, state).end).toBeUndefined();
    expect(e.readEvent({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }, state).end).toMatchObject({
      finish: "stop",
      completionTokens: 2,
    });
    expect(() => e.readBody({ error: "x" })).toThrow(/choices\[0\]\.text/);
  });
});

describe("SGLang: POST /generate", () => {
  it("carries text, sampling_params.ebnf, special tokens kept and not trimmed, only documented fields", () => {
    const b = body(sglang(), request(true));
    expect(b.request.path).toBe("/generate");
    const sp = b.request.body.sampling_params as Record<string, unknown>;
    expect(Object.keys(sp).filter((k) => !SGLANG_SAMPLING.has(k))).toEqual([]);
    expect(b.request.body).toMatchObject({ text: b.chat.prompt, stream: false });
    expect(sp).toMatchObject({
      max_new_tokens: 64,
      skip_special_tokens: false,
      no_stop_trim: true,
      ebnf: b.grammar,
    });
  });
  it("reads the text-so-far stream as deltas, and refuses a stream that does not continue it", () => {
    const e = sglang();
    const state = { text: "" };
    const a = e.readEvent({ text: "ab", meta_info: { finish_reason: null } }, state);
    state.text += a.text;
    const b = e.readEvent(
      { text: "abc", meta_info: { finish_reason: { type: "length" }, completion_tokens: 3 } },
      state,
    );
    expect([a.text, b.text, b.end?.finish]).toEqual(["ab", "c", "length"]);
    expect(() => e.readEvent({ text: "x", meta_info: {} }, { text: "abc" })).toThrow(/incremental-streaming-output/);
  });
});

describe("llama-server: POST /completion", () => {
  it("tool_choice auto: a lazy grammar of the calls alone, triggered by the call's opening text (preserved)", () => {
    const b = body(llamaServer, request(true, { toolChoice: "auto" }));
    expect(b.request.body).toMatchObject({
      grammar_lazy: true,
      grammar_triggers: [{ type: 1, value: "<tool_call>" }], // common_grammar_trigger_type WORD
    });
    expect(b.request.body.preserved_tokens).toContain("<tool_call>");
    expect(b.grammar).toBe(body(llamaServer, request(true, { toolChoice: "required" })).grammar);
    // required, or lazy off: the whole grammar, not lazy
    expect(body(llamaServer, request(true)).request.body.grammar_lazy).toBeUndefined();
    const whole = body(llamaServerEngine({ lazy: false }), request(true, { toolChoice: "auto" }));
    expect(whole.request.body.grammar_lazy).toBeUndefined();
    expect(whole.grammar).toBe(toGbnf(whole.chat.ir!, model.vocabulary));
  });
  it("carries our GBNF and, as preserved_tokens, the texts of the special tokens it names", () => {
    const b = body(llamaServer, request(true));
    expect(b.request.path).toBe("/completion");
    expect(b.request.body).toMatchObject({
      prompt: b.chat.prompt,
      n_predict: 64,
      grammar: b.grammar,
      return_tokens: true,
    });
    const ids = [...b.grammar!.matchAll(/<\[(\d+)\]>/g)].map((m) => Number(m[1]));
    const texts = (b.request.body.preserved_tokens as string[]) ?? [];
    expect(texts.sort()).toEqual(
      [...new Set(ids)].map((id) => new TextDecoder().decode(model.vocabulary.tokenBytes(id))).sort(),
    );
  });
});

/** Our matcher's random walks over `chat`'s grammar, and one mutation per walk with the position it breaks at. */
function walksAndMutations(vocab: Vocabulary, chat: ReturnType<typeof prepareChat>) {
  const grammar = compileGrammar(chat.ir!, vocab);
  const walks = grammar
    .createMatcher()
    .randomWalks({ count: 24, seed: 3, maxTokens: 300, leaveProbability: 0.9, shortProbability: 0.9, probes: 8 })
    .filter((w) => w.terminated)
    .map((w) => w.tokens);
  const mutations: Array<{ walk: number[]; at: number }> = [];
  let seed = 11;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  for (const w of walks) {
    const at = Math.floor(rand() * (w.length - 1));
    const m = grammar.createMatcher();
    for (const t of w.slice(0, at)) m.acceptToken(t);
    for (let tries = 0; tries < 200; tries++) {
      const t = Math.floor(rand() * vocab.size);
      if (vocab.kind(t) !== TokenKind.Normal) continue;
      const probe = grammar.createMatcher();
      for (const x of w.slice(0, at)) probe.acceptToken(x);
      if (!probe.acceptToken(t)) {
        mutations.push({ walk: [...w.slice(0, at), t, ...w.slice(at + 1)], at });
        break;
      }
    }
  }
  return { walks, mutations };
}

/** The grammars the peers run: a required call in two dialects, and a response format's JSON (no tools). */
const CASES: Array<[string, GenerateOptions]> = [
  ...["hermes", "qwen3-coder"].map(
    (dialect) =>
      [`${dialect}, tool_choice required`, request(true, { dialect, maxValueLength: 12 })] as [string, GenerateOptions],
  ),
  [
    "hermes, a response format",
    request(false, {
      responseFormat: {
        type: "json_schema",
        schema: {
          type: "object",
          properties: {
            path: { type: "string", maxLength: 12 },
            n: { type: "integer", minimum: 0 },
            ok: { type: "boolean" },
          },
          required: ["path", "n"],
          additionalProperties: false,
        },
      },
    }),
  ],
];

const PEERS: Array<{
  peer: PeerName;
  syntax: "lark" | "ebnf";
  engines: Array<[string, EngineAdapter, (b: any) => string]>;
}> = [
  {
    peer: "llguidance",
    syntax: "lark",
    engines: [
      ["vLLM (guidance)", vllm("lark"), (b) => b.structured_outputs.grammar],
      ["SGLang (llguidance)", sglang("lark"), (b) => b.sampling_params.ebnf],
    ],
  },
  {
    peer: "xgrammar",
    syntax: "ebnf",
    engines: [
      ["vLLM (xgrammar)", vllm("ebnf"), (b) => b.structured_outputs.grammar],
      ["SGLang (xgrammar)", sglang("ebnf"), (b) => b.sampling_params.ebnf],
    ],
  },
];

for (const { peer: name, syntax, engines } of PEERS.filter((p) => RUN.includes(p.peer))) {
  const installed = peerPython(name) !== undefined;
  if (!installed && !inCi) console.warn(`gateway-bodies: ${name} skipped: ${peerHint(name)}`);
  describe.skipIf(!installed && !inCi)(`${name} runs the grammar the bodies carry`, () => {
    let peer: MaskPeer;
    beforeAll(async () => {
      if (!installed) throw new Error(`CI=true and ${name} is not installed: ${peerHint(name)}`);
      peer = await openPeer(name, QWEN3_TOKENIZER, [...model.vocabulary.endOfGenerationIds]);
    }, 120_000);
    afterAll(async () => {
      await peer?.close();
    });
    for (const [label, engine, grammarOf] of engines)
      for (const [what, options] of CASES)
        it(`${label}, ${what}: accepts our walks, refuses their mutations where we do`, async () => {
          const b = body(engine, options);
          const text = grammarOf(b.request.body);
          expect(text).toBe(b.grammar);
          const { walks, mutations } = walksAndMutations(model.vocabulary, b.chat);
          expect(walks.length).toBeGreaterThan(12);
          expect(mutations.length).toBeGreaterThan(walks.length / 2);
          const id = `${label}/${what}`;
          await peer.request({ op: "compile", id, grammar: { kind: syntax, text } });
          // A terminated walk ends with its end-of-generation token.
          expect(walks.every((w) => model.vocabulary.endOfGenerationIds.includes(w[w.length - 1]!))).toBe(true);
          const ok = await peer.request({ op: "accepts", id, walks: walks.map((w) => [...w]) });
          const bad = await peer.request({ op: "accepts", id, walks: mutations.map((m) => m.walk) });
          await peer.request({ op: "free", id });
          expect(walks.filter((_, k) => ok.refused[k] !== null || !ok.finished[k]).length).toBe(0);
          expect(
            mutations.filter((m, k) => bad.refused[k] !== m.at).map((m, k) => `${m.at} vs ${bad.refused[k]}`),
          ).toEqual([]);
        }, 300_000);
  });
}
