// Interpreter 2 of a dialect definition: a streaming parser whose result and concatenated
// events are a function of the bytes alone, whatever the chunking.
import { resolveOptions, type DialectOptions, type ResolvedOptions } from "../dialects/options.js";
import { callTriggerOf, triggerOf } from "../dialects/spec.js";
import { scanJson, scanNamed, scanXml, type CallScan, type XmlCheckpoint } from "./calls.js";
import { heldBack } from "./glue.js";
import { arrayStep } from "./json-array.js";
import type { FinishReason, IncompleteCall, ParseResult, StreamEvent, ToolCall } from "./types.js";

export interface ParserOptions extends DialectOptions {
  finishReason?: "stop" | "length";
}

type State = "start" | "thought" | "content" | "section" | "call";

export class ToolCallStreamParser {
  readonly #o: ResolvedOptions;
  readonly #trigger: string;
  #text = "";
  #pos = 0;
  #state: State = "start";
  #callStart = 0;
  #content = "";
  #reasoning = "";
  #calls: ToolCall[] = [];
  #incomplete: IncompleteCall[] = [];
  #index = 0;  // the current call's index among started calls
  #started = false;
  #argsSent = 0;
  #ended = false;
  #afterCall = false;  // whitespace right after a call is glue until text proves otherwise
  #checkpoint: XmlCheckpoint | undefined;  // how far the current call was read
  #sectionStart = -1;  // where the open call section began (-1: none)
  #sectionCalls = 0;
  #answerOpened = false;  // callOpensAnswer: the answer's first character is known (a call may open it no later)

  constructor(options: ParserOptions) {
    this.#o = resolveOptions(options);
    this.#trigger = triggerOf(this.#o.spec);
  }

