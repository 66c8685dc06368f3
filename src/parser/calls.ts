// Reading one call after its trigger, as the dialect defines it: what every call form shares.
// Every decision depends only on the text (and whether it has ended), never on where chunks were
// split; what a scan learnt is kept in the call's CallMemo, so scanning again after each feed
// reads only what is new (src/parser/json-call.ts, src/parser/xml-call.ts).
import type { ResolvedRequest } from "../dialects/options.js";
import type { NamedJsonCallFormat, PythonCallFormat, XmlCallFormat } from "../dialects/spec.js";
import { afterTrigger } from "../dialects/spec.js";
import { allowedTool } from "../dialects/tool-choice.js";
import type { ToolDef } from "../dialects/tools.js";
import { Finder } from "./finder.js";
import { FAIL, matchGlue, NEED } from "./glue.js";
import { JsonExtent } from "./json-extent.js";
import { JsonPrefix } from "./json-prefix.js";
import {
  duplicateKey,
  duplicateReason,
  hasLongString,
  JsonNumber,
  JsonObject,
  overflowingNumber,
  overflowReason,
  type Json,
} from "./json-value.js";
import { departureEnd } from "./departure.js";
import { readNameBeforeGlue, type NameRead } from "./name-before-glue.js";
import type { PythonExtent } from "./python-extent.js";
import type { Text } from "./text.js";

export interface CallScan {
  /** need: more text; refused: not a declared call (its text is content); done: the call ended at `end`. */
  status: "need" | "refused" | "done";
  end?: number;
  tool?: ToolDef;
  /** Arguments as read so far, in order, numbers as written; typed once a value is complete. */
  args: Array<[string, Json]>;
  /** Why a finished call is not valid (undefined when it is). */
  invalid?: string;
  /** The arguments are read but not streamed: a key is given twice (the values read hold one of the two). */
  unstreamed?: true;
  /** Where an unfinished call was cut. */
  cutAt?: string;
  /** refused at a name's departure: content is read on from here (src/parser/departure.ts). */
  resumeAt?: number;
  /** The call's id as the wire carries it, once complete. */
  id?: string;
  /** The wire's id is still to come: the call's start (which carries the id) must wait. */
  holdStart?: boolean;
  /**
   * How many leading arguments passed the dialect's own value grammar as read (all of them once
   * the arguments passed the call's grammar whole), decided alike for every split.
   */
  argsChecked?: number;
}

/** Where an XML call's parameters were read to; mutated as they are (see src/parser/xml-call.ts). */
export interface XmlCheckpoint {
  /** Where the next parameter (or the close) starts. */
  i: number;
  tool: ToolDef;
  args: Array<[string, Json]>;
  seen: Set<string>;
  /** The name of the parameter starting at `at`, read up to `end`. */
  name?: { at: number; end: number; key: string };
  /** The call is invalid for `why`; its close is searched from `from`. */
  finishing?: { from: number; why: string };
}

/** What the scans of one call keep from feed to feed: the text only grows, so none of it goes stale. */
export class CallMemo {
  readonly extent = new JsonExtent();
  readonly prefix = new JsonPrefix();
  readonly finder = new Finder();
  /** JSON calls: the name head's verdict, once decided. */
  head?: { tool: ToolDef } | { refusedAt: number } | "refused" | "unnamed";
  /** The JSON object ending at `end`, read (undefined: not JSON), and the grammar's verdict on it once asked. */
  body?: { end: number; value: Json | undefined; valid?: boolean };
  /** Named calls: the index digits read from `from` up to `to`. */
  digits?: { from: number; to: number };
  /** Named calls: the wire id, once read (a long one is not read again while the arguments arrive). */
  id?: string;
  xml?: XmlCheckpoint;
  /** Python calls: where the argument list ends (src/parser/python-call.ts). */
  python?: PythonExtent;
  /** The call's opening and name as read from `start`, once decided (openAndName). */
  name?: { start: number; read: NameRead & { status: "done" } };
}

/** The longest name a call may carry: the longest allowed tool's. */
export function maxNameLength(o: ResolvedRequest): number {
  return o.tools.reduce((m, t) => Math.max(m, t.name.length), 0);
}

/**
 * The glue after the trigger, then the function name (ended by the name's close or, where the
 * dialect has one, an id's marker). Once decided it is kept in `memo`: what follows it is read on
 * every feed, the name once per call.
 */
export function openAndName(
  text: Text,
  start: number,
  f: XmlCallFormat | NamedJsonCallFormat | PythonCallFormat,
  o: ResolvedRequest,
  final: boolean,
  memo: CallMemo,
): NameRead {
  if (memo.name?.start === start) return memo.name.read;
  const n = readOpenAndName(text, start, f, o, final);
  if (n.status === "done") memo.name = { start, read: n };
  return n;
}

