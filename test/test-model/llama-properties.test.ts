// Many masked generations on the test model, both XML and JSON dialects, every tool choice,
// parallel calls on and off, with random pushes toward calling, stopping and whitespace. Whatever
// the push, a masked answer that finishes is complete and valid, and one cut by maxTokens is
// reported cut. The same prompts unmasked: the validity rate is measured and printed.
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolChoice } from "../../src/dialects/tools.js";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import {
  callViolation,
  IM_END,
  requiredArgs,
  rng,
  TOOL_CALL,
  whitespaceTokenIds,
} from "../support/generation-checks.js";
import { testModelPath } from "../support/test-model.js";

const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: {
        type: "object",
        properties: { city: { enum: ["Paris", "Rome", "Oslo"] }, days: { type: "integer", enum: [1, 2, 3] } },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "search",
      parameters: { type: "object", properties: { q: { enum: ["cats", "dogs"] } }, required: ["q"] },
    },
  },
  { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
];
const REQUIRED = requiredArgs(tools);
const CHOICES: ToolChoice[] = ["auto", "required", { type: "function", function: { name: "search" } }];

let model: LlamaModel;
let whitespace: number[];
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  whitespace = whitespaceTokenIds(model);
});

describe("masked generation under random pushes", () => {
  it("never finishes with a broken call; cuts are reported cut", async () => {
    const next = rng(2024);
    const tally = { masked: { finished: 0, valid: 0, cut: 0 }, unmasked: { runs: 0, valid: 0 } };
    for (let i = 0; i < 30; i++) {
      const dialect = i % 2 === 0 ? "qwen3-coder" : "hermes";
      const toolChoice = CHOICES[Math.floor(next() * CHOICES.length)]!;
      const logitBias: Record<number, number> = {
        [TOOL_CALL]: 60 + Math.round(next() * 60),
        [IM_END]: 60 + Math.round(next() * 60),
      };
      if (next() < 0.7) for (const id of whitespace) logitBias[id] = -100;
      const o = {
        messages: [{ role: "user", content: "Check the weather, then search." }],
        tools,
        dialect,
        toolChoice,
        logitBias,
        parallelToolCalls: next() < 0.5,
        seed: i + 1,
        temperature: 0.5 + next(),
        maxTokens: 60,
      };
      const m = await generate(model, { ...o, mask: true });
      if (m.finishReason === "length") {
        tally.masked.cut++;
        expect(
          m.incomplete.every((c) => c.kind === "cut"),
          JSON.stringify(m.incomplete),
        ).toBe(true);
      } else {
        tally.masked.finished++;
        const v = callViolation(m, toolChoice, REQUIRED);
        expect(v, `${dialect} ${JSON.stringify(toolChoice)}: ${JSON.stringify(m.text)}`).toBe("");
        tally.masked.valid++;
      }
      const u = await generate(model, { ...o, mask: false });
      tally.unmasked.runs++;
      if (
        u.finishReason !== "length" &&
        callViolation(u, toolChoice, REQUIRED) === "" &&
        (u.message.tool_calls?.length ?? 0) > 0
      )
        tally.unmasked.valid++;
    }
    console.log(
      `masked: ${tally.masked.valid}/${tally.masked.finished} finished runs valid, ${tally.masked.cut} cut by maxTokens; ` +
        `unmasked: ${tally.unmasked.valid}/${tally.unmasked.runs} runs ended in valid calls`,
    );
    expect(tally.masked.finished).toBeGreaterThan(10);
  });
});
