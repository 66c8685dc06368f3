// Python-style calls (LFM2): `NAME(k=v, k2=v2)`. The name ends at "("; the argument list ends
// at its own ")" (brackets balanced, '…' and "…" strings respected), found incrementally; its
// text is then checked against the grammar's own node and read value by value.
import { pythonArguments } from "../dialects/grammar.js";
import type { ResolvedOptions } from "../dialects/options.js";
import type { PythonCallFormat } from "../dialects/spec.js";
import type { ToolDef } from "../dialects/tools.js";
import { invalidJsonReason, openAndName, type CallMemo, type CallScan } from "./calls.js";
import { JsonObject, overflowingNumber, type Json } from "./json-value.js";
import { readValue } from "./read-value.js";
import type { Text } from "./text.js";
import { grammarAccepts } from "./validate.js";

const OPEN = -1;

/** Where a Python argument list ends, and its top-level commas, found incrementally (the text only grows). */
export class PythonExtent {
  #start = -1;
  #k = 0;
  #depth = 0;
  #quote = 0;  // the open string's quote character code, 0 outside strings
  #esc = false;
  /** Offsets of the top-level commas seen so far. */
  commas: number[] = [];

  /** End (exclusive) of the list whose "(" is at `start`, or OPEN. */
  end(text: Text, start: number): number {
    if (start !== this.#start) { this.#start = start; this.#k = start; this.#depth = 0; this.#quote = 0; this.#esc = false; this.commas = []; }
    let k = this.#k, depth = this.#depth, quote = this.#quote, esc = this.#esc;
    while (k < text.length) {
      const { s, start: at, end } = text.pieceAt(k);
      for (let j = k - at, stop = end - at; j < stop; j++) {
        const c = s.charCodeAt(j);
        if (quote) { if (esc) esc = false; else if (c === 0x5c) esc = true; else if (c === quote) quote = 0; continue; }
        if (c === 0x22 || c === 0x27) quote = c;
        else if (c === 0x28 || c === 0x5b || c === 0x7b) depth++;
        else if (c === 0x29 || c === 0x5d || c === 0x7d) { depth--; if (depth === 0) return at + j + 1; }
        else if (c === 0x2c && depth === 1 && at + j > (this.commas[this.commas.length - 1] ?? -1)) this.commas.push(at + j);
      }
      k = end;
    }
    this.#k = k; this.#depth = depth; this.#quote = quote; this.#esc = esc;
    return OPEN;
  }
}

/** A value as written: a Python literal, else JSON; undefined when it is neither. */
function readLiteral(s: string): Json | undefined {
  for (const syntax of ["python", "json"] as const) {
    try { return readValue(s, syntax); } catch (e) { if (!(e instanceof SyntaxError)) throw e; }
  }
  return undefined;
}

/** The keyword arguments of the list text `(…)` split at its top-level commas: [key, value] or undefined where one is not `key=literal`. */
function readArguments(list: string, commas: number[]): { args: Array<[string, Json]>; bad?: string } {
  const inner = list.slice(1, -1);
  const args: Array<[string, Json]> = [];
  if (inner.trim() === "") return { args };
  const cuts = [0, ...commas.map((c) => c + 1), inner.length + 1];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const part = inner.slice(cuts[k], cuts[k + 1]! - 1);
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(part);
    if (!m) return { args, bad: `argument ${k + 1} is not written as key=value` };
    const v = readLiteral(part.slice(m[0].length).trim());
    if (v === undefined) return { args, bad: `the value of "${m[1]}" is not a Python literal` };
    if (args.some(([key]) => key === m[1])) return { args, bad: `"${m[1]}" is given twice` };
    args.push([m[1]!, v]);
  }
  return { args };
}

/** NAME, "(", keyword arguments, ")". */
export function scanPython(text: Text, start: number, o: ResolvedOptions, final: boolean, memo: CallMemo): CallScan {
  const f = o.spec.call as PythonCallFormat;
  const args: Array<[string, Json]> = [];
  const n = openAndName(text, start, f, o, final);
  if (n.status !== "done") return { ...n, args };
  const t: ToolDef = n.tool;
  const open = n.end - f.nameClose.length;  // the list's "("
  const extent = (memo.python ??= new PythonExtent());
  const e = extent.end(text, open);
  if (e === OPEN) return { status: "need", tool: t, args, cutAt: "the arguments" };
  const list = text.slice(open, e);
  const read = readArguments(list, extent.commas.map((c) => c - open - 1));
  args.push(...read.args);
  if (read.bad) return { status: "done", end: e, tool: t, args, invalid: read.bad };
  const obj = new JsonObject();
  for (const [k, v] of read.args) obj.entries.set(k, v);
  const valid = overflowingNumber(obj) === undefined && grammarAccepts(pythonArguments(t, o.maxValueLength), list);
  return { status: "done", end: e, tool: t, args, ...(valid ? {} : { invalid: unknownKey(t, read.args) ?? invalidJsonReason(t, obj, o.maxValueLength) }) };
}

/** An argument the tool does not declare, named. */
function unknownKey(t: ToolDef, args: Array<[string, Json]>): string | undefined {
  const k = args.find(([key]) => !Object.hasOwn(t.properties, key));
  return k ? `"${k[0]}" is not a parameter of "${t.name}"` : undefined;
}
