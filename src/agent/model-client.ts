// A loaded model as an agent's client: each turn is one masked generation on the whole history,
// streamed so the loop sees each call (and each argument) as it completes.
import { GENERATE_OPTION_NAMES, type GenerateOptions, type GenerateResult } from "../engine/generate.js";
import { generateStream } from "../engine/stream.js";
import { checkOptionNames } from "../engine/options-check.js";
import type { LlamaModel } from "../engine/model.js";
import type { ChatMessage } from "../templates/render.js";
import type { ModelClient, ModelTurn, TurnRequest } from "./client.js";
import { assistantMessage } from "./history.js";
import type { LocalAgentClient } from "./types.js";

export function modelClient(model: LlamaModel, generateOptions: LocalAgentClient["generateOptions"] = {}): ModelClient {
  // A fixed set is checked now; a function's answers are checked by generate() on each turn.
  if (typeof generateOptions === "object" && generateOptions !== null)
    checkOptionNames("runAgent: client.generateOptions", generateOptions, GENERATE_OPTION_NAMES);
  const optionsFor = typeof generateOptions === "function" ? generateOptions : () => generateOptions;
  return {
    target: `the model ${model.path}`,
    async complete(req: TurnRequest, signal: AbortSignal | undefined, onEvent): Promise<ModelTurn> {
      // A local model has no effort levels: any reasoning setting but "none" turns thinking on.
      const thinking = req.reasoning !== undefined && !("effort" in req.reasoning && req.reasoning.effort === "none");
      const options: GenerateOptions = {
        ...optionsFor(req.turn),
        messages: req.messages as ChatMessage[],
        ...(req.tools.length > 0 ? { tools: req.tools } : {}),
        ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
        ...(req.reasoning !== undefined ? { reasoning: thinking } : {}),
        ...(signal ? { signal } : {}),
      };
      // Streamed, so the loop sees each call as it completes (and may start it early).
      let r: GenerateResult | undefined;
      for await (const chunk of generateStream(model, options)) {
        if (chunk.event) onEvent?.(chunk.event);
        if (chunk.result) r = chunk.result;
      }
      if (!r) throw new Error("the generation ended without a result");
      const { prompt_tokens, completion_tokens } = r.usage;
      return {
        message: assistantMessage(r.message, `call_${req.turn}`),
        finishReason: r.finishReason,
        usage: { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens },
        reportedCostUsd: null,
        ...(r.incomplete.length > 0 ? { incompleteCalls: r.incomplete } : {}),
      };
    },
  };
}
