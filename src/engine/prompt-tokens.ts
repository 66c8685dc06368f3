// How many tokens a request's prompt takes, as generate() would feed it (the chat template rendered
// with the messages, tools and thinking switch), without compiling a grammar or decoding: what
// Anthropic's count_tokens answers.
import type { GenerateOptions } from "./generate-options.js";
import type { LlamaModel } from "./model.js";
import { prepareChat } from "./prepare-chat.js";

export async function countPromptTokens(model: LlamaModel, options: GenerateOptions): Promise<number> {
  const { prompt } = prepareChat(model, { ...options, mask: false });
  return (await model.native.tokenizePrompt(prompt)).length;
}
