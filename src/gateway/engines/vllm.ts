// vLLM, on its raw-completion route POST /v1/completions (no tool parser touches the text): the
// prompt rendered here, the grammar in `structured_outputs.grammar` (vLLM >= 0.10.2; the former
// `guided_grammar` was removed in 0.12.0, and vLLM ignores fields it does not know, so a wrong name
// would decode unconstrained), `skip_special_tokens: false` so marker tokens stay in the text.
// vLLM does not echo the grammar it applied: the enforcement is "sent", and the parser's verdict
// says whether the answer kept to it.
import { grammarText, type GrammarSyntax } from "./grammar-text.js";
import { defined, samplingOf } from "./sampling.js";
import { UpstreamProtocolError, type EngineAdapter, type UpstreamEnd, type UpstreamPiece } from "./types.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

function endOf(choice: Obj, usage: unknown): UpstreamEnd {
  const u = isObj(usage) ? usage : {};
  const num = (v: unknown) => (typeof v === "number" ? v : undefined);
  return {
    finish: choice.finish_reason === "length" ? "length" : "stop",
    promptTokens: num(u.prompt_tokens),
    completionTokens: num(u.completion_tokens),
    appliedGrammar: undefined,
    tokens: undefined,
  };
}

function choiceOf(body: unknown, what: string): Obj {
  const choice = isObj(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObj(choice) || typeof choice.text !== "string")
    throw new UpstreamProtocolError("vllm", `${what} has no choices[0].text`);
  return choice;
}

export function vllm(syntax: GrammarSyntax = "ebnf"): EngineAdapter {
  return {
    name: "vllm",
    healthPath: "/health",
    request(ctx) {
      const s = samplingOf(ctx);
      const grammar = ctx.chat.ir ? grammarText(ctx.chat.ir, ctx.vocabulary, syntax) : undefined;
      const body = defined({
        model: ctx.upstreamModel,
        prompt: ctx.chat.prompt,
        max_tokens: s.maxTokens,
        temperature: s.temperature,
        top_k: s.topK,
        top_p: s.topP,
        min_p: s.minP,
        repetition_penalty: s.repeatPenalty,
        seed: s.seed,
        stop: s.stop.length ? s.stop : undefined,
        logit_bias: s.logitBias.length ? Object.fromEntries(s.logitBias) : undefined,
        stream: ctx.stream,
        stream_options: ctx.stream ? { include_usage: true } : undefined,
        skip_special_tokens: false,
        spaces_between_special_tokens: false,
        structured_outputs: grammar !== undefined ? { grammar } : undefined,
      });
      return { request: { path: "/v1/completions", body }, grammar };
    },
    readBody(body): UpstreamPiece {
      const choice = choiceOf(body, "the /v1/completions answer");
      return { text: choice.text as string, end: endOf(choice, (body as Obj).usage) };
    },
    readEvent(data, state): UpstreamPiece {
      // With include_usage the last event has no choices, only the usage.
      if (isObj(data) && Array.isArray(data.choices) && data.choices.length === 0) {
        const pending = isObj(state.finish) ? state.finish : undefined;
        return pending ? { text: "", end: endOf(pending, data.usage) } : { text: "" };
      }
      const choice = choiceOf(data, "a /v1/completions stream event");
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        state.finish = choice;
        const usage = (data as Obj).usage;
        if (isObj(usage)) return { text: choice.text as string, end: endOf(choice, usage) };
      }
      return { text: choice.text as string };
    },
    endOfStream(state) {
      return isObj(state.finish) ? endOf(state.finish, undefined) : undefined;
    },
  };
}
