// The llama.cpp parse oracle (test/support/llama-oracle.ts) checks itself here, and records what
// llama.cpp's own chat parser (node-llama-cpp 3.21.1's prebuilt libllama-common, the path
// llama-server takes) returns for the cases our parser must be compared on. These assertions
// describe llama.cpp's behaviour, right or wrong: where it is wrong (unfinished arguments shipped
// as a call, calls that vanish), our parser is deliberately stricter and parity tests say so.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startLlamaOracle,
  templatePath,
  type LlamaOracle,
  type OracleOk,
  type OracleRequest,
  type OracleResult,
  type OracleTool,
} from "../support/llama-oracle.js";

const tools: OracleTool[] = [
  {
    type: "function",
    function: {
      name: "read_file",
      description: "Read a file",
      parameters: {
        type: "object",
        properties: { path: { type: "string" }, limit: { type: "integer" } },
        required: ["path"],
      },
    },
  },
];

const QWEN3_CODER = "Qwen3-Coder.jinja";
const QWEN3 = "Qwen-Qwen3-0.6B.jinja"; // Hermes-style JSON calls
const SEED_OSS = "ByteDance-Seed-OSS.jinja";

/** Qwen3-Coder XML: `<parameter=K>\nV\n</parameter>`. */
const qcParam = (k: string, v: string): string => `<parameter=${k}>\n${v}\n</parameter>\n`;
const qcCall = (name: string, params: string): string =>
  `<tool_call>\n<function=${name}>\n${params}</function>\n</tool_call>`;
const hermesCall = (name: string, args: string): string =>
  `<tool_call>\n{"name": "${name}", "arguments": ${args}}\n</tool_call>`;
const seedCall = (name: string, params: string, close = true): string =>
  `<seed:tool_call>\n<function=${name}>\n${params}</function>\n${close ? "</seed:tool_call>" : ""}`;

let oracle: LlamaOracle;

beforeAll(async () => {
  oracle = await startLlamaOracle(); // builds on first use (~15 s on 2 cores)
});

afterAll(() => oracle?.close());

function parse(template: string, text: string, extra: Partial<OracleRequest> = {}): Promise<OracleResult> {
  return oracle.parse({ template: templatePath(template), tools, text, ...extra });
}

async function parseOk(template: string, text: string, extra: Partial<OracleRequest> = {}): Promise<OracleOk> {
  const r = await parse(template, text, extra);
  if (!r.ok) throw new Error(`oracle failed at ${r.stage}: ${r.error}`);
  return r;
}

const call = (name: string, args: string) => ({ name, arguments: args, id: "" });
const NO_MATCH = "The model produced output that does not match the expected peg-native format";

describe("the oracle itself", () => {
  it("answers bad requests with ok:false and keeps serving", async () => {
    const missing = await oracle.parse({ template: templatePath("no-such-template.jinja"), text: "x" });
    expect(missing).toMatchObject({ ok: false, stage: "request" });
    expect(missing.ok || missing.error).toMatch(/cannot read template file/);

    const badFormat = await parse(QWEN3_CODER, "hi", {
      reasoning_format: "bogus" as OracleRequest["reasoning_format"],
    });
    expect(badFormat).toEqual({ ok: false, stage: "request", error: "Unknown reasoning format: bogus" });

    const wrongType = await oracle.parse({ template: templatePath(QWEN3_CODER), text: 42 as unknown as string });
    expect(wrongType).toMatchObject({ ok: false, stage: "request" });

    const badTools = await parse(QWEN3_CODER, "hi", { tools: "nope" as unknown as OracleTool[] });
    expect(badTools.ok).toBe(false);

    expect(await parseOk(QWEN3_CODER, "Hello there.")).toEqual({
      ok: true,
      format: "peg-native",
      generation_prompt: "<|im_start|>assistant\n",
      content: "Hello there.",
      reasoning_content: "",
      tool_calls: [],
    });
  });

  it("matches pipelined responses to their requests", async () => {
    const n = 40;
    const results = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        i % 3 === 0
          ? parseOk(SEED_OSS, seedCall("read_file", `<parameter=path>/f${i}</parameter>\n`))
          : parseOk(
              i % 3 === 1 ? QWEN3_CODER : QWEN3,
              i % 3 === 1
                ? qcCall("read_file", qcParam("path", `/f${i}`))
                : hermesCall("read_file", `{"path": "/f${i}"}`),
            ),
      ),
    );
    results.forEach((r, i) => {
      expect(r.tool_calls).toHaveLength(1);
      expect(JSON.parse(r.tool_calls[0]!.arguments)).toEqual({ path: `/f${i}` });
    });
  });

  it("refuses a lone surrogate (no UTF-8 for it) without dying", async () => {
    // A JS string cut between the halves of a surrogate pair; JSON.stringify sends it as \\ud83d.
    const r = await parse(QWEN3_CODER, "Hello \ud83d");
    expect(r).toMatchObject({ ok: false, stage: "request" });
    expect((await parseOk(QWEN3_CODER, "Hello \ud83d\ude00")).content).toBe("Hello \u{1f600}");
  });
});

