// `toolmask bench --peers`: the native engines (llguidance from `npm run pyenv`; XGrammar 0.2.8
// when its group is installed) timed on the suite's grammar along the masked runs' tokens, over
// the model's own token bytes (a GGUF has no tokenizer.json). llguidance accepting every walk is
// the check that the vocabulary file carries the model's tokens; outlines-core is reported as out
// of reach (regex or JSON schema only). Without the pyenv this is a skip with the line that
// installs it; under CI=true a failure.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pyenvHint, pythonWith, ROOT } from "../../scripts/lib/pyenv.mjs";
import { cli, type CliRun } from "../support/cli-run.js";
import { testModelPath } from "../support/test-model.js";

const suite = {
  name: "tiny",
  seeds: 1,
  biasFor: "test-model",
  cases: [
    {
      name: "weather",
      dialect: "qwen3-coder",
      prompt: "What is the weather in Paris?",
      toolChoice: "required",
      parallelToolCalls: false,
      maxTokens: 48,
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            parameters: {
              type: "object",
              properties: { city: { type: "string", enum: ["Paris", "Rome"] } },
              required: ["city"],
            },
          },
        },
      ],
      biasPieces: { "<tool_call>": 100, "<|im_end|>": 110 },
    },
  ],
};
const python = pythonWith(["peers"]);
const inCi = process.env.CI === "true";
if (!python && !inCi) console.warn(`bench --peers: skipped: ${pyenvHint(["peers"])}`);

describe.skipIf(!python && !inCi)("toolmask bench --peers", () => {
  let dir: string, run: CliRun, report: Record<string, any>;
  beforeAll(async () => {
    if (!python)
      throw new Error(
        `CI=true and llguidance is not installed: ${pyenvHint(["peers"])}; .ci/run runs npm run pyenv before npm test`,
      );
    dir = mkdtempSync(join(tmpdir(), "toolmask-bench-peers-"));
    writeFileSync(join(dir, "suite.json"), JSON.stringify(suite));
    run = await cli(
      [
        "bench",
        "--model",
        testModelPath(),
        "--suite",
        join(dir, "suite.json"),
        "--out",
        join(dir, "out"),
        "--variants",
        "masked-cpu",
        "--no-xgrammar",
        // A relative --python is the user's working directory's (the CLI runs in the repo root here).
        "--peers",
        "llguidance,xgrammar,outlines-core",
        "--python",
        relative(ROOT, python),
      ],
      { timeout: 170_000 },
    );
    if (run.code === 0) report = JSON.parse(readFileSync(join(dir, "out", "bench.json"), "utf8"));
  }, 180_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("llguidance takes our grammar and every token our masked runs sampled; its time and the ratio are reported", () => {
    expect(run.code, run.stderr).toBe(0);
    // The masked run ends on <|im_end|>: the engines get the walk up to the mask that chose it.
    expect(report.variants["masked-cpu"].finishReasons.length).toBe(0);
    const p = report.peers.llguidance;
    expect(p.errors).toEqual([]);
    expect(p.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(p.grammar).toMatch(/toLark/);
    expect(p.refused).toBe(0);
    const ours = report.variants["masked-cpu"].maskMicrosPerToken;
    // 3 timed passes over the one walk; a walk the model did not end has one mask more, after its last token.
    expect(p.maskMicrosPerToken.samples).toBeGreaterThanOrEqual(3 * ours.samples);
    expect(p.maskMicrosPerToken.samples).toBeLessThanOrEqual(3 * (ours.samples + 1));
    expect(p.maskMicrosPerToken.median).toBeGreaterThan(0);
    expect(p.ratio.median).toBeCloseTo(ours.median / p.maskMicrosPerToken.median, 2);
    expect(p.compileMillis.weather).toBeGreaterThan(0);
    expect(p.firstMaskMillis.weather).toBeGreaterThanOrEqual(p.compileMillis.weather);
    expect(run.stdout).toMatch(
      /llguidance \S+ [\d.]+ µs median \/ [\d.]+ µs p99 per mask; ours .* of it; masks stricter than ours on \d+, looser on 0 of \d+ steps/,
    );
    // Its masks along the walk: never a token we refuse (it may be stricter: it allows only the
    // canonical tokenization of forced text).
    expect(p.agreement.steps).toBe(ours.samples); // the walk up to the mask that chose <|im_end|>
    expect(p.agreement.peerLooserSteps).toBe(0);
  });

  it("outlines-core is reported as unable to take a dialect's grammar; XGrammar runs or says why not", () => {
    expect(report.peers["outlines-core"]).toMatchObject({ version: null, maskMicrosPerToken: null });
    expect(report.peers["outlines-core"].errors[0]).toMatch(/regex or a JSON schema/);
    const x = report.peers.xgrammar;
    if (x.version === null) expect(x.errors[0]).toMatch(/xgrammar/i);
    else {
      expect(x).toMatchObject({ refused: 0, errors: [] });
      // XGrammar's masks equal ours at every step beyond the differences known by construction.
      expect(x.agreement).toMatchObject({ peerStricterSteps: 0, peerLooserSteps: 0 });
      expect(x.agreement.steps).toBeGreaterThan(0);
    }
  });
});

describe("toolmask bench --peers: bad flags", () => {
  it("an unknown engine, --python alone, or --peers without the masked CPU runs is a usage error", async () => {
    for (const [args, message] of [
      [["--peers", "vllm"], /--peers: unknown "vllm"; choose from llguidance, xgrammar, outlines-core/],
      [["--python", "python3"], /--python is the Python of --peers/],
      [["--peers", "llguidance", "--variants", "unmasked"], /keep masked-cpu in --variants/],
    ] as const) {
      const r = await cli(["bench", ...args]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });
});
