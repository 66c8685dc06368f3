// Why the prompt cache reuses what it reuses (native/llama/prompt_cache.hpp): llama.cpp's own
// decode, in scripts/oracles/batch-numerics/prefix-probe.cpp (built from source on first use), on
// the test model. Turn 2 of a conversation decoded on the engine's rule — rows reused only where
// they were decoded in a batch of the class a fresh decode gives them, the rest in chunks ending on
// multiples of 512, the first of at least 64 rows — gives logits bit-identical to a decode from an
// empty cache, at the prompt's end and along 32 more tokens; reusing the output's rows (decoded one
// at a time), decoding a wholly cached prompt's last token alone, or a short addition alone, does not.
import path from "node:path";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { testModelPath } from "../support/test-model.js";
import { timeoutForMeasured } from "../support/timeouts.js";

const BUILD_URL: string = new URL("../../scripts/oracles/batch-numerics/build.mjs", import.meta.url).href;
const LIBS_URL: string = new URL("../../scripts/lib/build-llama-program.mjs", import.meta.url).href;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

interface CaseLine {
  case?: string;
  bitIdenticalSteps?: number;
  of?: number;
  maxAbsLogitDiff?: number;
}

// The probe: 5.7 s on 2 cores at load average ~13; the build (one file, -O1) a few seconds more.
it(
  "the engine's rule gives a fresh decode's logits bit for bit; reusing output rows or decoding the last token alone does not",
  async () => {
    const { buildPrefixProbe } = (await import(BUILD_URL)) as { buildPrefixProbe: () => Promise<string> };
    const { prebuiltLibDir } = (await import(LIBS_URL)) as { prebuiltLibDir: () => string };
    const probe = await buildPrefixProbe();
    const out = execFileSync(probe, [testModelPath(), prebuiltLibDir(), "32", "1"], { cwd: root, encoding: "utf8" });
    const cases = Object.fromEntries(
      out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as CaseLine)
        .filter((c) => c.case)
        .map((c) => [c.case!, c]),
    );
    const identical = (name: string) => cases[name]!.bitIdenticalSteps === cases[name]!.of;
    for (const name of ["rule-turn2", "rule-whole", "short-rule", "long-rule", "cache-prompt"])
      expect(identical(name), `${name}: ${JSON.stringify(cases[name])}`).toBe(true);
    for (const name of ["cache+output", "whole-cached", "short-naive"])
      expect(cases[name]!.maxAbsLogitDiff, `${name} differs`).toBeGreaterThan(0);
  },
  timeoutForMeasured(20_000),
);