describe("llama.cpp verdicts: Qwen3-Coder XML", () => {
  it("a complete call parses to the call, with parameters typed by the schema", async () => {
    const r = await parseOk(QWEN3_CODER, qcCall("read_file", qcParam("path", "/etc/hosts") + qcParam("limit", "5")));
    expect(r.content).toBe("");
    expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/hosts","limit":5}')]);
  });

  it("text before the call stays content", async () => {
    const r = await parseOk(QWEN3_CODER, `Let me read.\n${qcCall("read_file", qcParam("path", "/etc/hosts"))}`);
    expect(r.content).toBe("Let me read.\n");
    expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/hosts"}')]);
  });

  it("a call cut inside a value comes back as a call with unfinished JSON arguments, final or partial", async () => {
    const text = "<tool_call>\n<function=read_file>\n<parameter=path>\n/etc/ho";
    for (const is_partial of [false, true]) {
      const r = await parseOk(QWEN3_CODER, text, { is_partial });
      expect(r.content).toBe("");
      expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/ho')]);
      expect(() => JSON.parse(r.tool_calls[0]!.arguments)).toThrow();
    }
  });

  it("a call cut inside the function name yields nothing, final or partial", async () => {
    for (const is_partial of [false, true]) {
      const r = await parseOk(QWEN3_CODER, "<tool_call>\n<function=read_f", { is_partial });
      expect(r).toMatchObject({ content: "", tool_calls: [] });
    }
  });

  it("a missing </tool_call> still yields the complete call", async () => {
    const text = `<tool_call>\n<function=read_file>\n${qcParam("path", "/etc/hosts")}</function>\n`;
    const r = await parseOk(QWEN3_CODER, text);
    expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/hosts"}')]);
  });

  it("a call to an undeclared name vanishes silently: no call, no content, no error", async () => {
    const text = qcCall("delete_file", qcParam("path", "/etc/hosts"));
    for (const is_partial of [false, true]) {
      expect(await parseOk(QWEN3_CODER, text, { is_partial })).toMatchObject({ content: "", tool_calls: [] });
    }
    // Text before it survives; the call's own text does not.
    expect(await parseOk(QWEN3_CODER, `Sure.\n${text}`)).toMatchObject({ content: "Sure.\n", tool_calls: [] });
  });

  it("calls that break the schema vanish silently too", async () => {
    const dropped = [
      qcCall("read_file", qcParam("path", "/a") + qcParam("limit", "five")), // not an integer
      qcCall("read_file", qcParam("limit", "3")), // required "path" missing
      qcCall("read_file", qcParam("pth", "/a")), // undeclared parameter
      qcCall("read_file", qcParam("limit", "3") + qcParam("path", "/a")), // valid, but not in schema order
    ];
    for (const text of dropped) {
      expect(await parseOk(QWEN3_CODER, text)).toMatchObject({ content: "", tool_calls: [] });
    }
  });

  it("is lenient elsewhere: 3.5 passes for an integer, raw text is kept verbatim", async () => {
    expect(
      (await parseOk(QWEN3_CODER, qcCall("read_file", qcParam("path", "/a") + qcParam("limit", "3.5")))).tool_calls,
    ).toEqual([call("read_file", '{"path":"/a","limit":3.5}')]);
    expect((await parseOk(QWEN3_CODER, qcCall("read_file", qcParam("path", "123")))).tool_calls).toEqual([
      call("read_file", '{"path":"123"}'),
    ]);
    // Only the leading/trailing newline is trimmed; an inner "</parameter>" not followed by a newline is text.
    expect((await parseOk(QWEN3_CODER, qcCall("read_file", qcParam("path", "a\nb</parameter>c")))).tool_calls).toEqual([
      call("read_file", '{"path":"a\\nb</parameter>c"}'),
    ]);
  });
});

