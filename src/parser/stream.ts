// Interpreter 2 of a dialect definition: a streaming parser whose result and concatenated
// events are a function of the bytes alone, whatever the chunking.
import { resolveOptions, type DialectOptions, type ResolvedOptions } from "../dialects/options.js";
import { ToolDefinitionError } from "../dialects/tools.js";
import { callTriggerOf, triggerOf, type Glue } from "../dialects/spec.js";
import { scanJson, scanNamed, scanXml, type CallScan, type XmlCheckpoint } from "./calls.js";
import { heldBack, matchGlue, NEED } from "./glue.js";
import { JsonExtent } from "./json-extent.js";
import type { DroppedConstruct, FinishReason, IncompleteCall, ParseResult, StreamEvent, ToolCall } from "./types.js";
import { HarmonyReader } from "./harmony.js";
import { JSON_WS_MAX } from "../dialects/grammar-forms.js";
import { arrayStep } from "./json-array.js";

export interface ParserOptions extends DialectOptions {
  finishReason?: "stop" | "length";
  /**
   * A call longer than this (characters, from its opening marker through its own end) is dropped
   * whole and recorded in `dropped`; nothing of it reaches content. Default: no limit.
   */
  maxCallLength?: number;
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
  #extent = new JsonExtent();  // how far the current call's JSON object was read
  #sectionStart = -1;  // where the open call section began (-1: none)
  #sectionCalls = 0;
  readonly #limit: number;
  #dropped: DroppedConstruct[] = [];
  #dropping: DroppedConstruct | undefined;  // the over-limit call being skipped to its own end
  #glue: [number, number] = [0, 0];  // whitespace taken as glue right before the last trigger found in content
  readonly #harmony: HarmonyReader | undefined;  // harmony turns are messages, read by their own reader
  #answerOpened = false;  // callOpensAnswer: the answer's first character is known (a call may open it no later)

  constructor(options: ParserOptions) {
    this.#o = resolveOptions(options);
    this.#trigger = triggerOf(this.#o.spec);
    const limit = options.maxCallLength;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      throw new ToolDefinitionError(`maxCallLength must be a positive integer (characters of one call), got ${JSON.stringify(limit)}`);
    this.#limit = limit ?? Infinity;
    this.#harmony = this.#o.spec.call.kind === "harmony" ? new HarmonyReader(this.#o, this.#limit) : undefined;

  }

  /** Feeds the next piece of output; returns what it settled. */
  feed(chunk: string): StreamEvent[] {
    if (this.#ended) throw new Error("feed() after end(): create a new ToolCallStreamParser per output");
    if (typeof chunk !== "string") throw new TypeError("feed() expects a string");
    this.#compact();
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
      dropped: this.#dropped,
      events,
    };
  }

