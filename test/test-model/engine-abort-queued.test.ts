// A generation aborted before the engine gave it a sequence (still queued behind a running one)
// ends "aborted" having sampled nothing after abort(): its result says 0 tokens after the abort, as
// a running one's does. (It said -1, "never aborted", and server-openai's close() test failed on
// the race where close() aborted a request the engine had not admitted yet.)
import { afterAll, beforeAll, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { notStoppedOnAbort, watchEngineGenerations } from "../support/engine-generations.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutForTokens } from "../support/timeouts.js";
import { until } from "../support/until.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath(), threads: 1, parallel: 1 });
});
afterAll(() => model?.dispose());

it(
  "a queued generation aborted before it starts reports 0 tokens after the abort",
  async () => {
    const engine = watchEngineGenerations();
    const first = new AbortController();
    const second = new AbortController();
    try {
      const running = generate(model, {
        messages: [{ role: "user", content: "go on" }],
        maxTokens: 100_000,
        signal: first.signal,
      }).catch((e: unknown) => e);
      await until(() => engine.all.length === 1);
      const queued = generate(model, {
        messages: [{ role: "user", content: "and on" }],
        maxTokens: 100_000,
        signal: second.signal,
      }).catch((e: unknown) => e);
      await until(() => engine.all.length === 2);
      expect(engine.all[1]!.runningAtStart).toBe(1);
      second.abort();
      await until(() => engine.all[1]!.result !== undefined);
      expect(engine.all[1]!.result!.tokens.length).toBe(0);
      expect(notStoppedOnAbort(engine.all[1]!)).toBeUndefined();
      first.abort();
      await Promise.all([running, queued]);
      expect(engine.all.map(notStoppedOnAbort)).toEqual([undefined, undefined]);
    } finally {
      first.abort();
      second.abort();
      engine.restore();
    }
  },
  timeoutForTokens(64),
);
