// npm run bench:bfcl -- --merge: reports of runs that each decoded a part (another model, other
// categories) become one (src/bench/bfcl/merge.ts); runs made otherwise, or a group decoded twice,
// are refused with what differs, by the function and by the script (exit 2, nothing written).
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { BfclMergeError, mergeBfclReports } from "../../src/bench/bfcl/merge.js";
import type { BfclMode } from "../../src/bench/bfcl/run.js";
import { markdownTable, type BfclReport, type BfclRow } from "../../src/bench/bfcl/summary.js";
import type { BfclCategory } from "../../src/bench/bfcl/types.js";
import { ROOT } from "../support/vocabs.js";

const row = (model: string, category: BfclCategory, mode: BfclMode, astCorrect: number): BfclRow => ({
  model,
  dialect: "qwen2.5-coder",
  category,
  mode,
  items: 2,
  valid: 2,
  astCorrect,
  tokensPerSecond: 10,
  decodeTokensPerSecond: 12,
  meanCompletionTokens: 20,
  finishReasons: { stop: 0, tool_calls: 2, length: 0 },
  withCalls: 2,
  contentCallAnswers: 0,
  astCorrectFromContent: 0,
  wallSeconds: 4,
  replayed: 0,
  refused: 0,
});

function report(model: string, categories: BfclCategory[], over: Partial<BfclReport["settings"]> = {}): BfclReport {
  const modes: BfclMode[] = ["unmasked", "masked"];
  return {
    bfclEval: "2026.3.23",
    generatedAt: `2026-12-0${categories.length}T00:00:00.000Z`,
    command: `npm run bench:bfcl -- --models ${model} --categories ${categories.join(",")}`,
    machine: { cpus: 2, threads: 1 },
    settings: {
      maxTokens: 256,
      sample: 2,
      concurrency: 4,
      toolChoice: "auto",
      temperature: 0,
      categories,
      sampleIds: Object.fromEntries(categories.map((c) => [c, [`${c}_0`, `${c}_1`]])),
      ...over,
    },
    contradictedItems: [],
    models: [{ name: model, path: `/m/${model}.gguf`, dialect: "qwen2.5-coder" }],
    rows: categories.flatMap((c) => modes.map((m) => row(model, c, m, m === "masked" ? 2 : 1))),
    answers: categories.flatMap((c) =>
      modes.flatMap((mode) =>
        [0, 1].map((i) => ({
          model,
          id: `${c}_${i}`,
          category: c,
          mode,
          finishReason: "tool_calls" as const,
          valid: true,
          reason: "",
          astCorrect: true,
          astError: null,
          contentCalls: [],
          astCorrectFromContent: false,
          calls: [],
          text: "",
          promptTokens: 100,
          completionTokens: 20,
          decodeMillis: 1000,
        })),
      ),
    ),
  };
}

describe("mergeBfclReports", () => {
  it("puts two models' runs and one model's two category runs into one report, rows in model and category order", () => {
    const a = report("coder-1.5b", ["parallel"]);
    const b = report("coder-1.5b", ["simple", "multiple"]);
    const c = report("coder-0.5b", ["simple", "multiple", "parallel"]);
    const merged = mergeBfclReports([a, b, c]);
    expect(merged.settings.categories).toEqual(["simple", "multiple", "parallel"]);
    expect(merged.models.map((m) => m.name)).toEqual(["coder-1.5b", "coder-0.5b"]);
    expect(merged.rows.map((r) => `${r.model} ${r.category} ${r.mode}`)).toEqual([
      "coder-1.5b simple unmasked",
      "coder-1.5b simple masked",
      "coder-1.5b multiple unmasked",
      "coder-1.5b multiple masked",
      "coder-1.5b parallel unmasked",
      "coder-1.5b parallel masked",
      "coder-0.5b simple unmasked",
      "coder-0.5b simple masked",
      "coder-0.5b multiple unmasked",
      "coder-0.5b multiple masked",
      "coder-0.5b parallel unmasked",
      "coder-0.5b parallel masked",
    ]);
    expect(merged.answers).toHaveLength(a.answers.length + b.answers.length + c.answers.length);
    expect(merged.mergedFrom.map((m) => m.command)).toEqual([a.command, b.command, c.command]);
    // The README table reads the merged report as it reads one run's.
    expect(markdownTable(merged)).toContain("coder-1.5b");
  });

  it("refuses a group decoded twice, runs of other settings, other sampled items and a lone report", () => {
    const a = report("coder-1.5b", ["simple"]);
    expect(() => mergeBfclReports([a, report("coder-1.5b", ["simple", "multiple"])])).toThrow(
      /coder-1.5b simple unmasked is in two of the reports/,
    );
    expect(() => mergeBfclReports([a, report("coder-0.5b", ["simple"], { maxTokens: 128 })])).toThrow(BfclMergeError);
    expect(() => mergeBfclReports([a, report("coder-0.5b", ["simple"], { toolChoice: "required" })])).toThrow(
      /not made as report 1 was/,
    );
    const otherItems = report("coder-0.5b", ["simple"], { sampleIds: { simple: ["simple_7", "simple_9"] } });
    expect(() => mergeBfclReports([a, otherItems])).toThrow(/other items of simple/);
    expect(() => mergeBfclReports([a])).toThrow(/two reports or more/);
  });
});

describe("npm run bench:bfcl -- --merge", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "toolmask-bfcl-merge-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [path.join(ROOT, "scripts", "bench", "bench-bfcl.mjs"), ...args], {
      cwd: ROOT,
    }).then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );

  it("writes the merged report and its chart; refuses a duplicate group with exit 2 and writes nothing", async () => {
    const a = path.join(dir, "a.json");
    const b = path.join(dir, "b.json");
    writeFileSync(a, JSON.stringify(report("coder-1.5b", ["simple"])));
    writeFileSync(b, JSON.stringify(report("coder-1.5b", ["multiple"])));
    const out = path.join(dir, "out");
    const ok = await run(["--merge", `${a},${b}`, "--out", out]);
    expect(ok.code, ok.stderr).toBe(0);
    const merged = JSON.parse(readFileSync(path.join(out, "bfcl.json"), "utf8")) as BfclReport;
    expect(merged.rows).toHaveLength(4);
    expect(existsSync(path.join(out, "bfcl.svg"))).toBe(true);

    const bad = await run(["--merge", `${a},${a}`, "--out", path.join(dir, "bad")]);
    expect({ code: bad.code, stderr: bad.stderr.trim() }).toEqual({
      code: 2,
      stderr: "bench:bfcl: coder-1.5b simple unmasked is in two of the reports; merge runs that decoded other parts",
    });
    expect(existsSync(path.join(dir, "bad"))).toBe(false);
    const noOut = await run(["--merge", `${a},${b}`]);
    expect(noOut.code).toBe(2);
  });
});
