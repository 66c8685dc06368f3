// A model whose vocabulary cannot write what the dialect's grammar needs (here: no "<", so no
// "<tool_call>") must fail with a clear error before decoding, not run into a dead end mid-answer.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/engine/generate.js";
import { loadModel, type LlamaModel } from "../../src/engine/model.js";
import { writeTestModel } from "../../src/model/test-model.js";

// Byte-level BPE pieces: letters, space (Ġ), newline (Ċ); chat markers as added special tokens.
const pieces = [..."abcdefghijklmnopqrstuvwxyz", "Ġ", "Ċ"];
const added = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
const tokenizer = {
  model: { type: "BPE", vocab: Object.fromEntries(pieces.map((p, i) => [p, i])), merges: [] },
  added_tokens: added.map((content, k) => ({ id: pieces.length + k, content, special: true })),
};
const template =
  "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}<|im_start|>assistant\n";

let dir: string;
let model: LlamaModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "toolmask-vocab-"));
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer));
  writeTestModel({
    path: join(dir, "tiny.gguf"),
    tokenizerJson: join(dir, "tokenizer.json"),
    chatTemplate: template,
    embedding: 16,
    layers: 1,
  });
  model = await loadModel({ path: join(dir, "tiny.gguf") });
}, 120_000);
afterAll(async () => {
  await model?.dispose?.();
  rmSync(dir, { recursive: true, force: true });
});

describe("a vocabulary that does not fit the grammar", () => {
  const tools = [
    {
      type: "function",
      function: {
        name: "read",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    },
  ];
  it("toolChoice required with a dialect whose markers it cannot spell: a clear error that says what to do", async () => {
    await expect(
      generate(model, {
        messages: [{ role: "user", content: "hi" }],
        tools,
        toolChoice: "required",
        dialect: "qwen3-coder",
        maxTokens: 8,
      }),
    ).rejects.toThrow(/vocabulary cannot write .*qwen3-coder/);
  });
  it("the same model still answers in text without tools, and unmasked", async () => {
    const r = await generate(model, { messages: [{ role: "user", content: "hi" }], maxTokens: 4, seed: 1 });
    expect(["stop", "length"]).toContain(r.finishReason);
  });
});
