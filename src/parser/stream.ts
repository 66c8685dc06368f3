// Interpreter 2 of a dialect definition: a streaming parser whose result and concatenated
// events are a function of the bytes alone, whatever the chunking.
import { resolveOptions, type DialectOptions, type ResolvedOptions } from "../dialects/options.js";
import { ToolDefinitionError } from "../dialects/tools.js";
import { checkToolLimits } from "./tool-limits.js";
import { callTriggerOf, sectionCloseText, triggerOf, type Glue } from "../dialects/spec.js";
import { CallMemo, type CallScan } from "./calls.js";
import { endsInside, heldBack, matchGlue, NEED } from "./glue.js";
import { scanJson, scanNamed } from "./json-call.js";
import { scanXml } from "./xml-call.js";
import { scanPython } from "./python-call.js";
import type { DroppedConstruct, FinishReason, IncompleteCall, ParseResult, StreamEvent, ToolCall } from "./types.js";
import { HarmonyReader } from "./harmony.js";
import { EnvelopeReader } from "./envelope.js";
import { JSON_WS_MAX } from "../dialects/grammar-forms.js";
import { arrayStep } from "./json-array.js";
import { argumentsJson, argumentText, beginDrop, callId } from "./settle.js";
import { TextBuffer, type Text } from "./text.js";

export interface ParserOptions extends DialectOptions {
  finishReason?: "stop" | "length";
  /**
   * A call longer than this (characters, from its opening marker through its own end) is dropped
   * whole and recorded in `dropped`; nothing of it reaches content. Decided on the call's first
   * `maxCallLength` characters: a call whose end they do not show (its end is told only by what
   * follows, as a missing close is) counts as longer. Default: no limit.
   */
  maxCallLength?: number;
}

type State = "start" | "thought" | "content" | "section" | "call";

export class ToolCallStreamParser {
  readonly #o: ResolvedOptions;
  readonly #trigger: string;
  readonly #text = new TextBuffer();  // absolute offsets; what nothing needs any more is released
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
  #glueSeen = 0;  // while #afterCall: the text before this offset is whitespace
  #searched = 0;  // in content: no trigger starts before this offset (from #pos on)
  #memo = new CallMemo();  // what scanning the current call has learnt
  #sectionStart = -1;  // where the open call section began (-1: none)
  #sectionCalls = 0;
  #sections = 0;  // sections opened so far (the grammar allows one)
  readonly #limit: number;
  #dropped: DroppedConstruct[] = [];
  #dropping: DroppedConstruct | undefined;  // the over-limit call being skipped to its own end
  #glue: [number, number] = [0, 0];  // whitespace taken as glue right before the last trigger found in content
  readonly #harmony: HarmonyReader | EnvelopeReader | undefined;  // harmony turns and JSON envelopes have their own readers
  #answerOpened = false;  // callOpensAnswer: the answer's first character is known (a call may open it no later)

  constructor(options: ParserOptions) {
    this.#o = resolveOptions(options);
    checkToolLimits(options);
    this.#trigger = triggerOf(this.#o.spec);
    const limit = options.maxCallLength;
    if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
      throw new ToolDefinitionError(`maxCallLength must be a positive integer (characters of one call), got ${JSON.stringify(limit)}`);
    this.#limit = limit ?? Infinity;
    const kind = this.#o.spec.call.kind;
    this.#harmony = kind === "harmony" ? new HarmonyReader(this.#o, this.#limit) : kind === "envelope" ? new EnvelopeReader(this.#o, this.#limit) : undefined;

  }

