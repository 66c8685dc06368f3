// JSON values as the model wrote them: numbers keep their text (a double would round
// 9007199254740993 and turn 1e999 into null), objects keep their keys in written order (a repeated
// key keeps its first place and its last value, as JSON.parse, and the object records that it was
// repeated: a value with a key given twice is never taken as a call's, see duplicateKey). Walked
// without recursion, so any nesting depth is safe.

/** A number as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
  /** Whether a double holds it: JSON.parse reads ±Infinity for 1e999. */
  get finite(): boolean {
    return Number.isFinite(Number(this.text));
  }
}

/** An object: keys in the order written. */
export class JsonObject {
  readonly entries = new Map<string, Json>();
  /** The first key written twice in this object (its entry holds the last value), if any. */
  duplicate?: string;
}

export type Json = null | boolean | string | JsonNumber | Json[] | JsonObject;

/** Compact JSON text, as JSON.stringify writes it, with every number's own text. */
export function jsonText(v: Json): string {
  const out: string[] = [];
  // A stack of pending items: values to write, or literal text (closing brackets, separators).
  const todo: Array<Json | { raw: string }> = [v];
  while (todo.length) {
    const x = todo.pop()!;
    if (x === null) out.push("null");
    else if (typeof x === "boolean") out.push(x ? "true" : "false");
    else if (typeof x === "string") out.push(JSON.stringify(x));
    else if (x instanceof JsonNumber) out.push(x.text);
    else if (Array.isArray(x)) {
      out.push("[");
      todo.push({ raw: "]" });
      for (let i = x.length - 1; i >= 0; i--) {
        todo.push(x[i]!);
        if (i > 0) todo.push({ raw: "," });
      }
    } else if (x instanceof JsonObject) {
      out.push("{");
      todo.push({ raw: "}" });
      const e = [...x.entries];
      for (let i = e.length - 1; i >= 0; i--) {
        todo.push(e[i]![1]);
        todo.push({ raw: `${JSON.stringify(e[i]![0])}:` });
        if (i > 0) todo.push({ raw: "," });
      }
    } else out.push(x.raw);
  }
  return out.join("");
}

/** Every value inside `v`, `v` first, in written order. */
function* walk(v: Json): Generator<Json> {
  const todo: Json[] = [v];
  while (todo.length) {
    const x = todo.pop()!;
    yield x;
    const inner = Array.isArray(x) ? x : x instanceof JsonObject ? [...x.entries.values()] : [];
    for (let i = inner.length - 1; i >= 0; i--) todo.push(inner[i]!);
  }
}

/** The first number in `v` a double cannot hold (its text), if any. */
export function overflowingNumber(v: Json): string | undefined {
  for (const x of walk(v)) if (x instanceof JsonNumber && !x.finite) return x.text;
  return undefined;
}

/** A JSON pointer's step (RFC 6901: "~" as "~0", "/" as "~1"). */
export const step = (k: string | number) => `/${String(k).replaceAll("~", "~0").replaceAll("/", "~1")}`;

/** The first object inside `v` (`v` first, in written order) with a key given twice: the key, and a JSON pointer to the object from `v`. */
export function duplicateKey(v: Json): { key: string; at: string } | undefined {
  const todo: Array<[Json, string]> = [[v, ""]];
  while (todo.length) {
    const [x, at] = todo.pop()!;
    if (x instanceof JsonObject && x.duplicate !== undefined) return { key: x.duplicate, at };
    const inner: Array<[Json, string]> = Array.isArray(x)
      ? x.map((y, i) => [y, at + step(i)])
      : x instanceof JsonObject
        ? [...x.entries].map(([k, y]) => [y, at + step(k)])
        : [];
    for (let i = inner.length - 1; i >= 0; i--) todo.push(inner[i]!);
  }
  return undefined;
}

/** Why a value with key `key` given twice (in the object at `at`, a pointer from `v`) is refused. */
export function duplicateReason({ key, at }: { key: string; at: string }): string {
  return `the key ${JSON.stringify(key)} is given twice${at ? ` in the object at ${at}` : ""}`;
}

/**
 * Why a value read from the output is not one a call may carry, though its text is JSON: a
 * number a double cannot hold, or a key given twice; undefined when it is neither. `at`: the
 * value's own pointer in the arguments, which the reason names.
 */
export function valueFault(v: Json, at = ""): string | undefined {
  // A key given twice first: the value as read holds one of the two, so the rest was not all read.
  const twice = duplicateKey(v);
  if (twice) return duplicateReason({ key: twice.key, at: at + twice.at });
  const over = overflowingNumber(v);
  return over === undefined ? undefined : overflowReason(over);
}

/** A number's text as a message shows it: a long one cut in the middle, with its length. */
export function shownNumber(text: string): string {
  return text.length > 40 ? `${text.slice(0, 20)}…${text.slice(-8)} (${text.length} characters)` : text;
}

/** Why a value holding the number `text` (at `where`, when given) is refused. */
export function overflowReason(text: string, where?: string): string {
  return `the number ${shownNumber(text)}${where !== undefined ? ` at ${where}` : ""} is beyond the range of a double (±1.7976931348623157e308)`;
}

/** Whether a string value (not a key) anywhere in `v` has more than `max` code points. */
export function hasLongString(v: Json, max: number): boolean {
  for (const x of walk(v)) if (typeof x === "string" && x.length > max && [...x].length > max) return true;
  return false;
}

/** The plain JS value (numbers as doubles; "__proto__" an own key, as JSON.parse makes it). */
export function toPlain(v: Json): unknown {
  const convert = (x: Json): unknown =>
    x instanceof JsonNumber ? Number(x.text) : Array.isArray(x) ? [] : x instanceof JsonObject ? {} : x;
  const root = convert(v);
  const todo: Array<[Json, unknown]> = [[v, root]];
  while (todo.length) {
    const [src, dst] = todo.pop()!;
    if (Array.isArray(src)) {
      for (const x of src) {
        const y = convert(x);
        (dst as unknown[]).push(y);
        todo.push([x, y]);
      }
    } else if (src instanceof JsonObject) {
      for (const [k, x] of src.entries) {
        const y = convert(x);
        Object.defineProperty(dst, k, { value: y, enumerable: true, writable: true, configurable: true });
        todo.push([x, y]);
      }
    }
  }
  return root;
}
