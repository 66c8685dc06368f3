// Which arguments the agent runs a tool with is what the mask lets a model write (issue #12,
// defect 12): the same grammar, lowered from the tool's schema by src/grammar/json-schema/index.ts.
// Its rule for undeclared keys: an object schema with "properties" and no "additionalProperties"
// takes only the declared properties; one with neither keyword takes any keys; an
// "additionalProperties" schema (or true) takes undeclared keys that fit it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonArguments, jsonArgumentsText } from "../../src/dialects/call-grammar.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { runAgent } from "../../src/index.js";
import { loggingTool, newLog } from "../support/agent-tools.js";
import { ScriptedOpenAI } from "../support/scripted-openai.js";

let server: ScriptedOpenAI;
beforeEach(async () => {
  server = await ScriptedOpenAI.start();
});
afterEach(async () => {
  await server.close();
});

const declared = {
  type: "object",
  properties: { path: { type: "string" }, lines: { type: "integer" } },
  required: ["path"],
};
const open = { ...declared, additionalProperties: true };
const typedExtra = { ...declared, additionalProperties: { type: "string" } };
const closed = { ...declared, additionalProperties: false };
const freeForm = { type: "object" };

/** Whether the agent ran the tool with `args`, and the tool result it sent back. */
async function runWith(parameters: Record<string, unknown>, args: string) {
  const log = newLog();
  server.answer({ calls: [{ name: "read_file", id: "c1", arguments: args }] }).answer({ content: "Done." });
  const r = await runAgent({
    client: { baseURL: server.baseURL },
    tools: [loggingTool(log, { name: "read_file", parameters })],
    prompt: "Go",
  });
  expect(r.status).toBe("completed");
  const result = server.requests[1]!.body.messages.find((m: any) => m.role === "tool").content as string;
  return { ran: log.args.length === 1, args: log.args[0], result };
}

const defOf = (parameters: Record<string, unknown>) => ({
  name: "read_file",
  parameters,
  properties: (parameters.properties ?? {}) as Record<string, unknown>,
  required: [],
});
const maskAllows = (parameters: Record<string, unknown>, args: string) =>
  grammarAccepts(jsonArguments(defOf(parameters)), args);

describe("an undeclared argument", () => {
  it.each([
    ["properties, no additionalProperties", '{"path":"a","mode":"w"}', declared, false],
    ["additionalProperties: false", '{"path":"a","mode":"w"}', closed, false],
    ["additionalProperties: true", '{"path":"a","mode":"w"}', open, true],
    ["additionalProperties: a string schema", '{"path":"a","mode":"w"}', typedExtra, true],
    ["additionalProperties: a string schema", '{"path":"a","mode":7}', typedExtra, false],
    ["neither keyword (a free-form object)", '{"anything":[1,{"x":null}],"path":3}', freeForm, true],
    ["properties, no additionalProperties", '{"lines":2,"path":"a"}', declared, true],
  ] as const)("%s: %s runs the tool iff the mask allows it", async (_, args, parameters, allowed) => {
    expect(maskAllows(parameters, args)).toBe(allowed);
    const { ran, result } = await runWith(parameters, args);
    expect(ran).toBe(allowed);
    if (!allowed) expect(result).toMatch(/was not run/);
  });

  it("the refusal names the undeclared key, the declared ones and how to allow more", async () => {
    const { result } = await runWith(declared, '{"path":"a","mode":"w","force":true}');
    expect(result).toMatch(/"mode", "force" .*not declared.*"path", "lines"/);
    expect(result).toMatch(/"additionalProperties"/);
  });

  it("written as the model wrote it: undeclared keys beside a numeric key, in an order the mask allows, run the tool", async () => {
    // JSON.parse moves integer-like keys first; the check must not judge that reordering.
    const args = '{"path":"a","x":"0","2":"y","lines":2}';
    expect(maskAllows(open, args)).toBe(true);
    const { ran, args: got } = await runWith(open, args);
    expect(ran).toBe(true);
    expect(got).toEqual({ path: "a", x: "0", 2: "y", lines: 2 });
  });

  // Issue 30, defect 12: the check took the arguments object without the JSON whitespace the
  // grammar allows around it (jsonArgumentsText), so these were refused as written and judged
  // again as JSON.stringify wrote them, which moves "2" first: a tool the mask allows was not run.
  it.each([' {"path":"a","x":"0","2":"y","lines":2}', '\n\t{"path":"a","x":"0","2":"y","lines":2}\r\n'])(
    "%j: JSON whitespace around the object, as the grammar allows it, runs the tool",
    async (args) => {
      expect(grammarAccepts(jsonArgumentsText(defOf(open)), args)).toBe(true);
      const { ran, args: got } = await runWith(open, args);
      expect(ran).toBe(true);
      expect(got).toEqual({ path: "a", x: "0", 2: "y", lines: 2 });
    },
  );
});

