// What the server's routes run a request on: a model loaded here (localBackend) or the upstream
// engines of a gateway (src/gateway/). Either takes generate()'s options and answers with
// generate()'s result, whole or as generateStream()'s chunks.
import { generate, type GenerateOptions, type GenerateResult } from "./generate.js";
import type { LlamaModel } from "./model.js";
import { countPromptTokens } from "./prompt-tokens.js";
import { generateStream, type StreamChunk } from "./stream.js";

/** What the served model accepts: token ids below vocabSize, prompts of contextSize tokens. */
export interface ModelBounds {
  vocabSize: number;
  contextSize: number;
}

export interface ChatBackend {
  /** What a request is checked against before it runs (token ids, messages that can fit). */
  readonly bounds: ModelBounds;
  /** max_tokens when a request gives none (as OpenAI: the answer may run to the end of the context). */
  readonly defaultMaxTokens: number;
  generate(options: GenerateOptions): Promise<GenerateResult>;
  generateStream(options: GenerateOptions): AsyncGenerator<StreamChunk, void, undefined>;
  /** The prompt's tokens for these options (count_tokens); absent where nothing here tokenizes (a gateway). */
  countPromptTokens?(options: GenerateOptions): Promise<number>;
}

export function localBackend(model: LlamaModel): ChatBackend {
  return {
    bounds: { vocabSize: model.vocabulary.size, contextSize: model.contextSize },
    defaultMaxTokens: model.contextSize,
    generate: (options) => generate(model, options),
    generateStream: (options) => generateStream(model, options),
    countPromptTokens: (options) => countPromptTokens(model, options),
  };
}
