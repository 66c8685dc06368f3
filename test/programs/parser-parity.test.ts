// Parity with llama.cpp's own chat parser (common_chat_parse from node-llama-cpp's prebuilt
// libllama-common, the path llama-server takes), an oracle nobody here wrote. Every output of the
// parity corpus is parsed by both, with the same template, tools, parallel_tool_calls and thinking;
// each case is "same" or a named class documented in docs/parity.md. A case that is neither fails.
//
// TOOLMASK_WRITE_PARITY=1 rewrites the counts table in docs/parity.md.
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLlamaOracle, type LlamaOracle } from "../support/llama-oracle.js";
import { classify, PARITY_CLASSES, type Verdict } from "../support/parity-classes.js";
import { buildParityCorpus, parityDialects } from "../support/parity-corpus.js";
import { runParity, type ParityRow } from "../support/parity-run.js";
import { ourShape, theirShape } from "../support/parity-shape.js";

const DOC = new URL("../../docs/parity.md", import.meta.url);

let oracle: LlamaOracle;
let rows: Array<ParityRow & { verdict: Verdict }>;

beforeAll(async () => {
  oracle = await startLlamaOracle();
  const run = await runParity(oracle, buildParityCorpus());
  rows = run.map((r) => ({
    ...r,
    verdict: classify(ourShape(r.ours), theirShape(r.theirs), {
      dialect: r.case.dialect,
      template: r.case.template,
      text: r.case.text,
      events: r.events,
      tools: r.case.tools,
      parallel: r.case.parallel ?? true,
      prompt: r.theirs.ok ? r.theirs.generation_prompt : "",
    }),
  }));
}, 120_000);

afterAll(() => oracle?.close());

/** Per dialect, per class: how many cases. */
function countTable(): string {
  const classes = ["same", ...Object.keys(PARITY_CLASSES)];
  const dialects = parityDialects();
  const n = (d: string, c: string) => rows.filter((r) => r.case.dialect === d && r.verdict.class === c).length;
  const line = (cells: Array<string | number>) => `| ${cells.join(" | ")} |`;
  return [
    line(["class", ...dialects, "all"]),
    line(["---", ...dialects.map(() => "---:"), "---:"]),
    ...classes.map((c) =>
      line([
        c === "same" ? "same" : `\`${c}\``,
        ...dialects.map((d) => n(d, c)),
        rows.filter((r) => r.verdict.class === c).length,
      ]),
    ),
    line(["**cases**", ...dialects.map((d) => rows.filter((r) => r.case.dialect === d).length), rows.length]),
  ].join("\n");
}

describe("parity with llama.cpp's chat parser", () => {
  it("parses a corpus of at least 200 outputs per run, for every dialect llama.cpp has a parser for", () => {
    expect(rows.length).toBeGreaterThanOrEqual(200);
    // Every dialect at least with what its templates write.
    for (const d of parityDialects())
      expect(rows.filter((r) => r.case.dialect === d).length, d).toBeGreaterThanOrEqual(8);
  });

  it("every case is the same or in a documented class", () => {
    const table = countTable();
    console.log(`parity with llama.cpp, cases per class:\n${table}`);
    if (process.env.TOOLMASK_WRITE_PARITY) {
      const doc = readFileSync(DOC, "utf8");
      writeFileSync(
        DOC,
        doc.replace(
          /(<!-- counts:start -->)[\s\S]*?(<!-- counts:end -->)/,
          (_m, a: string, b: string) => `${a}\n${table}\n${b}`,
        ),
      );
    }
    const unexplained = rows
      .filter((r) => r.verdict.class === "unexplained")
      .map((r) => ({
        case: `${r.case.dialect} / ${r.case.template} / ${r.case.name}`,
        text: r.case.text,
        ours: ourShape(r.ours),
        theirs: theirShape(r.theirs),
        steps: r.verdict.steps,
      }));
    expect(unexplained).toEqual([]);
  });

  it("real templates' own turns come out the same, but for documented classes", () => {
    // What a template writes is what a model trained on it emits: most must agree exactly.
    const renders = rows.filter((r) => r.case.name.startsWith("render "));
    const same = renders.filter((r) => r.verdict.class === "same").length;
    expect(same / renders.length).toBeGreaterThan(0.6);
  });

  it("docs/parity.md explains every class", () => {
    const doc = readFileSync(DOC, "utf8");
    for (const c of Object.keys(PARITY_CLASSES)) expect(doc, c).toContain(`\n### \`${c}\`\n`);
  });
});

