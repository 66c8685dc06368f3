// Stress inputs for the streaming parser, written from a dialect's definition
// (scripts/lib/dialect-writer.mjs), about `n` characters each. What `npm run bench:parse --
// --stress` times (scripts/bench/bench-parse.mjs) and the linear-time tests (test/no-model/parser-linear.test.ts)
// compare across sizes.
import { writeCall, writeOutput } from "./dialect-writer.mjs";

/** `n` characters of prose without any dialect's markup or JSON escapes. */
export function prose(n) {
  const unit = "lorem ipsum dolor sit amet, consectetur adipiscing elit; ";
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

const fn = (name, properties) => ({
  type: "function",
  function: { name, parameters: { type: "object", properties, required: Object.keys(properties) } },
});
/** The tools the stress calls name. */
export const STRESS_TOOLS = [
  fn("read", { path: { type: "string" } }),
  fn("write", { path: { type: "string" }, content: { type: "string" } }),
];

/** A whole output with one call of write(path, content), `content` given as [json, raw]. */
function writeAnswer(spec, content) {
  return writeOutput(spec, [
    writeCall(spec, "write", [
      ["path", '"a.txt"', "a.txt"],
      ["content", ...content],
    ]),
  ]);
}

const HOLE = "\u0001HOLE\u0001";

/**
 * Kinds of stress input:
 * - value: one call whose string value is `n` characters long;
 * - deep: one call whose value is `n` opening brackets, never closed;
 * - text: `n` characters of plain text;
 * - flood: the text that opens a call (the section's opening where there is one) repeated;
 * - prefix25 / prefix50 / prefix75: a short call's first quarter, half or three quarters repeated;
 * - nest: calls opened inside each other's first value (`… "path": {"k": <tool_call>… "path": {"k": `),
 *   then all closed (`1}1}…`);
 * - unnamed: the text before a call's first "{" and an object that names no tool, nested and closed alike;
 * - longkey: one call whose argument's name (an XML parameter's, a JSON key), wire id (Mistral) and
 *   index (Kimi) are each half as long, then a value half as long.
 */
export const STRESS_KINDS = [
  "value",
  "deep",
  "text",
  "flood",
  "prefix25",
  "prefix50",
  "prefix75",
  "nest",
  "unnamed",
  "longkey",
];

/** The stress input of `kind` for the dialect `spec` (a DialectSpec), about `n` characters. */
export function stressText(kind, spec, n) {
  const repeat = (s) => s.repeat(Math.max(1, Math.ceil(n / s.length)));
  if (kind === "value") {
    const v = prose(n);
    return writeAnswer(spec, [JSON.stringify(v), v]);
  }
  if (kind === "deep") {
    const t = writeAnswer(spec, [HOLE]);
    return t.slice(0, t.indexOf(HOLE)) + "[".repeat(n);
  }
  if (kind === "nest" || kind === "unnamed") {
    const t = writeOutput(spec, [writeCall(spec, "write", [["path", HOLE]])]);
    const brace = t.indexOf("{");
    const open = kind === "nest" || brace < 0 ? `${t.slice(0, t.indexOf(HOLE))}{"k": ` : `${t.slice(0, brace)}{"x": `;
    const k = Math.max(1, Math.ceil(n / (open.length + 2)));
    return open.repeat(k) + "1}".repeat(k);
  }
  if (kind === "text") return prose(n);
  if (kind === "longkey") {
    const half = Math.ceil(n / 2),
      v = prose(half);
    return writeOutput(spec, [
      writeCall(spec, "write", [["k".repeat(half), JSON.stringify(v), v]], {
        id: "i".repeat(half),
        index: "9".repeat(half),
      }),
    ]);
  }
  const call = writeAnswer(spec, ['"a short value"', "a short value"]);
  if (kind === "flood") {
    const f = spec.call;
    const opener =
      spec.section?.open ??
      (f.kind === "harmony"
        ? `${f.channel}${f.channels.calls}${f.open[0]}`
        : (f.open.find((p) => typeof p === "string") ?? "{"));
    return repeat(opener);
  }
  const m = /^prefix(\d+)$/.exec(kind);
  if (m) return repeat(call.slice(0, Math.max(1, Math.round((call.length * Number(m[1])) / 100))));
  throw new Error(`unknown stress kind ${JSON.stringify(kind)}: one of ${STRESS_KINDS.join(", ")}`);
}
