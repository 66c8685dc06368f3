// What the llama generation suites check on a GenerateResult, and the pieces they build cases from.
import type { ToolChoice } from "../../src/dialects/tools.js";
import { buildToolGrammar } from "../../src/dialects/grammar.js";
import { compileGrammar } from "../../src/grammar/compile.js";
import type { GenerateResult } from "../../src/engine/generate.js";
import type { LlamaModel } from "../../src/engine/model.js";

/** Qwen3 vocabulary ids: `<tool_call>` and `<|im_end|>` (a push toward calling and toward stopping). */
export const TOOL_CALL = 151657,
  IM_END = 151645;

/** The fewest tokens any answer takes where toolChoice asks for a call (below it generate() refuses: MaxTokensTooSmallError). */
export function shortestCallTokens(
  model: LlamaModel,
  dialect: string,
  tools: unknown[],
  toolChoice: ToolChoice = "required",
): number {
  return compileGrammar(buildToolGrammar({ dialect, tools, toolChoice }), model.vocabulary)
    .createMatcher()
    .minTokensToFinish();
}

/** Mulberry32: the same cases on every run. */
export { rng } from "../../scripts/lib/rng.mjs";

/** Ids of tokens that are only whitespace (random weights like to repeat them). */
export function whitespaceTokenIds(model: LlamaModel): number[] {
  const ids: number[] = [];
  for (let id = 0; id < model.vocabulary.size; id++) {
    const b = model.vocabulary.tokenBytes(id);
    if (b.length > 0 && b.every((x) => x === 32 || x === 10 || x === 9 || x === 13)) ids.push(id);
  }
  return ids;
}

type ToolDefLike = { function: { name: string; parameters?: { required?: string[] } } };

/** Each tool's required argument names, from OpenAI tool definitions. */
export function requiredArgs(tools: readonly unknown[]): Record<string, string[]> {
  return Object.fromEntries(
    (tools as ToolDefLike[]).map((t) => [t.function.name, t.function.parameters?.required ?? []]),
  );
}

/** "" when every call is complete, declared, allowed by the choice and has its required arguments. */
export function callViolation(r: GenerateResult, choice: ToolChoice, required: Record<string, string[]>): string {
  const calls = r.message.tool_calls ?? [];
  const allowed = typeof choice === "object" ? [choice.function.name] : choice === "none" ? [] : Object.keys(required);
  if (choice !== "auto" && calls.length === 0) return "no call although one is required";
  if (r.incomplete.length > 0) return `incomplete call: ${r.incomplete[0]!.reason}`;
  for (const c of calls) {
    if (!allowed.includes(c.function.name)) return `name ${c.function.name} not allowed`;
    const args = JSON.parse(c.function.arguments) as Record<string, unknown>;
    for (const k of required[c.function.name]!) if (!(k in args)) return `missing ${k}`;
  }
  return "";
}
