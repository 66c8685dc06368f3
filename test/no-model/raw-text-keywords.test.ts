// A value holding an XML dialect's whole value close cannot be written there: the value ends at
// the first close (the parser's rule), so the call is invalid, and the grammar refuses the text as
// well, padding newline or not. String keywords on raw-text values against ajv, with the other
// raw-text edge cases (padding newlines, the close but its last character, the empty value), are
// the own cases of the keyword × dialect matrix (test/no-model/keyword-matrix.test.ts).
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAcceptor } from "../../src/parser/validate.js";
import { callText, paramTools } from "../../scripts/lib/keyword-matrix.mjs";

describe.each(dialects.filter((d) => getDialect(d).call.kind === "xml"))("%s: a close inside the value", (dialect) => {
  const close = (getDialect(dialect).call as { valueClose: string }).valueClose;
  it.each([
    ["maxLength", { type: "string", maxLength: 30 }],
    ["minLength and maxLength", { type: "string", minLength: 1, maxLength: 30 }],
    ["pattern", { type: "string", pattern: "^a" }],
    ["plain", { type: "string" }],
  ])("%s", (_name, schema) => {
    const tools = paramTools(schema);
    const accepts = grammarAcceptor(buildToolGrammar({ dialect, tools, toolChoice: "required" }));
    for (const value of [`a${close}b`, `a\n${close}b`]) {
      const text = callText(getDialect(dialect), true, { data: value, json: JSON.stringify(value) })!;
      const r = parseToolCalls(text, { dialect, tools });
      expect({ text, parsed: r.toolCalls.length, grammar: accepts(text) }).toEqual({ text, parsed: 0, grammar: false });
    }
  });
});
