// A Responses custom tool's input, masked in every dialect: Codex's apply_patch (a Lark grammar) is
// offered as a function of one string argument `input` whose pattern is the grammar's language
// (src/server/responses/custom-format.ts), so the tool grammar accepts a call whose input is a
// patch and refuses one whose input is a near miss, in the dialect's own spelling of the string
// (JSON-escaped, or raw text in XML dialects); the parser keeps the same calls. The oracle is a
// RegExp of the grammar written by hand (test/support/codex-request.ts).
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { customInputSchema } from "../../src/server/responses/custom-format.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import { APPLY_PATCH_RE, applyPatch, NOT_PATCHES, PATCHES } from "../support/codex-request.js";

const tools = [
  {
    type: "function",
    function: { name: "apply_patch", parameters: customInputSchema(applyPatch.format, "tools[0]", "apply_patch") },
  },
];

describe.each(dialects)("%s", (dialect) => {
  const spec = getDialect(dialect);
  const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
  it.each([...PATCHES, ...NOT_PATCHES])("input %j: grammar and parser agree with the oracle", (input) => {
    const text = writeOutput(spec, [writeCall(spec, "apply_patch", [["input", JSON.stringify(input), input]])]);
    const want = APPLY_PATCH_RE.test(input);
    const parsed = parseToolCalls(text, { dialect, tools }).toolCalls;
    expect({ grammar: accepts(text), parsed: parsed.length }).toEqual({ grammar: want, parsed: want ? 1 : 0 });
    if (want) expect(JSON.parse(parsed[0]!.function.arguments)).toEqual({ input });
  });
});
