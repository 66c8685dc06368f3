// A call to a tool the request does not declare: the parser reads it as content, decided at the
// name (docs/parity.md, undeclared-call). Under toolChoice auto the grammar lets a model write the
// same text, so the mask never turns it into a call of a declared tool (docs/model-suite.md #48:
// "Tell me a short joke." became get_weather(London)); under a choice that requires a call the
// call still opens the answer with a declared name.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, getDialect, parseToolCalls, type ToolChoice } from "../../src/index.js";
import { triggerOf } from "../../src/dialects/spec.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { FILE_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

/** The dialects whose calls decide their name before the arguments: the grammar's refused path covers them. */
const DIALECTS = ["hermes", "qwen3-coder", "seed-oss", "mistral", "llama3", "qwen2.5-coder"];
const args = (_dialect: string): Array<[string, string, string]> => [["path", JSON.stringify("a.txt"), "a.txt"]];
const options = (dialect: string, toolChoice: ToolChoice = "auto", parallelToolCalls = true) => ({
  dialect,
  tools: FILE_TOOLS,
  toolChoice,
  parallelToolCalls,
});

/** Undeclared names: another word, a declared name's prefix, one longer than every declared name, one a declared name begins. */
const NAMES = ["short_joke", "rea", "closestItalianRestaurantNearby", "readme", "x"];

describe.each(DIALECTS)("%s: an undeclared call under auto", (dialect) => {
  const spec = getDialect(dialect);
  it("is content for the parser and accepted by the grammar, whole and token by token", () => {
    const g = buildToolGrammar(options(dialect));
    const m = compileGrammar(g, qwen3()).createMatcher();
    for (const name of NAMES) {
      const text = writeOutput(spec, [writeCall(spec, name, args(dialect))]);
      const r = parseToolCalls(text, options(dialect));
      expect(r.toolCalls, text).toEqual([]);
      expect(r.incomplete, text).toEqual([]);
      expect(r.content, text).toBe(text);
      expect(grammarAccepts(g, text), text).toBe(true);
      m.reset();
      expect(m.acceptString(text) && m.isComplete(), text).toBe(true);
    }
  });

  it("after a declared call stays content beside it; with parallel calls off no second call opens", () => {
    const text = writeOutput(spec, [
      writeCall(spec, "read", args(dialect)),
      writeCall(spec, "short_joke", args(dialect)),
    ]);
    for (const parallel of [true, false]) {
      const o = options(dialect, "auto", parallel);
      const r = parseToolCalls(text, o);
      expect(
        r.toolCalls.map((c) => c.function.name),
        text,
      ).toEqual(["read"]);
      expect(r.incomplete, text).toEqual([]);
    }
    expect(grammarAccepts(buildToolGrammar(options(dialect, "auto", true)), text), text).toBe(true);
    // One call allowed: the answer ends at it (test/no-model/parallel-off.test.ts). llama3's writer
    // writes the answer's one call object only, which stays allowed.
    const alone = text === writeOutput(spec, [writeCall(spec, "read", args(dialect))]);
    expect(grammarAccepts(buildToolGrammar(options(dialect, "auto", false)), text), text).toBe(alone);
  });

  it("is refused where a call is required, and a declared call is still held to its schema", () => {
    const undeclared = writeOutput(spec, [writeCall(spec, "short_joke", args(dialect))]);
    for (const choice of ["required", { type: "function", function: { name: "read" } }] as ToolChoice[])
      expect(grammarAccepts(buildToolGrammar(options(dialect, choice)), undeclared), JSON.stringify(choice)).toBe(
        false,
      );
    // A named choice allows one tool: another declared tool's call is text under it for the parser,
    // and the grammar, requiring the named call, refuses it.
    const other = writeOutput(spec, [
      writeCall(spec, "write", [
        ["path", '"a"', "a"],
        ["content", '"b"', "b"],
      ]),
    ]);
    expect(
      grammarAccepts(buildToolGrammar(options(dialect, { type: "function", function: { name: "read" } })), other),
    ).toBe(false);
    // A declared name missing its required argument is an invalid call, not text: refused.
    const missing = writeOutput(spec, [writeCall(spec, "read", [])]);
    expect(
      parseToolCalls(missing, options(dialect)).incomplete.map((c) => c.kind),
      missing,
    ).toEqual(["invalid"]);
    expect(grammarAccepts(buildToolGrammar(options(dialect)), missing), missing).toBe(false);
  });
});

describe.each(DIALECTS)("%s: an undeclared name that begins a trigger", (dialect) => {
  // The name's first character no declared name has may also be the first of a trigger; the
  // parser reads the trigger there as a call's opening, so the grammar must not end the undeclared
  // call at that character and read the rest as text (llama-properties found `…"name":"<tool_call>`
  // accepted as complete, and read as an incomplete call).
  it("is read by the parser and the grammar alike", () => {
    const spec = getDialect(dialect);
    const trigger = triggerOf(spec);
    const g = buildToolGrammar(options(dialect));
    const full = writeOutput(spec, [
      writeCall(spec, "read", args(dialect)),
      writeCall(spec, `${trigger}x`, args(dialect)),
    ]);
    const at = full.lastIndexOf(trigger) + trigger.length;
    for (const text of [full.slice(0, at), full]) {
      const r = parseToolCalls(text, options(dialect));
      const parsedAsText = r.incomplete.length === 0 && r.toolCalls.length <= 1;
      expect(grammarAccepts(g, text), `${JSON.stringify(text)}: ${JSON.stringify(r.incomplete)}`).toBe(parsedAsText);
    }
  });
});

describe("the JSON call head is decided at the name's first character no declared name has", () => {
  it("streamed, a long undeclared name is content before it closes, and a later key naming a tool does not make it a call", () => {
    const o = options("hermes");
    const head = '<tool_call>\n{"name": "closestItalianRestaurantNearbyPlease';
    const text = `${head}", "name": "read", "arguments": {"path": "a"}}\n</tool_call>`;
    const r = parseToolCalls(text, o);
    expect(r.toolCalls).toEqual([]);
    expect(r.incomplete).toEqual([]);
    expect(r.content).toBe(text);
    expect(grammarAccepts(buildToolGrammar(o), text)).toBe(true);
    // Cut right after the first character that leaves every declared name: content, not a cut call.
    expect(parseToolCalls('<tool_call>\n{"name": "c', { ...o, finishReason: "length" }).incomplete).toEqual([]);
    expect(
      parseToolCalls('<tool_call>\n{"name": "re', { ...o, finishReason: "length" }).incomplete.map((c) => c.kind),
    ).toEqual(["cut"]);
  });
});
