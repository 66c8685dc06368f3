// A rendered prompt as the model's tokens (native/llama/prompt_tokenizer.hpp: linear in the
// prompt's length, on a worker thread), refused with ContextLengthError when it cannot fit the
// context — before any tokenizing where a lower bound from its length shows it — and stopped
// between pieces when the signal aborts. countPromptTokens: how many tokens a request's prompt
// takes, as generate() would feed it (the chat template rendered with the messages, tools and
// thinking switch), without compiling a grammar or decoding: what Anthropic's count_tokens answers;
// tools whose schemas generate() refuses are refused.
import { ContextLengthError } from "./errors.js";
import type { GenerateOptions } from "./generate-options.js";
import type { LlamaModel } from "./model.js";
import { prepareChatAsync } from "./prepare-chat.js";
import { checkToolLimits } from "../parser/tool-limits.js";

/** The prompt's tokens; throws ContextLengthError when they reach the context, the signal's reason when it aborts. */
export async function tokenizeChatPrompt(model: LlamaModel, prompt: string, signal?: AbortSignal): Promise<Int32Array> {
  signal?.throwIfAborted();
  const job = model.native.tokenize(prompt, { special: true, maxTokens: model.contextSize - 1 });
  const cancel = () => job.cancel();
  signal?.addEventListener("abort", cancel, { once: true });
  let out: Awaited<typeof job.done>;
  try {
    out = await job.done; // settles once the worker thread has stopped
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
  if (out.cancelled) {
    signal?.throwIfAborted();
    throw new Error("tokenizing the prompt was cancelled");
  }
  if (out.tooLong || !out.tokens) throw new ContextLengthError(out.atLeast, model.contextSize, true);
  if (out.tokens.length >= model.contextSize) throw new ContextLengthError(out.tokens.length, model.contextSize);
  return out.tokens;
}

/**
 * The prompt's token count. Tools refused as generate() refuses them are refused here too (their
 * schemas lowered, checkToolLimits: a keyword not supported, a schema that matches no value, a
 * schema limit), but for what only the native compiler finds (its automaton states and memory),
 * which would take a compile.
 */
export async function countPromptTokens(model: LlamaModel, options: GenerateOptions): Promise<number> {
  const { prompt, resolved } = await prepareChatAsync(model, { ...options, mask: false });
  if (resolved) checkToolLimits(resolved);
  return (await tokenizeChatPrompt(model, prompt, options.signal)).length;
}
