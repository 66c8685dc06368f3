// Real chat templates (from the llama.cpp source node-llama-cpp bundles) per dialect, and the
// assistant turn each one writes for given tool calls — the text our dialect parsers must read.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { getDialect } from "../../src/dialects/index.js";
import { promptParts } from "../../src/dialects/prompt.js";
import { renderChat, type ChatMessage } from "../../src/templates/render.js";
import { renderWithSystemFallback } from "../../src/templates/system-fallback.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export type TemplateDialect =
  | "qwen3-coder"
  | "hermes"
  | "seed-oss"
  | "glm-4.5"
  | "kimi-k2"
  | "deepseek-v3.1"
  | "gpt-oss"
  | "mistral"
  | "mistral-nemo"
  | "llama3"
  | "minimax-m2"
  | "lfm2"
  | "generic";

export interface DialectTemplate {
  /** File in llama.cpp's models/templates/. */
  file: string;
  bosToken?: string;
  eosToken?: string;
  /**
   * What ends the assistant turn in the rendered text: the end-of-generation token the model stops
   * on, plus any template glue after it. Stripped from `assistant` (kept in `raw`), because a parser
   * sees the generated text without the stop token.
   */
  end: string;
  /** Template variables that switch thinking on or off (the turn has reasoning or not). */
  thinking?: (on: boolean) => Record<string, unknown>;
  /** Mistral 3 puts reasoning in a `thinking` content block instead of a message field. */
  reasoningAsContentBlock?: boolean;
  /**
   * Leave the system message out of the rendered conversation: Mistral Nemo writes it into the
   * last message only if that message is the user's, so a reply would change the prompt before it.
   */
  noSystemMessage?: boolean;
  /** The generation prompt itself opens the thought: every turn carries one, read as "forced-open". */
  opensThought?: boolean;
  /**
   * The template shows no calls (or no tools): the messages go through the dialect's prompt
   * rewriting first (src/dialects/prompt.ts), as generate() does.
   */
  viaPrompt?: boolean;
}

const qwenThinking = (on: boolean) => ({ enable_thinking: on });

/** Per dialect, the templates to check; the first is the reference one. */
export const DIALECT_TEMPLATES: Record<TemplateDialect, readonly DialectTemplate[]> = {
  "qwen3-coder": [
    { file: "Qwen3-Coder.jinja", end: "<|im_end|>\n" },
    { file: "Qwen3.5-4B.jinja", end: "<|im_end|>\n", thinking: qwenThinking },
  ],
  hermes: [
    { file: "Qwen-Qwen2.5-7B-Instruct.jinja", end: "<|im_end|>\n" },
    { file: "Qwen-Qwen3-0.6B.jinja", end: "<|im_end|>\n", thinking: qwenThinking },
  ],
  // The template sets bos/eos itself (<seed:bos>, <seed:eos>).
  "seed-oss": [{ file: "ByteDance-Seed-OSS.jinja", end: "<seed:eos>" }],
  // No GLM-4.5 file in this llama.cpp release; GLM-4.6 writes 4.5's format, 4.7 drops the newlines.
  // A GLM turn has no end token of its own: the model stops on the next role's token
  // (<|observation|> after calls), which the template writes as the next message's opening.
  "glm-4.5": [
    { file: "GLM-4.6.jinja", end: "", thinking: qwenThinking },
    { file: "GLM-4.7-Flash.jinja", end: "", thinking: qwenThinking },
  ],
  "kimi-k2": [
    { file: "moonshotai-Kimi-K2.jinja", end: "<|im_end|>" },
    { file: "Kimi-K2-Instruct.jinja", end: "<|im_end|>" },
    { file: "Kimi-K2-Thinking.jinja", end: "<|im_end|>" },
  ],
  "deepseek-v3.1": [
    {
      file: "deepseek-ai-DeepSeek-V3.1.jinja",
      bosToken: "<｜begin▁of▁sentence｜>",
      eosToken: "<｜end▁of▁sentence｜>",
      end: "<｜end▁of▁sentence｜>",
      thinking: (on) => ({ thinking: on }),
    },
  ],
  // <|call|> is the stop token of a harmony tool call.
  "gpt-oss": [{ file: "openai-gpt-oss-120b.jinja", end: "<|call|>" }],
  mistral: [
    {
      file: "mistralai-Ministral-3-14B-Reasoning-2512.jinja",
      bosToken: "<s>",
      eosToken: "</s>",
      end: "</s>",
      reasoningAsContentBlock: true,
    },
    { file: "unsloth-mistral-Devstral-Small-2507.jinja", bosToken: "<s>", eosToken: "</s>", end: "</s>" },
    // Small 3.2 writes an id between name and arguments: [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}.
    { file: "Mistral-Small-3.2-24B-Instruct-2506.jinja", bosToken: "<s>", eosToken: "</s>", end: "</s>" },
  ],
  "mistral-nemo": [
    {
      file: "mistralai-Mistral-Nemo-Instruct-2407.jinja",
      bosToken: "<s>",
      eosToken: "</s>",
      end: "</s>",
      noSystemMessage: true,
    },
  ],
  llama3: [
    {
      file: "meta-llama-Llama-3.1-8B-Instruct.jinja",
      bosToken: "<|begin_of_text|>",
      eosToken: "<|eot_id|>",
      end: "<|eot_id|>",
    },
    {
      file: "meta-llama-Llama-3.2-3B-Instruct.jinja",
      bosToken: "<|begin_of_text|>",
      eosToken: "<|eot_id|>",
      end: "<|eot_id|>",
    },
    {
      file: "meta-llama-Llama-3.3-70B-Instruct.jinja",
      bosToken: "<|begin_of_text|>",
      eosToken: "<|eot_id|>",
      end: "<|eot_id|>",
    },
  ],
  "minimax-m2": [{ file: "MiniMax-M2.jinja", end: "[e~[\n", opensThought: true }],
  // LFM2.5-8B-A1B's template writes tool_calls itself; LFM2-8B-A1B's and LFM2.5-Instruct's print
  // the assistant's content only, so past calls are written into it in the dialect's form.
  lfm2: [
    { file: "LFM2.5-8B-A1B.jinja", bosToken: "<|startoftext|>", end: "<|im_end|>\n", viaPrompt: true },
    { file: "LFM2-8B-A1B.jinja", bosToken: "<|startoftext|>", end: "<|im_end|>\n", viaPrompt: true },
    { file: "LFM2.5-Instruct.jinja", bosToken: "<|startoftext|>", end: "<|im_end|>\n", viaPrompt: true },
  ],
  // Templates without tools or calls (llama.cpp's docs/function-calling.md lists them as Generic);
  // Gemma 2's refuses a system message, which then opens the first user message.
  generic: [
    { file: "google-gemma-2-2b-it.jinja", bosToken: "<bos>", end: "<end_of_turn>\n", viaPrompt: true },
    {
      file: "microsoft-Phi-3.5-mini-instruct.jinja",
      eosToken: "<|endoftext|>",
      end: "<|end|>\n<|endoftext|>",
      viaPrompt: true,
    },
  ],
};

