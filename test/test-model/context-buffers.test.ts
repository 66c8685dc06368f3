// The engine's llama_context (native/llama/batch_engine.cpp) is sized for what it decodes: at most one
// output row per sequence slot in a step, as llama-server sets n_outputs_max (its n_parallel). With
// llama.cpp's default (n_outputs_max = n_batch) the compute buffer holds the logits of a whole
// 512-row batch: 300 MiB on the 151,669-token test model for one slot, where llama-server reserves
// 39.5 MiB on qwen2.5-coder-0.5b. llama.cpp prints its context's settings and buffer sizes, which
// TOOLMASK_LLAMA_LOG=1 passes to stderr; a child process loads the test model with `parallel` slots
// and decodes a few tokens.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { expect, it } from "vitest";
import { ROOT } from "../support/vocabs.js";
import { testModelPath } from "../support/test-model.js";
import { timeoutForMeasured } from "../support/timeouts.js";

const MEASURED_MS = 18_500;

const child = `
const { loadModel } = await import(${JSON.stringify(join(ROOT, "dist", "engine", "model.js"))});
const { generate } = await import(${JSON.stringify(join(ROOT, "dist", "engine", "generate.js"))});
const model = await loadModel({ path: process.env.MODEL, threads: 1, parallel: Number(process.env.PARALLEL), contextSize: 1024 });
await generate(model, { messages: [{ role: "user", content: "hi" }], maxTokens: 2 });
console.log("vocabulary", model.vocabulary.size);
model.dispose();
`;

/** The context's n_outputs_max and compute buffer (MiB) as llama.cpp logs them, and the vocabulary size. */
function contextOf(parallel: number) {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", child], {
    cwd: ROOT,
    encoding: "utf8",
    env: {
      ...process.env,
      TOOLMASK_LLAMA_LOG: "1",
      TOOLMASK_QUIET: "1",
      MODEL: testModelPath(),
      PARALLEL: String(parallel),
    },
    maxBuffer: 64 * 1024 * 1024,
  });
  expect(r.status, r.stderr.slice(-4000)).toBe(0);
  const outputs = r.stderr.match(/llama_context: n_outputs_max\s+=\s+(\d+)/);
  const buffer = r.stderr.match(/sched_reserve:\s+CPU compute buffer size =\s+([\d.]+) MiB/);
  const vocabulary = r.stdout.match(/^vocabulary (\d+)$/m);
  expect(outputs && buffer && vocabulary, r.stderr.slice(-4000)).toBeTruthy();
  return { outputs: Number(outputs![1]), bufferMiB: Number(buffer![1]), vocabulary: Number(vocabulary![1]) };
}

// Two child processes, each a model load, a context and 2 tokens: MEASURED_MS at load average ~20.
it(
  "the context reserves one output row per slot, not the logits of a whole batch",
  () => {
    for (const parallel of [1, 3]) {
      const c = contextOf(parallel);
      expect(c.outputs, `parallel ${parallel}`).toBe(parallel);
      // Far below the F32 logits of a 512-row batch (what n_outputs_max = n_batch reserves).
      expect(c.bufferMiB, `parallel ${parallel}`).toBeLessThan((512 * c.vocabulary * 4) / 2 ** 20 / 4);
    }
  },
  timeoutForMeasured(MEASURED_MS),
);
