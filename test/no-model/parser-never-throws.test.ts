// Every output gets a verdict: a name string with a bad escape or a raw control character, and
// arguments nested thousands deep, give a result (content, or an invalid or cut call with a
// reason), whole and chunked alike, never an exception.
import { describe, expect, it } from "vitest";
import { dialects, getDialect, parseToolCalls, type ParserOptions } from "../../src/index.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { runChunks } from "../support/stream-run.js";
import { rng } from "../support/tokenize.js";
import { fn } from "../support/tools.js";

const TOOLS = [fn("read", { path: { type: "string" } }), fn("put", { v: { type: "object" } }, [])];
const opts = (dialect: string): ParserOptions => ({ dialect, tools: TOOLS });

/** Whole, one character at a time and at random splits: one verdict, no exception. */
function verdict(text: string, o: ParserOptions) {
  const whole = runChunks(text, o, []);
  expect(whole.result).toEqual(parseToolCalls(text, o));
  const r = rng(text.length);
  const all = Array.from({ length: text.length - 1 }, (_, i) => i + 1);
  const splits = [all.filter(() => r() < 0.01), all.filter(() => r() < 0.2)];
  if (text.length < 2000) splits.push(all);
  for (const cuts of splits) expect(runChunks(text, o, cuts)).toEqual(whole);
  return whole.result;
}

// Name strings the grammar never writes (it writes a declared name as JSON.stringify spells it).
const BAD_NAMES = ["re\\qd", "re\u0001d", "re\\u00", "\\", 'read\\"', "\u0000", "re\\ud800d"];

describe.each(["hermes", "mistral-nemo", "llama3"])(
  "%s: a JSON name string that is not a declared name as written",
  (dialect) => {
    const spec = getDialect(dialect);
    it.each(BAD_NAMES)("%j: the call text is content, cut or whole", (name) => {
      const call = writeCall(spec, "NAME", [["path", '"a"']]).replace('"NAME"', `"${name}"`);
      const whole = writeOutput(spec, [call]);
      const cut = whole.slice(0, whole.indexOf(name) + name.length + 1);
      for (const text of [whole, cut]) {
        const r = verdict(text, opts(dialect));
        expect(r.toolCalls).toEqual([]);
        expect(r.incomplete).toEqual([]);
        expect(r.content).toContain(name);
      }
    });
  },
);

/** `depth` arrays inside an object: `{"a": [[[…]]]}`, in JSON or (Seed-OSS) Python syntax. */
const deep = (depth: number, python = false) => `{${python ? "'a'" : '"a"'}: ${"[".repeat(depth)}${"]".repeat(depth)}}`;

describe.each(dialects)("%s: arguments nested 6,000 deep", (dialect) => {
  const spec = getDialect(dialect);
  const python = spec.call.kind === "xml" && spec.call.pythonLiterals === true;
  it("closed: one call with a verdict; never closed: one cut call", () => {
    const text = writeOutput(spec, [writeCall(spec, "put", [["v", deep(6000, python)]])]);
    const r = verdict(text, opts(dialect));
    expect(r.toolCalls.length + r.incomplete.length).toBe(1);
    for (const c of r.incomplete) expect(c.reason).not.toBe("");
    const open = text.slice(0, text.indexOf("[".repeat(6000)) + 6000);
    const o = verdict(open, opts(dialect));
    expect(o.toolCalls).toEqual([]);
    expect(o.incomplete.map((c) => c.kind)).toEqual(["cut"]);
  });
});
