// Errors generate() raises because of what the request asked, beyond the grammar's own.

/** The rendered prompt does not fit the model's context (checked before any grammar is compiled). */
export class ContextLengthError extends RangeError {
  readonly promptTokens: number;
  readonly contextSize: number;
  constructor(promptTokens: number, contextSize: number) {
    super(`the prompt has ${promptTokens} tokens but the context holds ${contextSize}; load the model with a larger contextSize or shorten the messages`);
    this.name = "ContextLengthError";
    this.promptTokens = promptTokens;
    this.contextSize = contextSize;
  }
}
