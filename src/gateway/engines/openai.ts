// Any OpenAI-compatible server that takes no grammar (POST /v1/chat/completions with the request's
// own tools): nothing is enforced there, so the answer is only verified here: its calls are
// checked against the request's tools (verify-calls.ts), and its content is read by the dialect's
// parser when the model's dialect is known (a call an engine failed to parse and left as markup
// in the content is found there). The enforcement is "verify-only". A call that gives a key twice
// (upstream-json.ts finds it at callsAt) is malformed, reported with its text as sent. A response
// format goes as the request's `response_format`; the content that comes back is verified against
// the schema in backend.ts.
import type { ResponseFormat } from "../../dialects/response-format.js";
import { defined, samplingOf } from "./sampling.js";
import { endOfChoice, endOfStream, finishOf, usageOnlyEnd } from "./openai-shapes.js";
import {
  isObj,
  UpstreamProtocolError,
  type Obj,
  type CallDelta,
  type CallsAsSent,
  type EngineAdapter,
  type UpstreamPiece,
} from "./types.js";

/** "a string", "an object", "null", … : what a JSON value is, for a reason. */
function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  const t = typeof v;
  return t === "object" ? "an object" : `a ${t}`;
}

/**
 * What is wrong with the shape of one call (a whole one, or a streamed fragment), if anything. A
 * call without `function` (or its name) is a fragment that carries nothing: verify-calls.ts reports
 * a call that ends without a name.
 */
function callShapeProblem(c: unknown): string | undefined {
  if (!isObj(c)) return `a call is ${kindOf(c)}, not an object`;
  if (c.function === undefined) return undefined;
  if (!isObj(c.function)) return `a call's function is ${kindOf(c.function)}, not an object`;
  const { name, arguments: args } = c.function;
  if (name !== undefined && name !== null && typeof name !== "string")
    return `a call's function.name is ${kindOf(name)}, not a string`;
  if (args !== undefined && args !== null && typeof args !== "string")
    return `a call's function.arguments is ${kindOf(args)}, not a string (the arguments' JSON text)`;
  return undefined;
}

/**
 * The calls of `v` (a message's or a delta's tool_calls): none when absent or null; an
 * UpstreamProtocolError when it is not an array; a call of the wrong shape is a fragment marked
 * malformed, so its call is reported invalid (verify-calls.ts), never dropped or rewritten.
 */
function callDeltas(v: unknown, where: string, calls: CallsAsSent | undefined): CallDelta[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v))
    throw new UpstreamProtocolError("openai", `${where}.tool_calls is ${kindOf(v)}, not an array of calls`);
  return v.map((c, i) => {
    const index = isObj(c) && typeof c.index === "number" ? c.index : i;
    const problem = calls?.malformed.get(i) ?? callShapeProblem(c);
    if (problem)
      return {
        index,
        malformed: { reason: problem, text: calls?.text(i) ?? (JSON.stringify(c) ?? "").slice(0, 2000) },
      };
    const f = isObj(c) && isObj(c.function) ? c.function : {};
    return defined({
      index,
      id: isObj(c) && typeof c.id === "string" ? c.id : undefined,
      name: typeof f.name === "string" ? f.name : undefined,
      arguments: typeof f.arguments === "string" ? f.arguments : undefined,
    }) as unknown as CallDelta;
  });
}

function pieceOf(m: Obj, where: string, sent: CallsAsSent | undefined): Omit<UpstreamPiece, "end"> {
  const calls = callDeltas(m.tool_calls, where, sent);
  if (m.content !== undefined && m.content !== null && typeof m.content !== "string")
    throw new UpstreamProtocolError("openai", `${where}.content is ${kindOf(m.content)}, not a string`);
  const reasoning =
    typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : "";
  return {
    text: typeof m.content === "string" ? m.content : "",
    ...(reasoning ? { reasoning } : {}),
    ...(calls?.length ? { callDeltas: calls } : {}),
  };
}

/** The library's response format in chat completions' `response_format` shape (absent: none). */
function responseFormatBody(f: ResponseFormat | undefined): Obj | undefined {
  if (f?.type === "json_object") return { type: "json_object" };
  if (f?.type !== "json_schema") return undefined;
  const { name, schema, strict } = f;
  return { type: "json_schema", json_schema: defined({ name: name ?? "response", schema, strict }) };
}

function choiceOf(body: unknown, what: string): Obj {
  const choice = isObj(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!isObj(choice)) throw new UpstreamProtocolError("openai", `${what} has no choices[0]`);
  return choice;
}

export const openaiCompatible: EngineAdapter = {
  name: "openai",
  takesGrammar: false,
  healthPath: "/v1/models",
  requestPath: "/v1/chat/completions",
  request(ctx) {
    const s = samplingOf(ctx);
    const o = ctx.options;
    const body = defined({
      model: ctx.upstreamModel,
      messages: o.messages,
      tools: o.tools?.length ? o.tools : undefined,
      tool_choice: o.tools?.length ? o.toolChoice : undefined,
      parallel_tool_calls: o.tools?.length ? o.parallelToolCalls : undefined,
      response_format: responseFormatBody(o.responseFormat),
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
  callsAt: (stream) => ["choices", 0, stream ? "delta" : "message", "tool_calls"],
  readBody(body, calls): UpstreamPiece {
    const choice = choiceOf(body, "the chat-completions answer");
    if (!isObj(choice.message)) throw new UpstreamProtocolError("openai", "the answer has no choices[0].message");
    return { ...pieceOf(choice.message, "choices[0].message", calls), end: endOfChoice(choice, (body as Obj).usage) };
  },
  readEvent(data, state, calls): UpstreamPiece {
    const last = usageOnlyEnd(data, state);
    if (last) return { text: "", ...last };
    const choice = choiceOf(data, "a chat-completions stream event");
    const piece = pieceOf(isObj(choice.delta) ? choice.delta : {}, "a stream event's choices[0].delta", calls);
    const end = finishOf(choice, data, state);
    return end ? { ...piece, end } : piece;
  },
  endOfStream,
};
