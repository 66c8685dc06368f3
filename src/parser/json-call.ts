// Calls whose arguments are a JSON object: `{"name": NAME, "arguments": {…}}` inside markers
// (Hermes, Mistral Nemo, Llama 3.x) and NAME then the object (Mistral, DeepSeek, Kimi).
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import { jsonArguments, jsonCallObject } from "../dialects/call-grammar.js";
import type { ResolvedRequest } from "../dialects/options.js";
import { afterTrigger, type JsonCallFormat, type NamedJsonCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { allowedTool } from "../dialects/tool-choice.js";
import { idFits, invalidJsonReason, maxNameLength, openAndName, type CallMemo, type CallScan } from "./calls.js";
import { FAIL, matchGlue, NEED } from "./glue.js";
import { OPEN } from "./json-extent.js";
import { duplicateKey, JsonObject, jsonText, valueFault, type Json } from "./json-value.js";
import { escapeRegex } from "./escape-regex.js";
import { departureEnd } from "./departure.js";
import { readJson } from "./read-value.js";
import type { Text } from "./text.js";
import { grammarAccepts } from "./validate.js";

/** The JSON object at `i` once it ended: its end and its value (undefined: not JSON), read once. */
function objectAt(text: Text, i: number, memo: CallMemo): NonNullable<CallMemo["body"]> | undefined {
  const e = memo.extent.end(text, i);
  if (e === OPEN) return undefined;
  if (memo.body?.end !== e) memo.body = { end: e, value: readJson(text.slice(i, e)) };
  return memo.body;
}

/** Whether arguments `a` (their text `body`) are valid: the grammar accepts them, no key is given twice, a double holds every number. */
function argumentsValid(t: ToolDef, a: Json | undefined, body: string, max?: number): boolean {
  return a !== undefined && valueFault(a) === undefined && grammarAccepts(jsonArguments(t, max), body);
}

const entriesOf = (a: Json | undefined): Array<[string, Json]> => (a instanceof JsonObject ? [...a.entries] : []);

/**
 * A key given twice in `v` (the object read holds one of its values: arguments the model did not
 * write as such): the scan's arguments are read, not streamed.
 */
const held = (v: Json): { unstreamed?: true } => (duplicateKey(v) === undefined ? {} : { unstreamed: true });

/** NAME, the name's close, a JSON arguments object, then the close glue. */
export function scanNamed(text: Text, start: number, o: ResolvedRequest, final: boolean, memo: CallMemo): CallScan {
  const f = o.spec.call as NamedJsonCallFormat;
  const args: Array<[string, Json]> = [];
  const n = openAndName(text, start, f, o, final, memo);
  if (n.status !== "done") return { ...n, args };
  const t = n.tool;
  let a0 = n.end;
  let id: string | undefined, badId: string | undefined;
  if (typeof f.id === "object" && n.close === f.id.open) {
    // [CALL_ID]id[ARGS]: the id runs to the name's close; one the grammar would not write makes the call invalid.
    const j = memo.finder.find(text, f.nameClose, a0);
    if (j < 0) return { status: "need", tool: t, args, cutAt: "the call id", holdStart: true };
    const wire = (memo.id ??= text.slice(a0, j));
    id = wire;
    if (!idFits(wire, f.id.length))
      badId = `the call id ${JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}…` : id)} is not ${f.id.length} letters or digits`;
    a0 = j + f.nameClose.length;
  }
  if (f.index) {
    const from = a0;
    if (memo.digits?.from === from) a0 = memo.digits.to;
    while (a0 < text.length && text.charCodeAt(a0) >= 0x30 && text.charCodeAt(a0) <= 0x39) a0++;
    memo.digits = { from, to: a0 };
    if (a0 === text.length)
      return { status: "need", tool: t, args, cutAt: "the call's index", holdStart: f.id === "head" };
    if (a0 === from) return { status: "done", end: a0, tool: t, args, invalid: "the call's index is missing" };
  }
  if (f.id === "head") id = memo.id ??= text.slice(start, a0);
  const withId = id === undefined ? {} : { id };
  a0 = matchGlue(text, a0, f.argsOpen ?? [], final);
  if (a0 === NEED) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  if (a0 === FAIL)
    return { status: "done", end: n.end, tool: t, args, ...withId, invalid: "the arguments marker is missing" };
  if (a0 >= text.length) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  if (text.charAt(a0) !== "{")
    return { status: "done", end: a0, tool: t, args, ...withId, invalid: "the arguments are not a JSON object" };
  const body = objectAt(text, a0, memo);
  if (!body) return { status: "need", tool: t, args, ...withId, cutAt: "the arguments" };
  const e = body.end;
  if (body.value === undefined)
    return { status: "done", end: e, tool: t, args, ...withId, invalid: "the arguments are not valid JSON" };
  args.push(...entriesOf(body.value));
  // Decided once the arguments end, so every split tells their verdict alike (argsChecked).
  const valid = (body.valid ??= argumentsValid(t, body.value, text.slice(a0, e), o.maxValueLength));
  const checked = { tool: t, args, ...held(body.value), ...withId, argsChecked: valid ? args.length : 0 };
  const c = matchGlue(text, e, f.close, final);
  if (c === NEED) return { status: "need", ...checked, cutAt: "the call's close" };
  if (c === FAIL) return { status: "done", end: e, ...checked, invalid: "the call's close marker is missing" };
  const invalid = badId ?? (valid ? undefined : invalidJsonReason(t, body.value, o.maxValueLength));
  return { status: "done", end: c, ...checked, ...(invalid ? { invalid } : {}) };
}

const WS = `[ \\t\\n\\r]{0,${JSON_WS_MAX}}`;
const heads = new Map<string, { named: RegExp; partial: RegExp }>();
/**
 * `{"<nameKey>": "` as the grammar writes it (JSON whitespace between tokens, at most JSON_WS_MAX
 * each), then the name's plain characters (no quote, backslash or control character): `named`;
 * any beginning of the part before the name: `partial`.
 */
function headPatterns(nameKey: string): { named: RegExp; partial: RegExp } {
  let re = heads.get(nameKey);
  if (!re) {
    const key = escapeRegex(JSON.stringify(nameKey));
    re = {
      named: new RegExp(`^\\{${WS}${key}${WS}:${WS}"([^"\\\\\\u0000-\\u001f]*)`),
      partial: new RegExp(`^\\{${WS}(?:"([^"\\\\\\u0000-\\u001f]*)(?:(")${WS}(?::${WS})?)?)?$`),
    };
    heads.set(nameKey, re);
  }
  return re;
}

/**
 * The call object's head at `i`: the declared tool it names; "refused" once its name leaves every
 * declared one (decided at that character, whatever follows it); "need" while the text could still
 * become a head naming a declared tool; "unnamed" when it is no head as the grammar writes one
 * (another key first, an escape or a control character in the name, more whitespace), which only
 * the whole object can tell.
 */
function readHead(
  text: Text,
  i: number,
  f: JsonCallFormat,
  o: ResolvedRequest,
  memo: CallMemo,
): { tool: ToolDef } | { refusedAt: number } | "refused" | "need" | "unnamed" {
  if (memo.head) return memo.head;
  const { named, partial } = headPatterns(f.nameKey);
  const size = 3 + 3 * JSON_WS_MAX + JSON.stringify(f.nameKey).length + maxNameLength(o) + 2;
  const window = text.slice(i, i + size);
  // An undeclared name departs from the declared ones (each with its closing quote) at one character.
  const departed = (nameStart: number) => {
    const at = departureEnd(
      text,
      nameStart,
      o.tools.map((t) => `${t.name}"`),
    );
    return at === undefined ? ("refused" as const) : { refusedAt: at };
  };
  const m = named.exec(window);
  if (m) {
    const name = m[1]!;
    const nameStart = i + m[0].length - name.length;
    // The name has left every declared one: decided here, as the grammar decides it (refusedCall).
    if (!o.tools.some((t) => t.name.startsWith(name))) return (memo.head = departed(nameStart));
    const after = window.charAt(m[0].length);
    // It may still name a declared tool: wait (at the end: a call cut inside its name).
    if (after === "") return "need";
    if (after === '"') {
      const t = allowedTool(o, name);
      return (memo.head = t ? { tool: t } : departed(nameStart));
    }
    return (memo.head = "unnamed");
  }
  // A beginning of a head before its name (every prefix of one matches `partial`, nothing else does).
  const p = partial.exec(window);
  if (p) {
    const [, key = "", keyClosed] = p;
    if (keyClosed ? key === f.nameKey : f.nameKey.startsWith(key)) return "need";
  }
  return (memo.head = "unnamed");
}

/** `{"name": …, "arguments": {…}}` (and the id where the dialect has one), then the close glue. */
export function scanJson(text: Text, start: number, o: ResolvedRequest, final: boolean, memo: CallMemo): CallScan {
  const f = o.spec.call as JsonCallFormat;
  const args: Array<[string, Json]> = [];
  const i = matchGlue(text, start, afterTrigger(f.open), final);
  if (i === NEED) return { status: "need", args, cutAt: "the call's opening" };
  if (i === FAIL || (i < text.length && text.charAt(i) !== "{")) return { status: "refused", args };
  if (i >= text.length) return { status: "need", args, cutAt: "the call object" };
  // The name is decided as soon as it is complete, before the arguments arrive.
  const head = readHead(text, i, f, o, memo);
  if (head === "refused") return { status: "refused", args };
  if (typeof head === "object" && "refusedAt" in head) return { status: "refused", args, resumeAt: head.refusedAt };
  if (head === "need") return { status: "need", args, cutAt: "the call object" };
  let t: ToolDef, body: CallMemo["body"];
  if (head === "unnamed") {
    // Only a JSON object that names a declared tool somewhere is a call (an invalid one): text
    // that is not JSON is refused at its first character that JSON cannot have there.
    const v = memo.prefix.read(text, i);
    if (v.status === "error" || (v.status === "open" && final)) return { status: "refused", args };
    if (v.status === "open") return { status: "need", args, cutAt: "the call object" };
    if (memo.body?.end !== v.end) memo.body = { end: v.end, value: readJson(text.slice(i, v.end)) };
    body = memo.body;
    const name = body.value instanceof JsonObject ? body.value.entries.get(f.nameKey) : undefined;
    const named = typeof name === "string" ? allowedTool(o, name) : undefined;
    if (!named) return { status: "refused", args };
    t = named;
  } else {
    t = head.tool;
    body = objectAt(text, i, memo);
    // An id written after the arguments (Nemo) holds the call's start until the object ends.
    if (!body) return { status: "need", tool: t, args, cutAt: "the arguments", ...(f.id ? { holdStart: true } : {}) };
  }
  const e = body.end;
  const obj = body.value;
  if (!(obj instanceof JsonObject)) {
    // A declared name was already read (and streamed): the call stays a call, an invalid one.
    const c = matchGlue(text, e, f.close, final);
    if (c === NEED) return { status: "need", tool: t, args, cutAt: "the call's close" };
    return { status: "done", end: c === FAIL ? e : c, tool: t, args, invalid: "the call is not valid JSON" };
  }
  const a = obj.entries.get(f.argsKey);
  args.push(...entriesOf(a));
  const id = f.id ? obj.entries.get(f.id.key) : undefined;
  // The wire id where it fits; the arguments held back where a key is given twice.
  const extra = { ...(f.id && idFits(id, f.id.length) ? { id } : {}), ...held(obj) };
  // Decided once the object ends, so every split tells the arguments' verdict alike (argsChecked).
  const valid = (body.valid ??=
    obj.entries.get(f.nameKey) === t.name &&
    a !== undefined &&
    valueFault(obj) === undefined &&
    grammarAccepts(jsonCallObject(f, t, o.maxValueLength), text.slice(i, e)));
  const c = matchGlue(text, e, f.close, final);
  if (c === NEED)
    return {
      status: "need",
      tool: t,
      args,
      ...extra,
      argsChecked: valid ? args.length : 0,
      cutAt: "the call's close",
    };
  if (c === FAIL)
    return {
      status: "done",
      end: e,
      tool: t,
      args,
      ...extra,
      argsChecked: valid ? args.length : 0,
      invalid: "the call's close marker is missing",
    };
  return {
    status: "done",
    end: c,
    tool: t,
    args,
    ...extra,
    argsChecked: valid ? args.length : 0,
    ...(valid ? {} : { invalid: invalidCallReason(f, t, obj, o.maxValueLength) }),
  };
}

/** Why a JSON call object the grammar refuses is not a valid call, most telling reason first. */
function invalidCallReason(f: JsonCallFormat, t: ToolDef, obj: JsonObject, max?: number): string {
  const a = obj.entries.get(f.argsKey);
  if (obj.duplicate !== undefined) return `the call's ${JSON.stringify(obj.duplicate)} is given twice`;
  if (a === undefined) return `the call has no "${f.argsKey}"`;
  if (obj.entries.get(f.nameKey) !== t.name) return `the call's "${f.nameKey}" is not "${t.name}"`;
  if (!argumentsValid(t, a, jsonText(a), max)) return invalidJsonReason(t, a, max);
  const id = obj.entries.get(f.id?.key ?? "");
  if (f.id && !idFits(id, f.id.length))
    return `the call's "${f.id.key}" must be ${f.id.length} letters or digits, got ${id === undefined ? "none" : jsonText(id)}`;
  const keys = [f.nameKey, f.argsKey, ...(f.id ? [f.id.key] : [])];
  if ([...obj.entries.keys()].join("\0") === keys.join("\0")) return invalidJsonReason(t, a, max);
  return `the call object must hold exactly ${keys.map((k) => `"${k}"`).join(", ")}, in that order`;
}
