// What the parser returns and streams: OpenAI-shaped calls, plus what did not make it.
export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/** A call the output started but that is not a valid, finished call. */
export interface IncompleteCall {
  index: number;
  name: string | null;
  /** "cut": the output ended inside it; "invalid": it finished but does not fit its tool. */
  kind: "cut" | "invalid";
  reason: string;
  /** Required arguments it lacks. */
  missing: string[];
  /** The call's text as generated. */
  text: string;
}

/** A call dropped whole because it ran over `maxCallLength`. */
export interface DroppedConstruct {
  index: number;
  /** The tool it named (null when the name itself ran past the limit). */
  name: string | null;
  reason: string;
  /** Its length in characters, from its opening marker through its own end (or the output's end). */
  length: number;
}

export type FinishReason = "stop" | "tool_calls" | "length";

export interface ParseResult {
  content: string | null;
  reasoning: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  incomplete: IncompleteCall[];
  dropped: DroppedConstruct[];
  /** Under a response format only: the verdict on the content (src/parser/structured.ts). */
  structured?: StructuredVerdict;
  /** Under a response format only, when `structured.status` is "valid": the content's value (exact JSON). */
  parsed?: unknown;
}

/** The parser's verdict on an answer's content under a response format. */
export interface StructuredVerdict {
  /**
   * "valid": the content is one JSON value that fits the format; "invalid": it is not (`reason`
   * says why); "cut": the output ended at maxTokens (finishReason "length"), whatever it holds;
   * "calls": the answer is tool calls, and its content is not held to the format.
   */
  status: "valid" | "invalid" | "cut" | "calls";
  reason?: string;
}

/** One complete top-level argument of a call, as its tool_call_argument event tells it. */
export type ToolCallArgument = Omit<Extract<StreamEvent, { type: "tool_call_argument" }>, "type">;

export type StreamEvent =
  | { type: "content"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_arguments"; index: number; delta: string }
  /**
   * One top-level argument of call `index`, once its value is complete: its name, a JSON pointer to
   * it in the arguments, the value (parsed; undefined when it nests deeper than MAX_VALUE_DEPTH, 512)
   * and its JSON text as the call's arguments write it (numbers as written), and whether the value
   * fits the argument's schema.
   */
  | {
      type: "tool_call_argument";
      index: number;
      name: string;
      path: string;
      value: unknown;
      json: string;
      valid: boolean;
    }
  | { type: "tool_call_end"; index: number; call: ToolCall }
  | { type: "tool_call_error"; index: number; call: IncompleteCall }
  | { type: "tool_call_dropped"; index: number; name: string | null; reason: string };
