// The options of generate() and generateStream(), and the list of their names that options-check.ts
// holds a caller's options to.
import type { ResponseFormat } from "../dialects/response-format.js";
import type { ToolChoice } from "../dialects/tools.js";
import type { ChatMessage } from "../templates/render.js";
import { optionNames } from "./options-check.js";

export interface GenerateOptions {
  messages: ChatMessage[];
  /** OpenAI tool definitions. */
  tools?: unknown[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  /** Tokens to generate at most (an end-of-generation token counts). Default 512. */
  maxTokens?: number;
  /** 0: greedy. Default 0.8. */
  temperature?: number;
  topK?: number;
  topP?: number;
  minP?: number;
  /** Same seed, same prompt, same options: same tokens. Default 0. */
  seed?: number;
  /** Ends the answer where one of these strings first appears; the string is not part of it. */
  stop?: string | string[];
  /** Added to the logits of token ids before sampling (after the mask: a bias cannot unmask). */
  logitBias?: Record<number, number>;
  repeatPenalty?: number;
  /**
   * The longest string value a call may carry, in characters (every string argument, raw XML text
   * included; a schema's smaller maxLength still applies). The mask closes the value there, and the
   * parser holds outputs to the same bound. Default: unbounded.
   */
  maxValueLength?: number;
  /**
   * true: a tool whose schema names a "format" the grammar does not enforce is refused
   * (UnsupportedSchemaError, a 400 in the server). Default false: such a format is an annotation,
   * and the result's `notices` say so.
   */
  strictFormats?: boolean;
  /**
   * The answer's content as JSON: `{type: "json_schema", schema, name?, strict?}` (a value that fits
   * the schema, lowered as tool arguments are: docs/json-schema.md) or `{type: "json_object"}` (any
   * JSON object); `{type: "text"}` or absent: any text. The result carries `parsed` (the value) and
   * `structured` (the parser's verdict). Beside tools under toolChoice "auto" the answer is calls or
   * the JSON content. `strict` is taken and changes nothing: the schema is always enforced.
   */
  responseFormat?: ResponseFormat;
  /** Let the model think first (the template's thinking switch, and a thought in the grammar). Default false. */
  reasoning?: boolean;
  /** false: decode without the grammar (to compare; output is still parsed). Default true. */
  mask?: boolean;
  /**
   * Masked only: the text the grammar forces next (a call's closing tags, the only parameter left,
   * a key's quote and colon) goes in as the model's own tokens for it, without sampling, decoded in
   * one forward pass with the sampled token. false: every token is sampled (to compare). Default true.
   */
  fastForward?: boolean;
  /**
   * Where the mask runs: "cpu" (a sampler over the logits on the host, the default) or "backend"
   * (llama.cpp's experimental backend sampling: graph ops where the logits live).
   */
  maskPath?: "cpu" | "backend";
  /**
   * true (default): the prompt reuses the KV cache an idle sequence slot kept from an earlier request
   * for their longest common token prefix (only the rest is decoded: usage.prompt_tokens_details.
   * cached_tokens says how many were not), and this request's own cells stay in its slot for the
   * next one. false: the prompt is neither read from nor left in the cache, as llama-server's
   * `cache_prompt: false`. Only KV cells are shared: each request has its own sampler and grammar.
   */
  cachePrompt?: boolean;
  /** A dialect name; default: the one detected from the model's chat template. */
  dialect?: string;
  signal?: AbortSignal;
}

/** Every generate() option name (a name missing here, or not in GenerateOptions, does not compile). */
export const GENERATE_OPTION_NAMES = optionNames<GenerateOptions>({
  messages: true,
  tools: true,
  toolChoice: true,
  parallelToolCalls: true,
  maxTokens: true,
  temperature: true,
  topK: true,
  topP: true,
  minP: true,
  seed: true,
  stop: true,
  logitBias: true,
  repeatPenalty: true,
  maxValueLength: true,
  strictFormats: true,
  responseFormat: true,
  reasoning: true,
  mask: true,
  maskPath: true,
  dialect: true,
  signal: true,
  fastForward: true,
  cachePrompt: true,
});
