// vLLM, on its raw-completion route POST /v1/completions (no tool parser touches the text): the
// prompt rendered here, the grammar in `structured_outputs.grammar` (docs.vllm.ai, structured outputs; the former
// `guided_grammar` was removed in 0.12.0, and vLLM ignores fields it does not know, so a wrong name
// would decode unconstrained), `skip_special_tokens: false` so marker tokens stay in the text.
// vLLM does not echo the grammar it applied: the enforcement is "sent", and the parser's verdict
// says whether the answer kept to it.
import { grammarText, type GrammarSyntax } from "./grammar-text.js";
import { defined, samplingOf } from "./sampling.js";
import { endOfChoice, endOfStream, finishOf, usageOnlyEnd } from "./openai-shapes.js";
import { isObj, UpstreamProtocolError, type Obj, type EngineAdapter, type UpstreamPiece } from "./types.js";

function choiceOf(body: unknown, what: string): Obj {
  const choice = isObj(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObj(choice) || typeof choice.text !== "string")
    throw new UpstreamProtocolError("vllm", `${what} has no choices[0].text`);
  return choice;
}

export function vllm(syntax: GrammarSyntax = "ebnf"): EngineAdapter {
  return {
    name: "vllm",
    takesGrammar: true,
    healthPath: "/health",
    requestPath: "/v1/completions",
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
      return { text: choice.text as string, end: endOfChoice(choice, (body as Obj).usage) };
    },
    readEvent(data, state): UpstreamPiece {
      const last = usageOnlyEnd(data, state);
      if (last) return { text: "", ...last };
      const choice = choiceOf(data, "a /v1/completions stream event");
      const end = finishOf(choice, data, state);
      return end ? { text: choice.text as string, end } : { text: choice.text as string };
    },
    endOfStream,
  };
}
