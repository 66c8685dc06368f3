// Interpreter 2 for harmony (gpt-oss): reads a turn's messages as src/dialects/gpt-oss.ts decides.
// The header of a message is re-read from its start until it is decided (it is short: names and
// channels are read in bounded windows); bodies stream. Every decision depends on the text and
// whether it has ended, never on chunking; offsets are absolute (src/parser/text.ts).
import { jsonArguments } from "../dialects/call-grammar.js";
import { argumentEvent } from "./argument-event.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { HarmonyCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { invalidJsonReason, maxNameLength } from "./calls.js";
import { Finder } from "./finder.js";
import { endsInside, FAIL, heldBack, matchGlue, NEED } from "./glue.js";
import { JsonExtent, OPEN } from "./json-extent.js";
import { JsonObject, valueFault } from "./json-value.js";
import { readJson } from "./read-value.js";
import { argumentsJson, beginDrop, callId } from "./settle.js";
import type { OutputReader, ReaderSink } from "./reader.js";
import type { Text, TextBuffer } from "./text.js";
import type { DroppedConstruct, IncompleteCall, ToolCall } from "./types.js";
import { grammarAccepts } from "./validate.js";

type Header =
  | { kind: "need" }
  | { kind: "text" } // not a message: the rest is content as written
  | { kind: "body"; channel: "thought" | "preamble" | "final"; end: number }
  | { kind: "call"; tool: ToolDef | null; status: "need" | "done" | "invalid"; end: number; why: string };

type State = "header" | "thought" | "preamble" | "final" | "call" | "between" | "text";

const NAME_ENDS = [" ", "<|"];
/** Why a call message after the answer's end is outside it (the dialect ends its answer there). */
const AFTER_CALL = "a call after the answer's call: the dialect ends its answer at the first call's <|call|>";
const AFTER_FINAL = "a call after the final message: the final message ends the answer";
const AFTER_TEXT = "a call after text that is not a message: the answer ended there";
/** The longest channel name read: a longer one is no channel this dialect knows. */
const MAX_CHANNEL = 64;

/** The first of `needles` in t[from, from + within) (all of the rest when `within` is omitted). */
function firstOf(t: Text, from: number, needles: string[], within?: number): number {
  const window = within === undefined ? undefined : t.slice(from, from + within);
  let best = -1;
  for (const n of needles) {
    const k = window === undefined ? t.indexOf(n, from) : window.indexOf(n);
    const i = k < 0 ? -1 : window === undefined ? k : from + k;
    if (i >= 0 && (best < 0 || i < best)) best = i;
  }
  return best;
}

export class HarmonyReader implements OutputReader {
  readonly #o: ResolvedRequest;
  readonly #f: HarmonyCallFormat;
  #state: State;
  #pos = 0;
  #index = 0;
  #started = false;
  #tool: ToolDef | undefined;
  #callStart = 0;
  #extent = new JsonExtent();
  #finder = new Finder(); // the current call's searches for its end
  readonly #limit: number;
  #dropping: DroppedConstruct | undefined; // the over-limit call being skipped to its own end
  #ended: string | undefined; // the answer has ended (why a call message after it is outside it)
  #messageAt = 0; // where the message whose header is read began (its message start, for a call outside the answer)
  #searched = 0; // after the end: no message begins before this offset (from #pos on)
  readonly #anchors: string[]; // where a message may begin in the text after the end
  readonly #anchorAt: number[]; // each anchor's next place found (-1: none before #anchorFrom's)
  readonly #anchorFrom: number[]; // where each anchor's search goes on (each text is searched once)