export const TEMPLATE_DIALECTS = Object.keys(DIALECT_TEMPLATES) as TemplateDialect[];

let dir: string | undefined;
/** models/templates/ of the llama.cpp checkout that scripts/build/llama-source.mjs prepares (cloned once). */
export function templatesDir(): string {
  if (!dir) {
    // The script is async only by signature; run it as a process to keep this synchronous.
    const script = join(ROOT, "scripts", "build", "llama-source.mjs");
    const src = execFileSync(process.execPath, [script], { encoding: "utf8" }).trim();
    dir = join(src, "models", "templates");
  }
  return dir;
}

const sources = new Map<string, string>();
export function loadTemplate(file: string): string {
  let s = sources.get(file);
  if (s === undefined) sources.set(file, (s = readFileSync(join(templatesDir(), file), "utf8")));
  return s;
}

function pick(dialect: TemplateDialect, file?: string): DialectTemplate {
  const all = DIALECT_TEMPLATES[dialect];
  const t = file === undefined ? all[0] : all.find((x) => x.file === file);
  if (!t) throw new Error(`no template ${file ?? ""} for dialect ${dialect}`);
  return t;
}

export interface Call {
  name: string;
  arguments: Record<string, unknown>;
}

/** A 9-character alphanumeric id, as the Mistral templates require. */
export const callId = (i: number): string => `call${String(i).padStart(5, "0")}`;

/** OpenAI tool definitions inferred from the calls' arguments (templates print them in the prompt). */
export function toolsFor(calls: readonly Call[]): unknown[] {
  const byName = new Map<string, Call>();
  for (const c of calls) if (!byName.has(c.name)) byName.set(c.name, c);
  const schema = (v: unknown): Record<string, unknown> =>
    typeof v === "string"
      ? { type: "string" }
      : typeof v === "boolean"
        ? { type: "boolean" }
        : typeof v === "number"
          ? { type: Number.isInteger(v) ? "integer" : "number" }
          : Array.isArray(v)
            ? { type: "array" }
            : { type: "object" };
  return [...byName.values()].map((c) => ({
    type: "function",
    function: {
      name: c.name,
      description: `The ${c.name} tool.`,
      parameters: {
        type: "object",
        properties: Object.fromEntries(
          Object.entries(c.arguments).map(([k, v]) => [k, { ...schema(v), description: `The ${k}.` }]),
        ),
        required: Object.keys(c.arguments),
      },
    },
  }));
}

export interface TurnOptions {
  /**
   * Text beside the calls. Default "": what a model that writes only calls produced. null is what
   * OpenAI clients send; several templates print it as "None" or throw (see the tests).
   */
  content?: string | null;
  reasoning?: string;
  /** Another of the dialect's template files (default: the first). */
  template?: string;
  /** Pass arguments as JSON strings, as the OpenAI API does (render.ts converts them). */
  argumentsAsJson?: boolean;
}

