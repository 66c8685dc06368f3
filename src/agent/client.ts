// What the loop needs from a model, whichever kind it is: one request in, one assistant turn out.
import type { IncompleteCall, StreamEvent } from "../parser/types.js";
import type { AgentMessage, AgentUsage, AssistantAgentMessage } from "./types.js";
import type { ReasoningField } from "./request-options.js";

export interface TurnRequest {
  messages: readonly AgentMessage[];
  /** OpenAI tool definitions. */
  tools: unknown[];
  /** Request fields beyond model/messages/tools (provider, usage, reasoning, max_tokens). */
  extras: Record<string, unknown>;
  reasoning: ReasoningField | undefined;
  maxTokens: number | undefined;
  /** Makes the ids given to calls that came without one unique in the run. */
  turn: number;
}

export interface ModelTurn {
  message: AssistantAgentMessage;
  finishReason: string | null;
  usage: AgentUsage | null;
  reportedCostUsd: number | null;
  incompleteCalls?: IncompleteCall[];
}

export interface ModelClient {
  /** What a request goes to, for messages: "POST <url>", "the model <path>". */
  readonly target: string;
  /**
   * `onEvent` sees the parser's events while the answer is written, where the client reads the
   * answer as it is decoded (a loaded model); a client that gets the answer whole calls it never.
   */
  complete(
    request: TurnRequest,
    signal: AbortSignal | undefined,
    onEvent?: (event: StreamEvent) => void,
  ): Promise<ModelTurn>;
}

/** A request that got no usable answer; the run ends with status "error" and this as its error. */
export class AgentRequestError extends Error {
  readonly httpStatus: number | undefined;
  readonly body: string | undefined;
  constructor(message: string, httpStatus?: number, body?: string) {
    super(message);
    this.name = "AgentRequestError";
    this.httpStatus = httpStatus;
    this.body = body;
  }
}
