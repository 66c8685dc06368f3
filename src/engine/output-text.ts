// The output as generate() and generateStream() read it, token by token: each token's text goes
// through the stop scanner (stop.ts) and what it lets through into the dialect's parser. When the
// grammar masks for an answer that must hold something — a call (tool choice "required", a named
// tool) or a response format's JSON — the scanner is armed only once the parser has seen the
// answer's first call end: a stop string in the text before it (whitespace, a thinking block, the
// call's own syntax, the JSON) cannot end the answer without what the request asks for
// (test/test-model/stop-before-call.test.ts). A response format's JSON ends the answer (the grammar
// offers only the end after it), so no stop string acts on such an answer. After the first call,
// and under any other request, a stop string ends the answer wherever it starts. The scanner is
// armed from the token after the one that ended the call.
import type { ResolvedRequest } from "../dialects/options.js";
import { ToolCallStreamParser } from "../parser/stream.js";
import type { ParseResult, StreamEvent } from "../parser/types.js";
import { TokenKind } from "../vocab/types.js";
import type { LlamaModel } from "./model.js";
import { StopScanner } from "./stop.js";

const endsCall = (e: StreamEvent) =>
  e.type === "tool_call_end" || e.type === "tool_call_error" || e.type === "tool_call_dropped";

export class OutputText {
  /** The output's text so far: up to the stop string once one is found. */
  text = "";
  readonly #model: LlamaModel;
  readonly #decoder = new TextDecoder();
  readonly #stop: string | string[] | undefined;
  #scanner: StopScanner;
  #parser: ToolCallStreamParser | undefined;
  #attached = false;

  constructor(model: LlamaModel, stop: string | string[] | undefined) {
    this.#model = model;
    this.#stop = stop;
    this.#scanner = new StopScanner(stop); // checks the strings before anything is prepared
  }

  get stopped(): boolean {
    return this.#scanner.stopped;
  }

  /** The stop string that ended the output, if one did. */
  get stopSequence(): string | undefined {
    return this.#scanner.matched;
  }

  /** Whether the output is read by a dialect's parser (a dialect applies to the request). */
  get parsed(): boolean {
    return this.#parser !== undefined;
  }

  /**
   * Once the generation is prepared (before its first token): the parser for its resolved request
   * (none when no dialect applies), and whether the grammar masks (stop strings then wait for a
   * call the choice requires). Returns the events of any text fed before.
   */
  attach(resolved: ResolvedRequest | undefined, masked: boolean): StreamEvent[] {
    this.#attached = true;
    if (!resolved) return this.text ? [{ type: "content", delta: this.text }] : [];
    this.#parser = new ToolCallStreamParser(resolved);
    const waits = masked && (resolved.callRequired || resolved.outputFormat !== undefined);
    if (waits && this.text === "") this.#scanner = new StopScanner(this.#stop, false);
    return this.#read(this.text);
  }

  /** One sampled token: the events its text gives (none once stopped). */
  token(id: number): StreamEvent[] {
    // End-of-generation tokens end the output; their text is not part of it.
    if (this.#scanner.stopped || this.#model.vocabulary.kind(id) === TokenKind.EndOfGeneration) return [];
    return this.#take(
      this.#scanner.feed(this.#decoder.decode(this.#model.vocabulary.tokenBytes(id), { stream: true })),
    );
  }

  /**
   * The output has ended: what the decoder and the scanner held back, then the parser's end
   * (`finish` as the engine reported it). `parsed` is absent when no dialect applies.
   */
  end(finish: "stop" | "length"): { events: StreamEvent[]; parsed?: ParseResult } {
    const events = this.#take(this.#scanner.feed(this.#decoder.decode()) + this.#scanner.flush());
    if (!this.#parser) return { events };
    const parsed = this.#parser.end(finish);
    return { events: [...events, ...parsed.events], parsed };
  }

  /** Text let through by the scanner: kept, and read by the parser once there is one. */
  #take(chunk: string): StreamEvent[] {
    if (!chunk) return [];
    this.text += chunk;
    if (!this.#attached) return [];
    if (!this.#parser) return [{ type: "content", delta: chunk }];
    return this.#read(chunk);
  }

  #read(chunk: string): StreamEvent[] {
    if (!chunk || !this.#parser) return [];
    const events = this.#parser.feed(chunk);
    if (events.some(endsCall)) this.#scanner.arm();
    return events;
  }
}
