// Reading an answer that is one JSON object (the generic dialect): {"tool_calls": [call, …]},
// {"tool_call": call} or {"response": "text"}. The object is read to its end (JsonPrefix: it is
// refused at the first character JSON cannot have); its calls and text settle once it closes,
// when the output ends inside it, or at that refused character. An object that names calls and
// breaks there keeps the calls that closed before it, the call it breaks is invalid, and the
// text from that character on is content; one that names no call is content whole, as llama.cpp
// falls back to content. An answer that does not open with "{" (after whitespace) is content.
// After the answer object (and after the text from where one broke) text is content, but an
// object there that names calls is outside the answer: each of its calls is invalid (AFTER).
import { jsonCallObject } from "../dialects/call-grammar.js";
import { argumentEvent } from "./argument-event.js";
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import { envelopeCallFormat } from "../dialects/grammar-envelope.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { EnvelopeCallFormat } from "../dialects/spec.js";
import { allowedTool } from "../dialects/tool-choice.js";
import { invalidJsonReason } from "./calls.js";
import type { OutputReader, ReaderSink } from "./reader.js";
import { JsonPrefix } from "./json-prefix.js";
import { isJsonWs } from "./json-ws.js";
import { JsonObject, jsonText, valueFault, type Json } from "./json-value.js";
import { readJson } from "./read-value.js";
import { argumentsJson, beginDrop, callId } from "./settle.js";
import type { Text, TextBuffer } from "./text.js";
import { grammarAccepts } from "./validate.js";

/**
 * Spans [start, end) of the calls in an envelope's text `s`: the array's elements (an object or
 * array element ends at its own closing bracket), or the one call; `open` is true when `s` ends
 * inside the last one.
 */
function callSpans(s: string, key: string, single: boolean): { spans: Array<[number, number]>; open: boolean } {
  const m = new RegExp(`^\\{[ \\t\\n\\r]*"${key}"[ \\t\\n\\r]*:[ \\t\\n\\r]*${single ? "" : "\\["}`).exec(s);
  if (!m) return { spans: [], open: false };
  const spans: Array<[number, number]> = [];
  let depth = 0,
    inStr = false,
    esc = false,
    start = -1;
  for (let j = m[0].length; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (inStr) {
      if (esc) esc = false;
      else if (c === 0x5c) esc = true;
      else if (c === 0x22) inStr = false;
      continue;
    }
    if (start < 0 && !isJsonWs(c)) {
      if (depth === 0 && (c === 0x5d || c === 0x7d || c === 0x2c)) {
        if (c !== 0x2c) return { spans, open: false };
        continue;
      }
      start = j;
    }
    if (c === 0x22) inStr = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) {
        spans.push([start, j]);
        return { spans, open: false };
      }
      depth--;
      if (depth === 0) {
        spans.push([start, j + 1]);
        if (single) return { spans, open: false };
        start = -1;
      }
    } else if (c === 0x2c && depth === 0) {
      spans.push([start, j]);
      start = -1;
    }
  }
  if (start >= 0) spans.push([start, s.length]);
  return { spans, open: start >= 0 };
}

const trimEnd = (s: string, [a, b]: [number, number]): [number, number] => {
  while (b > a && isJsonWs(s.charCodeAt(b - 1))) b--;
  return [a, b];
};

type State = "start" | "object" | "after" | "rest" | "text";

/** Why a call in an object after the answer object is outside the answer. */
const AFTER = "a call after the answer object: the dialect's answer is one JSON object";

export class EnvelopeReader implements OutputReader {
  readonly #o: ResolvedRequest;
  readonly #f: EnvelopeCallFormat;
  readonly #limit: number;
  #state: State = "start";
  #pos = 0;
  #objectStart = 0;
  #prefix = new JsonPrefix();
  #index = 0;
  #blankTo = 0; // after the object: the text before this offset is whitespace
  #second = false; // the object read comes after the answer's end