function readOpenAndName(
  text: Text,
  start: number,
  f: XmlCallFormat | NamedJsonCallFormat | PythonCallFormat,
  o: ResolvedRequest,
  final: boolean,
): NameRead {
  const i = matchGlue(text, start, afterTrigger(f.open), final);
  if (i === NEED) return { status: "need", cutAt: "the call's opening" };
  if (i === FAIL) return { status: "refused" };
  if (f.nameClose === null) return readNameBeforeGlue(text, i, f as XmlCallFormat, o, final);
  const idOpen = f.kind === "named" && typeof f.id === "object" ? [f.id.open] : [];
  return readName(text, i, [f.nameClose, ...idOpen], o);
}

/**
 * The function name up to the first of `closes`, decided as soon as no declared name can match.
 * Only a declared name's length (and a close) is looked at: a longer name is no declared one.
 */
function readName(text: Text, i: number, closes: string[], o: ResolvedRequest): NameRead {
  const window = text.slice(i, i + maxNameLength(o) + Math.max(...closes.map((c) => c.length)));
  let j = -1,
    close = closes[0]!;
  for (const c of closes) {
    const k = window.indexOf(c);
    if (k >= 0 && (j < 0 || k < j)) {
      j = k;
      close = c;
    }
  }
  if (j < 0) {
    // A name no declared tool starts with is refused before it ends; one that could still
    // become a declared name (its close perhaps begun) and is cut there is an unfinished call.
    const possible = (name: string) =>
      name.startsWith(window) ||
      (window.startsWith(name) && closes.some((c) => c.startsWith(window.slice(name.length))));
    return o.tools.some((t) => possible(t.name))
      ? { status: "need", cutAt: "the function name" }
      : refusedName(text, i, closes, o);
  }
  const t = allowedTool(o, window.slice(0, j));
  return t ? { status: "done", tool: t, end: i + j + close.length, close } : refusedName(text, i, closes, o);
}

/** A name no declared one is: content goes on past its departing character. */
function refusedName(text: Text, i: number, closes: string[], o: ResolvedRequest): NameRead {
  const resumeAt = departureEnd(
    text,
    i,
    o.tools.flatMap((t) => closes.map((c) => t.name + c)),
  );
  return resumeAt === undefined ? { status: "refused" } : { status: "refused", resumeAt };
}

/** Whether `id` is what the grammar lets a model write: `length` letters or digits. */
export function idFits(id: unknown, length: number): id is string {
  return typeof id === "string" && id.length === length && /^[A-Za-z0-9]*$/.test(id);
}

/** Plain JS values (what the agent checks) as Json values; Json values as they are. */
function asJson(v: unknown): Json {
  const convert = (x: unknown): Json =>
    typeof x === "number"
      ? new JsonNumber(String(x))
      : x instanceof JsonNumber || x instanceof JsonObject
        ? x
        : Array.isArray(x)
          ? []
          : x !== null && typeof x === "object"
            ? new JsonObject()
            : typeof x === "string" || typeof x === "boolean"
              ? x
              : null;
  const root = convert(v);
  const todo: Array<[unknown, Json]> = [[v, root]];
  while (todo.length) {
    const [src, dst] = todo.pop()!;
    if (dst === src) continue;
    if (Array.isArray(dst))
      for (const x of src as unknown[]) {
        const y = convert(x);
        dst.push(y);
        todo.push([x, y]);
      }
    else if (dst instanceof JsonObject)
      for (const [k, x] of Object.entries(src as object)) {
        const y = convert(x);
        dst.entries.set(k, y);
        todo.push([x, y]);
      }
  }
  return root;
}

/** Why arguments the grammar refuses (or with a key given twice, or a number no double holds) are not valid, most telling reason first. */
export function invalidJsonReason(t: ToolDef, a: unknown, max?: number): string {
  const v = asJson(a);
  if (!(v instanceof JsonObject)) return "arguments must be a JSON object";
  const twice = duplicateKey(v);
  if (twice) return duplicateReason(twice);
  const missing = t.required.filter((r) => !v.entries.has(r));
  if (missing.length) return `missing required ${missing.map((m) => `"${m}"`).join(", ")}`;
  const over = overflowingNumber(v);
  if (over !== undefined) return overflowReason(over);
  if (max !== undefined && hasLongString(v, max)) return `a string value is ${overLimit(max)}`;
  return `arguments do not fit the parameters of "${t.name}"`;
}

export function overLimit(max: number): string {
  return `longer than maxValueLength (${max} characters)`;
}
