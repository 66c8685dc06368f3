// Calls that open the answer without the dialect's trigger (DialectSpec.openingCalls): where one
// may begin, the text its head may be, and nothing else. A head runs from a call's first character
// through its name's closing quote: the wrapper's open, JSON whitespace, `{`, `"name"`, `:` and a
// name the call may have. Text that leaves every head is content from that character on. The
// grammar (src/dialects/grammar-opening.ts) and the parser (src/parser/opening-heads.ts) both read
// the heads from here, so they depart at the same character.
import type { CallWrapper, DialectSpec, Glue, JsonCallFormat, OpeningCalls } from "./spec.js";
import { callTriggerOf, objectIsTrigger } from "./spec.js";
import type { ToolDef } from "./tools.js";

/**
 * Qwen2.5-Coder's forms (and Qwen2.5's under hermes with `fencedCalls`): the bare object, or the
 * object in a Markdown fence, "```json\n" or "```\n" before it and "```" after it; several calls
 * one after another, JSON whitespace between them, a "," among it now and then (docs/dialects.md).
 */
export const FENCED_CALLS: OpeningCalls = {
  wrappers: [
    { open: [], close: [] },
    { open: ["```", { optional: "json" }, "\n"], close: ["```"] },
  ],
  separator: ",",
};

/** One step of a head: fixed text, optional parts, a JSON whitespace run (0..JSON_WS_MAX), one of several heads, one of several words. */
export type HeadPart =
  | { kind: "text"; text: string }
  | { kind: "optional"; parts: HeadPart[] }
  | { kind: "ws" }
  | { kind: "heads"; heads: Head[] }
  | { kind: "words"; words: string[] };

/** A head and what it opens: the call in wrapper `form`, or (`"trigger"`) the dialect's own call. */
export interface Head {
  form: number | "trigger";
  parts: HeadPart[];
}

const text = (t: string): HeadPart => ({ kind: "text", text: t });
const WS: HeadPart = { kind: "ws" };

/** Glue as head parts: fixed strings, optional strings. */
export function glueParts(g: Glue): HeadPart[] {
  return g.map((p) => (typeof p === "string" ? text(p) : { kind: "optional", parts: [text(p.optional)] }));
}

/** The head of a call in `wrapper`: its open (JSON whitespace after it), then `{"name": "` and a name of `tools` with its closing quote. */
export function wrapperHead(f: JsonCallFormat, wrapper: CallWrapper, tools: ToolDef[]): HeadPart[] {
  return [
    ...glueParts(wrapper.open),
    ...(wrapper.open.length ? [WS] : []),
    text("{"),
    WS,
    text(JSON.stringify(f.nameKey)),
    WS,
    text(":"),
    WS,
    text('"'),
    { kind: "words", words: tools.map((t) => `${t.name}"`) },
  ];
}

/** Whether calls written by the dialect's trigger may also stand in the opening (hermes with `fencedCalls`). */
export function hasOwnTrigger(spec: DialectSpec): boolean {
  return !spec.callOpensAnswer && !objectIsTrigger(spec);
}

/**
 * Where an opening call may begin: at the answer's start (after its thought), or (`after`) after an
 * opening call. JSON whitespace, after a call the separator once with JSON whitespace after it, then
 * a call's head in each wrapper and the dialect's trigger where it has one. Parallel calls or not:
 * where a second call is not allowed the grammar departs from the same heads (never completes one).
 */
export function openingRegion(spec: DialectSpec, tools: ToolDef[], after: boolean): HeadPart[] {
  const o = spec.openingCalls!;
  const f = spec.call as JsonCallFormat;
  const heads: Head[] = o.wrappers.map((w, form) => ({ form, parts: wrapperHead(f, w, tools) }));
  if (hasOwnTrigger(spec)) heads.push({ form: "trigger", parts: [text(callTriggerOf(spec))] });
  const firsts = heads.map((h) => firstChar(h.parts));
  if (new Set(firsts).size !== firsts.length || firsts.some((c) => c === undefined || " \n\t\r".includes(c)))
    throw new Error(`dialect ${spec.name}: opening calls' heads must begin with different, non-space characters`);
  const sep = after && o.separator ? [{ kind: "optional", parts: [text(o.separator), WS] } as HeadPart] : [];
  return [WS, ...sep, { kind: "heads", heads }];
}

function firstChar(parts: HeadPart[]): string | undefined {
  const p = parts[0];
  if (p?.kind !== "text") return undefined;
  return String.fromCodePoint(p.text.codePointAt(0)!);
}

/** The parts of a region before its heads (the whitespace and separator that lead to a call). */
export function leadParts(region: HeadPart[]): HeadPart[] {
  return region.slice(0, -1);
}

/** The heads a region ends with. */
export function headsOf(region: HeadPart[]): Head[] {
  const last = region[region.length - 1]!;
  if (last.kind !== "heads") throw new Error("an opening region ends with its heads");
  return last.heads;
}
