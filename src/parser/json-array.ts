// Reading a section whose calls are the elements of a JSON array (Mistral Nemo's
// `[TOOL_CALLS][{…}, {…}]`): where the next call starts, or where the array ends.
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import { endsInside } from "./glue.js";
import { isJsonWs } from "./json-ws.js";
import type { Text } from "./text.js";

/** Past a whitespace run; -1 when it is longer than the grammar allows (JSON_WS_MAX). */
function skipWs(text: Text, i: number): number {
  const from = i;
  while (i - from <= JSON_WS_MAX && isJsonWs(text.charCodeAt(i))) i++;
  return i - from > JSON_WS_MAX ? -1 : i;
}

export type ArrayStep =
  | { kind: "call"; at: number } // a call object starts at `at`
  | { kind: "close"; end: number } // the array closed just before `end`
  | { kind: "need" } // the text ends before the next step is known
  | { kind: "bad" }; // not what a JSON array of calls holds here

/**
 * The next step at `i`: before the first call, the array's opening; after a call, "," and the next
 * call, or the close. A call starts where `callStart` says one may (a JSON call's "{", a Python call's name).
 */
export function arrayStep(
  text: Text,
  i: number,
  first: boolean,
  arrayOpen: string,
  close: string,
  callStart: (c: string) => boolean = (c) => c === "{",
): ArrayStep {
  i = skipWs(text, i);
  if (i < 0) return { kind: "bad" };
  const need = (s: string): ArrayStep => (endsInside(text, i, s) ? { kind: "need" } : { kind: "bad" });
  if (first) {
    if (!text.startsWith(arrayOpen, i)) return need(arrayOpen);
    i = skipWs(text, i + arrayOpen.length);
    if (i < 0) return { kind: "bad" };
  } else {
    if (text.startsWith(close, i)) return { kind: "close", end: i + close.length };
    if (text.charAt(i) !== ",") return i >= text.length ? { kind: "need" } : need(close);
    i = skipWs(text, i + 1);
    if (i < 0) return { kind: "bad" };
  }
  if (i >= text.length) return { kind: "need" };
  return callStart(text.charAt(i)) ? { kind: "call", at: i } : { kind: "bad" };
}