describe("llama.cpp verdicts: Hermes JSON (Qwen3 template)", () => {
  it("a complete call parses to the call, arguments kept as written (spacing included)", async () => {
    const r = await parseOk(QWEN3, hermesCall("read_file", '{"path": "/etc/hosts"}'));
    expect(r.format).toBe("peg-native");
    expect(r.content).toBe("");
    expect(r.tool_calls).toEqual([call("read_file", '{"path": "/etc/hosts"}')]);
  });

  it("thinking goes to reasoning_content (deepseek, the server default) or stays in content (none)", async () => {
    const text = `<think>\nhmm\n</think>\n\n${hermesCall("read_file", '{"path": "/etc/hosts"}')}`;
    const deepseek = await parseOk(QWEN3, text);
    expect(deepseek).toMatchObject({ content: "", reasoning_content: "hmm\n" });
    expect(deepseek.tool_calls).toHaveLength(1);
    const none = await parseOk(QWEN3, text, { reasoning_format: "none" });
    expect(none).toMatchObject({ content: "<think>\nhmm\n</think>\n\n", reasoning_content: "" });
    expect(none.tool_calls).toHaveLength(1);
  });

  it("two calls in a row are both returned", async () => {
    const text = `${hermesCall("read_file", '{"path": "/a"}')}\n${hermesCall("read_file", '{"path": "/b"}')}`;
    expect((await parseOk(QWEN3, text)).tool_calls).toEqual([
      call("read_file", '{"path": "/a"}'),
      call("read_file", '{"path": "/b"}'),
    ]);
  });

  it("a call cut inside a value comes back with unfinished arguments, final or partial", async () => {
    const text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "/etc/ho';
    for (const is_partial of [false, true]) {
      expect((await parseOk(QWEN3, text, { is_partial })).tool_calls).toEqual([call("read_file", '{"path": "/etc/ho')]);
    }
  });

  it("a missing </tool_call> still yields the call", async () => {
    const text = '<tool_call>\n{"name": "read_file", "arguments": {"path": "/etc/hosts"}}\n';
    expect((await parseOk(QWEN3, text)).tool_calls).toEqual([call("read_file", '{"path": "/etc/hosts"}')]);
  });

  it("a call to an undeclared name makes the final parse throw (unlike Qwen3-Coder)", async () => {
    expect(await parse(QWEN3, hermesCall("rm", '{"path": "/etc/hosts"}'))).toEqual({
      ok: false,
      stage: "parse",
      error: NO_MATCH,
    });
  });
});

describe("llama.cpp verdicts: Seed-OSS", () => {
  const params = "<parameter=path>/etc/hosts</parameter>\n";

  it("a complete call parses to the call", async () => {
    const r = await parseOk(SEED_OSS, seedCall("read_file", params));
    expect(r.generation_prompt).toBe("<seed:bos>assistant\n");
    expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/hosts"}')]);
  });

  it("a missing </seed:tool_call> still yields the complete call, final or partial", async () => {
    for (const is_partial of [false, true]) {
      const r = await parseOk(SEED_OSS, seedCall("read_file", params, false), { is_partial });
      expect(r).toMatchObject({ content: "", tool_calls: [call("read_file", '{"path":"/etc/hosts"}')] });
    }
  });

  it("a call cut inside a value comes back with unfinished arguments", async () => {
    const r = await parseOk(SEED_OSS, "<seed:tool_call>\n<function=read_file>\n<parameter=path>/etc/ho");
    expect(r.tool_calls).toEqual([call("read_file", '{"path":"/etc/ho')]);
  });

  it("thinking goes to reasoning_content", async () => {
    const r = await parseOk(SEED_OSS, `<seed:think>hmm</seed:think>${seedCall("read_file", params)}`);
    expect(r).toMatchObject({ content: "", reasoning_content: "hmm" });
    expect(r.tool_calls).toHaveLength(1);
  });

  it("a call to an undeclared name: the final parse throws, a partial one drops it", async () => {
    const text = seedCall("nope", params);
    expect(await parse(SEED_OSS, text)).toEqual({ ok: false, stage: "parse", error: NO_MATCH });
    expect(await parse(SEED_OSS, seedCall("nope", params, false))).toEqual({
      ok: false,
      stage: "parse",
      error: NO_MATCH,
    });
    expect(await parseOk(SEED_OSS, text, { is_partial: true })).toMatchObject({ content: "", tool_calls: [] });
  });
});
