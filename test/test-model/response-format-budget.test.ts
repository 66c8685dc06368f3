// The token budget before a response format's JSON opens, on the random-weight test model (which,
// greedy or sampled, writes JSON whitespace wherever a grammar allows it: 32 newlines before the
// value when nothing stops it). With maxTokens exactly the shortest answer, or a few more, the
// answer is complete and valid: leading whitespace is left out where the value could no longer
// close after it (with room for the end token). The schemas leave no whitespace inside the value
// and their values take as many tokens each, so what is measured is the whitespace before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { MaxTokensTooSmallError } from "../../src/engine/errors.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import type { ResponseFormat } from "../../src/index.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutFor } from "../support/timeouts.js";

const FORMATS: ResponseFormat[] = [
  { type: "json_schema", schema: { type: "boolean" } },
  { type: "json_schema", schema: { enum: ["yes", "no"] } },
];
const messages = [{ role: "user" as const, content: "Answer." }];

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1 });
});
afterAll(() => model?.dispose());

/** The fewest tokens an answer in `f` takes (the up-front refusal's figure). */
async function shortest(f: ResponseFormat): Promise<number> {
  try {
    await generate(model, { messages, responseFormat: f, maxTokens: 1 });
  } catch (e) {
    if (e instanceof MaxTokensTooSmallError) return e.neededTokens;
    throw e;
  }
  return 1;
}

describe("the token budget before the JSON opens", () => {
  // 2 formats × 3 budgets × 3 seeds, each at most shortest + 4 (under 20) tokens
  it("with maxTokens the shortest answer or a few more, the answer is complete and valid", {
    timeout: timeoutFor({ decode: 18 * 20, requests: 20 }),
  }, async () => {
    const rows: string[] = [];
    for (const f of FORMATS) {
      const least = await shortest(f);
      for (const maxTokens of [least, least + 1, least + 4])
        for (const seed of [1, 2, 3]) {
          const r = await generate(model, { messages, responseFormat: f, maxTokens, seed });
          rows.push(
            `${JSON.stringify(f.type === "json_schema" ? f.schema : f)} ${maxTokens} ${seed}: ${JSON.stringify(r.text)}`,
          );
          expect([maxTokens, seed, r.finishReason, r.structured?.status], JSON.stringify(r.text)).toEqual([
            maxTokens,
            seed,
            "stop",
            "valid",
          ]);
          expect("parsed" in r).toBe(true);
        }
    }
    console.log(rows.join("\n"));
  });
});
