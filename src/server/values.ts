// A request body's values as the route readers test and quote them.

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
export const given = (v: unknown) => v !== undefined && v !== null;
export const kind = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);

export const SHOWN_CHARS = 64;

/** A value as a refusal quotes it: short, whatever the client sent (a 3 MB string, 1e999). */
export function shown(v: unknown): string {
  if (typeof v === "number") return Number.isFinite(v) ? String(v) : "a number too large for JSON";
  if (typeof v === "string")
    return v.length <= SHOWN_CHARS
      ? JSON.stringify(v)
      : `${JSON.stringify(v.slice(0, SHOWN_CHARS)).slice(0, -1)}…" (${v.length} characters)`;
  if (v === null || typeof v !== "object") return String(v);
  return Array.isArray(v) ? "an array" : "an object";
}
