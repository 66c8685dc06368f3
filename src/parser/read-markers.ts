// Interpreter 2 for marker-delimited calls (every call kind but harmony and envelope): content,
// an optional thought, and calls opened by the dialect's trigger (or, for a call that opens the
// answer, its first `{`), alone or inside a section. One method per state; each returns true to
// go on reading and false to wait for more text.
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import type { ResolvedRequest } from "../dialects/options.js";
import { callTriggerOf, sectionCloseText, triggerOf, type Glue } from "../dialects/spec.js";
import { CallMemo, type CallScan } from "./calls.js";
import { endsInside, heldBack, matchGlue, NEED } from "./glue.js";
import { argumentEvent } from "./argument-event.js";
import { arrayStep } from "./json-array.js";
import { scanJson, scanNamed } from "./json-call.js";
import { isJsonWs } from "./json-ws.js";
import { scanPython } from "./python-call.js";
import type { OutputReader, ReaderSink } from "./reader.js";
import { argumentsJson, argumentText, beginDrop, callId } from "./settle.js";
import type { Text, TextBuffer } from "./text.js";
import type { DroppedConstruct, IncompleteCall, StreamEvent, ToolCall } from "./types.js";
import { scanXml } from "./xml-call.js";
import { openingRegion } from "../dialects/opening.js";
import { RegionAutomaton } from "./opening-heads.js";
import { bareObjectOptions, scanOpening } from "./opening-call.js";
import { allowedTool } from "../dialects/tool-choice.js";

type State = "start" | "thought" | "content" | "section" | "call" | "opening";

export class MarkerReader implements OutputReader {
  readonly #o: ResolvedRequest;
  readonly #trigger: string;
  readonly #limit: number;
  #pos = 0;
  #state: State = "start";
  #callStart = 0;
  #index = 0; // the current call's index among started calls
  #started = false;
  #argsSent = 0;
  #afterCall = false; // whitespace right after a call is glue until text proves otherwise
  #glueSeen = 0; // while #afterCall: the text before this offset is whitespace
  #searched = 0; // in content: no trigger starts before this offset (from #pos on)
  #memo = new CallMemo(); // what scanning the current call has learnt
  #sectionStart = -1; // where the open call section began (-1: none)
  #sectionCalls = 0;
  #sections = 0; // sections opened so far (the grammar allows one)
  #dropping: DroppedConstruct | undefined; // the over-limit call being skipped to its own end
  #glue: [number, number] = [0, 0]; // whitespace taken as glue right before the last trigger found in content
  #answerOpened = false; // callOpensAnswer: the answer's first character is known (a call may open it no later)
  // openingCalls: where calls may open the answer (its start, after an opening call) and the object form they are read in.
  readonly #regions: [RegionAutomaton, RegionAutomaton] | undefined;
  readonly #bare: ResolvedRequest | undefined;
  #openingAfter = false; // the next opening region follows an opening call
  #openingForm: number | undefined; // the current call is an opening call in this wrapper