/** The assistant message carrying `calls`, in the shape the dialect's template reads. */
export function assistantMessage(t: DialectTemplate, calls: readonly Call[], opts: TurnOptions = {}): ChatMessage {
  const message: ChatMessage = {
    role: "assistant",
    content: opts.content === undefined ? "" : opts.content,
    tool_calls: calls.map((c, i) => ({
      id: callId(i),
      type: "function",
      function: { name: c.name, arguments: opts.argumentsAsJson ? JSON.stringify(c.arguments) : c.arguments },
    })),
  };
  if (opts.reasoning !== undefined) {
    if (t.reasoningAsContentBlock) {
      const text =
        typeof opts.content === "string" && opts.content !== "" ? [{ type: "text", text: opts.content }] : [];
      message.content = [{ type: "thinking", thinking: opts.reasoning }, ...text];
    } else {
      // Field names differ by family: reasoning_content (Qwen3, GLM, Seed, MiniMax, Kimi) and
      // thinking (gpt-oss); templates ignore the one they do not read.
      message.reasoning_content = opts.reasoning;
      message.thinking = opts.reasoning;
    }
  }
  return message;
}

export const SYSTEM = "You are a careful assistant.";
export const USER = "Please do the task.";

/** Renders `messages` with the dialect's template, its special tokens and thinking switch. */
export function renderDialect(
  dialect: TemplateDialect,
  messages: ChatMessage[],
  opts: { template?: string; tools?: unknown[]; addGenerationPrompt?: boolean; thinking?: boolean } = {},
): string {
  const t = pick(dialect, opts.template);
  const source = loadTemplate(t.file);
  const parts = t.viaPrompt
    ? promptParts(getDialect(dialect), messages, opts.tools, source.includes("tool_calls"))
    : { messages, tools: opts.tools };
  const render = (m: ChatMessage[]) =>
    renderChat(source, {
      messages: m,
      tools: parts.tools,
      addGenerationPrompt: opts.addGenerationPrompt ?? false,
      bosToken: t.bosToken,
      eosToken: t.eosToken,
      extra: t.thinking?.(opts.thinking ?? false),
      name: t.file,
      now: new Date(2025, 0, 15),
    });
  return renderWithSystemFallback(render, parts.messages, parts.messages !== messages);
}

export interface RenderedTurn {
  /** The parser's `reasoning` option that reads this turn as the template meant it. */
  parseReasoning: boolean | "forced-open";
  /** The whole conversation (system + user + assistant), no generation prompt. */
  full: string;
  /** The assistant turn as the model generates it: after the generation prompt, without `end`. */
  assistant: string;
  /** The assistant turn as rendered, `assistant + end`. */
  raw: string;
  /** The end-of-turn text stripped from `raw` ("" where the template writes none). */
  end: string;
  /** The generation prompt the turn follows. */
  prompt: string;
  template: string;
}

/**
 * Renders system + user + an assistant turn with `calls`, and cuts out what the model would have
 * generated: `full` minus the same conversation rendered without the turn with the generation
 * prompt. Throws when that prompt is not a prefix of `full` (MiniMax-M2 opens <think> in the prompt
 * and only writes one with reasoning: pass `reasoning` there).
 */
export function renderAssistantToolCalls(
  dialect: TemplateDialect,
  calls: readonly Call[],
  opts: TurnOptions = {},
): RenderedTurn {
  const t = pick(dialect, opts.template);
  if (t.opensThought && opts.reasoning === undefined) opts = { ...opts, reasoning: "I should call a tool." };
  const base: ChatMessage[] = [
    ...(t.noSystemMessage ? [] : [{ role: "system", content: SYSTEM }]),
    { role: "user", content: USER },
  ];
  const common = { template: t.file, tools: toolsFor(calls), thinking: opts.reasoning !== undefined };
  const prompt = renderDialect(dialect, base, { ...common, addGenerationPrompt: true });
  const full = renderDialect(dialect, [...base, assistantMessage(t, calls, opts)], common);
  if (!full.startsWith(prompt)) {
    let i = 0;
    while (i < prompt.length && prompt[i] === full[i]) i++;
    throw new Error(
      `${t.file}: the generation prompt is not a prefix of the rendered turn: prompt continues ` +
        `${JSON.stringify(prompt.slice(i, i + 40))}, turn continues ${JSON.stringify(full.slice(i, i + 40))}`,
    );
  }
  const raw = full.slice(prompt.length);
  const end = t.end !== "" && raw.endsWith(t.end) ? t.end : "";
  // The generation prompt alone: what add_generation_prompt appends to the conversation.
  const before = renderDialect(dialect, base, common);
  return {
    parseReasoning: t.opensThought ? "forced-open" : !!getDialect(dialect).reasoning,
    full,
    assistant: raw.slice(0, raw.length - end.length),
    raw,
    end,
    prompt: prompt.startsWith(before) ? prompt.slice(before.length) : prompt,
    template: t.file,
  };
}
