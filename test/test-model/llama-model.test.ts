// loadModel on the random-weight Qwen3 test model, through llama.cpp itself: the vocabulary
// llama.cpp reads from the loaded model is the one tokenizer.json describes, and bad files fail
// with errors that say what is wrong.
import { mkdtempSync, openSync, readFileSync, writeFileSync, closeSync, writeSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { TokenKind } from "../../src/vocab/types.js";
import { testModelPath } from "../support/test-model.js";
import { qwen3 } from "../support/vocabs.js";

let model: LlamaModel;
beforeAll(async () => {
  model = await loadModel({ path: testModelPath() });
});

describe("loadModel", () => {
  it("reads the vocabulary from llama_vocab exactly as Vocabulary.fromTokenizerJson reads tokenizer.json", () => {
    const fromJson = qwen3();
    const fromModel = model.vocabulary;
    expect(fromModel.size).toBe(fromJson.size);
    const diffs: string[] = [];
    for (let id = 0; id < fromJson.size && diffs.length < 5; id++) {
      if (fromModel.kind(id) !== fromJson.kind(id))
        diffs.push(`${id} kind ${fromModel.kind(id)} vs ${fromJson.kind(id)}`);
      else if (Buffer.compare(fromModel.tokenBytes(id), fromJson.tokenBytes(id)) !== 0)
        diffs.push(`${id} bytes ${JSON.stringify(fromModel.piece(id))}`);
    }
    expect(diffs).toEqual([]);
    // The content hash covers every token's bytes and kind: grammars compiled on one fit the other.
    expect(fromModel.hash).toBe(fromJson.hash);
    expect(fromModel.kind(151645)).toBe(TokenKind.EndOfGeneration); // <|im_end|>
    expect(new TextDecoder().decode(fromModel.tokenBytes(151657))).toBe("<tool_call>");
  });

  it("takes the chat template and dialect from the GGUF metadata", () => {
    expect(model.chatTemplate).toContain("<tool_call>");
    expect(model.dialect).toBe("hermes");
    expect(model.eosToken).toBe("<|im_end|>");
  });

  it("defaults to at most half the CPUs and refuses more threads than there are CPUs", async () => {
    const { availableParallelism } = await import("node:os");
    expect(model.threads).toBeGreaterThanOrEqual(1);
    expect(model.threads).toBeLessThanOrEqual(Math.max(1, availableParallelism() / 2));
    await expect(loadModel({ path: testModelPath(), threads: availableParallelism() + 1 })).rejects.toThrow(
      /more than the \d+ CPUs/,
    );
  });

  it.runIf(process.platform === "linux")("leaves llama.cpp out of the addon's link: it is loaded at run time", () => {
    const addon = join(__dirname, "..", "..", "build", "Release", "toolmask.node");
    const deps = execFileSync("ldd", [addon], { encoding: "utf8" });
    expect(deps).not.toMatch(/llama|ggml/);
    expect(execFileSync("nm", ["-D", "--undefined-only", addon], { encoding: "utf8" })).not.toMatch(/\bllama_|\bggml_/);
  });

  it("runs on the CPU here and says why a GPU build cannot be had", async () => {
    expect(model.gpu).toBe(false); // gpu "auto" without an NVIDIA driver
    const { existsSync } = await import("node:fs");
    if (!existsSync("/proc/driver/nvidia/version"))
      await expect(loadModel({ path: testModelPath(), gpu: "cuda" })).rejects.toThrow(
        /gpu: "cuda" needs an NVIDIA driver/,
      );
    if (process.platform !== "darwin")
      await expect(loadModel({ path: testModelPath(), gpu: "metal" })).rejects.toThrow(/needs macOS/);
    // @ts-expect-error a wrong value
    await expect(loadModel({ path: testModelPath(), gpu: "rocm" })).rejects.toThrow(
      /gpu must be "auto", "cuda", "vulkan", "metal" or false/,
    );
  });

  it("reports loading progress up to 1", async () => {
    const seen: number[] = [];
    const m = await loadModel({ path: testModelPath(), onProgress: (f) => seen.push(f) });
    m.dispose();
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[seen.length - 1]).toBe(1);
    expect(seen.every((f, i) => f >= 0 && f <= 1 && (i === 0 || f >= seen[i - 1]!))).toBe(true);
  });

  it("says so when the file is missing", async () => {
    await expect(loadModel({ path: "/nonexistent/model.gguf" })).rejects.toThrow(
      /no model file at \/nonexistent\/model.gguf/,
    );
  });

  it("rejects a truncated GGUF with llama.cpp's reason instead of crashing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolmask-gguf-"));
    const cut = join(dir, "cut.gguf");
    const fd = openSync(cut, "w");
    writeSync(fd, readFileSync(testModelPath()).subarray(0, 4_000_000));
    closeSync(fd);
    await expect(loadModel({ path: cut })).rejects.toThrow(/could not load the model .*cut\.gguf/s);
  });

  it("rejects a file that is not a GGUF at all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolmask-gguf-"));
    const junk = join(dir, "junk.gguf");
    writeFileSync(junk, "this is not a model\n".repeat(100));
    await expect(loadModel({ path: junk })).rejects.toThrow(/could not load the model/);
  });
});
