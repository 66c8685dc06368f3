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

export interface DroppedConstruct { index: number; reason: string; length: number }

export type FinishReason = "stop" | "tool_calls" | "length";

export interface ParseResult {
  content: string | null;
  reasoning: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  incomplete: IncompleteCall[];
  dropped: DroppedConstruct[];
}

export type StreamEvent =
  | { type: "content"; delta: string }
  | { type: "reasoning"; delta: string }
  | { type: "tool_call_start"; index: number; id: string; name: string }
  | { type: "tool_call_arguments"; index: number; delta: string }
  | { type: "tool_call_end"; index: number; call: ToolCall }
  | { type: "tool_call_error"; index: number; call: IncompleteCall };