  constructor(o: ResolvedRequest, maxCallLength = Infinity) {
    this.#o = o;
    this.#limit = maxCallLength;
    this.#f = o.spec.call as HarmonyCallFormat;
    this.#state = o.reasoning === "forced-open" ? "thought" : "header";
    this.#anchors = [this.#f.messageStart.find((g): g is string => typeof g === "string")!, this.#f.channel];
    for (const g of this.#f.open) if (typeof g === "string") this.#anchors.push(g);
    this.#anchorAt = this.#anchors.map(() => -1);
    this.#anchorFrom = this.#anchors.map(() => 0);
  }

  /** Nothing before this offset will be read again. */
  keepFrom(): number {
    if (this.#state === "call") return Math.min(this.#pos, this.#callStart);
    return this.#state === "header" ? Math.min(this.#pos, this.#messageAt) : this.#pos;
  }

  run(t: TextBuffer, final: boolean, out: ReaderSink): void {
    const f = this.#f;
    for (;;) {
      switch (this.#state) {
        case "header": {
          const h = this.#pos;
          const r = this.#header(t, h, final);
          if (r.kind === "need") return;
          if (r.kind === "text") {
            this.#ended ??= AFTER_TEXT;
            this.#pos = this.#messageAt; // a message start before it is text too
            this.#state = "text";
            continue;
          }
          if (r.kind === "body") {
            this.#pos = r.end;
            this.#state = r.channel;
            continue;
          }
          this.#callStart = this.#messageAt;
          if (r.tool && !this.#started) {
            this.#started = true;
            out.events.push({
              type: "tool_call_start",
              index: this.#index,
              id: callId(this.#index),
              name: r.tool.name,
            });
          }
          if (r.status === "done") {
            this.#tool = r.tool!;
            this.#pos = r.end;
            this.#state = "call";
            continue;
          }
          if (r.status === "need") {
            if (!final) return;
            this.#fail(out, "cut", r.tool, `the output ended inside ${r.why}; the call was never closed`, t.length, t);
            continue;
          }
          // A malformed call still runs to its own end.
          const e = this.#finder.find(t, f.callEnd, r.end);
          if (e < 0 && !final) return;
          this.#fail(out, "invalid", r.tool, r.why, e < 0 ? t.length : e + f.callEnd.length, t);
          continue;
        }
        case "call":
          if (!this.#arguments(t, final, out)) return;
          continue;
        case "thought":
        case "preamble":
        case "final": {
          const ends = this.#state === "final" ? [f.finalEnd, f.end] : [f.end];
          const emit = this.#state === "thought" ? out.reasoning : out.content;
          const i = firstOf(t, this.#pos, ends);
          if (i >= 0) {
            emit(t.slice(this.#pos, i));
            this.#pos = i + ends.find((e) => t.startsWith(e, i))!.length;
            // The final message ends the turn: what follows is content as written.
            if (this.#state === "final") this.#ended ??= AFTER_FINAL;
            this.#state = this.#state === "final" ? "text" : "between";
            continue;
          }
          const keep = final ? 0 : Math.max(...ends.map((e) => heldBack(t, this.#pos, e)));
          emit(t.slice(this.#pos, t.length - keep));
          this.#pos = t.length - keep;
          return;
        }
        case "between": {
          if (this.#pos === t.length) return;
          const m = matchGlue(t, this.#pos, f.messageStart, final);
          if (m === NEED && !final) return;
          if (m < 0) {
            this.#ended ??= AFTER_TEXT;
            this.#state = "text";
            continue;
          }
          this.#pos = this.#messageAt = m;
          this.#state = "header";
          continue;
        }
        case "text":
          if (!this.#outside(t, final, out)) return;
          continue;
      }
    }
  }

  /**
   * After the answer's end, text is content as written, but a call message there is outside the
   * answer: each place a message may begin (a message start, a channel, a recipient) is read as a
   * header, and one that names an allowed tool is read as a call, then reported invalid (#fail).
   * False: wait for more text.
   */
  #outside(t: Text, final: boolean, out: ReaderSink): boolean {
    if (this.#o.tools.length === 0) {
      out.content(t.slice(this.#pos));
      this.#pos = t.length;
      return false;
    }
    const from = Math.max(this.#pos, this.#searched);
    const i = this.#nextAnchor(t, from);
    if (i < 0) {
      const keep = final ? 0 : Math.max(...this.#anchors.map((a) => heldBack(t, from, a)));
      out.content(t.slice(this.#pos, t.length - keep));
      this.#pos = this.#searched = t.length - keep;
      return false;
    }
    out.content(t.slice(this.#pos, i));
    this.#pos = this.#searched = i;
    let h = i;
    const m = matchGlue(t, i, this.#f.messageStart, false);
    if (m === NEED && !final) return false;
    if (m >= 0) h = m;
    const r = this.#header(t, h, final);
    // A name that may still be an allowed one or not: wait (at the end it is a call cut in its name).
    if (r.kind === "need" || (r.kind === "call" && !r.tool && !final)) return false;
    if (r.kind === "call") {
      this.#pos = h;
      this.#messageAt = i;
      this.#state = "header";
      return true;
    }
    // Not a call: the anchor is content, and the search goes on after it.
    const a = this.#anchors.find((x) => t.startsWith(x, i))!;
    out.content(t.slice(i, i + a.length));
    this.#pos = this.#searched = i + a.length;
    return true;
  }

  /** The first place at or after `from` where an anchor starts, or -1; no text is searched twice. */
  #nextAnchor(t: Text, from: number): number {
    let best = -1;
    this.#anchors.forEach((a, k) => {
      if (this.#anchorAt[k]! < from) {
        const i = t.indexOf(a, Math.max(from, this.#anchorFrom[k]!));
        this.#anchorAt[k] = i;
        // An occurrence not found may still start in the last characters, completed by more text.
        this.#anchorFrom[k] = i >= 0 ? i : Math.max(from, t.length - a.length + 1);
      }
      const i = this.#anchorAt[k]!;
      if (i >= 0 && (best < 0 || i < best)) best = i;
    });
    return best;
  }

  /** Reads a message header at `h`: a thought, preamble or final message, a call, or not a message. */
  #header(t: Text, h: number, final: boolean): Header {
    const f = this.#f;
    // Glue is matched as if more text could come: a header cut inside an optional part is cut too.
    const wait: Header = final ? { kind: "text" } : { kind: "need" };
    // The recipient in the role header: ` to=functions.NAME<|channel|>commentary[ json]<|message|>`.
    const r = matchGlue(t, h, f.open, false);
    if (r === NEED) return wait;
    if (r >= 0) return this.#call(t, r, true);
    const c = matchGlue(t, h, [f.channel], false);
    if (c === NEED) return wait;
    if (c === FAIL) return { kind: "text" };
    const e = firstOf(t, c, NAME_ENDS, MAX_CHANNEL + 2);
    if (e < 0) return t.length - c > MAX_CHANNEL ? { kind: "text" } : wait;
    const name = t.slice(c, e);
    if (name === f.channels.calls) {
      // The recipient after the channel: `<|channel|>commentary to=functions.NAME[ <|constrain|>json]<|message|>`.
      const r2 = matchGlue(t, e, f.open, false);
      if (r2 === NEED) return wait;
      if (r2 >= 0) return this.#call(t, r2, false);
    }
    const m = matchGlue(t, e, [f.message], false);
    if (m === NEED) return wait;
    if (m === FAIL) return { kind: "text" };
    const ch = f.channels;
    const kind =
      name === ch.reasoning ? "thought" : name === ch.calls ? "preamble" : name === ch.final ? "final" : undefined;
    return kind ? { kind: "body", channel: kind, end: m } : { kind: "text" };
  }

  /** A call's header from its function name on; refused (text) as soon as no allowed tool can match. */
  #call(t: Text, i: number, inRole: boolean): Header {
    const f = this.#f;
    const within = maxNameLength(this.#o) + 2;
    const e = firstOf(t, i, NAME_ENDS, within);
    if (e < 0) {
      const partial = t.slice(i, i + within);
      const possible = (n: string) => n.startsWith(partial) || partial === `${n}<`;
      if (!this.#o.tools.some((x) => possible(x.name))) return { kind: "text" };
      return { kind: "call", tool: null, status: "need", end: t.length, why: "the function name" };
    }
    const tool = this.#o.tools.find((x) => x.name === t.slice(i, e));
    if (!tool) return { kind: "text" };
    const need = { kind: "call", tool, status: "need", end: t.length, why: "the call's header" } as const;
    let j = e;
    if (inRole) {
      j = matchGlue(t, j, [f.channel], false);
      if (j === NEED) return need;
      if (j === FAIL)
        return { kind: "call", tool, status: "invalid", end: e, why: "a channel must follow the recipient" };
      const k = firstOf(t, j, NAME_ENDS, MAX_CHANNEL + 2);
      if (k < 0 && t.length - j <= MAX_CHANNEL) return need;
      const channel = k < 0 ? `${t.slice(j, j + 20)}…` : t.slice(j, k);
      if (channel !== f.channels.calls)
        return {
          kind: "call",
          tool,
          status: "invalid",
          end: k < 0 ? j : k,
          why: `a call must go to the ${f.channels.calls} channel, not ${JSON.stringify(channel)}`,
        };
      j = k;
    }
    const typed = matchGlue(t, j, f.contentType, false);
    if (typed === NEED) return need;
    if (typed >= 0) j = typed;
    const m = matchGlue(t, j, [f.message], false);
    if (m === NEED) return need;
    if (m === FAIL)
      return { kind: "call", tool, status: "invalid", end: j, why: "unexpected text in the call's header" };
    return { kind: "call", tool, status: "done", end: m, why: "" };
  }

  /** The arguments object and `<|call|>` (or the end of the output). False: wait for more text. */
  #arguments(t: TextBuffer, final: boolean, out: ReaderSink): boolean {
    const f = this.#f;
    const tool = this.#tool!;
    const a = this.#pos;
    const cap = this.#callStart + this.#limit;
    if (!this.#dropping && t.length > cap && this.#endOf(t.prefix(cap), a, false) === undefined) {
      // Over the limit when its first `limit` characters do not show the call's end: decided on
      // those alone, so every split decides alike.
      this.#dropping = beginDrop(out.dropped, out.events, this.#index, tool.name, this.#limit);
    }
    if (this.#dropping) {
      // Skipped through its own end.
      const end = this.#endOf(t, a, final);
      if (end === undefined) return false;
      this.#dropping.length = end - this.#callStart;
      this.#dropping = undefined;
      this.#next(end);
      return true;
    }
    const cut = () => {
      this.#fail(out, "cut", tool, "the output ended inside the arguments; the call was never closed", t.length, t);
      return true;
    };
    if (a >= t.length) return final ? cut() : false;
    if (t.charAt(a) !== "{") return this.#skipInvalid(t, a, final, out, "the arguments are not a JSON object");
    const e = this.#extent.end(t, a);
    if (e === OPEN) return final ? cut() : false;
    let end: number;
    let why: string | undefined;
    if (t.startsWith(f.callEnd, e)) end = e + f.callEnd.length;
    else if (e === t.length) {
      if (!final) return false;
      end = e; // <|call|> is the end of generation: engines leave it out of the text
    } else if (endsInside(t, e, f.callEnd)) {
      if (!final) return false;
      this.#fail(out, "cut", tool, `the output ended inside the call's end ${f.callEnd}`, t.length, t);
      return true;
    } else {
      end = e;
      why = `the call's end ${f.callEnd} is missing`;
    }
    const body = t.slice(a, e);
    const args = readJson(body);
    if (args === undefined) why ??= "the arguments are not valid JSON";
    const max = this.#o.maxValueLength;
    if (why === undefined && (valueFault(args!) !== undefined || !grammarAccepts(jsonArguments(tool, max), body)))
      why = invalidJsonReason(tool, args, max);
    if (why !== undefined || this.#ended !== undefined) {
      this.#fail(out, "invalid", tool, why ?? "", end, t);
      return true;
    }
    const entries = args instanceof JsonObject ? [...args.entries] : [];
    const call: ToolCall = {
      id: callId(this.#index),
      type: "function",
      function: { name: tool.name, arguments: argumentsJson(entries) },
    };
    out.calls.push(call);
    out.events.push({ type: "tool_call_arguments", index: this.#index, delta: call.function.arguments });
    // The call passed its grammar whole: each argument with it.
    for (const a of entries) out.events.push(argumentEvent(this.#index, tool, a, max, true));
    out.events.push({ type: "tool_call_end", index: this.#index, call });
    this.#next(end);
    return true;
  }

  /** Where the call whose arguments start at `a` ends, as #arguments reads it; undefined: not yet known. */
  #endOf(t: Text, a: number, final: boolean): number | undefined {
    const callEnd = this.#f.callEnd;
    const orEnd = final ? t.length : undefined;
    if (a >= t.length) return orEnd;
    if (t.charAt(a) !== "{") {
      const k = this.#finder.find(t, callEnd, a);
      return k >= 0 ? k + callEnd.length : orEnd;
    }
    const e = this.#extent.end(t, a);
    if (e === OPEN) return orEnd;
    if (t.startsWith(callEnd, e)) return e + callEnd.length;
    if (endsInside(t, e, callEnd)) return orEnd;
    return e;
  }

  #skipInvalid(t: Text, from: number, final: boolean, out: ReaderSink, why: string): boolean {
    const e = this.#finder.find(t, this.#f.callEnd, from);
    if (e < 0 && !final) return false;
    this.#fail(out, "invalid", this.#tool!, why, e < 0 ? t.length : e + this.#f.callEnd.length, t);
    return true;
  }

  #fail(
    out: ReaderSink,
    kind: "cut" | "invalid",
    tool: ToolDef | null | undefined,
    reason: string,
    end: number,
    t: Text,
  ): void {
    // A call message after the answer's end is outside it, whatever it holds.
    const outside = this.#ended;
    const call: IncompleteCall = {
      index: this.#index,
      name: tool?.name ?? null,
      kind: outside ? "invalid" : kind,
      reason: outside ?? reason,
      missing: !outside && kind === "cut" && tool ? tool.required : [],
      text: t.slice(this.#callStart, end),
    };
    out.incomplete.push(call);
    out.events.push({ type: "tool_call_error", index: this.#index, call });
    this.#next(end);
  }

  /** A call message ends the turn: whatever follows it is content as written (but for calls, #outside). */
  #next(end: number): void {
    this.#ended ??= AFTER_CALL;
    this.#index++;
    this.#started = false;
    this.#extent = new JsonExtent();
    this.#finder = new Finder();
    this.#pos = end;
    this.#state = "text";
  }
}
