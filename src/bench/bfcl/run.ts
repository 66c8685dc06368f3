// Decodes BFCL items on one loaded model, masked and unmasked, and scores every answer: format
// validity by toolmask's own verdict (src/bench/validity.ts: complete, declared calls with their
// required arguments; the parser has checked each argument against its schema) and AST accuracy by
// bfcl-eval's checker (oracle.ts). Greedy decoding, toolChoice "auto" (BFCL lets the model decide
// whether to call: irrelevance items are right only without a call), parallel calls allowed.
import type { LlamaModel } from "../../engine/model.js";
import { generate } from "../../engine/generate.js";
import { verdictOf } from "../validity.js";
import { toOpenAiTools } from "./convert.js";
import { checkWithOracle, type OracleProgram } from "./oracle.js";
import type { BfclCategory, BfclItem } from "./types.js";

export const BFCL_MODES = ["unmasked", "masked"] as const;
export type BfclMode = (typeof BFCL_MODES)[number];

export interface BfclAnswer {
  id: string;
  category: BfclCategory;
  mode: BfclMode;
  finishReason: "stop" | "tool_calls" | "length";
  /** Format validity (toolmask's verdict) and, when not, why. */
  valid: boolean;
  reason: string;
  /** bfcl-eval's AST verdict and its error type when wrong. */
  astCorrect: boolean;
  astError: string | null;
  calls: Array<{ name: string; arguments: string }>;
  text: string;
  promptTokens: number;
  completionTokens: number;
  decodeMillis: number;
  /**
   * Every sampled token id, for unmasked answers: replaying them through the matcher is the
   * over-constraint check (a mask that would refuse an answer the parser reads as valid calls).
   */
  tokens?: number[];
}

export interface DecodeOptions {
  dialect: string;
  maxTokens: number;
  modes: readonly BfclMode[];
  /** Generations in flight at once (at most the model's `parallel`). */
  concurrency: number;
  /** Called after each answer (progress). */
  onAnswer?: (a: Omit<BfclAnswer, "astCorrect" | "astError">, done: number, total: number) => void;
}

export interface DecodedGroup { category: BfclCategory; mode: BfclMode; wallMillis: number; answers: Array<Omit<BfclAnswer, "astCorrect" | "astError">> }

async function pool<T, R>(inputs: readonly T[], width: number, run: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(inputs.length);
  let next = 0;
  const worker = async () => { for (let i = next++; i < inputs.length; i = next++) out[i] = await run(inputs[i]!); };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, inputs.length)) }, worker));
  return out;
}

/** Decodes `items` (of one category) in each mode, a mode's items together so its wall time is its own. */
export async function decodeCategory(model: LlamaModel, category: BfclCategory, items: readonly BfclItem[], o: DecodeOptions): Promise<DecodedGroup[]> {
  const groups: DecodedGroup[] = [];
  let done = 0;
  const total = items.length * o.modes.length;
  for (const mode of o.modes) {
    const started = performance.now();
    const answers = await pool(items, o.concurrency, async (item) => {
      const { tools } = toOpenAiTools(item.functions);
      const r = await generate(model, {
        messages: item.messages, tools, toolChoice: "auto", parallelToolCalls: true, temperature: 0,
        maxTokens: o.maxTokens, mask: mode === "masked", dialect: o.dialect,
      });
      const v = verdictOf({ finishReason: r.finishReason, toolCalls: r.message.tool_calls ?? [], incomplete: r.incomplete }, tools, "auto", true);
      const a: Omit<BfclAnswer, "astCorrect" | "astError"> = {
        id: item.id, category, mode, finishReason: r.finishReason, valid: v.valid, reason: v.reason,
        calls: (r.message.tool_calls ?? []).map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
        text: r.text, promptTokens: r.usage.prompt_tokens, completionTokens: r.usage.completion_tokens, decodeMillis: r.timings.decodeMillis,
        ...(mode === "unmasked" ? { tokens: r.tokens } : {}),
      };
      o.onAnswer?.(a, ++done, total);
      return a;
    });
    groups.push({ category, mode, wallMillis: performance.now() - started, answers });
  }
  return groups;
}

/** bfcl-eval's AST verdict on every answer (one oracle process for all). */
export async function scoreAnswers(oracle: OracleProgram, items: ReadonlyMap<string, BfclItem>, answers: ReadonlyArray<Omit<BfclAnswer, "astCorrect" | "astError">>): Promise<BfclAnswer[]> {
  const verdicts = await checkWithOracle(oracle, answers.map((a) => {
    const item = items.get(a.id)!;
    return { op: "check" as const, category: a.category, functions: item.functions, calls: a.calls, groundTruth: item.groundTruth };
  }));
  return answers.map((a, i) => ({ ...a, astCorrect: verdicts[i]!.valid, astError: verdicts[i]!.errorType }));
}
