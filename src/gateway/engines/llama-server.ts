// llama.cpp's llama-server, on its raw-completion route POST /completion (no chat parser touches
// the text): the prompt rendered here, our GBNF in `grammar` (markers as `<[id]>` tokens of this
// vocabulary), and the texts of those tokens in `preserved_tokens`, so the server writes them into
// `content` instead of dropping them as special. The response echoes the grammar it applied in
// generation_settings.grammar: compared with the one sent, the enforcement is "confirmed".
//
// tool_choice "auto" (tools given, no thought block) goes as a lazy grammar, as llama-server's own
// tool calling sends it: `grammar_lazy` with the dialect's call trigger in `grammar_triggers`, and
// the grammar of the calls alone (tool_choice "required"), which llama.cpp applies from the
// trigger on; text before it is unconstrained. The answer is still read with the "auto" parser.
// `lazy: false` sends the whole "auto" grammar instead (content constrained as by our own mask).
// A response format is held by the whole grammar: text before a trigger is then the format's JSON.
// Fields as in tools/server/server-schema.cpp of the llama.cpp that node-llama-cpp bundles.
import { buildToolGrammar } from "../../dialects/grammar.js";
import { requestWith } from "../../dialects/options.js";
import { objectIsTrigger, triggerOf } from "../../dialects/spec.js";
import { toGbnf } from "../../grammar/export/gbnf.js";
import type { Grammar } from "../../grammar/ir.js";
import type { Vocabulary } from "../../vocab/vocabulary.js";
import { defined, samplingOf } from "./sampling.js";
import {
  isObj,
  UpstreamProtocolError,
  type Obj,
  type EngineAdapter,
  type RequestContext,
  type UpstreamEnd,
  type UpstreamPiece,
} from "./types.js";

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

/**
 * common_grammar_trigger_type's WORD (common/common.h: TOKEN 0, WORD 1, PATTERN 2, PATTERN_FULL 3):
 * the server reads the type as that number (tools/server/server-common.h, server_grammar_trigger).
 */
const TRIGGER_WORD = 1;

/** The calls-only grammar and its trigger, when the request is tool_choice "auto" in a dialect with a trigger. */
export function lazyPlan(ctx: RequestContext): { ir: Grammar; trigger: string } | undefined {
  const r = ctx.chat.resolved;
  if (!ctx.chat.ir || !r || r.reasoning || r.outputFormat) return undefined;
  // Text before a call is free only when no call is required; "none" (no tool allowed) masks no calls.
  if (r.callRequired || r.tools.length === 0) return undefined;
  const spec = r.spec;
  const kind = spec.call.kind;
  // Calls that may open the answer without the trigger (fencedCalls) leave no text for a trigger to wait for.
  if (kind === "harmony" || kind === "envelope" || objectIsTrigger(spec) || spec.openingCalls) return undefined;
  return { ir: buildToolGrammar(requestWith(r, { toolChoice: "required" })), trigger: triggerOf(spec) };
}

export function llamaServerEngine(options: { lazy?: boolean } = {}): EngineAdapter {
  return {
    name: "llama-server",
    takesGrammar: true,
    healthPath: "/health",
    requestPath: "/completion",
    request(ctx) {
      const s = samplingOf(ctx);
      const lazy = options.lazy === false ? undefined : lazyPlan(ctx);
      const ir = lazy?.ir ?? ctx.chat.ir;
      const grammar = ir ? toGbnf(ir, ctx.vocabulary) : undefined;
      const preserved = grammar ? tokenTexts(grammar, ctx.vocabulary) : [];
      if (lazy && !preserved.includes(lazy.trigger)) preserved.push(lazy.trigger);
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
        grammar_lazy: lazy ? true : undefined,
        grammar_triggers: lazy ? [{ type: TRIGGER_WORD, value: lazy.trigger }] : undefined,
        preserved_tokens: preserved.length ? preserved : undefined,
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
}

export const llamaServer: EngineAdapter = llamaServerEngine();
