// A loaded model as an agent's client: each turn is one masked generate() on the whole history.
import { GENERATE_OPTION_NAMES, generate } from "../engine/generate.js";
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
    async complete(req: TurnRequest, signal: AbortSignal | undefined): Promise<ModelTurn> {
      // A local model has no effort levels: any reasoning setting but "none" turns thinking on.
      const thinking = req.reasoning !== undefined && !("effort" in req.reasoning && req.reasoning.effort === "none");
      const r = await generate(model, {
        ...optionsFor(req.turn),
        messages: req.messages as ChatMessage[],
        ...(req.tools.length > 0 ? { tools: req.tools } : {}),
        ...(req.maxTokens !== undefined ? { maxTokens: req.maxTokens } : {}),
        ...(req.reasoning !== undefined ? { reasoning: thinking } : {}),
        ...(signal ? { signal } : {}),
      });
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
