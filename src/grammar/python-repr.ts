// How Python prints values: repr() of floats and strings, str() of JSON-like values. One copy for
// the chat templates' filters (src/templates/render.ts), the Python-literal syntax of the
// JSON-schema lowering (json-schema/syntax.ts) and calls rendered in Python form (dialects/prompt.ts).
// test/no-model/json-schema-python.test.ts compares every function with Python's own output.

/** Python's repr of a float: shortest round-trip digits, exponent form below 1e-4 and from 1e16. */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mant, e] = Math.abs(x).toExponential().split("e") as [string, string];
  const exp = Number(e);
  if (exp < -4 || exp >= 16) return `${sign}${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  const digits = mant.replace(".", "");
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const int = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  return `${sign}${int}.${digits.slice(exp + 1) || "0"}`;
}

/** What str.isprintable() refuses (other than " "): repr writes these as \x, \u or \U escapes. */
const NON_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");

/**
 * `s` between quotes `q`: backslash, the quote, \n \r \t escaped; `"repr"` escapes every other
 * character str.isprintable() refuses as repr() does, `"minimal"` only C0 controls, DEL and lone
 * surrogates (what a Python literal must escape to be read back).
 */
export function pyQuoted(s: string, q: "'" | '"', escapes: "repr" | "minimal" = "repr"): string {
  let out = q;
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === "\\" || ch === q) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (
      escapes === "repr"
        ? ch !== " " && NON_PRINTABLE.test(ch)
        : cp < 0x20 || cp === 0x7f || (cp >= 0xd800 && cp <= 0xdfff)
    )
      out += cp < 0x100 ? `\\x${hex(cp, 2)}` : cp < 0x10000 ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`;
    else out += ch;
  }
  return out + q;
}

/** Python's repr of a string: single quotes unless it holds ' and no ". */
export function pyReprString(s: string): string {
  return pyQuoted(s, s.includes("'") && !s.includes('"') ? '"' : "'");
}

/** Python's str() of a JSON value (whole numbers as ints, str()'s `, ` and `: `). */
export function pyRepr(v: unknown): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return pyReprString(v);
  if (typeof v === "number") return Number.isSafeInteger(v) ? String(v) : pyFloat(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(v as object)
    .map(([k, x]) => `${pyReprString(k)}: ${pyRepr(x)}`)
    .join(", ")}}`;
}
