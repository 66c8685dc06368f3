// What an upstream engine adapter does: builds the HTTP request for one prepared chat, and reads
// the engine's answer (whole, or one streamed event at a time) back into raw text for the parser.
import type { GenerateOptions } from "../../engine/generate-options.js";
import type { PreparedChat } from "../../engine/prepare-chat.js";
import type { JsonPath } from "../../parser/json-scan.js";
import type { Vocabulary } from "../../vocab/vocabulary.js";

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

export type EngineName = "llama-server" | "vllm" | "sglang" | "openai";

/**
 * How far the answer is known to be held to the grammar: "confirmed" (the engine echoed the
 * grammar it applied), "sent" (the grammar went in the engine's field; the engine does not tell
 * whether it applied it), "verify-only" (the engine takes no grammar: the answer is only checked
 * here), "none" (no grammar: no tools, tool_choice none, or masking off).
 */
export type Enforcement = "confirmed" | "sent" | "verify-only" | "none";

export interface UpstreamRequest {
  /** Path on the upstream, e.g. "/completion". */
  path: string;
  body: Record<string, unknown>;
}

export interface RequestContext {
  chat: PreparedChat;
  options: GenerateOptions;
  vocabulary: Vocabulary;
  stream: boolean;
  /** The model name an OpenAI-style engine expects in `model`. */
  upstreamModel: string | undefined;
}

/** The end of an upstream answer. */
export interface UpstreamEnd {
  /** "length": the engine stopped at max tokens; "stop": an end token or a stop string. */
  finish: "stop" | "length";
  promptTokens: number | undefined;
  completionTokens: number | undefined;
  /** The grammar the engine says it applied, when it says (llama-server echoes it). */
  appliedGrammar: string | undefined;
  /** Token ids of the answer, when the engine returns them. */
  tokens: number[] | undefined;
}

/** One piece of an answer: text to parse, and the end when this piece is the last. */
export interface UpstreamPiece {
  text: string;
  end?: UpstreamEnd;
  /** An OpenAI-compatible engine's own output beside the text: reasoning, and call fragments. */
  reasoning?: string;
  callDeltas?: CallDelta[];
}

/** A fragment of a call as an OpenAI-compatible engine streams it (the whole call, unstreamed). */
export interface CallDelta {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
  /** The fragment is not of a call's shape: why, and the fragment as sent (its call is invalid). */
  malformed?: { reason: string; text: string };
}

/**
 * An answer's (or a stream event's) calls as the upstream sent them, by their position in its
 * calls array: why a call is malformed though JSON.parse read it (a key given twice in it), and
 * a call's text as sent, for the invalid entry that reports it.
 */
export interface CallsAsSent {
  malformed: ReadonlyMap<number, string>;
  text(position: number): string | undefined;
}

export interface EngineAdapter {
  readonly name: EngineName;
  /**
   * The engine is sent the prompt rendered here and the grammar in its own field (the gateway needs
   * the model's tokenizer); false: it renders its own prompt, takes no grammar, and its answer is
   * only verified here ("verify-only").
   */
  readonly takesGrammar: boolean;
  /** GET path that answers 200 when the engine can serve. */
  readonly healthPath: string;
  /** POST path its requests go to (`request` builds them there). */
  readonly requestPath: string;
  /** The request, and the grammar text it carries (undefined: none). */
  request(ctx: RequestContext): { request: UpstreamRequest; grammar: string | undefined };
  /**
   * Where the engine's own calls stand in a whole answer (`stream` false) or a stream event: the
   * path of the calls array. Absent: the engine sends no calls, and a key given twice anywhere
   * refuses the answer (upstream-json.ts).
   */
  callsAt?(stream: boolean): JsonPath;
  /** A whole (non-streamed) response body, and its calls as sent. */
  readBody(body: unknown, calls?: CallsAsSent): UpstreamPiece;
  /**
   * A streamed event's data, parsed from JSON; `state` is this answer's own (for engines that send
   * the text so far rather than the new part).
   */
  readEvent(data: unknown, state: StreamState, calls?: CallsAsSent): UpstreamPiece;
  /** The end of a stream whose events gave none before it closed ([DONE]); undefined: it was cut. */
  endOfStream?(state: StreamState): UpstreamEnd | undefined;
}

/** One streamed answer's state, for adapters: the text so far and whatever else they keep. */
export interface StreamState {
  text: string;
  [key: string]: unknown;
}

export class UpstreamProtocolError extends Error {
  constructor(engine: EngineName, message: string) {
    super(`${engine}: ${message}`);
    this.name = "UpstreamProtocolError";
  }
}
