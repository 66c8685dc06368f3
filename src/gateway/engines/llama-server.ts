// llama.cpp's llama-server, on its raw-completion route POST /completion (no chat parser touches
// the text): the prompt rendered here, our GBNF in `grammar` (markers as `<[id]>` tokens of this
// vocabulary), and the texts of those tokens in `preserved_tokens`, so the server writes them into
// `content` instead of dropping them as special. The response echoes the grammar it applied in
// generation_settings.grammar: compared with the one sent, the enforcement is "confirmed".
// Fields as in tools/server/server-schema.cpp of the llama.cpp that node-llama-cpp bundles.
import { toGbnf } from "../../grammar/export/gbnf.js";
import type { Vocabulary } from "../../vocab/vocabulary.js";
import { defined, samplingOf } from "./sampling.js";
import { UpstreamProtocolError, type EngineAdapter, type UpstreamEnd, type UpstreamPiece } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The texts of the special tokens a GBNF names as `<[id]>`. */
export function tokenTexts(gbnf: string, vocabulary: Vocabulary): string[] {
  const ids = new Set<number>();
  for (const m of gbnf.matchAll(/<\[(\d+)\]>/g)) ids.add(Number(m[1]));
  const utf8 = new TextDecoder();
  return [...ids].filter((id) => id < vocabulary.size).map((id) => utf8.decode(vocabulary.tokenBytes(id)));
}

function endOf(body: Obj): UpstreamEnd {
  const settings = isObj(body.generation_settings) ? body.generation_settings : {};
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    // stop_type: "eos" (an end token), "word" (a stop string), "limit" (n_predict), "none"
    finish: body.stop_type === "limit" ? "length" : "stop",
    promptTokens: num(body.tokens_evaluated),
    completionTokens: num(body.tokens_predicted),
    appliedGrammar: typeof settings.grammar === "string" ? settings.grammar : undefined,
    tokens: Array.isArray(body.tokens) && body.tokens.every((t) => typeof t === "number") ? body.tokens : undefined,
  };
}

export const llamaServer: EngineAdapter = {
  name: "llama-server",
  healthPath: "/health",
  request(ctx) {
    const s = samplingOf(ctx);
    const grammar = ctx.chat.ir ? toGbnf(ctx.chat.ir, ctx.vocabulary) : undefined;
    const body = defined({
      prompt: ctx.chat.prompt,
      n_predict: s.maxTokens,
      temperature: s.temperature,
      top_k: s.topK,
      top_p: s.topP,
      min_p: s.minP,
      repeat_penalty: s.repeatPenalty,
      seed: s.seed,
      stop: s.stop.length ? s.stop : undefined,
      logit_bias: s.logitBias.length ? s.logitBias : undefined,
      stream: ctx.stream,
      cache_prompt: true,
      return_tokens: true,
      grammar,
      preserved_tokens: grammar ? tokenTexts(grammar, ctx.vocabulary) : undefined,
    });
    return { request: { path: "/completion", body }, grammar };
  },
  readBody(body): UpstreamPiece {
    if (!isObj(body) || typeof body.content !== "string")
      throw new UpstreamProtocolError("llama-server", "the /completion answer has no string `content`");
    return { text: body.content, end: endOf(body) };
  },
  readEvent(data): UpstreamPiece {
    if (!isObj(data) || typeof data.content !== "string")
      throw new UpstreamProtocolError("llama-server", "a /completion stream event has no string `content`");
    return data.stop === true ? { text: data.content, end: endOf(data) } : { text: data.content };
  },
};
