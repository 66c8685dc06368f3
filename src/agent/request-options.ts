// What an agent asks of the provider beyond the messages: reasoning effort, provider binding, usage.
import type { ReasoningEffort } from "./types.js";

const EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];

export type ReasoningField = { effort: string } | { max_tokens: number };

/** The request's `reasoning` field for a setting; undefined when reasoning is off. */
export function reasoningField(setting: ReasoningEffort | undefined): ReasoningField | undefined {
  if (setting === undefined) return undefined;
  const s = String(setting).trim();
  if (s === "" || s.toLowerCase() === "off") return undefined;
  // A budget: "4096" or 4096 is a token count, not an effort name.
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    if (!Number.isSafeInteger(n) || n < 1)
      throw new RangeError(`reasoningEffort ${JSON.stringify(setting)}: a token budget must be a positive integer`);
    return { max_tokens: n };
  }
  const effort = s.toLowerCase();
  if (!EFFORTS.includes(effort))
    throw new TypeError(
      `reasoningEffort ${JSON.stringify(setting)} is not understood; use "off", one of ${EFFORTS.map((e) => `"${e}"`).join(", ")} (any case), or a token budget such as "4096"`,
    );
  return { effort };
}

/** A finish at the output limit: "length" (OpenAI) or "max_tokens" (Anthropic), in any case. */
export function isTruncatedFinish(reason: string | null | undefined): boolean {
  if (typeof reason !== "string") return false;
  const r = reason.toLowerCase();
  return r === "length" || r === "max_tokens";
}

export interface ProviderOptions {
  requireProviderParameters: boolean;
  includeUsage: boolean;
  reasoning: ReasoningField | undefined;
  maxTokens: number | undefined;
}

/** The request fields beyond model/messages/tools; absent options send no field at all. */
export function requestExtras(o: ProviderOptions): Record<string, unknown> {
  return {
    ...(o.requireProviderParameters ? { provider: { require_parameters: true } } : {}),
    ...(o.includeUsage ? { usage: { include: true } } : {}),
    ...(o.reasoning ? { reasoning: o.reasoning } : {}),
    ...(o.maxTokens !== undefined ? { max_tokens: o.maxTokens } : {}),
  };
}
