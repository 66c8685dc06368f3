// The departure node (ir.ts DepartureNode): built from a word list, and expanded into the classes
// and alternatives it stands for, for the readers that take no departure node (the grammar
// exports, the emptiness analysis).
import { alt, charClass, literal, seq } from "./builders.js";
import type { DepartureNode, GrammarNode } from "./ir.js";

/**
 * Strings that follow `words` (a prefix-free set) and leave them at their last character: s + c
 * with s a proper prefix of a word and s + c a prefix of none; c from every character but those
 * in `outside` (the names' forbidden characters, as "x" or [lo, hi]).
 */
export function departure(words: string[], outside: Array<[number, number] | string>, onward = false): DepartureNode {
  const ranges = charClass(outside).ranges;
  return { type: "departure", words, ...(ranges.length > 0 ? { outside: ranges } : {}), ...(onward ? { onward } : {}) };
}

/** Whether `n` has the shape ir.ts gives it (words: strings; outside: [lo, hi] number pairs). */
export function wellFormedDeparture(n: DepartureNode): boolean {
  const pair = (r: unknown) => Array.isArray(r) && r.length === 2 && r.every((x) => typeof x === "number");
  return (
    Array.isArray(n.words) &&
    n.words.every((w) => typeof w === "string") &&
    (n.outside === undefined || (Array.isArray(n.outside) && n.outside.every(pair))) &&
    (n.onward === undefined || typeof n.onward === "boolean")
  );
}

/**
 * Whether the node matches some string: some position a path reaches (past no whole word, and
 * past the first with `onward`) has a code point that is neither outside nor continuing a word
 * there. Without recursion, however long a word.
 */
export function departureAcceptsSomething(n: DepartureNode): boolean {
  const root = trieOf(n.words);
  const outside = n.outside ?? [];
  const stack: Array<[Trie, boolean]> = [[root, true]];
  while (stack.length > 0) {
    const [t, first] = stack.pop()!;
    if (!(first && n.onward === true) && leaves(outside, [...t.next.keys()])) return true;
    for (const child of t.next.values()) if (!child.word) stack.push([child, false]);
  }
  return false;
}

/** Whether a code point with a UTF-8 form is in none of `outside` and is none of `taken`. */
function leaves(outside: Array<[number, number]>, taken: string[]): boolean {
  const ranges = [...outside, ...taken.map((c): [number, number] => [c.codePointAt(0)!, c.codePointAt(0)!])];
  ranges.push([0xd800, 0xdfff]); // surrogates: no UTF-8 form
  ranges.sort((a, b) => a[0] - b[0]);
  let next = 0;
  for (const [lo, hi] of ranges) {
    if (lo > next) return true;
    next = Math.max(next, hi + 1);
  }
  return next <= 0x10ffff;
}

interface Trie {
  next: Map<string, Trie>;
  word: boolean;
}

/** The words' trie: a node per prefix, children in the order the words first reach them. */
function trieOf(words: string[]): Trie {
  const root: Trie = { next: new Map(), word: false };
  for (const w of words) {
    let t = root;
    for (const c of w) {
      let child = t.next.get(c);
      if (!child) t.next.set(c, (child = { next: new Map(), word: false }));
      t = child;
    }
    t.word = true;
  }
  return root;
}

/**
 * The node as alternatives per trie position: at each, a class of every character but the
 * outside ones and those continuing a word, or one continuing character (one lexeme each, as the
 * calls spell their names) and the next position. A word's last character continues nothing.
 */
export function expandDeparture(n: DepartureNode): GrammarNode {
  // Built from the trie once: asking every word at every prefix was quadratic.
  const root = trieOf(n.words);
  const outside = n.outside ?? [];
  const onward = (t: Trie): GrammarNode[] => {
    const out: GrammarNode[] = [];
    for (const [c, child] of t.next) if (!child.word) out.push(seq(literal(c), branch(child)));
    return out;
  };
  const branch = (t: Trie): GrammarNode => alt(charClass([...outside, ...t.next.keys()], true), ...onward(t));
  return n.onward === true ? alt(...onward(root)) : branch(root);
}
