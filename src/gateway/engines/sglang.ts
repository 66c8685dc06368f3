// SGLang, on its native route POST /generate (no tool parser touches the text): the prompt
// rendered here in `text`, the grammar in `sampling_params.ebnf` (XGrammar's EBNF for its default
// backend, Lark for `--grammar-backend llguidance`), `skip_special_tokens: false` so marker tokens
// stay in the text and `no_stop_trim: true` so an end token's text is not trimmed. Streamed events
// carry the text so far (SGLang's default; a server started with --incremental-streaming-output is
// refused by the check below). SGLang does not echo the grammar: the enforcement is "sent".
import { grammarText, type GrammarSyntax } from "./grammar-text.js";
import { defined, samplingOf } from "./sampling.js";
import {
  isObj,
  UpstreamProtocolError,
  type Obj,
  type EngineAdapter,
  type UpstreamEnd,
  type UpstreamPiece,
} from "./types.js";

function endOf(meta: Obj): UpstreamEnd | undefined {
  const reason = meta.finish_reason;
  if (reason === null || reason === undefined) return undefined;
  const type = isObj(reason) ? reason.type : reason;
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  if (type === "abort")
    throw new UpstreamProtocolError(
      "sglang",
      `the generation was aborted: ${JSON.stringify(isObj(reason) ? reason.message : reason)}`,
    );
  return {
    finish: type === "length" ? "length" : "stop",
    promptTokens: num(meta.prompt_tokens),
    completionTokens: num(meta.completion_tokens),
    appliedGrammar: undefined,
    tokens: undefined,
  };
}

function parts(data: unknown, what: string): { text: string; meta: Obj } {
  if (!isObj(data) || typeof data.text !== "string")
    throw new UpstreamProtocolError("sglang", `${what} has no string \`text\``);
  return { text: data.text, meta: isObj(data.meta_info) ? data.meta_info : {} };
}

export function sglang(syntax: GrammarSyntax = "ebnf"): EngineAdapter {
  return {
    name: "sglang",
    takesGrammar: true,
    healthPath: "/health",
    requestPath: "/generate",
    request(ctx) {
      const s = samplingOf(ctx);
      const grammar = ctx.chat.ir ? grammarText(ctx.chat.ir, ctx.vocabulary, syntax) : undefined;
      const sampling = defined({
        max_new_tokens: s.maxTokens,
        temperature: s.temperature,
        top_k: s.topK,
        top_p: s.topP,
        min_p: s.minP,
        repetition_penalty: s.repeatPenalty,
        sampling_seed: s.seed,
        stop: s.stop.length ? s.stop : undefined,
        logit_bias: s.logitBias.length ? Object.fromEntries(s.logitBias.map(([id, b]) => [String(id), b])) : undefined,
        skip_special_tokens: false,
        spaces_between_special_tokens: false,
        no_stop_trim: true,
        ebnf: grammar,
      });
      return {
        request: { path: "/generate", body: { text: ctx.chat.prompt, sampling_params: sampling, stream: ctx.stream } },
        grammar,
      };
    },
    readBody(body): UpstreamPiece {
      const { text, meta } = parts(body, "the /generate answer");
      const end = endOf(meta);
      if (!end) throw new UpstreamProtocolError("sglang", "the /generate answer has no meta_info.finish_reason");
      return { text, end };
    },
    readEvent(data, state): UpstreamPiece {
      const { text, meta } = parts(data, "a /generate stream event");
      if (!text.startsWith(state.text))
        throw new UpstreamProtocolError(
          "sglang",
          "a stream event's text does not continue the text so far; run SGLang without --incremental-streaming-output",
        );
      const end = endOf(meta);
      const delta = text.slice(state.text.length);
      return end ? { text: delta, end } : { text: delta };
    },
  };
}
