// A JSON text looked at as written, without reading it into values (JSON.parse has accepted it, or
// readJson has): where a string ends, the text without the whitespace between its tokens, the keys
// an object gives twice (JSON.parse keeps the last value and says nothing) and where, and the text
// of the value at a path. Each is one pass over the text, with no recursion.

/** A place in a JSON value: object keys and array positions from the top. */
export type JsonPath = Array<string | number>;

/** An object that gives `key` twice, at `path`. */
export interface DuplicateKey {
  path: JsonPath;
  key: string;
}

/** The index of the quote that closes the JSON string opening at `start` (-1: it does not close). */
export function jsonStringEnd(text: string, start: number): number {
  for (let j = start + 1; ; ) {
    const q = text.indexOf('"', j);
    if (q < 0) return -1;
    let b = q - 1;
    while (text.charCodeAt(b) === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    j = q + 1;
  }
}

/** A JSON text with the whitespace between its tokens dropped; strings, numbers and literals as written. */
export function withoutJsonWs(text: string): string {
  let out = "";
  for (let i = 0; ; ) {
    const q = text.indexOf('"', i);
    out += (q < 0 ? text.slice(i) : text.slice(i, q)).replace(/[ \t\n\r]+/g, "");
    if (q < 0) return out;
    const end = jsonStringEnd(text, q);
    if (end < 0) return out + text.slice(q);
    out += text.slice(q, end + 1);
    i = end + 1;
  }
}

const STRUCTURE = /["{}[\]]/g;

/** An open container: an object's keys so far (a list while short) and its last key, or an array. */
interface Frame {
  start: number;
  keys?: string[] | Set<string>;
  key?: string;
  reported?: boolean;
  /** An array's elements counted so far (for a path reported), and up to where. */
  counted?: { to: number; n: number };
}

/**
 * The objects of a JSON text that give a key twice (each object's first repeated key), in written
 * order, at most `limit` of them. A string is a key when a ":" follows it; an array position is
 * counted only for a path that is reported, resuming where the last count stopped (linear time).
 */
export function duplicateKeys(text: string, limit = Number.POSITIVE_INFINITY): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  const stack: Frame[] = [];
  STRUCTURE.lastIndex = 0;
  for (let m = STRUCTURE.exec(text); m !== null && out.length < limit; m = STRUCTURE.exec(text)) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 0x7b) stack.push({ start: i, keys: [] });
    else if (c === 0x5b) stack.push({ start: i });
    else if (c !== 0x22) stack.pop();
    else {
      const end = jsonStringEnd(text, i);
      if (end < 0) break;
      STRUCTURE.lastIndex = end + 1;
      let k = end + 1;
      while (isWs(text.charCodeAt(k))) k++;
      const top = stack[stack.length - 1];
      if (text.charCodeAt(k) !== 0x3a || top?.keys === undefined) continue;
      const raw = text.slice(i + 1, end);
      const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
      top.key = key;
      const keys = top.keys;
      if (Array.isArray(keys) ? !keys.includes(key) : !keys.has(key)) {
        if (!Array.isArray(keys)) keys.add(key);
        else if (keys.push(key) > 16) top.keys = new Set(keys); // a long object: looked up, not searched
        continue;
      }
      if (top.reported) continue;
      top.reported = true;
      const path: JsonPath = [];
      for (let f = 0; f < stack.length - 1; f++) {
        const frame = stack[f]!;
        path.push(frame.keys !== undefined ? frame.key! : arrayPosition(text, frame, stack[f + 1]!.start));
      }
      out.push({ path, key });
    }
  }
  return out;
}

/** The text of the value at `path` in a JSON text (the first of a key given twice); undefined where none is. */
export function valueTextAt(text: string, path: JsonPath): string | undefined {
  let i = skipWs(text, 0);
  for (const step of path) {
    const open = text.charCodeAt(i);
    if (open !== (typeof step === "number" ? 0x5b : 0x7b)) return undefined;
    i = skipWs(text, i + 1);
    let found = false;
    for (let n = 0; !found && text.charCodeAt(i) !== (typeof step === "number" ? 0x5d : 0x7d); n++) {
      if (n > 0) i = skipWs(text, i + 1); // past the ","
      if (typeof step === "number") found = n === step;
      else {
        const end = jsonStringEnd(text, i);
        if (end < 0) return undefined;
        found = (JSON.parse(text.slice(i, end + 1)) as string) === step;
        i = skipWs(text, skipWs(text, end + 1) + 1); // past the ":"
      }
      if (!found) i = skipWs(text, valueEnd(text, i));
    }
    if (!found) return undefined;
  }
  return text.slice(i, valueEnd(text, i));
}

/** `where.key`, `where["odd key"]`; a key at the top (where "") is the key alone. */
export function memberPath(where: string, key: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(key)) return `${where}[${JSON.stringify(key)}]`;
  return where === "" ? key : `${where}.${key}`;
}

/** A path as text: `choices[0].message`, `["odd key"]`; "" for the top. */
export function pathText(path: JsonPath): string {
  return path.reduce<string>((w, s) => (typeof s === "number" ? `${w}[${s}]` : memberPath(w, s)), "");
}

/** `gives the key "k" twice in choices[0].message`: what a JSON text does wrong, for a message. */
export function givenTwice(d: DuplicateKey): string {
  return `gives the key ${JSON.stringify(d.key)} twice in ${d.path.length === 0 ? "the top-level object" : pathText(d.path)}`;
}

const isWs = (c: number) => c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d;

function skipWs(text: string, i: number): number {
  while (isWs(text.charCodeAt(i))) i++;
  return i;
}

/** The end (exclusive) of the value starting at `i`: a string, a container (balanced), or a scalar. */
function valueEnd(text: string, i: number): number {
  let depth = 0;
  for (let k = i; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22) k = jsonStringEnd(text, k);
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (depth === 0 && (c === 0x2c || isWs(c))) return k;
    if (k < 0) return text.length;
    if (depth === 0 && (c === 0x22 || c === 0x7d || c === 0x5d)) return k + 1;
    if (depth < 0) return k;
  }
  return text.length;
}

/**
 * The position in the array `frame` of the element that starts at or after `at`: the commas before
 * it at its depth, counted on from the frame's last count.
 */
function arrayPosition(text: string, frame: Frame, at: number): number {
  let { to, n } = frame.counted ?? { to: frame.start + 1, n: 0 };
  let depth = 0;
  for (; to < at; to++) {
    const c = text.charCodeAt(to);
    if (c === 0x22) to = jsonStringEnd(text, to);
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 0) n++;
  }
  frame.counted = { to: at, n };
  return n;
}