// Issue 30, defect 8: the arguments were read by JSON.parse, and the grammar then judged the value
// written again by JSON.stringify — so a repeated key ran with its last value, 1e999 with Infinity
// and a long integer rounded. Now a tool runs with the value the model wrote, or is not run.
describe("numbers and repeated keys: the tool runs with the value the model wrote, or not at all", () => {
  const typed = {
    type: "object",
    properties: { n: { type: "number" }, i: { type: "integer" }, s: { type: "string" }, o: { type: "object" } },
  };
  it.each([
    ["a number beyond a double", '{"n": 1e999}', freeForm, /the number 1e999 at \$\.n is beyond the range of a double/],
    [
      "one nested in an array",
      '{"n": [1, -1e400]}',
      freeForm,
      /the number -1e400 at \$\.n\[1\] is beyond the range of a double/,
    ],
    [
      "an integer a double rounds",
      '{"i": 12345678901234567891}',
      typed,
      /the number 12345678901234567891 at \$\.i is not exactly a double \(it would be 12345678901234567000\)/,
    ],
    ["2^53 + 1", '{"i": 9007199254740993}', typed, /9007199254740993 at \$\.i .*it would be 9007199254740992/],
    ["more digits than a double holds", '{"n": 3.14159265358979323846}', typed, /it would be 3\.141592653589793\)/],
    ["a number below the smallest double", '{"n": 5e-999}', typed, /5e-999 at \$\.n .*it would be 0\)/],
    ["a repeated key", '{"s": "safe", "s": "rm -rf /"}', typed, /the key "s" is given twice in the object at \$/],
    [
      "a repeated key, nested",
      '{"o": {"a": 1, "b": [], "a": 2}}',
      typed,
      /the key "a" is given twice in the object at \$\.o/,
    ],
  ] as const)("%s: %s is not run, the result says why", async (_, args, parameters, why) => {
    const { ran, result } = await runWith(parameters, args);
    expect(ran).toBe(false);
    expect(result).toMatch(why);
    expect(result).toMatch(/was not run/);
  });

  it.each([
    ['{"i": 9007199254740991}', { i: 9007199254740991 }],
    ['{"i": -9007199254740991}', { i: -9007199254740991 }],
    ['{"n": 1.5e300}', { n: 1.5e300 }],
    ['{"n": 0.1}', { n: 0.1 }],
    ['{"n": 0.30000000000000004}', { n: 0.30000000000000004 }],
    ['{"n": 1.7976931348623157e308}', { n: Number.MAX_VALUE }],
    ['{"n": 5e-324}', { n: 5e-324 }],
    ['{"n": 1.10, "i": 1.0}', { n: 1.1, i: 1 }],
    ['{"n": 12e3}', { n: 12000 }],
    ['{"n": 100000000000000000000}', { n: 1e20 }],
  ] as const)("%s runs with exactly that value", async (args, value) => {
    const { ran, args: got } = await runWith(typed, args);
    expect(ran).toBe(true);
    expect(got).toEqual(value);
  });

  it("-0 runs as -0, and the same key in two different objects is no repeat", async () => {
    const { ran, args } = await runWith(freeForm, '{"n": -0, "o": {"n": 1}, "l": [{"n": 2}, {"n": 3}]}');
    expect(ran).toBe(true);
    expect(Object.is(args!.n, -0)).toBe(true);
    expect(args).toEqual({ n: -0, o: { n: 1 }, l: [{ n: 2 }, { n: 3 }] });
  });
});
