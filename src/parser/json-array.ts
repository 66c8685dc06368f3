// Reading a section whose calls are the elements of a JSON array (Mistral Nemo's
// `[TOOL_CALLS][{…}, {…}]`): where the next call starts, or where the array ends.
const isWs = (c: string | undefined) => c === " " || c === "\n" || c === "\t" || c === "\r";

function skipWs(text: string, i: number): number {
  while (isWs(text[i])) i++;
  return i;
}

export type ArrayStep =
  | { kind: "call"; at: number }   // a call object starts at `at`
  | { kind: "close"; end: number } // the array closed just before `end`
  | { kind: "need" }               // the text ends before the next step is known
  | { kind: "bad" };               // not what a JSON array of calls holds here

/** The next step at `i`: before the first call, the array's opening; after a call, "," and the next call, or the close. */
export function arrayStep(text: string, i: number, first: boolean, arrayOpen: string, close: string): ArrayStep {
  i = skipWs(text, i);
  const need = (s: string): ArrayStep => (s.startsWith(text.slice(i)) ? { kind: "need" } : { kind: "bad" });
  if (first) {
    if (!text.startsWith(arrayOpen, i)) return need(arrayOpen);
    i = skipWs(text, i + arrayOpen.length);
  } else {
    if (text.startsWith(close, i)) return { kind: "close", end: i + close.length };
    if (text[i] !== ",") return i >= text.length ? { kind: "need" } : need(close);
    i = skipWs(text, i + 1);
  }
  if (i >= text.length) return { kind: "need" };
  return text[i] === "{" ? { kind: "call", at: i } : { kind: "bad" };
}