  constructor(o: ResolvedRequest, maxCallLength = Infinity) {
    this.#o = o;
    this.#f = o.spec.call as EnvelopeCallFormat;
    this.#limit = maxCallLength;
    if (o.tools.length === 0) this.#state = "text";
  }

  /** Nothing before this offset will be read again. */
  keepFrom(): number {
    return this.#state === "object" ? Math.min(this.#pos, this.#objectStart) : this.#pos;
  }

  run(t: TextBuffer, final: boolean, out: ReaderSink): void {
    for (;;) {
      if (this.#state === "text") {
        out.content(t.slice(this.#pos));
        this.#pos = t.length;
        return;
      }
      if (this.#state === "start") {
        let k = this.#pos;
        while (k < t.length && k - this.#pos <= JSON_WS_MAX && isJsonWs(t.charCodeAt(k))) k++;
        const tooLong = k - this.#pos > JSON_WS_MAX;
        if (k === t.length && !final && !tooLong) return;
        if (!tooLong && t.charAt(k) === "{") {
          this.#objectStart = k;
          this.#state = "object";
          continue;
        }
        this.#state = "text";
        continue;
      }
      if (this.#state === "object") {
        const v = this.#prefix.read(t, this.#objectStart);
        if (v.status === "error") {
          // Broken at v.at: an object that names calls settles up to there, the rest is content.
          const head = headKey(t.slice(this.#objectStart, v.at));
          if (head === this.#f.callsKey || head === this.#f.callKey) {
            this.#settle(t, v.at, { at: v.at, char: t.charAt(v.at) }, out);
            this.#pos = v.at;
            this.#state = "rest";
          } else if (this.#second) {
            out.content(t.slice(this.#pos, v.at));
            this.#pos = v.at;
            this.#state = "rest";
          } else this.#state = "text";
          continue;
        }
        if (v.status === "open" && !final) return;
        const end = v.status === "done" ? v.end : t.length;
        this.#settle(t, end, v.status !== "done", out);
        this.#pos = end;
        this.#state = "after";
        continue;
      }
      if (this.#state === "rest") {
        // Text after the answer: content, up to an object that may name calls.
        const i = t.indexOf("{", this.#pos);
        out.content(t.slice(this.#pos, i < 0 ? t.length : i));
        this.#pos = i < 0 ? t.length : i;
        if (i < 0) return;
        this.#open(i);
        continue;
      }
      // After the object: whitespace is glue (before another object too), anything else content.
      let k = Math.max(this.#pos, this.#blankTo);
      while (k < t.length && isJsonWs(t.charCodeAt(k))) k++;
      this.#blankTo = k;
      if (k === t.length) {
        if (final) this.#pos = t.length;
        return;
      }
      if (t.charAt(k) === "{") this.#open(k);
      else this.#state = "rest";
    }
  }

  /** An object at `at` after the answer's end. */
  #open(at: number): void {
    this.#objectStart = at;
    this.#prefix = new JsonPrefix();
    this.#second = true;
    this.#state = "object";
  }

  /**
   * The object from #objectStart to `end`: `true` when the output ended inside it (cut), or where
   * it broke (`broken`: the character at `at` is one no JSON text has there).
   */
  #settle(t: Text, end: number, ended: boolean | { at: number; char: string }, out: ReaderSink): void {
    const f = this.#f;
    const cut = ended !== false;
    const broken = typeof ended === "object" ? ended : undefined;
    const s = t.slice(this.#objectStart, end);
    const lead = t.slice(this.#pos, this.#objectStart);
    const head = headKey(s);
    const value = cut ? undefined : readJson(s);
    const keys = value instanceof JsonObject ? [...value.entries.keys()] : [];
    const twice = value instanceof JsonObject ? value.duplicate : undefined;
    if (
      !cut &&
      (!(value instanceof JsonObject) ||
        keys.length !== 1 ||
        twice !== undefined ||
        ![f.callsKey, f.callKey, f.responseKey].includes(keys[0]!))
    ) {
      // Not an envelope of this dialect: a response or the calls must be the object's only key, once.
      const named = keys.some((k) => k === f.callsKey || k === f.callKey);
      if (!named) {
        out.content(lead + s);
        return;
      }
      this.#error(
        out,
        null,
        "invalid",
        twice !== undefined
          ? `the key ${JSON.stringify(twice)} is given twice in the answer object`
          : `the answer object must hold exactly one key, "${f.callsKey}", "${f.callKey}" or "${f.responseKey}"; it holds ${keys.map((k) => JSON.stringify(k)).join(", ")}`,
        s,
      );
      return;
    }
    if (
      this.#second &&
      head !== f.callsKey &&
      head !== f.callKey &&
      !keys.some((k) => k === f.callsKey || k === f.callKey)
    ) {
      out.content(lead + s); // after the answer, an object that names no call is text as written
      return;
    }
    if ((value instanceof JsonObject ? keys[0] : head) === f.responseKey) {
      const r = value instanceof JsonObject ? value.entries.get(f.responseKey)! : partialString(s);
      out.content(typeof r === "string" ? r : jsonText(r as Json));
      if (cut)
        this.#error(out, null, "cut", "the output ended inside the response; the answer object was never closed", s);
      return;
    }
    if (head !== f.callsKey && head !== f.callKey) {
      if (cut) this.#error(out, null, "cut", "the output ended inside the answer object; it was never closed", s);
      else out.content(lead + s);
      return;
    }
    const single = head === f.callKey;
    const { spans, open } = callSpans(s, head, single);
    if (!cut && spans.length === 0) {
      this.#error(
        out,
        null,
        "invalid",
        single ? `"${f.callKey}" must be a call object` : `"${f.callsKey}" must be a non-empty array of calls`,
        s,
      );
      return;
    }
    const cf = envelopeCallFormat(f);
    for (const [k, raw] of spans.entries()) {
      const span = trimEnd(s, raw);
      const text = s.slice(span[0], span[1]);
      const index = this.#index++;
      const last = k === spans.length - 1;
      if (text.length > this.#limit) {
        const d = beginDrop(out.dropped, out.events, index, nameIn(text, this.#o)?.name ?? null, this.#limit);
        d.length = text.length;
        continue;
      }
      if (this.#second) {
        this.#error(out, nameIn(text, this.#o)?.name ?? null, "invalid", AFTER, text, index);
        continue;
      }
      if (cut && open && last) {
        if (broken) this.#brokenCall(out, index, text, broken.char);
        else this.#cutCall(out, index, text);
        continue;
      }
      const call = readJson(text);
      if (call instanceof JsonObject && call.duplicate !== undefined) {
        // Which of the two values counts is no reading: the call is invalid (named as first written).
        const named = nameIn(text, this.#o);
        const why = `the call's ${JSON.stringify(call.duplicate)} is given twice`;
        this.#error(out, named?.name ?? null, "invalid", why, text, index, named?.required ?? []);
        continue;
      }
      const name = call instanceof JsonObject ? call.entries.get(f.nameKey) : undefined;
      const t0 = typeof name === "string" ? allowedTool(this.#o, name) : undefined;
      if (!t0) {
        this.#error(
          out,
          typeof name === "string" ? name : null,
          "invalid",
          typeof name === "string"
            ? `"${name}" is not a tool this request may call`
            : 'a call must be an object with a "name"',
          text,
          index,
        );
        continue;
      }
      const obj = call as JsonObject;
      const args = obj.entries.get(f.argsKey);
      const second = !this.#o.parallelToolCalls && out.calls.length > 0;
      const valid =
        !second &&
        args !== undefined &&
        valueFault(obj) === undefined &&
        grammarAccepts(jsonCallObject(cf, t0, this.#o.maxValueLength), text);
      if (!valid) {
        const why = second
          ? "a second call, but parallelToolCalls is false"
          : args === undefined
            ? `the call has no "${f.argsKey}"`
            : [...obj.entries.keys()].join("\0") !== [f.nameKey, f.argsKey].join("\0")
              ? `the call object must hold exactly "${f.nameKey}", "${f.argsKey}", in that order`
              : invalidJsonReason(t0, args, this.#o.maxValueLength);
        const have = args instanceof JsonObject ? args.entries : new Map<string, Json>();
        this.#error(
          out,
          t0.name,
          "invalid",
          why,
          text,
          index,
          t0.required.filter((r) => !have.has(r)),
        );
        continue;
      }
      const entries = [...(args as JsonObject).entries];
      const done = {
        id: callId(index),
        type: "function" as const,
        function: { name: t0.name, arguments: argumentsJson(entries) },
      };
      out.events.push({ type: "tool_call_start", index, id: done.id, name: t0.name });
      out.events.push({ type: "tool_call_arguments", index, delta: done.function.arguments });
      // The call passed its grammar whole: each argument with it.
      for (const a of entries) out.events.push(argumentEvent(index, t0, a, this.#o.maxValueLength, true));
      out.events.push({ type: "tool_call_end", index, call: done });
      out.calls.push(done);
    }
    // A call after the answer tells of its object already; the object's own cut only where it holds none.
    if (cut && !open && !(this.#second && spans.length))
      this.#error(
        out,
        null,
        broken ? "invalid" : "cut",
        broken ? notJson(broken.char) : "the output ended inside the answer object; it was never closed",
        s.slice(spans.length ? trimEnd(s, spans[spans.length - 1]!)[1] : 0),
      );
  }

  #cutCall(out: ReaderSink, index: number, text: string): void {
    const named = nameIn(text, this.#o);
    this.#error(
      out,
      named?.name ?? null,
      "cut",
      "the output ended inside the call; the call was never closed",
      text,
      index,
      named?.required ?? [],
    );
  }

  /** The call the answer object broke inside (at `char`): invalid, as far as it was written. */
  #brokenCall(out: ReaderSink, index: number, text: string, char: string): void {
    const named = nameIn(text, this.#o);
    this.#error(out, named?.name ?? null, "invalid", notJson(char), text, index, named?.required ?? []);
  }

  #error(
    out: ReaderSink,
    name: string | null,
    kind: "cut" | "invalid",
    reason: string,
    text: string,
    index = this.#index++,
    missing: string[] = [],
  ): void {
    const call = this.#second
      ? { index, name, kind: "invalid" as const, reason: AFTER, missing: [], text }
      : { index, name, kind, reason, missing, text };
    out.incomplete.push(call);
    out.events.push({ type: "tool_call_error", index, call });
  }
}

/** The key an answer object's text opens with (its first key, as far as it is written plainly). */
function headKey(s: string): string | undefined {
  return /^\{[ \t\n\r]*"([^"\\]*)"[ \t\n\r]*:/.exec(s)?.[1];
}

/** Why an answer object that broke at `char` is not an envelope. */
const notJson = (char: string) => `the answer object is not valid JSON: ${JSON.stringify(char)} cannot come there`;

/** The declared tool a call's text names, as far as it goes. */
function nameIn(text: string, o: ResolvedRequest) {
  const f = o.spec.call as EnvelopeCallFormat;
  const m = new RegExp(`^\\{[ \\t\\n\\r]*${JSON.stringify(f.nameKey)}[ \\t\\n\\r]*:[ \\t\\n\\r]*"([^"\\\\]*)"`).exec(
    text,
  );
  return m ? allowedTool(o, m[1]!) : undefined;
}

/** A response string the output ended inside: its text so far, escapes read where complete. */
function partialString(s: string): string {
  const m = /^\{[ \t\n\r]*"[^"\\]*"[ \t\n\r]*:[ \t\n\r]*"/.exec(s);
  if (!m) return "";
  let body = s.slice(m[0].length);
  for (let j = 0; j < body.length; j++) {
    if (body[j] === "\\") j++;
    else if (body[j] === '"') {
      body = body.slice(0, j);
      break;
    }
  }
  body = body.replace(/\\(u[0-9a-fA-F]{0,3})?$/, "");
  try {
    return JSON.parse(`"${body}"`) as string;
  } catch {
    return body;
  }
}
