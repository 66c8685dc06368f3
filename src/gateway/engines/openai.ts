// Any OpenAI-compatible server that takes no grammar (POST /v1/chat/completions with the request's
// own tools): nothing is enforced there, so the answer is only verified here: its calls are
// checked against the request's tools (verify-calls.ts), and its content is read by the dialect's
// parser when the model's dialect is known (a call an engine failed to parse and left as markup
// in the content is found there). The enforcement is "verify-only".
import { defined, samplingOf } from "./sampling.js";
import { endOfChoice, endOfStream, finishOf, usageOnlyEnd } from "./openai-shapes.js";
import {
  isObj,
  UpstreamProtocolError,
  type Obj,
  type CallDelta,
  type EngineAdapter,
  type UpstreamPiece,
} from "./types.js";

function callDeltas(v: unknown): CallDelta[] | undefined {
  if (!Array.isArray(v)) return undefined;
  return v.map((c, i) => {
    const f = isObj(c) && isObj(c.function) ? c.function : {};
    return defined({
      index: isObj(c) && typeof c.index === "number" ? c.index : i,
      id: isObj(c) && typeof c.id === "string" ? c.id : undefined,
      name: typeof f.name === "string" ? f.name : undefined,
      arguments:
        typeof f.arguments === "string"
          ? f.arguments
          : f.arguments !== undefined
            ? JSON.stringify(f.arguments)
            : undefined,
    }) as unknown as CallDelta;
  });
}

function pieceOf(m: Obj): Omit<UpstreamPiece, "end"> {
  const calls = callDeltas(m.tool_calls);
  const reasoning =
    typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : "";
  return {
    text: typeof m.content === "string" ? m.content : "",
    ...(reasoning ? { reasoning } : {}),
    ...(calls?.length ? { callDeltas: calls } : {}),
  };
}

function choiceOf(body: unknown, what: string): Obj {
  const choice = isObj(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObj(choice)) throw new UpstreamProtocolError("openai", `${what} has no choices[0]`);
  return choice;
}

export const openaiCompatible: EngineAdapter = {
  name: "openai",
  healthPath: "/v1/models",
  request(ctx) {
    const s = samplingOf(ctx);
    const o = ctx.options;
    const body = defined({
      model: ctx.upstreamModel,
      messages: o.messages,
      tools: o.tools?.length ? o.tools : undefined,
      tool_choice: o.tools?.length ? o.toolChoice : undefined,
      parallel_tool_calls: o.tools?.length ? o.parallelToolCalls : undefined,
      max_tokens: s.maxTokens,
      temperature: s.temperature,
      top_p: s.topP,
      top_k: s.topK,
      min_p: s.minP,
      seed: s.seed,
      stop: s.stop.length ? s.stop : undefined,
      logit_bias: s.logitBias.length ? Object.fromEntries(s.logitBias) : undefined,
      stream: ctx.stream,
      stream_options: ctx.stream ? { include_usage: true } : undefined,
    });
    return { request: { path: "/v1/chat/completions", body }, grammar: undefined };
  },
  readBody(body): UpstreamPiece {
    const choice = choiceOf(body, "the chat-completions answer");
    if (!isObj(choice.message)) throw new UpstreamProtocolError("openai", "the answer has no choices[0].message");
    return { ...pieceOf(choice.message), end: endOfChoice(choice, (body as Obj).usage) };
  },
  readEvent(data, state): UpstreamPiece {
    const last = usageOnlyEnd(data, state);
    if (last) return { text: "", ...last };
    const choice = choiceOf(data, "a chat-completions stream event");
    const piece = pieceOf(isObj(choice.delta) ? choice.delta : {});
    const end = finishOf(choice, data, state);
    return end ? { ...piece, end } : piece;
  },
  endOfStream,
};
