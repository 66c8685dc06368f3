// Decodes BFCL items on one loaded model, masked and unmasked (llama-server's answers come from
// server-mode.ts), and scores every answer: format
// validity by toolmask's own verdict (src/bench/validity.ts: complete, declared calls with their
// required arguments; the parser has checked each argument against its schema) and AST accuracy by
// bfcl-eval's checker (oracle.ts). Greedy decoding, parallel calls allowed, toolChoice "auto" (BFCL
// lets the model decide whether to call: irrelevance items are right only without a call) or
// "required" for the categories whose every item asks for a call (irrelevance stays "auto").
import type { LlamaModel } from "../../engine/model.js";
import { generate } from "../../engine/generate.js";
import { replayThroughMask } from "../overconstraint.js";
import { verdictOf } from "../validity.js";
import { toOpenAiTools } from "./convert.js";
import { checkWithOracle, contentCalls, type OracleProgram } from "./oracle.js";
import type { BfclCategory, BfclItem } from "./types.js";

/** Every mode: ours unmasked and masked, and llama.cpp's llama-server on the same GGUF (server-mode.ts). */
export const BFCL_MODES = ["unmasked", "masked", "llama-server"] as const;
export type BfclMode = (typeof BFCL_MODES)[number];
/** The modes decoded here, on the loaded model. */
export const IN_PROCESS_MODES = ["unmasked", "masked"] as const;
export type InProcessMode = (typeof IN_PROCESS_MODES)[number];

export interface BfclAnswer {
  id: string;
  category: BfclCategory;
  mode: BfclMode;
  finishReason: "stop" | "tool_calls" | "length";
  /** llama-server mode: the HTTP error it answered instead of a completion (the answer is invalid, no call). */
  serverError?: string;
  /** Format validity (toolmask's verdict) and, when not, why. */
  valid: boolean;
  reason: string;
  /** bfcl-eval's AST verdict and its error type when wrong. */
  astCorrect: boolean;
  astError: string | null;
  /**
   * With no call in the dialect's format: the {"name", "arguments"} JSON objects the text holds
   * (Qwen2.5-Coder writes its calls in a json fence without <tool_call>), and bfcl-eval's verdict
   * had they been read as the calls. Not BFCL's score (its handlers read only the model's format);
   * it shows how many answers were right in substance but not in form.
   */
  contentCalls: Array<{ name: string; arguments: string }>;
  astCorrectFromContent: boolean;
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
  /**
   * An unmasked answer that is format-valid with calls, replayed through the matcher of the grammar
   * its request masks with: how many of its tokens were accepted, and the first refused (null: none).
   */
  replay?: { tokens: number; accepted: number; refused: number | null };
}

export type Unscored = Omit<BfclAnswer, "astCorrect" | "astError" | "contentCalls" | "astCorrectFromContent">;

/** What a run asks: "auto" everywhere, or "required" outside irrelevance. */
export type BfclToolChoice = "auto" | "required";

/** The tool choice an item of `category` is decoded with under the run's `choice`. */
export function choiceFor(category: BfclCategory, choice: BfclToolChoice): BfclToolChoice {
  return category === "irrelevance" ? "auto" : choice;
}

export interface DecodeOptions {
  dialect: string;
  toolChoice: BfclToolChoice;
  maxTokens: number;
  modes: readonly InProcessMode[];
  /** Generations in flight at once (at most the model's `parallel`). */
  concurrency: number;
  /** Called after each answer (progress). */
  onAnswer?: (a: Unscored, done: number, total: number) => void;
}

export interface DecodedGroup {
  category: BfclCategory;
  mode: BfclMode;
  wallMillis: number;
  answers: Array<Unscored>;
}

/** `run` over `inputs`, at most `width` at once, results in input order. */
export async function pool<T, R>(inputs: readonly T[], width: number, run: (x: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(inputs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < inputs.length; i = next++) out[i] = await run(inputs[i]!);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, inputs.length)) }, worker));
  return out;
}

/** Decodes `items` (of one category) in each mode, a mode's items together so its wall time is its own. */
export async function decodeCategory(
  model: LlamaModel,
  category: BfclCategory,
  items: readonly BfclItem[],
  o: DecodeOptions,
): Promise<DecodedGroup[]> {
  const groups: DecodedGroup[] = [];
  let done = 0;
  const total = items.length * o.modes.length;
  for (const mode of o.modes) {
    const started = performance.now();
    const answers = await pool(items, o.concurrency, async (item) => {
      const { tools } = toOpenAiTools(item.functions);
      const toolChoice = choiceFor(category, o.toolChoice);
      const options = {
        messages: item.messages,
        tools,
        toolChoice,
        parallelToolCalls: true,
        temperature: 0,
        maxTokens: o.maxTokens,
        mask: mode === "masked",
        dialect: o.dialect,
      } as const;
      const r = await generate(model, options);
      const v = verdictOf(
        { finishReason: r.finishReason, toolCalls: r.message.tool_calls ?? [], incomplete: r.incomplete },
        tools,
        toolChoice,
        true,
      );
      // No over-constraint: the mask must accept every token of an unmasked answer read as valid calls.
      const replay =
        mode === "unmasked" && v.valid && (r.message.tool_calls ?? []).length > 0
          ? await replayThroughMask(model, options, r.tokens)
          : undefined;
      const a: Unscored = {
        id: item.id,
        category,
        mode,
        finishReason: r.finishReason,
        valid: v.valid,
        reason: v.reason,
        calls: (r.message.tool_calls ?? []).map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
        text: r.text,
        promptTokens: r.usage.prompt_tokens,
        completionTokens: r.usage.completion_tokens,
        decodeMillis: r.timings.decodeMillis,
        ...(mode === "unmasked" ? { tokens: r.tokens } : {}),
        ...(replay
          ? { replay: { tokens: replay.tokens, accepted: replay.accepted, refused: replay.refused?.index ?? null } }
          : {}),
      };
      o.onAnswer?.(a, ++done, total);
      return a;
    });
    groups.push({ category, mode, wallMillis: performance.now() - started, answers });
  }
  return groups;
}

/** bfcl-eval's AST verdict on every answer, on its calls and on the JSON calls in its text (one oracle process each). */
export async function scoreAnswers(
  oracle: OracleProgram,
  items: ReadonlyMap<string, BfclItem>,
  answers: readonly Unscored[],
): Promise<BfclAnswer[]> {
  const inText = await contentCalls(
    oracle,
    answers.map((a) => (a.calls.length === 0 ? a.text : "")),
  );
  const ask = (a: Unscored, calls: Array<{ name: string; arguments: string }>) => {
    const item = items.get(a.id)!;
    return {
      op: "check" as const,
      category: a.category,
      functions: item.functions,
      calls,
      groundTruth: item.groundTruth,
    };
  };
  const verdicts = await checkWithOracle(oracle, [
    ...answers.map((a) => ask(a, a.calls)),
    ...answers.map((a, i) => ask(a, a.calls.length > 0 ? a.calls : inText[i]!)),
  ]);
  return answers.map((a, i) => ({
    ...a,
    astCorrect: verdicts[i]!.valid,
    astError: verdicts[i]!.errorType,
    contentCalls: a.calls.length === 0 ? inText[i]! : [],
    astCorrectFromContent: verdicts[answers.length + i]!.valid,
  }));
}
