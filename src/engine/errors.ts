// Errors generate() raises because of what the request asked, beyond the grammar's own.

/**
 * The rendered prompt does not fit the model's context (checked before any grammar is compiled).
 * atLeast: promptTokens is a lower bound, found from the prompt's length without tokenizing all of it.
 */
export class ContextLengthError extends RangeError {
  readonly promptTokens: number;
  readonly contextSize: number;
  readonly atLeast: boolean;
  constructor(promptTokens: number, contextSize: number, atLeast = false) {
    super(
      `the prompt has ${atLeast ? "at least " : ""}${promptTokens} tokens but the context holds ${contextSize}; load the model with a larger contextSize or shorten the messages`,
    );
    this.name = "ContextLengthError";
    this.promptTokens = promptTokens;
    this.contextSize = contextSize;
    this.atLeast = atLeast;
  }
}

/**
 * toolChoice asks for a call, and maxTokens is smaller than the fewest tokens any such call takes in
 * this model's vocabulary (checked before decoding: the answer could only be cut).
 */
export class MaxTokensTooSmallError extends RangeError {
  readonly maxTokens: number;
  readonly neededTokens: number;
  /** `structured`: the answer must be a response format's JSON (or a call), not only a call. */
  constructor(maxTokens: number, neededTokens: number, structured = false) {
    super(
      structured
        ? `maxTokens is ${maxTokens}, but the shortest answer the response format allows takes at least ${neededTokens} tokens with this model's vocabulary (its end token included); raise maxTokens to ${neededTokens} or more`
        : `maxTokens is ${maxTokens}, but the shortest call toolChoice allows takes at least ${neededTokens} tokens with this model's vocabulary; raise maxTokens to ${neededTokens} or more, or use toolChoice "auto"`,
    );
    this.name = "MaxTokensTooSmallError";
    this.maxTokens = maxTokens;
    this.neededTokens = neededTokens;
  }
}
