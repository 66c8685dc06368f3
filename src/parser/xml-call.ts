// Calls whose arguments are parameters with raw or JSON values: `<function=NAME><parameter=K>V`
// (Qwen3-Coder, Seed-OSS), `<invoke name="NAME"><parameter name="K">V` (MiniMax), GLM's
// `NAME<arg_key>K</arg_key><arg_value>V`. A parameter once read stays read (the checkpoint in the
// call's memo), and every search resumes where it stopped.
import { isRawText, splitScope, valueDocument, xmlValue } from "../dialects/call-grammar.js";
import { childPath } from "../grammar/json-schema/errors.js";
import { isObj, isTrivial } from "../grammar/json-schema/keywords.js";
import type { ToolDef } from "../dialects/tools.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { XmlCallFormat } from "../dialects/spec.js";
import { openAndName, overLimit, type CallMemo, type CallScan, type XmlCheckpoint } from "./calls.js";
import { FAIL, matchGlue, NEED } from "./glue.js";
import { overflowingNumber, overflowReason, step, valueFault, type Json } from "./json-value.js";
import { readValue } from "./read-value.js";
import type { Text } from "./text.js";
import { grammarAccepts } from "./validate.js";

export function scanXml(text: Text, start: number, o: ResolvedRequest, final: boolean, memo: CallMemo): CallScan {
  if (!memo.xml) {
    const n = openAndName(text, start, o.spec.call as XmlCallFormat, o, final, memo);
    if (n.status !== "done") return { ...n, args: [] };
    memo.xml = { i: n.end, tool: n.tool, args: [], seen: new Set() };
  }
  return scanParams(text, o, final, memo.xml, memo);
}

/** A value as its close shows it: shortened when long. */
const shown = (v: string) => JSON.stringify(v.length > 80 ? `${v.slice(0, 60)}…${v.slice(-12)}` : v);

function scanParams(text: Text, o: ResolvedRequest, final: boolean, cp: XmlCheckpoint, memo: CallMemo): CallScan {
  const f = o.spec.call as XmlCallFormat;
  const { tool: t, args, seen } = cp;
  const need = (cutAt: string): CallScan => ({ status: "need", tool: t, args, cutAt });
  /** After a violation: the call still runs to its own close marker, and is invalid. */
  const finish = (from: number, why: string): CallScan => {
    cp.finishing = { from, why };
    const last = [...f.close].reverse().find((p): p is string => typeof p === "string")!;
    const e = memo.finder.find(text, last, from);
    if (e >= 0) return { status: "done", end: e + last.length, tool: t, args, invalid: why };
    if (final && f.scopeCloseOptionalAtEnd && endsBeforeScope(text, from, f))
      return { status: "done", end: text.length, tool: t, args, invalid: why };
    return final ? { ...need("the call's close"), invalid: why } : need("the call's close");
  };
  if (cp.finishing) return finish(cp.finishing.from, cp.finishing.why);
  for (;;) {
    const i = cp.i;
    const p = matchGlue(text, i, f.paramOpen, final);
    if (p === NEED) return need("between parameters");
    if (p >= 0) {
      // The parameter's name, read once (a long one is not read again while its value arrives).
      if (cp.name?.at !== p) {
        const k = memo.finder.find(text, f.paramNameClose, p);
        if (k < 0) return need("a parameter name");
        cp.name = { at: p, end: k, key: text.slice(p, k) };
      }
      const { end: k, key } = cp.name;
      const v = matchGlue(text, k + f.paramNameClose.length, f.valueOpen ?? [], final);
      if (v === NEED) return need(`the value of "${key}"`);
      if (v === FAIL)
        return finish(
          k,
          `parameter "${key}": its value does not open with ${JSON.stringify(f.valueOpen?.filter((g) => typeof g === "string").join(""))}`,
        );
      const e = memo.finder.find(text, f.valueClose, v);
      if (e < 0) return need(`the value of "${key}"`);
      const raw = text.slice(v, e);
      const next = e + f.valueClose.length;
      if (seen.has(key)) return finish(next, `parameter "${key}" is given twice`);
      seen.add(key);
      if (!Object.hasOwn(t.properties, key)) return finish(next, `"${t.name}" has no parameter ${shown(key)}`);
      const typed = typeValue(f, t, key, raw, o.maxValueLength);
      if ("error" in typed) return finish(next, `parameter "${key}": ${typed.error}`);
      args.push([key, typed.value]);
      cp.i = next;
      continue;
    }
    let c = matchGlue(text, i, f.close, final);
    if (c < 0 && final && f.scopeCloseOptionalAtEnd) {
      // The output ended where only the scope's close was missing: the call is complete.
      const h = matchGlue(text, i, splitScope(f.close)[0], true);
      if (h === text.length) c = h;
    }
    if (c === NEED) return need("the call's close");
    if (c === FAIL) return finish(i, "unexpected text inside the call");
    const missing = t.required.filter((r) => !seen.has(r));
    return {
      status: "done",
      end: c,
      tool: t,
      args,
      ...(missing.length ? { invalid: `missing required ${missing.map((m) => `"${m}"`).join(", ")}` } : {}),
    };
  }
}

