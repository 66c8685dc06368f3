// A dialect with a tool-call section writes every call of an answer in one section (the grammar
// allows one). Calls in a second section are reported invalid with that reason, never complete:
// whatever the parser calls complete, the grammar accepts (found by the fuzz suite).
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { runChunks } from "../support/stream-run.js";
import { FILE_TOOLS } from "../support/tools.js";

const sectioned = dialects.filter((d) => getDialect(d).section !== undefined);

describe.each(sectioned)("%s: two sections", (dialect) => {
  const spec = getDialect(dialect);
  const o = { dialect, tools: FILE_TOOLS };
  const section = (path: string) =>
    writeOutput(spec, [writeCall(spec, "read", [["path", JSON.stringify(path), path]])]);
  it("the first section's call is complete, the second's invalid; the grammar refuses the text", () => {
    const text = `${section("a")} then ${section("b")}`;
    const r = parseToolCalls(text, o);
    expect(r.toolCalls.map((c) => JSON.parse(c.function.arguments).path)).toEqual(["a"]);
    expect(r.incomplete).toMatchObject([
      {
        index: 1,
        name: "read",
        kind: "invalid",
        reason: "a call in a second tool-call section: the dialect writes every call of an answer in one",
      },
    ]);
    expect(r.content).toBe(" then ");
    expect(
      runChunks(
        text,
        o,
        Array.from({ length: text.length - 1 }, (_, i) => i + 1),
      ),
    ).toEqual(runChunks(text, o, []));
    expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
    expect(grammarAccepts(buildToolGrammar(o), section("a"))).toBe(true);
  });

  it("an opener whose first call names no declared tool is content, not a first section", () => {
    const undeclared = writeOutput(spec, [writeCall(spec, "nope", [["path", '"x"', "x"]])]);
    const r = parseToolCalls(`${undeclared} ${section("b")}`, o);
    expect(r.toolCalls.map((c) => JSON.parse(c.function.arguments).path)).toEqual(["b"]);
    expect(r.incomplete).toEqual([]);
  });

  it.runIf(spec.section?.arrayOpen === undefined)(
    "a section with no call in it is invalid, alone or after another; the grammar refuses both",
    () => {
      const empty = `${spec.section!.open}${spec.section!.close}`;
      for (const [text, calls] of [
        [empty, 0],
        [`${section("a")}${empty}`, 1],
      ] as const) {
        const r = parseToolCalls(text, o);
        expect(r.toolCalls).toHaveLength(calls);
        expect(r.incomplete).toEqual([
          {
            index: calls,
            name: null,
            kind: "invalid",
            reason: "a tool-call section with no call in it",
            missing: [],
            text: empty,
          },
        ]);
        expect(r.content).toBeNull();
        expect(grammarAccepts(buildToolGrammar(o), text)).toBe(false);
      }
    },
  );
});