  constructor(o: ResolvedRequest, maxCallLength = Infinity) {
    this.#o = o;
    this.#limit = maxCallLength;
    this.#trigger = triggerOf(o.spec);
    if (o.spec.openingCalls && o.tools.length > 0) {
      this.#regions = [
        new RegionAutomaton(openingRegion(o.spec, o.tools, false)),
        new RegionAutomaton(openingRegion(o.spec, o.tools, true)),
      ];
      this.#bare = bareObjectOptions(o);
    }
  }

  keepFrom(): number {
    let keep = this.#pos;
    if (this.#state === "section" || this.#state === "call") {
      keep = Math.min(keep, this.#glue[0]);
      if (this.#state === "call") keep = Math.min(keep, this.#callStart);
      if (this.#sectionStart >= 0) keep = Math.min(keep, this.#sectionStart);
    }
    return keep;
  }

  run(t: TextBuffer, final: boolean, out: ReaderSink): void {
    for (;;) {
      const more =
        this.#state === "start"
          ? this.#start(t, final)
          : this.#state === "thought"
            ? this.#thought(t, final, out)
            : this.#state === "content"
              ? this.#content(t, final, out)
              : this.#state === "section"
                ? this.#section(t, final, out)
                : this.#state === "opening"
                  ? this.#opening(t, final, out)
                  : this.#call(t, final, out);
      if (!more) return;
    }
  }

  /** The answer's first characters: a thought's open, or content. */
  #start(t: Text, final: boolean): boolean {
    const r = this.#o.spec.reasoning;
    if (this.#o.reasoning === "forced-open") {
      this.#state = "thought";
      return true;
    }
    // Whitespace that opens the answer is glue when a call follows it (GLM-4.6 writes "\n<tool_call>").
    this.#afterCall = true;
    if (!this.#o.reasoning || !r) {
      this.#state = "content";
      return true;
    }
    const lead = r.lead ?? "";
    const at = lead !== "" && t.startsWith(lead, 0) ? lead.length : 0;
    if (t.startsWith(r.open, at)) {
      this.#pos = at + r.open.length;
      this.#state = "thought";
      return true;
    }
    if (!final && (endsInside(t, 0, r.open) || endsInside(t, 0, lead + r.open))) return false;
    this.#state = "content";
    return true;
  }

  #thought(t: Text, final: boolean, out: ReaderSink): boolean {
    const close = this.#o.spec.reasoning!.close;
    const i = t.indexOf(close, this.#pos);
    if (i >= 0) {
      out.reasoning(t.slice(this.#pos, i));
      this.#pos = i + close.length;
      this.#state = "content";
      this.#afterCall = true;
      return true;
    }
    const keep = final ? 0 : heldBack(t, this.#pos, close);
    out.reasoning(t.slice(this.#pos, t.length - keep));
    this.#pos = t.length - keep;
    return false;
  }

  #content(t: Text, final: boolean, out: ReaderSink): boolean {
    const callable = this.#o.tools.length > 0;
    if (this.#regions && !this.#answerOpened) {
      this.#answerOpened = true;
      this.#state = "opening";
      return true;
    }
    if (this.#o.spec.callOpensAnswer && !this.#answerOpened) {
      // Only the answer's first character after whitespace may open a call (Llama 3.x).
      // No more whitespace may lead a call than the grammar allows (JSON_WS_MAX).
      let k = this.#pos;
      while (k < t.length && k - this.#pos <= JSON_WS_MAX && isJsonWs(t.charCodeAt(k))) k++;
      const tooLong = k - this.#pos > JSON_WS_MAX;
      if (k === t.length && !final && !tooLong) return false;
      this.#answerOpened = true;
      if (callable && !tooLong && t.charAt(k) === "{") {
        this.#beginCall(this.#pos);
        this.#pos = k;
        return true;
      }
    }
    const triggers = callable && !this.#o.spec.callOpensAnswer;
    const i = triggers ? t.indexOf(this.#trigger, Math.max(this.#pos, this.#searched)) : -1;
    if (i >= 0) {
      const glued = this.#afterCall && this.#blank(t, i);
      if (!glued) out.content(t.slice(this.#pos, i));
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
      return true;
    }
    let keep = final || !triggers ? 0 : heldBack(t, this.#pos, this.#trigger);
    if (triggers) this.#searched = t.length - keep;
    if (this.#afterCall && this.#blank(t, t.length - keep)) {
      if (final) {
        this.#pos = t.length;
        return false;
      } // trailing glue: not content
      keep = t.length - this.#pos;
    } else {
      this.#afterCall = false;
      out.content(t.slice(this.#pos, t.length - keep));
    }
    this.#pos = t.length - keep;
    return false;
  }

  /**
   * Where an opening call may begin (src/dialects/opening.ts): a head begins a call (an opening one,
   * or the dialect's own at its trigger); text that leaves every head is content through that
   * character, and the answer reads on as content; the text ending first is glue (whitespace) or a
   * cut call.
   */
  #opening(t: Text, final: boolean, out: ReaderSink): boolean {
    const r = this.#regions![this.#openingAfter ? 1 : 0].read(t, this.#pos, final);
    if (r.kind === "need") {
      if (!final) return false;
      if (!r.glueOnly) {
        let from = this.#pos;
        while (from < t.length && isJsonWs(t.charCodeAt(from))) from++;
        this.#fail(out, {
          index: this.#index,
          name: null,
          kind: "cut",
          reason: "the output ended inside a call's opening; the call was never closed",
          missing: [],
          text: t.slice(from),
        });
      }
      this.#pos = t.length;
      this.#state = "content";
      return false;
    }
    if (r.kind === "departed") {
      out.content(t.slice(this.#pos, r.end));
      this.#pos = r.end;
      this.#state = "content";
      this.#afterCall = false;
      return true;
    }
    this.#glue = [this.#pos, r.at];
    this.#afterCall = false;
    this.#beginCall(r.at);
    if (r.form === "trigger") {
      this.#pos = r.end;
      return true;
    }
    this.#openingForm = r.form;
    this.#memo.head = { tool: allowedTool(this.#o, r.word!.slice(0, -1))! };
    this.#pos = r.object!;
    return true;
  }

  /** Where reading goes on after a call ended: the next opening region, the section, or content. */
  #afterCallState(): State {
    if (this.#openingForm !== undefined) {
      this.#openingForm = undefined;
      this.#openingAfter = true;
      return "opening";
    }
    return this.#o.spec.section ? "section" : "content";
  }

  /** Inside a section, between its calls: the next call, the section's close, or what breaks it. */
  #section(t: Text, final: boolean, out: ReaderSink): boolean {
    const sec = this.#o.spec.section!;
    const ct = callTriggerOf(this.#o.spec);
    let cut: boolean;
    if (sec.arrayOpen) {
      // The calls are a JSON array's elements; a call object's "{" is part of the call.
      const step = arrayStep(
        t,
        this.#pos,
        this.#sectionCalls === 0,
        sec.arrayOpen,
        sectionCloseText(this.#o.spec),
        this.#o.spec.call.kind === "python" ? pythonNameStart : undefined,
      );
      if (step.kind === "close") {
        this.#pos = step.end;
        this.#state = "content";
        this.#afterCall = true;
        return true;
      }
      if (step.kind === "call") {
        this.#pos = step.at;
        this.#beginCall(step.at);
        return true;
      }
      if (step.kind === "need" && !final) return false;
      cut = step.kind === "need";
    } else {
      const gap: Glue = sec.gap === undefined ? [] : [{ optional: sec.gap }];
      const c = matchGlue(t, this.#pos, [...gap, sec.close], final);
      if (c >= 0) {
        // The grammar opens a section only for a call: one closed with none is not what it allows.
        if (this.#sectionCalls === 0)
          this.#fail(out, {
            index: this.#index,
            name: null,
            kind: "invalid",
            reason: "a tool-call section with no call in it",
            missing: [],
            text: t.slice(this.#sectionStart, c),
          });
        this.#pos = c;
        this.#state = "content";
        this.#afterCall = this.#sectionCalls > 0;
        return true;
      }
      const k = matchGlue(t, this.#pos, [...gap, ct], final);
      if (k >= 0) {
        this.#beginCall(k - ct.length);
        this.#pos = k;
        return true;
      }
      cut = c === NEED || k === NEED;
      if (!final && cut) return false;
    }
    this.#fail(out, {
      index: this.#index,
      name: null,
      kind: cut ? "cut" : "invalid",
      reason: cut
        ? "the output ended inside the tool-call section; it was never closed"
        : "unexpected text inside the tool-call section",
      // Invalid: the section up to the unexpected text, which stays content; cut: all of it.
      missing: [],
      text: t.slice(this.#sectionStart, cut ? t.length : this.#pos),
    });
    if (cut) this.#pos = t.length; // a cut section is dropped from content whole
    this.#state = "content";
    return true;
  }

  #call(t: TextBuffer, final: boolean, out: ReaderSink): boolean {
    if (this.#dropping) {
      // Over the limit: skipped through the call's own end, as the dialect defines it.
      const s = this.#scan(t, final);
      if (s.status === "need" && !final) return false;
      const end = s.status === "done" ? s.end! : t.length;
      this.#dropping.length = end - this.#callStart;
      this.#dropping = undefined;
      this.#pos = end;
      this.#state = this.#afterCallState();
      this.#sectionCalls++;
      this.#index++;
      return true;
    }
    let scan: CallScan;
    const cap = this.#callStart + this.#limit;
    if (t.length > cap) {
      // Decided on the first `limit` characters alone, so every split decides alike.
      scan = this.#scan(t.prefix(cap), false);
      if (scan.status === "need" && scan.tool) {
        this.#drop(scan, out, true);
        return true;
      }
      if (scan.status === "need") {
        // The name itself runs past the limit: whatever it turns out to be decides (its start,
        // which only text past the limit shows, is not streamed).
        scan = this.#scan(t, final);
        if (scan.tool || (scan.status === "need" && final)) {
          this.#drop(scan, out, false);
          return true;
        }
        if (scan.status === "need") return false;
      }
    } else {
      scan = this.#scan(t, final);
    }
    if (scan.status === "refused") return this.#refused(t, out, scan.resumeAt);
    this.#startCall(scan, out);
    if (this.#started) this.#streamArgs(scan, out);
    if (scan.status === "need") {
      if (!final) return false;
      this.#fail(out, this.#cutCall(scan, t.slice(this.#callStart)));
      this.#pos = t.length;
      this.#state = "content";
      return true;
    }
    const callText = t.slice(this.#callStart, scan.end);
    this.#pos = scan.end!;
    this.#state = this.#afterCallState();
    this.#sectionCalls++;
    const extra =
      !this.#o.parallelToolCalls && out.calls.length > 0
        ? "a second call, but parallelToolCalls is false"
        : this.#sections > 1
          ? "a call in a second tool-call section: the dialect writes every call of an answer in one"
          : undefined;
    if (scan.invalid || extra) {
      this.#fail(out, {
        index: this.#index,
        name: scan.tool!.name,
        kind: "invalid",
        reason: (scan.invalid ?? extra)!,
        missing: missingOf(scan),
        text: callText,
      });
      return true;
    }
    const call: ToolCall = {
      id: scan.id ?? callId(this.#index),
      type: "function",
      function: { name: scan.tool!.name, arguments: argumentsJson(scan.args) },
    };
    out.calls.push(call);
    this.#afterCall = !this.#o.spec.section;
    out.events.push({
      type: "tool_call_arguments",
      index: this.#index,
      delta: call.function.arguments.slice(this.#sentLength(scan)),
    });
    for (let k = this.#argsSent; k < scan.args.length; k++) out.events.push(this.#argumentEvent(scan, k));
    out.events.push({ type: "tool_call_end", index: this.#index, call });
    this.#index++;
    return true;
  }

  /**
   * Not a call of a declared tool: its text is content. Reading goes on past the name's departing
   * character where a name departed (`resumeAt`, as the grammar's refused call ends there), else
   * after the trigger.
   */
  #refused(t: Text, out: ReaderSink, resumeAt?: number): boolean {
    const inSection = this.#o.spec.section !== undefined;
    const wholeSection = inSection && this.#sectionCalls === 0; // its opener was no section after all
    if (inSection && !wholeSection && this.#o.spec.call.kind === "python") {
      // A Python call has no opener of its own: after the section's first call, a name no tool
      // has is text inside the section, as the grammar never writes it (it stays content).
      this.#fail(out, {
        index: this.#index,
        name: null,
        kind: "invalid",
        reason: "unexpected text inside the tool-call section: a call of a tool the request does not declare",
        missing: [],
        text: t.slice(this.#sectionStart, this.#callStart),
      });
      this.#state = "content";
      return true;
    }
    if (wholeSection) this.#sections--;
    let from = wholeSection ? this.#sectionStart : this.#callStart;
    if (from === this.#glue[1]) from = this.#glue[0]; // the whitespace held as glue was content after all
    if (resumeAt !== undefined && !wholeSection) this.#pos = resumeAt;
    out.content(t.slice(from, this.#pos));
    this.#state = "content";
    return true;
  }

  /** A call or section that is not what the grammar allows (or was cut): reported, and the next index taken. */
  #fail(out: ReaderSink, bad: IncompleteCall): void {
    out.incomplete.push(bad);
    out.events.push({ type: "tool_call_error", index: this.#index, call: bad });
    this.#index++;
  }

  #scan(t: Text, final: boolean): CallScan {
    const kind = this.#o.spec.call.kind;
    if (this.#openingForm !== undefined) {
      const wrapper = this.#o.spec.openingCalls!.wrappers[this.#openingForm]!;
      return scanOpening(t, this.#pos, this.#bare!, final, this.#memo, wrapper);
    }
    if (kind === "xml") return scanXml(t, this.#pos, this.#o, final, this.#memo);
    if (kind === "named") return scanNamed(t, this.#pos, this.#o, final, this.#memo);
    if (kind === "python") return scanPython(t, this.#pos, this.#o, final, this.#memo);
    return scanJson(t, this.#pos, this.#o, final, this.#memo);
  }

  /** Whether the text from #pos to `to` is whitespace (checked once per character while glue is held). */
  #blank(t: Text, to: number): boolean {
    const from = Math.max(this.#pos, this.#glueSeen);
    for (let k = from; k < to; k++) if (!isJsonWs(t.charCodeAt(k))) return false;
    this.#glueSeen = Math.max(from, to);
    return true;
  }

  /**
   * The current call is over the limit: say so once, then skip it (see the dropping state). Its
   * start and arguments stream only when its first `limit` characters show them (`withArgs`).
   */
  #drop(scan: CallScan, out: ReaderSink, withArgs: boolean): void {
    if (withArgs) {
      this.#startCall(scan, out);
      if (this.#started) this.#streamArgs(scan, out);
    }
    this.#dropping = beginDrop(out.dropped, out.events, this.#index, scan.tool?.name ?? null, this.#limit);
  }

  /** A call starts once its name (and a wire id it waits for) is read: then its start is streamed, once. */
  #startCall(scan: CallScan, out: ReaderSink): void {
    if (!scan.tool || scan.holdStart || this.#started) return;
    this.#started = true;
    out.events.push({
      type: "tool_call_start",
      index: this.#index,
      id: scan.id ?? callId(this.#index),
      name: scan.tool.name,
    });
  }

  #beginCall(at: number): void {
    this.#callStart = at;
    this.#state = "call";
    this.#memo = new CallMemo();
    this.#started = false;
    this.#argsSent = 0;
  }

  // Arguments stream as each value completes: `{"a": 1`, then `, "b": "x"`; the closing `}` at the end.
  #streamArgs(scan: CallScan, out: ReaderSink): void {
    while (!scan.unstreamed && this.#argsSent < scan.args.length) {
      const arg = scan.args[this.#argsSent]!;
      const piece = (this.#argsSent === 0 ? "{" : ", ") + argumentText(arg);
      out.events.push({ type: "tool_call_arguments", index: this.#index, delta: piece });
      out.events.push(this.#argumentEvent(scan, this.#argsSent));
      this.#argsSent++;
    }
  }

  /**
   * Argument `k` of the scan's call. An XML call's scan keeps only parameters whose values its
   * value grammar accepted; other scans say how many leading arguments passed theirs (argsChecked).
   */
  #argumentEvent(scan: CallScan, k: number): StreamEvent {
    const admitted = this.#o.spec.call.kind === "xml" || k < (scan.argsChecked ?? 0);
    return argumentEvent(this.#index, scan.tool!, scan.args[k]!, this.#o.maxValueLength, admitted);
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