/** Whether the text ends, after `from`, with the call's close but for its scope (which may be missing at the end). */
function endsBeforeScope(text: Text, from: number, f: XmlCallFormat): boolean {
  const [before] = splitScope(f.close);
  let k = before.length - 1;
  while (k >= 0 && typeof before[k] !== "string") k--;
  if (k < 0) return false;
  const last = before[k] as string,
    after = before.slice(k + 1);
  const slack = after.reduce((n, p) => n + (typeof p === "string" ? p.length : p.optional.length), 0);
  for (let p = Math.max(from, text.length - last.length - slack); p <= text.length - last.length; p++)
    if (text.startsWith(last, p) && matchGlue(text, p + last.length, after, true) === text.length) return true;
  return false;
}

const PYTHON_WORDS: Record<string, Json> = { True: true, False: false, None: null };

/** An XML value: raw text for strings (one padding newline each side removed), JSON otherwise; checked by the grammar's own value node. */
function typeValue(
  f: XmlCallFormat,
  tool: ToolDef,
  key: string,
  raw: string,
  max: number | undefined,
): { value: Json } | { error: string } {
  const schema = tool.properties[key];
  let v = raw;
  if (f.trimNewline) {
    if (v.startsWith("\n")) v = v.slice(1);
    if (v.endsWith("\n")) v = v.slice(0, -1);
  }
  if (schema === false) return { error: "its schema is false: no value is allowed" };
  const doc = valueDocument(tool);
  const path = childPath(`${doc.path}.properties`, key);
  const fits = (limit?: number) => grammarAccepts(xmlValue(f, schema, limit, path, doc), raw + f.valueClose);
  // any string (no keyword but type "string" and annotations) and no limit: every raw text fits
  const anyString =
    isTrivial(schema) ||
    (isObj(schema) &&
      schema.type === "string" &&
      isTrivial(Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "type"))));
  if (!(anyString && max === undefined) && !fits(max)) {
    if (max !== undefined && fits()) return { error: `${shown(v)}: ${overLimit(max)}` };
    const own = (schema as { maxLength?: unknown } | null)?.maxLength;
    if (isRawText(schema, doc.schema) && typeof own === "number" && [...v].length > own)
      return { error: `${shown(v)} is longer than its schema's maxLength (${own} characters)` };
    const over = isRawText(schema, doc.schema) ? undefined : writtenOverflow(f, v);
    if (over !== undefined) return { error: overflowReason(over) };
    const type = (schema as { type?: unknown } | null)?.type;
    return { error: `${shown(v)} does not fit its schema${type ? ` (type ${JSON.stringify(type)})` : ""}` };
  }
  if (isRawText(schema, doc.schema)) return { value: v };
  if (Object.hasOwn(PYTHON_WORDS, v)) return { value: PYTHON_WORDS[v]! };
  let value: Json;
  try {
    value = readJsonOrPython(f, v);
  } catch (e) {
    return { error: `${shown(v)}: ${(e as Error).message}` };
  }
  const fault = valueFault(value, step(key));
  return fault === undefined ? { value } : { error: fault };
}

/** The first number a double cannot hold in `v`, where `v` reads as JSON (or a Python literal): the grammar refuses such a value, and this says why. */
function writtenOverflow(f: XmlCallFormat, v: string): string | undefined {
  try {
    return overflowingNumber(readJsonOrPython(f, v));
  } catch {
    return undefined;
  }
}

/** A value the grammar accepted as JSON or (where the dialect allows) as a Python literal; a text valid in both means the same in both. */
function readJsonOrPython(f: XmlCallFormat, v: string): Json {
  if (!f.pythonLiterals) return readValue(v, "json");
  try {
    return readValue(v, "json");
  } catch {
    return readValue(v, "python");
  }
}
