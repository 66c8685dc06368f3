// `toolmask bench` on a tiny suite (seconds): the JSON has every promised field with sane values,
// the HTML report is well-formed and self-contained with its charts, the PNG decodes to the size
// the chart's SVG asks for and shows the bars in each mode's colour and its text.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cli, type CliRun } from "../support/cli-run.js";
import { readPng } from "../support/png-reader.js";
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

let dir: string, run: CliRun, report: Record<string, any>;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolmask-bench-"));
  writeFileSync(join(dir, "suite.json"), JSON.stringify(suite));
  run = await cli(
    ["bench", "--model", testModelPath(), "--suite", join(dir, "suite.json"), "--out", join(dir, "out")],
    { timeout: 110_000 },
  );
  if (run.code === 0) report = JSON.parse(readFileSync(join(dir, "out", "bench.json"), "utf8"));
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("toolmask bench on a tiny suite", () => {
  it("exits 0 and prints one line per mode", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("bench ["); // no progress: stderr is not a terminal and --progress was not given
    for (const label of ["unmasked", "masked (CPU path)", "masked (backend path)", "node-llama-cpp + our GBNF"])
      expect(run.stdout).toContain(`  ${label} `);
    expect(run.stdout).toMatch(/wrote .*bench\.json, .*report\.html, .*validity\.png/);
  });

  it("reports every mode with validity, finish reasons, truncations, tok/s and mask time", () => {
    expect(Object.keys(report.variants)).toEqual(["unmasked", "masked-cpu", "masked-backend", "node-llama-cpp-gbnf"]);
    for (const [name, v] of Object.entries<any>(report.variants)) {
      expect(v.runs, name).toBe(1);
      expect(v.validityRate).toBe(v.valid / v.runs);
      expect(v.finishReasons.stop + v.finishReasons.tool_calls + v.finishReasons.length).toBe(1);
      expect(typeof v.truncated).toBe("number");
      expect(typeof v.truncationsBlocked).toBe("number");
      expect(v.tokensPerSecond).toHaveProperty("overall");
      expect(v.errors).toEqual([]);
    }
    // The masks make the answer valid on both of our paths; without them this model never calls.
    expect(report.variants["masked-cpu"].valid).toBe(1);
    expect(report.variants["masked-backend"].valid).toBe(1);
    expect(report.variants.unmasked.valid).toBe(0);
    for (const v of ["masked-cpu", "masked-backend", "node-llama-cpp-gbnf"])
      expect(report.variants[v].tokensPerSecond.overall, v).toBeGreaterThan(0);
    expect(report.coldMaskMicrosInDecode.weather).toBeGreaterThan(0);
    const m = report.variants["masked-cpu"].maskMicrosPerToken;
    expect(m.samples).toBeGreaterThan(3);
    expect(m.median).toBeGreaterThan(0);
    expect(m.p99).toBeGreaterThanOrEqual(m.median);
    expect(report.variants.unmasked.maskMicrosPerToken).toBeNull();
    expect(report.suite).toMatchObject({ name: "tiny", seeds: 1, cases: ["weather"], biasApplied: true });
    expect(report.runs).toHaveLength(4);
  });

  it("times XGrammar on the same grammar and tokens", () => {
    const x = report.xgrammar;
    expect(x.errors).toEqual([]);
    expect(x.grammar).toMatch(/^the same grammar/);
    expect(x.refused).toBe(0);
    expect(x.maskMicrosPerToken.samples).toBe(report.variants["masked-cpu"].maskMicrosPerToken.samples);
    expect(x.maskMicrosPerToken.median).toBeGreaterThan(0);
    expect(x.compileMillis.weather).toBeGreaterThan(0);
  });

  it("writes an HTML report that parses as XML, with its charts inline and nothing fetched", () => {
    const html = readFileSync(join(dir, "out", "report.html"), "utf8");
    expect(html).not.toMatch(/<script|<link|src="http|href="http/);
    // Python's XML parser: a parser nobody here wrote. Prints the number of svg and table elements.
    const out = execFileSync(
      "python3",
      [
        "-c",
        "import sys,xml.etree.ElementTree as E;r=E.parse(sys.argv[1]).getroot();n={'h':'http://www.w3.org/1999/xhtml','s':'http://www.w3.org/2000/svg'};" +
          "print(len(r.findall('.//s:svg',n)),len(r.findall('.//h:table',n)),len(r.findall('.//s:rect',n)))",
        join(dir, "out", "report.html"),
      ],
      { encoding: "utf8" },
    );
    const [svgs, tables, rects] = out.trim().split(" ").map(Number);
    expect(svgs).toBe(4);
    expect(tables).toBe(2);
    expect(rects).toBeGreaterThanOrEqual(8);
    expect(html).toContain("Valid tool-call answers by decoding mode");
  });

  it("writes a PNG of the main chart (its SVG, rendered with a real font) that decodes to twice the SVG's size, with a bar per mode", () => {
    const png = readPng(readFileSync(join(dir, "out", "validity.png")));
    const html = readFileSync(join(dir, "out", "report.html"), "utf8");
    const size = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(html)!; // the first chart is the PNG's
    expect(png.width).toBe(2 * Number(size[1]));
    expect(png.height).toBe(2 * Number(size[2]));
    const count = (match: (r: number, g: number, b: number) => boolean) => {
      let n = 0;
      for (let i = 0; i < png.pixels.length; i += png.channels)
        if (match(png.pixels[i]!, png.pixels[i + 1]!, png.pixels[i + 2]!)) n++;
      return n;
    };
    const rgb = (hex: number) => (r: number, g: number, b: number) =>
      r === hex >> 16 && g === ((hex >> 8) & 0xff) && b === (hex & 0xff);
    // A full bar (100%) is hundreds of pixels wide and 44 tall; the unmasked bar (0%) a sliver.
    expect(count(rgb(0x1e8449))).toBeGreaterThan(400 * 40); // masked (CPU path)
    expect(count(rgb(0x2874a6))).toBeGreaterThan(400 * 40); // masked (backend path)
    expect(count(rgb(0xc0392b))).toBeLessThan(5 * 44); // unmasked
    expect(count((r, g, b) => r < 80 && g < 80 && b < 80)).toBeGreaterThan(2000); // text
  });
});
