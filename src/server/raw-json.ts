// A response body written as JSON with some of its values given as their own JSON text: a
// tool_use block's input is the call's arguments as the model wrote them, so a number goes out as
// written (JSON.parse then JSON.stringify would write 9007199254740993 as 9007199254740992, -0 as 0,
// 5e-999 as 0, and move integer-like keys first).

/** A value written as `text`, a JSON text the caller has checked. */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * `value` as JSON.stringify writes it, but each RawJson inside as its text. Plain objects and
 * arrays are walked (a response body's own nesting); any other value goes to JSON.stringify.
 */
export function jsonWithRaw(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map((v) => (writable(v) ? jsonWithRaw(v) : "null")).join(",")}]`;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON !== "function") {
    const members: string[] = [];
    for (const [k, v] of Object.entries(value)) if (writable(v)) members.push(`${JSON.stringify(k)}:${jsonWithRaw(v)}`);
    return `{${members.join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What JSON.stringify writes as a member (an array writes the others as null). */
const writable = (v: unknown) => v !== undefined && typeof v !== "function" && typeof v !== "symbol";
