// The parser's reading of an opening region (src/dialects/opening.ts): the text from where an
// opening call may begin either completes a head (a call in one of the dialect's wrappers, or its
// trigger), leaves every head at one character, or ends first. The heads are read as an automaton
// built from the same parts the grammar's departure is built from (src/dialects/grammar-opening.ts),
// so both decide at the same character, for every split of the stream: the answer depends only on
// the text and on whether it has ended.
import { JSON_WS_MAX } from "../grammar/json-schema/syntax.js";
import type { HeadPart } from "../dialects/opening.js";
import { isJsonWs } from "./json-ws.js";
import type { Text } from "./text.js";

/** What a region's text is. */
export type RegionRead =
  /** The text ends before it decides; `glueOnly`: nothing but JSON whitespace was read. */
  | { kind: "need"; glueOnly: boolean }
  /** It left every head: the text up to `end` (just past the departing character) is content. */
  | { kind: "departed"; end: number }
  /** A head, from `at` (its first character) to `end`; `object`: where the call object's "{" is. */
  | { kind: "head"; form: number | "trigger"; word?: string; at: number; end: number; object?: number };

type Accept = { form: number | "trigger"; word?: string };
/** A state: the characters it takes (code points; "ws": JSON whitespace) and where each leads. */
interface State {
  takes: number | "ws";
  next: Array<number | Accept>;
  /** The state is inside a head (not the whitespace or separator before it). */
  head: boolean;
  /** It takes the call object's "{". */
  object?: boolean;
}

/** A region's heads as an automaton (built once per region). */
export class RegionAutomaton {
  readonly #states: State[] = [];
  readonly #entry: Array<number | Accept>;

  constructor(region: HeadPart[]) {
    this.#entry = this.#build(region, [], false, undefined);
  }

  /** States for `parts`, each leading on to `cont`; returns the entry. */
  #build(parts: HeadPart[], cont: Array<number | Accept>, head: boolean, form: Accept | undefined) {
    let next = cont;
    for (let k = parts.length - 1; k >= 0; k--) next = this.#part(parts[k]!, next, head, form);
    return next;
  }

  #add(s: State): number {
    this.#states.push(s);
    return this.#states.length - 1;
  }

  #part(p: HeadPart, cont: Array<number | Accept>, head: boolean, form: Accept | undefined): Array<number | Accept> {
    switch (p.kind) {
      case "text": {
        let next = cont;
        const cps = Array.from(p.text, (c) => c.codePointAt(0)!);
        for (let k = cps.length - 1; k >= 0; k--)
          next = [this.#add({ takes: cps[k]!, next, head, ...(head && p.text === "{" ? { object: true } : {}) })];
        return next;
      }
      case "ws": {
        // k whitespace characters (0..JSON_WS_MAX): state i takes the (i+1)-th.
        let next: Array<number | Accept> = [];
        for (let k = JSON_WS_MAX; k >= 1; k--) next = [this.#add({ takes: "ws", next: [...next, ...cont], head })];
        return [...next, ...cont];
      }
      case "optional":
        return [...this.#build(p.parts, cont, head, form), ...cont];
      case "heads":
        return p.heads.flatMap((h) => this.#build(h.parts, [{ form: h.form }], true, { form: h.form }));
      case "words": {
        // A trie of the words; the last character of each accepts it.
        const f = form ?? { form: "trigger" as const };
        const entry: Array<number | Accept> = [];
        const build = (prefix: string, into: Array<number | Accept>) => {
          const nextCps = new Set<number>();
          for (const w of p.words)
            if (w.length > prefix.length && w.startsWith(prefix)) nextCps.add(w.codePointAt(prefix.length)!);
          for (const cp of nextCps) {
            const word = prefix + String.fromCodePoint(cp);
            const next: Array<number | Accept> = p.words.includes(word) ? [{ form: f.form, word }] : [];
            into.push(this.#add({ takes: cp, next, head }));
            if (!p.words.includes(word)) build(word, next);
          }
        };
        build("", entry);
        return entry;
      }
    }
  }

  /** The region's text from `at`: what it is so far. `final`: the text has ended. */
  read(text: Text, at: number, final: boolean): RegionRead {
    let live = this.#entry.filter((x): x is number => typeof x === "number");
    let headAt: number | undefined, object: number | undefined;
    let glueOnly = true;
    for (let i = at; i < text.length; ) {
      let cp = text.charCodeAt(i);
      let size = 1;
      if (cp >= 0xd800 && cp <= 0xdbff) {
        // A character's high surrogate: its low one decides it (at the end of the text, alone).
        if (i + 1 >= text.length && !final) return { kind: "need", glueOnly: false };
        const lo = text.charCodeAt(i + 1);
        if (lo >= 0xdc00 && lo <= 0xdfff) {
          cp = (cp - 0xd800) * 0x400 + (lo - 0xdc00) + 0x10000;
          size = 2;
        }
      }
      const next: Array<number | Accept> = [];
      for (const s of live) {
        const st = this.#states[s]!;
        if (st.takes === "ws" ? cp <= 0xffff && isJsonWs(cp) : st.takes === cp) {
          next.push(...st.next);
          if (st.head && headAt === undefined) headAt = i;
          if (st.object) object = i;
        }
      }
      if (!(cp <= 0xffff && isJsonWs(cp))) glueOnly = false;
      i += size;
      const accept = next.find((x): x is Accept => typeof x !== "number");
      if (accept)
        return {
          kind: "head",
          form: accept.form,
          ...(accept.word !== undefined ? { word: accept.word } : {}),
          at: headAt ?? at,
          end: i,
          ...(object !== undefined ? { object } : {}),
        };
      live = [...new Set(next.filter((x): x is number => typeof x === "number"))];
      if (live.length === 0) return { kind: "departed", end: i };
    }
    return { kind: "need", glueOnly };
  }
}