describe("the classifier", () => {
  const facts = {
    dialect: "hermes",
    template: "Qwen-Qwen3-0.6B.jinja",
    text: "",
    events: [],
    tools: [],
    parallel: true,
    prompt: "<|im_start|>assistant\n",
  };
  const call = (path: string) => ({ name: "read", arguments: { path } });
  const ours = { content: "", reasoning: "", calls: [call("a")], cut: [], invalid: [] };

  it("calls different arguments, or a call only llama.cpp found, unexplained", () => {
    expect(classify(ours, { ok: true, content: "", reasoning: "", calls: [call("b")] }, facts).class).toBe(
      "unexplained",
    );
    expect(classify(ours, { ok: true, content: "", reasoning: "", calls: [call("a"), call("c")] }, facts).class).toBe(
      "unexplained",
    );
    expect(classify(ours, { ok: true, content: "x", reasoning: "", calls: [call("a")] }, facts).class).toBe(
      "unexplained",
    );
  });

  it("GLM: blames llama.cpp's throw on a call's spelling only where the template spells it otherwise", () => {
    const glm = (template: string, text: string) => ({ ...facts, dialect: "glm-4.5", template, text, prompt: "" });
    const mine = { ...ours, calls: [{ name: "read", arguments: { path: "a" } }] };
    const throws = { ok: false as const, error: "parse: no match" };
    const spelled46 = "<tool_call>read\n<arg_key>path</arg_key>\n<arg_value>a</arg_value>\n</tool_call>";
    const spelled47 = "<tool_call>read<arg_key>path</arg_key><arg_value>a</arg_value></tool_call>";
    expect(classify(mine, throws, glm("GLM-4.6.jinja", spelled47)).class).toBe("glm-spelling");
    expect(classify(mine, throws, glm("GLM-4.7-Flash.jinja", spelled46)).class).toBe("glm-spelling");
    expect(classify(mine, throws, glm("GLM-4.6.jinja", spelled46)).class).toBe("unexplained");
    // 4.7's parser takes a newline after the name.
    expect(classify(mine, throws, glm("GLM-4.7-Flash.jinja", spelled47.replace("read", "read\n"))).class).toBe(
      "unexplained",
    );
  });

  it("GLM: a call llama.cpp names in a cut only when the output ends after the whole name", () => {
    const cut = { content: "x", reasoning: "", calls: [], cut: [{ name: null }], invalid: [] };
    const theirs = { ok: true as const, content: "x", reasoning: "", calls: [{ name: "read", unfinished: "{" }] };
    const glm = (text: string) => ({ ...facts, dialect: "glm-4.5", template: "GLM-4.6.jinja", text, prompt: "" });
    expect(classify(cut, theirs, glm("x<tool_call>read\n<arg_k")).class).toBe("cut-after-name");
    expect(classify(cut, theirs, glm("x<tool_call>rea")).class).toBe("unexplained");
    expect(classify(cut, theirs, glm("x<tool_call>read\nplease")).class).toBe("unexplained");
  });

  it("MiniMax: a second invoke begun at the end explains a throw; a bare '<' does not", () => {
    const mm = (text: string) => ({ ...facts, dialect: "minimax-m2", template: "MiniMax-M2.jinja", text, prompt: "" });
    const mine = { ...ours, calls: [{ name: "read", arguments: { path: "" } }], cut: [{ name: null }] };
    const throws = { ok: false as const, error: "parse: no match" };
    const section = '<minimax:tool_call>\n<invoke name="read">\n<parameter name="path"></parameter>\n</invoke>\n';
    expect(classify(mine, throws, mm(`${section}<in`)).class).toBe("minimax-several-invokes");
    expect(classify(mine, throws, mm(`${section}<`)).class).toBe("unexplained");
  });

  it("a thought's close begun at the very end is a trailing marker prefix; elsewhere it is not", () => {
    const mm = (text: string) => ({ ...facts, dialect: "minimax-m2", template: "MiniMax-M2.jinja", text, prompt: "" });
    const thought = (reasoning: string, content = "") => ({ content, reasoning, calls: [], cut: [], invalid: [] });
    const theirs = (reasoning: string, content = "") => ({ ok: true as const, content, reasoning, calls: [] });
    expect(classify(thought("abc</"), theirs("abc"), mm("abc</")).class).toBe("trailing-marker-prefix");
    expect(classify(thought("abc</x"), theirs("abc"), mm("abc</x")).class).toBe("unexplained");
  });

  it("does not blame llama.cpp's early stop on a cause the output does not have", () => {
    expect(classify(ours, { ok: false, error: "parse: no match" }, facts).class).toBe("unexplained");
    expect(classify(ours, { ok: true, content: "", reasoning: "", calls: [] }, facts).class).toBe("unexplained");
  });
});
