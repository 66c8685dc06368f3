// Interpreter 2 of a dialect definition: a streaming parser whose result and concatenated
// events are a function of the bytes alone, whatever the chunking. The reading is done by the
// reader of the dialect's call kind (reader.ts); this class feeds it and keeps the result.
import { resolveRequest, type DialectOptions, type ResolvedRequest } from "../dialects/options.js";
import { ToolDefinitionError } from "../dialects/tools.js";
import { checkToolLimits } from "./tool-limits.js";
import type { DroppedConstruct, FinishReason, IncompleteCall, ParseResult, StreamEvent, ToolCall } from "./types.js";
import { HarmonyReader } from "./read-harmony.js";
import { EnvelopeReader } from "./read-envelope.js";
import { MarkerReader } from "./read-markers.js";
import type { OutputReader } from "./reader.js";
import { TextBuffer } from "./text.js";
import { structuredVerdict } from "./structured.js";
/** What the parser takes besides a request's options. */
export interface ParserLimits {
  finishReason?: "stop" | "length";
  /**
   * A call longer than this (characters, from its opening marker through its own end) is dropped
   * whole and recorded in `dropped`; nothing of it reaches content. Decided on the call's first
   * `maxCallLength` characters: a call whose end they do not show (its end is told only by what
   * follows, as a missing close is) counts as longer. Default: no limit.
   */
  maxCallLength?: number;
}

export interface ParserOptions extends DialectOptions, ParserLimits {}

/** Plain options, or a request resolved once (resolveRequest), which is not resolved again. */
export type ParserInput = ParserOptions | (ResolvedRequest & ParserLimits);

export class ToolCallStreamParser {
  readonly #text = new TextBuffer(); // absolute offsets; what nothing needs any more is released
  readonly #reader: OutputReader;
  #content = "";
  #reasoning = "";
  #calls: ToolCall[] = [];
  #incomplete: IncompleteCall[] = [];
  #dropped: DroppedConstruct[] = [];
  #ended = false;
  readonly #resolved: ResolvedRequest;

  constructor(options: ParserInput) {
    const o: ResolvedRequest = resolveRequest(options);
    this.#resolved = o;
    checkToolLimits(o);
    const limit = options.maxCallLength;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      throw new ToolDefinitionError(
        `maxCallLength must be a positive integer (characters of one call), got ${JSON.stringify(limit)}`,
      );
    const kind = o.spec.call.kind;
    const Reader = kind === "harmony" ? HarmonyReader : kind === "envelope" ? EnvelopeReader : MarkerReader;
    this.#reader = new Reader(o, limit ?? Infinity);
  }

  /** Feeds the next piece of output; returns what it settled. */
  feed(chunk: string): StreamEvent[] {
    if (this.#ended) throw new Error("feed() after end(): create a new ToolCallStreamParser per output");
    if (typeof chunk !== "string") throw new TypeError("feed() expects a string");
    this.#text.append(chunk);
    const ev = this.#run(false);
    // Text before what is still needed is released: memory stays bounded by the open construct.
    this.#text.dropBefore(this.#reader.keepFrom());
    return ev;
  }

  /** The output is over: settles everything and returns the result. */
  end(finishReason: "stop" | "length" = "stop"): ParseResult & { events: StreamEvent[] } {
    if (this.#ended) throw new Error("end() was already called");
    if (finishReason !== "stop" && finishReason !== "length")
      throw new TypeError(`finishReason must be "stop" or "length", got ${JSON.stringify(finishReason)}`);
    const events = this.#run(true);
    this.#ended = true;
    const calls = this.#calls;
    let finish: FinishReason = finishReason;
    if (finish === "stop" && calls.length > 0 && this.#incomplete.every((c) => c.kind !== "cut")) finish = "tool_calls";
    const content = this.#content === "" ? null : this.#content;
    const rf = this.#resolved.outputFormat;
    const checked =
      rf && structuredVerdict(rf, content, finishReason, calls.length + this.#incomplete.length + this.#dropped.length);
    return {
      ...(checked ? { structured: checked.verdict, ...("value" in checked ? { parsed: checked.value } : {}) } : {}),
      content,
      reasoning: this.#reasoning === "" ? null : this.#reasoning,
      toolCalls: calls,
      finishReason: finish,
      incomplete: this.#incomplete,
      dropped: this.#dropped,
      events,
    };
  }

  #run(final: boolean): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.#reader.run(this.#text, final, {
      content: (s) => {
        if (s) {
          this.#content += s;
          events.push({ type: "content", delta: s });
        }
      },
      reasoning: (s) => {
        if (s) {
          this.#reasoning += s;
          events.push({ type: "reasoning", delta: s });
        }
      },
      events,
      calls: this.#calls,
      incomplete: this.#incomplete,
      dropped: this.#dropped,
    });
    return events;
  }
}

/** The whole output at once: the same result the stream parser gives for any chunking. */
export function parseToolCalls(text: string, options: ParserInput): ParseResult {
  if (typeof text !== "string") throw new TypeError("parseToolCalls expects the output text as a string");
  const p = new ToolCallStreamParser(options);
  p.feed(text);
  const { events: _events, ...result } = p.end(options.finishReason ?? "stop");
  return result;
}
