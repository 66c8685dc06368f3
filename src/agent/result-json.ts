// A tool's result as the JSON text sent back to the model. It is what JSON.stringify writes for
// every value JSON.stringify can write, and, where JSON.stringify throws or would lose data:
// a BigInt as its digits (a JSON number, exact), a reference back to an enclosing object as the
// string "[Circular: <path of that object>]", and a Map, a Set or a bare function refused with
// the path where it stands (JSON.stringify writes a Map or Set as {} and a function as nothing).

export class ResultJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResultJsonError";
  }
}

/** The JSON text of `value`; throws ResultJsonError naming the path of a value JSON cannot hold. */
export function resultJson(value: unknown): string {
  // Most results are plain data: JSON.stringify writes them (the replacer only looks for a Map or
  // a Set). Where it throws (a BigInt, a cycle, a Map, too deep), the writer below writes them or
  // says where they fail.
  try {
    const text = JSON.stringify(value, refuseCollections);
    if (text !== undefined) return text;
  } catch {
    // written below
  }
  const w = new Writer();
  let out: string | undefined;
  try {
    out = w.write(value, "");
  } catch (e) {
    if (e instanceof RangeError) throw new ResultJsonError("it nests too deep to write (the stack ran out)");
    throw e;
  }
  if (out === undefined)
    throw new ResultJsonError(`${kindOf(value)} at $ is not a value JSON can hold; return text or plain data`);
  return out;
}

function refuseCollections(_key: string, v: unknown): unknown {
  if (v instanceof Map || v instanceof Set) throw new ResultJsonError("a Map or a Set");
  return v;
}

class Writer {
  /** The keys from the root to the value being written; a path is spelled from them only when one is needed. */
  readonly #keys: Array<string | number> = [];
  /** The objects being written around the current value, each with its depth in #keys. */
  readonly #open = new Map<object, number>();

  write(input: unknown, key: string): string | undefined {
    let v = input;
    if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === "function") v = toJSON.call(v, key);
    }
    // Boxed primitives are written as the primitive, as JSON.stringify does.
    if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) v = v.valueOf();
    switch (typeof v) {
      case "string":
      case "number":
      case "boolean":
        return JSON.stringify(v);
      case "bigint":
        return v.toString();
      case "undefined":
      case "function":
      case "symbol":
        return undefined;
    }
    if (v === null) return "null";
    const obj = v as object;
    const back = this.#open.get(obj);
    if (back !== undefined) return JSON.stringify(`[Circular: ${this.#path(back)}]`);
    if (obj instanceof Map || obj instanceof Set)
      throw new ResultJsonError(
        `${kindOf(obj)} at ${this.#path(this.#keys.length)} is not a value JSON can hold; return its entries as an object or an array`,
      );
    this.#open.set(obj, this.#keys.length);
    try {
      if (Array.isArray(obj)) {
        const items: string[] = [];
        for (let i = 0; i < obj.length; i++) {
          this.#keys.push(i);
          items.push(this.write(obj[i], String(i)) ?? "null");
          this.#keys.pop();
        }
        return `[${items.join(",")}]`;
      }
      const members: string[] = [];
      for (const k of Object.keys(obj)) {
        this.#keys.push(k);
        const text = this.write((obj as Record<string, unknown>)[k], k);
        this.#keys.pop();
        if (text !== undefined) members.push(`${JSON.stringify(k)}:${text}`);
      }
      return `{${members.join(",")}}`;
    } finally {
      this.#open.delete(obj);
    }
  }

  /** `$`, then `.name`, `["odd key"]` or `[index]` for each of the first `depth` keys. */
  #path(depth: number): string {
    let p = "$";
    for (const k of this.#keys.slice(0, depth))
      p += typeof k === "number" ? `[${k}]` : /^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`;
    return p;
  }
}

function kindOf(v: unknown): string {
  if (v instanceof Map) return "a Map";
  if (v instanceof Set) return "a Set";
  return typeof v === "function" ? "a function" : typeof v === "symbol" ? "a symbol" : `a value of type ${typeof v}`;
}