  #run(final: boolean): StreamEvent[] {
    const ev: StreamEvent[] = [];
    const content = (s: string) => { if (s) { this.#content += s; ev.push({ type: "content", delta: s }); } };
    const reasoning = (s: string) => { if (s) { this.#reasoning += s; ev.push({ type: "reasoning", delta: s }); } };
    const t = this.#text;
    if (this.#harmony) {
      this.#harmony.run(t, final, { content, reasoning, events: ev, calls: this.#calls, incomplete: this.#incomplete, dropped: this.#dropped });
      return ev;
    }
    for (;;) {
      if (this.#state === "start") {
        const r = this.#o.spec.reasoning;
        if (this.#o.reasoning === "forced-open") { this.#state = "thought"; continue; }
        // Whitespace that opens the answer is glue when a call follows it (GLM-4.6 writes "\n<tool_call>").
        this.#afterCall = true;
        if (!this.#o.reasoning || !r) { this.#state = "content"; continue; }
        const lead = r.lead ?? "";
        const at = lead !== "" && t.startsWith(lead) ? lead.length : 0;
        if (t.startsWith(r.open, at)) { this.#pos = at + r.open.length; this.#state = "thought"; continue; }
        if (!final && (r.open.startsWith(t) || (lead + r.open).startsWith(t))) return ev;
        this.#state = "content";
        continue;
      }
      if (this.#state === "thought") {
        const close = this.#o.spec.reasoning!.close;
        const i = t.indexOf(close, this.#pos);
        if (i >= 0) { reasoning(t.slice(this.#pos, i)); this.#pos = i + close.length; this.#state = "content"; this.#afterCall = true; continue; }
        const keep = final ? 0 : heldBack(t, this.#pos, close);
        reasoning(t.slice(this.#pos, t.length - keep));
        this.#pos = t.length - keep;
        return ev;
      }
      if (this.#state === "content") {
        const callable = this.#o.tools.length > 0;
        if (this.#o.spec.callOpensAnswer && !this.#answerOpened) {
          // Only the answer's first character after whitespace may open a call (Llama 3.x).
          // No more whitespace may lead a call than the grammar allows (JSON_WS_MAX).
          let k = this.#pos;
          while (k < t.length && k - this.#pos <= JSON_WS_MAX && " \n\t\r".includes(t[k]!)) k++;
          const tooLong = k - this.#pos > JSON_WS_MAX;
          if (k === t.length && !final && !tooLong) return ev;
          this.#answerOpened = true;
          if (callable && !tooLong && t[k] === "{") { this.#beginCall(this.#pos); this.#pos = k; continue; }
        }
        const triggers = callable && !this.#o.spec.callOpensAnswer;
        const i = triggers ? t.indexOf(this.#trigger, this.#pos) : -1;
        if (i >= 0) {
          const before = t.slice(this.#pos, i);
          const glued = this.#afterCall && before.trim() === "";
          if (!glued) content(before);
          this.#glue = [glued ? this.#pos : i, i];
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
          const gap: Glue = sec.gap === undefined ? [] : [{ optional: sec.gap }];
          const c = matchGlue(t, this.#pos, [...gap, sec.close], final);
          if (c >= 0) {
            this.#pos = c;
            this.#state = "content";
            this.#afterCall = this.#sectionCalls > 0;
            continue;
          }
          const k = matchGlue(t, this.#pos, [...gap, ct], final);
          if (k >= 0) { this.#beginCall(k - ct.length); this.#pos = k; continue; }
          cut = c === NEED || k === NEED;
          if (!final && cut) return ev;
        }
        const bad: IncompleteCall = {
          index: this.#index, name: null, kind: cut ? "cut" : "invalid",
          reason: cut ? "the output ended inside the tool-call section; it was never closed" : "unexpected text inside the tool-call section",
          // Invalid: the section up to the unexpected text, which stays content; cut: all of it.
          missing: [], text: t.slice(this.#sectionStart, cut ? t.length : this.#pos),
        };
        if (cut) this.#pos = t.length;
        this.#incomplete.push(bad);
        ev.push({ type: "tool_call_error", index: this.#index, call: bad });
        this.#index++;
        if (cut) this.#pos = t.length;  // a cut section is dropped from content whole
        this.#state = "content";
        continue;
      }
      // In a call.
      if (this.#dropping) {
        // Over the limit: skipped through the call's own end, as the dialect defines it.
        const s = this.#scan(t, final);
        if (s.status === "need" && !final) return ev;
        const end = s.status === "done" ? s.end! : t.length;
        this.#dropping.length = end - this.#callStart;
        this.#dropping = undefined;
        this.#pos = end;
        this.#state = this.#o.spec.section ? "section" : "content";
        this.#sectionCalls++;
        this.#index++;
        continue;
      }
      let scan: CallScan;
      const cap = this.#callStart + this.#limit;
      if (t.length > cap) {
        // Decided on the first `limit` characters alone, so every split decides alike.
        scan = this.#scan(t.slice(0, cap), false);
        if (scan.status === "need" && scan.tool) { this.#drop(scan, ev, true); continue; }
        if (scan.status === "need") {
          // The name itself runs past the limit: whatever it turns out to be decides.
          scan = this.#scan(t, final);
          if (scan.tool || (scan.status === "need" && final)) { this.#drop(scan, ev, false); continue; }
          if (scan.status === "need") return ev;
        }
      } else {
        scan = this.#scan(t, final);
      }
      if (scan.status === "refused") {
        // Not a call of a declared tool: its text is content, scanning goes on after the trigger.
        const inSection = this.#o.spec.section !== undefined;
        let from = inSection && this.#sectionCalls === 0 ? this.#sectionStart : this.#callStart;
        if (from === this.#glue[1]) from = this.#glue[0];  // the whitespace held as glue was content after all
        content(t.slice(from, this.#pos));
        this.#state = "content";
        continue;
      }
      this.#start(scan, ev);
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

  #scan(t: string, final: boolean): CallScan {
    if (this.#o.spec.call.kind === "xml") {
      const x = scanXml(t, this.#pos, this.#o, final, this.#checkpoint);
      this.#checkpoint = x.checkpoint;
      return x;
    }
    if (this.#o.spec.call.kind === "named") return scanNamed(t, this.#pos, this.#o, final, this.#extent);
    return scanJson(t, this.#pos, this.#o, final, this.#extent);
  }

  /** The current call is over the limit: say so once, then skip it (see the dropping state). */
  #drop(scan: CallScan, ev: StreamEvent[], withArgs: boolean): void {
    this.#start(scan, ev);
    if (withArgs && this.#started) this.#streamArgs(scan, ev);
    this.#dropping = beginDrop(this.#dropped, ev, this.#index, scan.tool?.name ?? null, this.#limit);
  }

  /** A call starts once its name (and a wire id it waits for) is read: then its start is streamed, once. */
  #start(scan: CallScan, ev: StreamEvent[]): void {
    if (!scan.tool || scan.holdStart || this.#started) return;
    this.#started = true;
    ev.push({ type: "tool_call_start", index: this.#index, id: scan.id ?? callId(this.#index), name: scan.tool.name });
  }

  /** Text before what is still needed goes, so feeding stays linear in the output's length. */
  #compact(): void {
    if ((this.#state !== "content" && this.#state !== "thought") || this.#pos < 4096) return;
    this.#text = this.#text.slice(this.#pos);
    this.#pos = 0;
  }

  #beginCall(at: number): void {
    this.#callStart = at;
    this.#state = "call";
    this.#checkpoint = undefined;
    this.#extent = new JsonExtent();
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

/** Records an over-limit call (its length is set once its end is found) and announces it. */
export function beginDrop(dropped: DroppedConstruct[], ev: StreamEvent[], index: number, name: string | null, limit: number): DroppedConstruct {
  const reason = `the call is longer than maxCallLength (${limit} characters)`;
  const d: DroppedConstruct = { index, name, reason, length: 0 };
  dropped.push(d);
  ev.push({ type: "tool_call_dropped", index, name, reason });
  return d;
}

export function callId(index: number): string {
  return `call_${index}`;
}

export function argumentsJson(args: Array<[string, unknown]>): string {
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
