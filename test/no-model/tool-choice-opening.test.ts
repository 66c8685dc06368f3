// Under tool_choice "required" or a named tool the mask makes the answer open with the call (after
// JSON whitespace, and after the thought where the dialect has one): a model that would write prose
// first is forced into the call instead of writing prose to the token limit. Under "auto" text may
// stand before the call. Text between and after calls stays allowed under every choice.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, dialects, getDialect, parseToolCalls } from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import type { ToolChoice } from "../../src/index.js";

const TOOLS = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
  {
    type: "function" as const,
    function: {
      name: "get_time",
      parameters: { type: "object", properties: { zone: { type: "string" } }, required: ["zone"] },
    },
  },
];
const CHOICES: Array<[string, ToolChoice]> = [
  ["required", "required"],
  ["named", { type: "function", function: { name: "get_weather" } }],
];
// harmony answers are messages whose channel headers come first (tested in dialect-gpt-oss).
const TEXT_DIALECTS = dialects.filter((d) => getDialect(d).call.kind !== "harmony");

describe.each(TEXT_DIALECTS)("%s: what may open the answer", (dialect) => {
  const spec = getDialect(dialect);
  const call = writeCall(spec, "get_weather", [["city", '"Paris"', "Paris"]]);
  const accepts = (toolChoice: ToolChoice | undefined, text: string) =>
    grammarAccepts(buildToolGrammar({ dialect, tools: TOOLS, ...(toolChoice ? { toolChoice } : {}) }), text);

  it.each(CHOICES)("%s: the call may open the answer, after whitespace", (_label, toolChoice) => {
    expect(accepts(toolChoice, writeOutput(spec, [call]))).toBe(true);
    expect(accepts(toolChoice, `\n${writeOutput(spec, [call])}`)).toBe(true);
  });

  it.each(CHOICES)("%s: prose before the call is refused", (_label, toolChoice) => {
    const text = `Sure, let me check. ${writeOutput(spec, [call])}`;
    // what the parser makes of it is unchanged: the prose is content, the call is a call (where
    // the call must open the answer, the whole text is content)
    const parsed = parseToolCalls(text, { dialect, tools: TOOLS, toolChoice });
    expect(parsed.toolCalls.map((c) => c.function.name)).toEqual(spec.callOpensAnswer ? [] : ["get_weather"]);
    expect(accepts(toolChoice, text)).toBe(false);
  });

  it("auto: prose may stand before the call", () => {
    // (where the call must open the answer, such text is all content)
    expect(accepts(undefined, `Sure, let me check. ${writeOutput(spec, [call])}`)).toBe(true);
    expect(accepts(undefined, "It is sunny.")).toBe(true);
  });

  it.runIf(spec.call.kind === "envelope")("the envelope object ends the answer: whitespace after it, no text", () => {
    for (const toolChoice of ["auto", "required"] as const) {
      expect(accepts(toolChoice, `${writeOutput(spec, [call])}\n\n`)).toBe(true);
      expect(accepts(toolChoice, `${writeOutput(spec, [call])}\nDone.`)).toBe(false);
      // the parser keeps that text as content
      expect(parseToolCalls(`${writeOutput(spec, [call])}\nDone.`, { dialect, tools: TOOLS, toolChoice }).content).toBe(
        "\nDone.",
      );
    }
  });

  it.runIf(!spec.callOpensAnswer && !spec.section)("required: text between calls stays allowed", () => {
    const second = writeCall(spec, "get_time", [["zone", '"UTC"', "UTC"]], { index: 1 });
    expect(accepts("required", `${call} and then ${second}`)).toBe(true);
  });
});
