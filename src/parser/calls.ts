// Reading one call after its trigger, as the dialect defines it. Every decision depends
// only on the text (and whether it has ended), never on where chunks were split.
import { isRawText, jsonArguments, rawTextBound, jsonCallObject, splitScope, xmlValue } from "../dialects/grammar.js";
import type { ResolvedOptions } from "../dialects/options.js";
import { afterTrigger, type JsonCallFormat, type NamedJsonCallFormat, type XmlCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { FAIL, matchGlue, NEED } from "./glue.js";
import { JsonExtent, OPEN } from "./json-extent.js";
import { readNameBeforeGlue, type NameRead } from "./name-before-glue.js";
import { readPythonLiteral } from "./python-literal.js";
import { grammarAccepts } from "./validate.js";

export interface CallScan {
  /** need: more text; refused: not a declared call (its text is content); done: the call ended at `end`. */
  status: "need" | "refused" | "done";
  end?: number;
  tool?: ToolDef;
  /** Arguments as read so far, in order; typed once a value is complete. */
  args: Array<[string, unknown]>;
  /** Why a finished call is not valid (undefined when it is). */
  invalid?: string;
  /** Where an unfinished call was cut. */
  cutAt?: string;
  /** The call's id as the wire carries it, once complete. */
  id?: string;
  /** The wire's id is still to come: the call's start (which carries the id) must wait. */
  holdStart?: boolean;
}

const MAX_NAME = 256;

function tool(o: ResolvedOptions, name: string): ToolDef | undefined {
  return o.tools.find((t) => t.name === name);
}

/**
 * Where a previous scan of the same call got to. Text only grows, so a finished parameter stays
 * finished and a value's close cannot appear before where it was last searched: resuming from
 * here keeps feeding linear in the output's length.
 */
export interface XmlCheckpoint {
  i: number;
  tool: ToolDef;
  args: Array<[string, unknown]>;
  seen: Set<string>;
  /** A value whose close was searched up to `from` without being found. */
  search?: { at: number; from: number };
}

export function scanXml(text: string, start: number, o: ResolvedOptions, final: boolean, cp?: XmlCheckpoint): CallScan & { checkpoint?: XmlCheckpoint } {
  const f = o.spec.call as XmlCallFormat;
  if (cp) return scanParams(text, o, final, { ...cp, args: [...cp.args], seen: new Set(cp.seen) });
  const n = openAndName(text, start, f, o, final);
  if (n.status !== "done") return { ...n, args: [] };
  return scanParams(text, o, final, { i: n.end, tool: n.tool, args: [], seen: new Set() });
}

/** The glue after the trigger, then the function name (ended by the name's close or, where the dialect has one, an id's marker). */
function openAndName(text: string, start: number, f: XmlCallFormat | NamedJsonCallFormat, o: ResolvedOptions, final: boolean): NameRead {
  const i = matchGlue(text, start, afterTrigger(f.open), final);
  if (i === NEED) return { status: "need", cutAt: "the call's opening" };
  if (i === FAIL) return { status: "refused" };
  if (f.nameClose === null) return readNameBeforeGlue(text, i, f as XmlCallFormat, o, final);
  const idOpen = f.kind === "named" && typeof f.id === "object" ? [f.id.open] : [];
  return readName(text, i, [f.nameClose, ...idOpen], o);
}

/** The function name up to the first of `closes`, decided as soon as no declared name can match. */
function readName(text: string, i: number, closes: string[], o: ResolvedOptions): NameRead {
  let j = -1, close = closes[0]!;
  for (const c of closes) {
    const k = text.indexOf(c, i);
    if (k >= 0 && (j < 0 || k < j)) { j = k; close = c; }
  }
  if (j < 0) {
    const partial = text.slice(i);
    // A name no declared tool starts with is refused before it ends; one that could still
    // become a declared name (its close perhaps begun) and is cut there is an unfinished call.
    const possible = (name: string) =>
      name.startsWith(partial) || (partial.startsWith(name) && closes.some((c) => c.startsWith(partial.slice(name.length))));
    if (partial.length > MAX_NAME || !o.tools.some((t) => possible(t.name))) return { status: "refused" };
    return { status: "need", cutAt: "the function name" };
  }
  const t = tool(o, text.slice(i, j));
  return t ? { status: "done", tool: t, end: j + close.length, close } : { status: "refused" };
}

/** Whether `id` is what the grammar lets a model write: `length` letters or digits. */
function idFits(id: unknown, length: number): id is string {
  return typeof id === "string" && id.length === length && /^[A-Za-z0-9]*$/.test(id);
}

/** NAME, the name's close, a JSON arguments object, then the close glue. */
export function scanNamed(text: string, start: number, o: ResolvedOptions, final: boolean, extent?: JsonExtent): CallScan {
  const f = o.spec.call as NamedJsonCallFormat;
  const args: Array<[string, unknown]> = [];
  const n = openAndName(text, start, f, o, final);
  if (n.status !== "done") return { ...n, args };
  const t = n.tool;
  let a0 = n.end;
  let id: string | undefined, badId: string | undefined;
  if (typeof f.id === "object" && n.close === f.id.open) {
    // [CALL_ID]id[ARGS]: the id runs to the name's close; one the grammar would not write makes the call invalid.
    const j = text.indexOf(f.nameClose, a0);
    if (j < 0) return { status: "need", tool: t, args, cutAt: "the call id", holdStart: true };
    id = text.slice(a0, j);
    if (!idFits(id, f.id.length)) badId = `the call id ${JSON.stringify(id)} is not ${f.id.length} letters or digits`;
    a0 = j + f.nameClose.length;
  }
  if (f.index) {
    while (a0 < text.length && text[a0]! >= "0" && text[a0]! <= "9") a0++;
    if (a0 === text.length) return { status: "need", tool: t, args, cutAt: "the call's index", holdStart: f.id === "head" };
    if (a0 === n.end) return { status: "done", end: a0, tool: t, args, invalid: "the call's index is missing" };
  }
  if (f.id === "head") id = text.slice(start, a0);
  const withId = id === undefined ? {} : { id };
  a0 = matchGlue(text, a0, f.argsOpen ?? [], final);
  if (a0 === NEED) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  if (a0 === FAIL) return { status: "done", end: n.end, tool: t, args, ...withId, invalid: "the arguments marker is missing" };
  if (a0 >= text.length) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  if (text[a0] !== "{") return { status: "done", end: a0, tool: t, args, ...withId, invalid: "the arguments are not a JSON object" };
  const e = objectEnd(text, a0, extent);
  if (e === NEED) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  const body = text.slice(a0, e);
  let a: unknown;
  try { a = JSON.parse(body); } catch { return { status: "done", end: e, tool: t, args, ...withId, invalid: "the arguments are not valid JSON" }; }
  if (a && typeof a === "object" && !Array.isArray(a)) for (const [k, v] of Object.entries(a)) args.push([k, v]);
  const c = matchGlue(text, e, f.close, final);
  if (c === NEED) return { status: "need", tool: t, args, ...withId, cutAt: "the call's close" };
  if (c === FAIL) return { status: "done", end: e, tool: t, args, ...withId, invalid: "the call's close marker is missing" };
  const valid = grammarAccepts(jsonArguments(t, o.maxValueLength), body);
  const invalid = badId ?? (valid ? undefined : invalidJsonReason(t, a, o.maxValueLength));
  return { status: "done", end: c, tool: t, args, ...withId, ...(invalid ? { invalid } : {}) };
}

function scanParams(text: string, o: ResolvedOptions, final: boolean, cp: XmlCheckpoint): CallScan & { checkpoint?: XmlCheckpoint } {
  const f = o.spec.call as XmlCallFormat;
  const { tool: t, args, seen } = cp;
  let i = cp.i;
  for (;;) {
    const p = matchGlue(text, i, f.paramOpen, final);
    if (p === NEED) return { status: "need", tool: t, args, cutAt: "between parameters", checkpoint: { i, tool: t, args, seen } };
    if (p >= 0) {
      const k = text.indexOf(f.paramNameClose, p);
      if (k < 0) return final ? cut(t, args, "a parameter name") : { status: "need", tool: t, args, cutAt: "a parameter name", checkpoint: { i, tool: t, args, seen } };
      const key = text.slice(p, k);
      const v = matchGlue(text, k + f.paramNameClose.length, f.valueOpen ?? [], final);
      if (v === NEED) return { status: "need", tool: t, args, cutAt: `the value of "${key}"`, checkpoint: { i, tool: t, args, seen } };
      if (v === FAIL) return finish(text, k, t, args, f, final, `parameter "${key}": its value does not open with ${JSON.stringify(f.valueOpen?.filter((g) => typeof g === "string").join(""))}`);
      const from = cp.search && cp.search.at === v ? Math.max(v, cp.search.from - f.valueClose.length + 1) : v;
      const e = text.indexOf(f.valueClose, from);
      if (e < 0) return { status: "need", tool: t, args, cutAt: `the value of "${key}"`, checkpoint: { i, tool: t, args, seen, search: { at: v, from: text.length } } };
      const raw = text.slice(v, e);
      i = e + f.valueClose.length;
      if (seen.has(key)) return finish(text, i, t, args, f, final, `parameter "${key}" is given twice`);
      seen.add(key);
      if (!(key in t.properties)) return finish(text, i, t, args, f, final, `"${t.name}" has no parameter "${key}"`);
      const typed = typeValue(f, t.properties[key], raw, o.maxValueLength);
      if ("error" in typed) return finish(text, i, t, args, f, final, `parameter "${key}": ${typed.error}`);
      args.push([key, typed.value]);
      continue;
    }
    let c = matchGlue(text, i, f.close, final);
    if (c < 0 && final && f.scopeCloseOptionalAtEnd) {
      // The output ended where only the scope's close was missing: the call is complete.
      const h = matchGlue(text, i, splitScope(f.close)[0], true);
      if (h === text.length) c = h;
    }
    if (c === NEED) return { status: "need", tool: t, args, cutAt: "the call's close", checkpoint: { i, tool: t, args, seen } };
    if (c === FAIL) return finish(text, i, t, args, f, final, "unexpected text inside the call");
    const missing = t.required.filter((r) => !seen.has(r));
    return { status: "done", end: c, tool: t, args, ...(missing.length ? { invalid: `missing required ${missing.map((m) => `"${m}"`).join(", ")}` } : {}) };
  }
}

function cut(t: ToolDef, args: Array<[string, unknown]>, where: string): CallScan {
  return { status: "need", tool: t, args, cutAt: where };
}

/** After a violation: the call still runs to its own close marker, and is invalid. */
function finish(text: string, i: number, t: ToolDef, args: Array<[string, unknown]>, f: XmlCallFormat, final: boolean, why: string): CallScan {
  const last = [...f.close].reverse().find((p): p is string => typeof p === "string")!;
  const e = text.indexOf(last, i);
  if (e < 0) return final ? { status: "need", tool: t, args, cutAt: "the call's close", invalid: why } : { status: "need", tool: t, args, cutAt: "the call's close" };
  return { status: "done", end: e + last.length, tool: t, args, invalid: why };
}

/** An XML value: raw text for strings (one padding newline each side removed), JSON otherwise. */
function typeValue(f: XmlCallFormat, schema: unknown, raw: string, max?: number): { value: unknown } | { error: string } {
  let v = raw;
  if (f.trimNewline) {
    if (v.startsWith("\n")) v = v.slice(1);
    if (v.endsWith("\n")) v = v.slice(0, -1);
  }
  const fits = (limit?: number) => grammarAccepts(xmlValue(f, schema, limit), raw + f.valueClose);
  if (isRawText(schema)) {
    const bound = rawTextBound(schema, max);
    if (bound === undefined || fits(max)) return { value: v };
    return { error: `${JSON.stringify(v)} is ${bound === max ? overLimit(bound) : `longer than its schema's maxLength (${bound} characters)`}` };
  }
  if (!fits(max)) {
    if (max !== undefined && fits()) return { error: `${JSON.stringify(v)}: ${overLimit(max)}` };
    const type = (schema as { type?: unknown }).type;
    return { error: `${JSON.stringify(v)} does not fit its schema${type ? ` (type ${JSON.stringify(type)})` : ""}` };
  }
  const s = schema as Record<string, unknown>;
  const values = s.enum ?? (s.const !== undefined ? [s.const] : undefined);
  if (Array.isArray(values) && values.every((x) => typeof x === "string")) return { value: v };
  const python: Record<string, unknown> = { True: true, False: false, None: null };
  if (v in python) return { value: python[v] };
  try {
    return { value: readJsonOrPython(f, v) };
  } catch (e) {
    return { error: `${JSON.stringify(v)}: ${(e as Error).message}` };
  }
}

/** A value the grammar accepted as JSON or (where the dialect allows) as a Python literal; a text valid in both means the same in both. */
function readJsonOrPython(f: XmlCallFormat, v: string): unknown {
  if (!f.pythonLiterals) return JSON.parse(v);
  try { return JSON.parse(v); } catch { return readPythonLiteral(v); }
}

/** End of the JSON object starting at `i` (strings respected), or NEED; resumes with `extent`. */
export function objectEnd(text: string, i: number, extent = new JsonExtent()): number {
  const e = extent.end(text, i);
  return e === OPEN ? NEED : e;
}

const heads = new Map<string, RegExp>();
/** `{"<nameKey>": "<name>"` at a given index (sticky), the name's JSON string captured. */
function nameHead(nameKey: string): RegExp {
  let re = heads.get(nameKey);
  if (!re) heads.set(nameKey, (re = new RegExp(`\\{\\s*${JSON.stringify(nameKey)}\\s*:\\s*("(?:[^"\\\\\\n]|\\\\.)*")`, "y")));
  return re;
}

export function scanJson(text: string, start: number, o: ResolvedOptions, final: boolean, extent?: JsonExtent): CallScan {
  const f = o.spec.call as JsonCallFormat;
  const args: Array<[string, unknown]> = [];
  const i = matchGlue(text, start, afterTrigger(f.open), final);
  if (i === NEED) return { status: "need", args, cutAt: "the call's opening" };
  if (i === FAIL || (i < text.length && text[i] !== "{")) return { status: "refused", args };
  if (i >= text.length) return { status: "need", args, cutAt: "the call object" };
  // The name is decided as soon as it is complete, before the arguments arrive.
  const re = nameHead(f.nameKey);
  re.lastIndex = i;
  const head = re.exec(text);
  const named = head ? (JSON.parse(head[1]!) as string) : undefined;
  if (named !== undefined && !tool(o, named)) return { status: "refused", args };
  const e = objectEnd(text, i, extent);
  // An id written after the arguments (Nemo) holds the call's start until the object ends.
  const hold = f.id ? { holdStart: true } : {};
  if (e === NEED) {
    if (named !== undefined) return { status: "need", tool: tool(o, named)!, args, cutAt: "the arguments", ...hold };
    // Cut before the name was complete: an unfinished call while it can still name a declared tool.
    return !final || couldNameTool(text.slice(i), f, o) ? { status: "need", args, cutAt: "the call object" } : { status: "refused", args };
  }
  let obj: unknown;
  try { obj = JSON.parse(text.slice(i, e)); } catch {
    // A declared name was already read (and streamed): the call stays a call, an invalid one.
    if (named === undefined) return { status: "refused", args };
    const c = matchGlue(text, e, f.close, final);
    if (c === NEED) return { status: "need", tool: tool(o, named)!, args, cutAt: "the call's close" };
    return { status: "done", end: c === FAIL ? e : c, tool: tool(o, named)!, args, invalid: "the call is not valid JSON" };
  }
  const name = (obj as Record<string, unknown>)?.[f.nameKey];
  const t = typeof name === "string" ? tool(o, name) : undefined;
  if (!t) return { status: "refused", args };
  const a = (obj as Record<string, unknown>)[f.argsKey];
  if (a && typeof a === "object" && !Array.isArray(a)) for (const [k, v] of Object.entries(a)) args.push([k, v]);
  const id = f.id ? (obj as Record<string, unknown>)[f.id.key] : undefined;
  const withId = f.id && idFits(id, f.id.length) ? { id } : {};
  const c = matchGlue(text, e, f.close, final);
  if (c === NEED) return { status: "need", tool: t, args, ...withId, cutAt: "the call's close" };
  const valid = grammarAccepts(jsonCallObject(f, t, o.maxValueLength), text.slice(i, e));
  const end = c === FAIL ? e : c;
  if (c === FAIL) return { status: "done", end, tool: t, args, ...withId, invalid: "the call's close marker is missing" };
  return { status: "done", end, tool: t, args, ...withId, ...(valid ? {} : { invalid: invalidCallReason(f, t, obj as Record<string, unknown>, o.maxValueLength) }) };
}

/** Why a JSON call object the grammar refuses is not a valid call, most telling reason first. */
function invalidCallReason(f: JsonCallFormat, t: ToolDef, obj: Record<string, unknown>, max?: number): string {
  const a = obj[f.argsKey];
  if (!(f.argsKey in obj)) return `the call has no "${f.argsKey}"`;
  if (!grammarAccepts(jsonArguments(t, max), JSON.stringify(a))) return invalidJsonReason(t, a, max);
  if (f.id && !idFits(obj[f.id.key], f.id.length)) return `the call's "${f.id.key}" must be ${f.id.length} letters or digits, got ${JSON.stringify(obj[f.id.key]) ?? "none"}`;
  const keys = [f.nameKey, f.argsKey, ...(f.id ? [f.id.key] : [])];
  if (Object.keys(obj).join("\0") === keys.join("\0")) return invalidJsonReason(t, a, max);
  return `the call object must hold exactly ${keys.map((k) => `"${k}"`).join(", ")}, in that order`;
}

/** Whether a call object cut before its name ends (`{`, `{"na`, `{"name": "wr`) could still name a declared tool. */
function couldNameTool(head: string, f: JsonCallFormat, o: ResolvedOptions): boolean {
  const m = /^\{\s*(?:"([^"\\]*)(")?\s*(?::\s*(?:"([^"\\]*))?)?)?$/.exec(head);
  if (!m) return false;
  const [, key = "", keyClosed, name] = m;
  if (keyClosed ? key !== f.nameKey : !f.nameKey.startsWith(key)) return false;
  return name === undefined || o.tools.some((t) => t.name.startsWith(name));
}

export function invalidJsonReason(t: ToolDef, a: unknown, max?: number): string {
  if (!a || typeof a !== "object" || Array.isArray(a)) return "arguments must be a JSON object";
  const missing = t.required.filter((r) => !(r in (a as object)));
  if (missing.length) return `missing required ${missing.map((m) => `"${m}"`).join(", ")}`;
  if (max !== undefined && longString(a, max)) return `a string value is ${overLimit(max)}`;
  return `arguments do not fit the parameters of "${t.name}"`;
}

function overLimit(max: number): string {
  return `longer than maxValueLength (${max} characters)`;
}

/** Whether a string value (not an object key) anywhere in `v` has more than `max` characters. */
function longString(v: unknown, max: number): boolean {
  if (typeof v === "string") return [...v].length > max;
  if (Array.isArray(v)) return v.some((x) => longString(x, max));
  if (v && typeof v === "object") return Object.values(v).some((x) => longString(x, max));
  return false;
}
