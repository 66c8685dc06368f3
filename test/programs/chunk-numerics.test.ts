// Why the exact engine decodes each prompt chunk in a llama_decode of its own
// (native/llama/batch_engine.cpp, LoadModelOptions.exactPrompts): llama.cpp's own decode, in
// scripts/oracles/batch-numerics/chunk-probe.cpp (built from source on first use), on the test
// model. Four sequences with a KV stream each read a chunk of their prompts one llama_decode each,
// and then all four in one llama_decode (llama-server's batch), twice: decoding one by one gives the
// same logits every time, bit for bit; the shared decode gives others. The probe prints both ways'
// times and how far apart their logits are.
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { testModelPath } from "../support/test-model.js";
import { timeoutForMeasured } from "../support/timeouts.js";

const BUILD_URL: string = new URL("../../scripts/oracles/batch-numerics/build.mjs", import.meta.url).href;
const LIBS_URL: string = new URL("../../scripts/lib/build-llama-program.mjs", import.meta.url).href;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

// The probe on the test model with these sizes: 1.0 s here at load average ~1; the build (one file,
// -O1) a few seconds more.
it(
  "chunk-probe: one llama_decode per chunk repeats its logits bit for bit; both ways timed and compared",
  async () => {
    const { buildChunkProbe } = (await import(BUILD_URL)) as { buildChunkProbe: () => Promise<string> };
    const { prebuiltLibDir } = (await import(LIBS_URL)) as { prebuiltLibDir: () => string };
    const probe = await buildChunkProbe();
    const out = execFileSync(probe, [testModelPath(), prebuiltLibDir(), "100", "70", "2"], {
      cwd: root,
      encoding: "utf8",
    });
    const runs = [
      ...out.matchAll(
        /^run (\d) (one by one|together): 4 chunks of 70 rows in \d+ ms; logits off the first run's by up to (\S+)$/gm,
      ),
    ];
    expect(
      runs.map((m) => `${m[1]} ${m[2]}`),
      out,
    ).toEqual(["1 one by one", "1 together", "2 one by one", "2 together"]);
    // The second one-by-one run gives the first one's logits exactly; the shared decode does not
    // (5.7e-6 here; up to 0.39 on qwen2.5-coder-0.5b, docs/decoding.md): what exactPrompts avoids.
    // Should a llama.cpp update make them equal, the exact engine could share its prompt decodes.
    expect(Number(runs[2]![3]), out).toBe(0);
    expect(Number(runs[1]![3]), out).toBeGreaterThan(0);
    expect(out).toMatch(/^rows differing from the first run's: \d+ of 24$/m);
    console.log(out);
  },
  timeoutForMeasured(20_000),
);
