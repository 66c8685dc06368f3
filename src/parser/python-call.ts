// Python-style calls (LFM2): `NAME(k=v, k2=v2)`. The name ends at "("; the argument list ends
// where its brackets balance ('…' and "…" strings respected), found incrementally: at its own ")",
// or, closed by "]" or "}", before that bracket, as an invalid call; then
// its items are read and checked as the grammar writes them, each value by the grammar's own node.
import { pythonValue } from "../dialects/call-grammar.js";
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import type { ResolvedRequest } from "../dialects/options.js";
import type { PythonCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { openAndName, overLimit, type CallMemo, type CallScan } from "./calls.js";
import {
  duplicateKey,
  duplicateReason,
  hasLongString,
  overflowingNumber,
  overflowReason,
  step,
  type Json,
} from "./json-value.js";
import { readValue } from "./read-value.js";
import type { Text } from "./text.js";
import { grammarAccepts } from "./validate.js";
import { OPEN, PythonExtent } from "./python-extent.js";

/** A value as written: a Python literal, else JSON; undefined when it is neither. */
function readLiteral(s: string): Json | undefined {
  for (const syntax of ["python", "json"] as const) {
    try {
      return readValue(s, syntax);
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
    }
  }
  return undefined;
}

const WS = " \t\n\r";
/** Past at most `max` whitespace characters from `i` of `s`; -1 past more. */
function skipWs(s: string, i: number, max = JSON_WS_MAX): number {
  const from = i;
  while (i < s.length && WS.includes(s.charAt(i))) i++;
  return i - from > max ? -1 : i;
}

/**
 * The keyword arguments of the list text `(…)`, split at its top-level commas, checked as the
 * grammar's pythonArguments writes them: "(" whitespace, `key=value` items separated by ","
 * and whitespace, whitespace, ")" — each key a declared parameter at most once, the required
 * ones present, each value accepted by the grammar's own node for it (pythonValue).
 */
function readArguments(
  list: string,
  commas: number[],
  t: ToolDef,
  o: ResolvedRequest,
): { args: Array<[string, Json]>; bad?: string; lastBad?: boolean; twice?: true } {
  const args: Array<[string, Json]> = [];
  const inner = list.slice(1, -1);
  if (commas.length === 0 && skipWs(inner, 0, 2 * JSON_WS_MAX) === inner.length)
    return missingRequired(t, args) ?? { args };
  const cuts = [0, ...commas.map((c) => c + 1), inner.length + 1];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const part = inner.slice(cuts[k], cuts[k + 1]! - 1);
    const at = skipWs(part, 0);
    const m = at < 0 ? null : /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(part.slice(at));
    if (!m) return { args, bad: `argument ${k + 1} is not written as key=value` };
    const key = m[1]!;
    let text = part.slice(at + m[0].length);
    if (k + 2 === cuts.length) {
      // The last value: whitespace before ")" is the list's, not the value's.
      let e = text.length;
      while (e > 0 && WS.includes(text.charAt(e - 1))) e--;
      if (text.length - e > JSON_WS_MAX) return { args, bad: 'more whitespace before ")" than a call may have' };
      text = text.slice(0, e);
    }
    const v = readLiteral(text);
    if (v === undefined) return { args, bad: `the value of "${key}" is not a Python literal` };
    if (args.some(([a]) => a === key)) return { args, bad: duplicateReason({ key, at: "" }) };
    args.push([key, v]);
    // A value with a key given twice: the value read holds one of the two (the call's arguments are not streamed).
    const twice = duplicateKey(v);
    if (twice)
      return { args, bad: duplicateReason({ key: twice.key, at: step(key) + twice.at }), lastBad: true, twice: true };
    if (!Object.hasOwn(t.properties, key))
      return { args, bad: `"${key}" is not a parameter of "${t.name}"`, lastBad: true };
    if (t.properties[key] === false)
      return { args, bad: `"${key}" has the schema false: no value is allowed`, lastBad: true };
    const over = overflowingNumber(v);
    if (over !== undefined) return { args, bad: overflowReason(over), lastBad: true };
    if (!grammarAccepts(pythonValue(t, key, o.maxValueLength), text)) {
      const long = o.maxValueLength !== undefined && hasLongString(v, o.maxValueLength);
      return {
        args,
        lastBad: true,
        bad: long
          ? `the value of "${key}": a string value is ${overLimit(o.maxValueLength!)}`
          : `the value of "${key}" does not fit its schema`,
      };
    }
  }
  return missingRequired(t, args) ?? { args };
}

function missingRequired(
  t: ToolDef,
  args: Array<[string, Json]>,
): { args: Array<[string, Json]>; bad: string } | undefined {
  const missing = t.required.filter((r) => !args.some(([k]) => k === r));
  return missing.length ? { args, bad: `missing required ${missing.map((m) => `"${m}"`).join(", ")}` } : undefined;
}

/** NAME, "(", keyword arguments, ")". */
export function scanPython(text: Text, start: number, o: ResolvedRequest, final: boolean, memo: CallMemo): CallScan {
  const f = o.spec.call as PythonCallFormat;
  const args: Array<[string, Json]> = [];
  const n = openAndName(text, start, f, o, final, memo);
  if (n.status !== "done") return { ...n, args };
  const t: ToolDef = n.tool;
  const open = n.end - f.nameClose.length; // the list's "("
  const extent = (memo.python ??= new PythonExtent());
  const e = extent.end(text, open);
  if (e === OPEN) return { status: "need", tool: t, args, cutAt: "the arguments" };
  // Only ")" closes the list: "]" or "}" there is not part of the call (it is what follows it),
  // and the call, read as far as it goes, is invalid.
  const closer = text.charAt(e - 1);
  const read = readArguments(
    `${text.slice(open, e - 1)})`,
    extent.commas.map((c) => c - open - 1),
    t,
    o,
  );
  args.push(...read.args);
  // Each value but a last bad one passed its own value grammar as it was read.
  const argsChecked = read.lastBad ? args.length - 1 : args.length;
  const scanned = { tool: t, args, argsChecked, ...(read.twice ? { unstreamed: true as const } : {}) };
  if (closer !== ")")
    return { status: "done", end: e - 1, ...scanned, invalid: `the argument list is closed by "${closer}", not ")"` };
  return { status: "done", end: e, ...scanned, ...(read.bad ? { invalid: read.bad } : {}) };
}
