// Which arguments the agent runs a tool with is what the mask lets a model write (issue #12,
// defect 12): the same grammar, lowered from the tool's schema by src/grammar/json-schema/index.ts.
// Its rule for undeclared keys: an object schema with "properties" and no "additionalProperties"
// takes only the declared properties; one with neither keyword takes any keys; an
// "additionalProperties" schema (or true) takes undeclared keys that fit it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { jsonArguments } from "../../src/dialects/call-grammar.js";
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

const maskAllows = (parameters: Record<string, unknown>, args: string) =>
  grammarAccepts(
    jsonArguments({
      name: "read_file",
      parameters,
      properties: (parameters.properties ?? {}) as Record<string, unknown>,
      required: [],
    }),
    args,
  );

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
});
