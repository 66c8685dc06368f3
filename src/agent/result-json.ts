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
  let out: string | undefined;
  try {
    out = write(value, "", "$", new Map());
  } catch (e) {
    if (e instanceof RangeError) throw new ResultJsonError("it nests too deep to write (the stack ran out)");
    throw e;
  }
  if (out === undefined) throw new ResultJsonError(`${kindOf(value)} at $ is not a value JSON can hold; return text or plain data`);
  return out;
}

/** The objects being written around the current value, each with its path. */
type Open = Map<object, string>;

function write(input: unknown, key: string, path: string, open: Open): string | undefined {
  let v = input;
  if ((typeof v === "object" && v !== null) || typeof v === "bigint") {
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") v = toJSON.call(v, key);
  }
  // Boxed primitives are written as the primitive, as JSON.stringify does.
  if (v instanceof Number || v instanceof String || v instanceof Boolean || v instanceof BigInt) v = v.valueOf();
  switch (typeof v) {
    case "string": case "number": case "boolean": return JSON.stringify(v);
    case "bigint": return v.toString();
    case "undefined": case "function": case "symbol": return undefined;
  }
  if (v === null) return "null";
  const obj = v as object;
  const back = open.get(obj);
  if (back !== undefined) return JSON.stringify(`[Circular: ${back}]`);
  if (obj instanceof Map || obj instanceof Set)
    throw new ResultJsonError(`${kindOf(obj)} at ${path} is not a value JSON can hold; return its entries as an object or an array`);
  open.set(obj, path);
  try {
    if (Array.isArray(obj)) return `[${obj.map((x, i) => write(x, String(i), `${path}[${i}]`, open) ?? "null").join(",")}]`;
    const members: string[] = [];
    for (const k of Object.keys(obj)) {
      const text = write((obj as Record<string, unknown>)[k], k, childPath(path, k), open);
      if (text !== undefined) members.push(`${JSON.stringify(k)}:${text}`);
    }
    return `{${members.join(",")}}`;
  } finally {
    open.delete(obj);
  }
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function kindOf(v: unknown): string {
  if (v instanceof Map) return "a Map";
  if (v instanceof Set) return "a Set";
  return typeof v === "function" ? "a function" : typeof v === "symbol" ? "a symbol" : `a value of type ${typeof v}`;
}
