// Many masked generations on the test model, both XML and JSON dialects, every tool choice,
// parallel calls on and off, with random pushes toward calling, stopping and whitespace. Whatever
// the push, a masked answer that finishes is complete and valid, and one cut by maxTokens is
// reported cut. The same prompts unmasked: the validity rate is measured and printed.
import { beforeAll, describe, expect, it } from "vitest";
import type { ToolChoice } from "../src/dialects/tools.js";
import { generate, type GenerateResult } from "../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../src/engine/model.js";
import { testModelPath } from "./support/test-model.js";

const TOOL_CALL = 151657, IM_END = 151645;
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { enum: ["Paris", "Rome", "Oslo"] }, days: { type: "integer", enum: [1, 2, 3] } }, required: ["city"] },
    },
  },
  { type: "function", function: { name: "search", parameters: { type: "object", properties: { q: { enum: ["cats", "dogs"] } }, required: ["q"] } } },
  { type: "function", function: { name: "ping", parameters: { type: "object", properties: {} } } },
];
const REQUIRED: Record<string, string[]> = { get_weather: ["city"], search: ["q"], ping: [] };
const CHOICES: ToolChoice[] = ["auto", "required", { type: "function", function: { name: "search" } }];

/** Mulberry32: the same cases on every run. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** "" when every call is complete, declared, allowed by the choice and has its required arguments. */
function violation(r: GenerateResult, choice: ToolChoice): string {
  const calls = r.message.tool_calls ?? [];
  const allowed = typeof choice === "object" ? [choice.function.name] : choice === "none" ? [] : Object.keys(REQUIRED);
  if (choice !== "auto" && calls.length === 0) return "no call although one is required";
  if (r.incomplete.length > 0) return `incomplete call: ${r.incomplete[0]!.reason}`;
  for (const c of calls) {
    if (!allowed.includes(c.function.name)) return `name ${c.function.name} not allowed`;
    const args = JSON.parse(c.function.arguments) as Record<string, unknown>;
    for (const k of REQUIRED[c.function.name]!) if (!(k in args)) return `missing ${k}`;
  }
  return "";
}

let model: LlamaModel;
let whitespace: number[];
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
  whitespace = [];
  for (let id = 0; id < model.vocabulary.size; id++) {
    const b = model.vocabulary.tokenBytes(id);
    if (b.length > 0 && b.every((x) => x === 32 || x === 10 || x === 9 || x === 13)) whitespace.push(id);
  }
});

describe("masked generation under random pushes", () => {
  it("never finishes with a broken call; cuts are reported cut", async () => {
    const next = rng(2024);
    const tally = { masked: { finished: 0, valid: 0, cut: 0 }, unmasked: { runs: 0, valid: 0 } };
    for (let i = 0; i < 30; i++) {
      const dialect = i % 2 === 0 ? "qwen3-coder" : "hermes";
      const toolChoice = CHOICES[Math.floor(next() * CHOICES.length)]!;
      const logitBias: Record<number, number> = { [TOOL_CALL]: 60 + Math.round(next() * 60), [IM_END]: 60 + Math.round(next() * 60) };
      if (next() < 0.7) for (const id of whitespace) logitBias[id] = -100;
      const o = {
        messages: [{ role: "user", content: "Check the weather, then search." }], tools, dialect, toolChoice, logitBias,
        parallelToolCalls: next() < 0.5, seed: i + 1, temperature: 0.5 + next(), maxTokens: 60,
      };
      const m = await generate(model, { ...o, mask: true });
      if (m.finishReason === "length") {
        tally.masked.cut++;
        expect(m.incomplete.every((c) => c.kind === "cut"), JSON.stringify(m.incomplete)).toBe(true);
      } else {
        tally.masked.finished++;
        const v = violation(m, toolChoice);
        expect(v, `${dialect} ${JSON.stringify(toolChoice)}: ${JSON.stringify(m.text)}`).toBe("");
        tally.masked.valid++;
      }
      const u = await generate(model, { ...o, mask: false });
      tally.unmasked.runs++;
      if (u.finishReason !== "length" && violation(u, toolChoice) === "" && (u.message.tool_calls?.length ?? 0) > 0) tally.unmasked.valid++;
    }
    console.log(`masked: ${tally.masked.valid}/${tally.masked.finished} finished runs valid, ${tally.masked.cut} cut by maxTokens; ` +
      `unmasked: ${tally.unmasked.valid}/${tally.unmasked.runs} runs ended in valid calls`);
    expect(tally.masked.finished).toBeGreaterThan(10);
  });
});