  /** Feeds the next piece of output; returns what it settled. */
  feed(chunk: string): StreamEvent[] {
    if (this.#ended) throw new Error("feed() after end(): create a new ToolCallStreamParser per output");
    if (typeof chunk !== "string") throw new TypeError("feed() expects a string");
    this.#text += chunk;
    return this.#run(false);
  }

  /** The output is over: settles everything and returns the result. */
  end(finishReason: "stop" | "length" = "stop"): ParseResult & { events: StreamEvent[] } {
    if (this.#ended) throw new Error("end() was already called");
    if (finishReason !== "stop" && finishReason !== "length") throw new TypeError(`finishReason must be "stop" or "length", got ${JSON.stringify(finishReason)}`);
    const events = this.#run(true);
    this.#ended = true;
    const calls = this.#calls;
    let finish: FinishReason = finishReason;
    if (finish === "stop" && calls.length > 0 && this.#incomplete.every((c) => c.kind !== "cut")) finish = "tool_calls";
    return {
      content: this.#content === "" ? null : this.#content,
      reasoning: this.#reasoning === "" ? null : this.#reasoning,
      toolCalls: calls,
      finishReason: finish,
      incomplete: this.#incomplete,
      dropped: [],
      events,
    };
  }

  #run(final: boolean): StreamEvent[] {
    const ev: StreamEvent[] = [];
    const content = (s: string) => { if (s) { this.#content += s; ev.push({ type: "content", delta: s }); } };
    const reasoning = (s: string) => { if (s) { this.#reasoning += s; ev.push({ type: "reasoning", delta: s }); } };
    const t = this.#text;
    for (;;) {
      if (this.#state === "start") {
        const r = this.#o.spec.reasoning;
        if (this.#o.reasoning === "forced-open") { this.#state = "thought"; continue; }
        if (!this.#o.reasoning || !r) { this.#state = "content"; continue; }
        if (t.startsWith(r.open)) { this.#pos = r.open.length; this.#state = "thought"; continue; }
        if (!final && r.open.startsWith(t)) return ev;
        this.#state = "content";
        continue;
      }
      if (this.#state === "thought") {
        const close = this.#o.spec.reasoning!.close;
        const i = t.indexOf(close, this.#pos);
        if (i >= 0) { reasoning(t.slice(this.#pos, i)); this.#pos = i + close.length; this.#state = "content"; continue; }
        const keep = final ? 0 : heldBack(t, this.#pos, close);
        reasoning(t.slice(this.#pos, t.length - keep));
        this.#pos = t.length - keep;
        return ev;
      }
      if (this.#state === "content") {
        const callable = this.#o.tools.length > 0;
        if (this.#o.spec.callOpensAnswer && !this.#answerOpened) {
          // Only the answer's first character after whitespace may open a call (Llama 3.x).
          let k = this.#pos;
          while (k < t.length && " \n\t\r".includes(t[k]!)) k++;
          if (k === t.length && !final) return ev;
          this.#answerOpened = true;
          if (callable && t[k] === "{") { this.#beginCall(this.#pos); this.#pos = k; continue; }
        }
        const triggers = callable && !this.#o.spec.callOpensAnswer;
        const i = triggers ? t.indexOf(this.#trigger, this.#pos) : -1;
        if (i >= 0) {
          const before = t.slice(this.#pos, i);
          if (!(this.#afterCall && before.trim() === "")) content(before);
          this.#afterCall = false;
          this.#pos = i + this.#trigger.length;
          if (this.#o.spec.section) {
            this.#sectionStart = i;
            this.#sectionCalls = 0;
            this.#state = "section";
          } else {
            this.#beginCall(i);
          }
          continue;
        }
        let keep = final || !triggers ? 0 : heldBack(t, this.#pos, this.#trigger);
        const rest = t.slice(this.#pos, t.length - keep);
        if (this.#afterCall && rest.trim() === "") {
          if (final) { this.#pos = t.length; return ev; }  // trailing glue: not content
          keep = t.length - this.#pos;
        } else {
          this.#afterCall = false;
          content(rest);
        }
        this.#pos = t.length - keep;
        return ev;
      }
      if (this.#state === "section") {
        const sec = this.#o.spec.section!;
        const ct = callTriggerOf(this.#o.spec);
        let cut: boolean;
        if (sec.arrayOpen) {
          // The calls are a JSON array's elements; a call object's "{" is part of the call.
          const step = arrayStep(t, this.#pos, this.#sectionCalls === 0, sec.arrayOpen, sec.close);
          if (step.kind === "close") { this.#pos = step.end; this.#state = "content"; this.#afterCall = true; continue; }
          if (step.kind === "call") { this.#pos = step.at; this.#beginCall(step.at); continue; }
          if (step.kind === "need" && !final) return ev;
          cut = step.kind === "need";
        } else {
          if (t.startsWith(sec.close, this.#pos)) {
            this.#pos += sec.close.length;
            this.#state = "content";
            this.#afterCall = this.#sectionCalls > 0;
            continue;
          }
          if (t.startsWith(ct, this.#pos)) { this.#beginCall(this.#pos); this.#pos += ct.length; continue; }
          const rest = t.slice(this.#pos);
          if (!final && (sec.close.startsWith(rest) || ct.startsWith(rest))) return ev;
          cut = rest === "";
        }
        const bad: IncompleteCall = {
          index: this.#index, name: null, kind: cut ? "cut" : "invalid",
          reason: cut ? "the output ended inside the tool-call section; it was never closed" : "unexpected text inside the tool-call section",
          // Invalid: the section up to the unexpected text, which stays content; cut: all of it.
          missing: [], text: cut ? t.slice(this.#sectionStart) : t.slice(this.#sectionStart, this.#pos),
        };
        if (cut) this.#pos = t.length;
        this.#incomplete.push(bad);
        ev.push({ type: "tool_call_error", index: this.#index, call: bad });
        this.#index++;
        this.#state = "content";
        continue;
      }
      // In a call.
      let scan: CallScan;
      if (this.#o.spec.call.kind === "xml") {
        const x = scanXml(t, this.#pos, this.#o, final, this.#checkpoint);
        this.#checkpoint = x.checkpoint;
        scan = x;
      } else if (this.#o.spec.call.kind === "named") {
        scan = scanNamed(t, this.#pos, this.#o, final);
      } else {
        scan = scanJson(t, this.#pos, this.#o, final);
      }
      if (scan.status === "refused") {
        // Not a call of a declared tool: its text is content, scanning goes on after the trigger.
        const inSection = this.#o.spec.section !== undefined;
        const from = inSection && this.#sectionCalls === 0 ? this.#sectionStart : this.#callStart;
        content(t.slice(from, this.#pos));
        this.#state = "content";
        continue;
      }
      if (scan.tool && !scan.holdStart && !this.#started) {
        this.#started = true;
        ev.push({ type: "tool_call_start", index: this.#index, id: scan.id ?? callId(this.#index), name: scan.tool.name });
      }
      if (this.#started) this.#streamArgs(scan, ev);
      if (scan.status === "need") {
        if (!final) return ev;
        this.#incomplete.push(this.#cutCall(scan, t.slice(this.#callStart)));
        ev.push({ type: "tool_call_error", index: this.#index, call: this.#incomplete[this.#incomplete.length - 1]! });
        this.#index++;
        this.#pos = t.length;
        this.#state = "content";
        continue;
      }
      const callText = t.slice(this.#callStart, scan.end);
      this.#pos = scan.end!;
      this.#state = this.#o.spec.section ? "section" : "content";
      this.#sectionCalls++;
      const extra = !this.#o.parallelToolCalls && this.#calls.length > 0 ? "a second call, but parallelToolCalls is false" : undefined;
      if (scan.invalid || extra) {
        const bad: IncompleteCall = { index: this.#index, name: scan.tool!.name, kind: "invalid", reason: (scan.invalid ?? extra)!, missing: missingOf(scan), text: callText };
        this.#incomplete.push(bad);
        ev.push({ type: "tool_call_error", index: this.#index, call: bad });
      } else {
        const call: ToolCall = { id: scan.id ?? callId(this.#index), type: "function", function: { name: scan.tool!.name, arguments: argumentsJson(scan.args) } };
        this.#calls.push(call);
        this.#afterCall = !this.#o.spec.section;
        ev.push({ type: "tool_call_arguments", index: this.#index, delta: call.function.arguments.slice(this.#sentLength(scan)) });
        ev.push({ type: "tool_call_end", index: this.#index, call });
      }
      this.#index++;
    }
  }

  #beginCall(at: number): void {
    this.#callStart = at;
    this.#state = "call";
    this.#checkpoint = undefined;
    this.#started = false;
    this.#argsSent = 0;
  }

  // Arguments stream as each value completes: `{"a": 1`, then `, "b": "x"`; the closing `}` at the end.
  #streamArgs(scan: CallScan, ev: StreamEvent[]): void {
    while (this.#argsSent < scan.args.length) {
      const [k, v] = scan.args[this.#argsSent]!;
      const piece = (this.#argsSent === 0 ? "{" : ", ") + `${JSON.stringify(k)}: ${JSON.stringify(v)}`;
      ev.push({ type: "tool_call_arguments", index: this.#index, delta: piece });
      this.#argsSent++;
    }
  }

  #sentLength(scan: CallScan): number {
    return this.#argsSent === 0 ? 0 : argumentsJson(scan.args.slice(0, this.#argsSent)).length - 1;
  }

  #cutCall(scan: CallScan, text: string): IncompleteCall {
    return {
      index: this.#index,
      name: scan.tool?.name ?? null,
      kind: "cut",
      reason: `the output ended inside ${scan.cutAt ?? "the call"}; the call was never closed`,
      missing: missingOf(scan),
      text,
    };
  }
}

function callId(index: number): string {
  return `call_${index}`;
}

function argumentsJson(args: Array<[string, unknown]>): string {
  return args.length === 0 ? "{}" : `{${args.map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")}}`;
}

function missingOf(scan: CallScan): string[] {
  if (!scan.tool) return [];
  const have = new Set(scan.args.map(([k]) => k));
  return scan.tool.required.filter((r) => !have.has(r));
}

/** The whole output at once: the same result the stream parser gives for any chunking. */
export function parseToolCalls(text: string, options: ParserOptions): ParseResult {
  if (typeof text !== "string") throw new TypeError("parseToolCalls expects the output text as a string");
  const p = new ToolCallStreamParser(options);
  p.feed(text);
  const { events: _events, ...result } = p.end(options.finishReason ?? "stop");
  return result;
}