  /** Feeds the next piece of output; returns what it settled. */
  feed(chunk: string): StreamEvent[] {
    if (this.#ended) throw new Error("feed() after end(): create a new ToolCallStreamParser per output");
    if (typeof chunk !== "string") throw new TypeError("feed() expects a string");
    this.#text.append(chunk);
    const ev = this.#run(false);
    this.#compact();
    return ev;
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
        const at = lead !== "" && t.startsWith(lead, 0) ? lead.length : 0;
        if (t.startsWith(r.open, at)) { this.#pos = at + r.open.length; this.#state = "thought"; continue; }
        if (!final && (endsInside(t, 0, r.open) || endsInside(t, 0, lead + r.open))) return ev;
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
          while (k < t.length && k - this.#pos <= JSON_WS_MAX && " \n\t\r".includes(t.charAt(k))) k++;
          const tooLong = k - this.#pos > JSON_WS_MAX;
          if (k === t.length && !final && !tooLong) return ev;
          this.#answerOpened = true;
          if (callable && !tooLong && t.charAt(k) === "{") { this.#beginCall(this.#pos); this.#pos = k; continue; }
        }
        const triggers = callable && !this.#o.spec.callOpensAnswer;
        const i = triggers ? t.indexOf(this.#trigger, Math.max(this.#pos, this.#searched)) : -1;
        if (i >= 0) {
          const glued = this.#afterCall && this.#blank(t, i);
          if (!glued) content(t.slice(this.#pos, i));
          this.#glue = [glued ? this.#pos : i, i];
          this.#afterCall = false;
          this.#pos = i + this.#trigger.length;
          if (this.#o.spec.section) {
            this.#sectionStart = i;
            this.#sectionCalls = 0;
            this.#sections++;
            this.#state = "section";
          } else {
            this.#beginCall(i);
          }
          continue;
        }
        let keep = final || !triggers ? 0 : heldBack(t, this.#pos, this.#trigger);
        if (triggers) this.#searched = t.length - keep;
        if (this.#afterCall && this.#blank(t, t.length - keep)) {
          if (final) { this.#pos = t.length; return ev; }  // trailing glue: not content
          keep = t.length - this.#pos;
        } else {
          this.#afterCall = false;
          content(t.slice(this.#pos, t.length - keep));
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
          const step = arrayStep(t, this.#pos, this.#sectionCalls === 0, sec.arrayOpen, sectionCloseText(this.#o.spec), this.#o.spec.call.kind === "python" ? pythonNameStart : undefined);
          if (step.kind === "close") { this.#pos = step.end; this.#state = "content"; this.#afterCall = true; continue; }
          if (step.kind === "call") { this.#pos = step.at; this.#beginCall(step.at); continue; }
          if (step.kind === "need" && !final) return ev;
          cut = step.kind === "need";
        } else {
          const gap: Glue = sec.gap === undefined ? [] : [{ optional: sec.gap }];
          const c = matchGlue(t, this.#pos, [...gap, sec.close], final);
          if (c >= 0) {
            if (this.#sectionCalls === 0) {
              // The grammar opens a section only for a call: one closed with none is not what it allows.
              const bad: IncompleteCall = { index: this.#index, name: null, kind: "invalid", reason: "a tool-call section with no call in it", missing: [], text: t.slice(this.#sectionStart, c) };
              this.#incomplete.push(bad);
              ev.push({ type: "tool_call_error", index: this.#index, call: bad });
              this.#index++;
            }
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
        scan = this.#scan(this.#text.prefix(cap), false);
        if (scan.status === "need" && scan.tool) { this.#drop(scan, ev, true); continue; }
        if (scan.status === "need") {
          // The name itself runs past the limit: whatever it turns out to be decides (its start,
          // which only text past the limit shows, is not streamed).
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
        const wholeSection = inSection && this.#sectionCalls === 0;  // its opener was no section after all
        if (inSection && !wholeSection && this.#o.spec.call.kind === "python") {
          // A Python call has no opener of its own: after the section's first call, a name no tool
          // has is text inside the section, as the grammar never writes it (it stays content).
          const bad: IncompleteCall = { index: this.#index, name: null, kind: "invalid", reason: "unexpected text inside the tool-call section: a call of a tool the request does not declare", missing: [], text: t.slice(this.#sectionStart, this.#callStart) };
          this.#incomplete.push(bad);
          ev.push({ type: "tool_call_error", index: this.#index, call: bad });
          this.#index++;
          this.#state = "content";
          continue;
        }
        if (wholeSection) this.#sections--;
        let from = wholeSection ? this.#sectionStart : this.#callStart;
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
      const extra = !this.#o.parallelToolCalls && this.#calls.length > 0 ? "a second call, but parallelToolCalls is false"
        : this.#sections > 1 ? "a call in a second tool-call section: the dialect writes every call of an answer in one" : undefined;
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

  #scan(t: Text, final: boolean): CallScan {
    const kind = this.#o.spec.call.kind;
    if (kind === "xml") return scanXml(t, this.#pos, this.#o, final, this.#memo);
    if (kind === "named") return scanNamed(t, this.#pos, this.#o, final, this.#memo);
    if (kind === "python") return scanPython(t, this.#pos, this.#o, final, this.#memo);
    return scanJson(t, this.#pos, this.#o, final, this.#memo);
  }

  /** Whether the text from #pos to `to` is whitespace (checked once per character while glue is held). */
  #blank(t: Text, to: number): boolean {
    const from = Math.max(this.#pos, this.#glueSeen);
    if (from < to && !/^\s*$/.test(t.slice(from, to))) return false;
    this.#glueSeen = Math.max(from, to);
    return true;
  }

  /**
   * The current call is over the limit: say so once, then skip it (see the dropping state). Its
   * start and arguments stream only when its first `limit` characters show them (`withArgs`).
   */
  #drop(scan: CallScan, ev: StreamEvent[], withArgs: boolean): void {
    if (withArgs) {
      this.#start(scan, ev);
      if (this.#started) this.#streamArgs(scan, ev);
    }
    this.#dropping = beginDrop(this.#dropped, ev, this.#index, scan.tool?.name ?? null, this.#limit);
  }

  /** A call starts once its name (and a wire id it waits for) is read: then its start is streamed, once. */
  #start(scan: CallScan, ev: StreamEvent[]): void {
    if (!scan.tool || scan.holdStart || this.#started) return;
    this.#started = true;
    ev.push({ type: "tool_call_start", index: this.#index, id: scan.id ?? callId(this.#index), name: scan.tool.name });
  }

  /** Text before what is still needed is released: memory stays bounded by the open construct. */
  #compact(): void {
    if (this.#harmony) { this.#text.dropBefore(this.#harmony.keepFrom()); return; }
    let keep = this.#pos;
    if (this.#state === "section" || this.#state === "call") {
      keep = Math.min(keep, this.#glue[0]);
      if (this.#state === "call") keep = Math.min(keep, this.#callStart);
      if (this.#sectionStart >= 0) keep = Math.min(keep, this.#sectionStart);
    }
    this.#text.dropBefore(keep);
  }

  #beginCall(at: number): void {
    this.#callStart = at;
    this.#state = "call";
    this.#memo = new CallMemo();
    this.#started = false;
    this.#argsSent = 0;
  }

  // Arguments stream as each value completes: `{"a": 1`, then `, "b": "x"`; the closing `}` at the end.
  #streamArgs(scan: CallScan, ev: StreamEvent[]): void {
    while (this.#argsSent < scan.args.length) {
      const piece = (this.#argsSent === 0 ? "{" : ", ") + argumentText(scan.args[this.#argsSent]!);
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

/** A Python call in a list starts with its name: anything but what separates or closes list items. */
const pythonNameStart = (c: string): boolean => c !== "" && !" \n\t\r,[]()".includes(c);

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
