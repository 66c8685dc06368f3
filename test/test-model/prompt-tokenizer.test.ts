// The prompt tokenizer (native/llama/prompt_tokenizer.hpp) against llama.cpp's own llama_tokenize:
// the same tokens on texts that mix special-token texts, parts and overlaps of them, whitespace and
// plain text, as a prompt and as plain text, on the test model's Qwen3 vocabulary and on every
// vocabulary-only GGUF of llama.cpp's source (SPM, BPE, WPM; phi-3's tokens strip whitespace);
// work that grows linearly with a special-token flood where llama.cpp's grows quadratically; the
// length bound (never above the whole count; refusing before any tokenizing); and cancel().
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { basename } from "node:path";
import type { NativeLlamaModel } from "../../src/native.js";
import {
  boundProblems,
  differences,
  llamaCppVocabFiles,
  loadVocabOnly,
  mixedTexts,
  specialTexts,
  tokenizeAll,
} from "../support/prompt-tokenizer.js";
import { testModelPath } from "../support/test-model.js";

let qwen: NativeLlamaModel;
beforeAll(async () => {
  qwen = await loadVocabOnly(testModelPath());
});
afterAll(() => qwen?.dispose());

const flood = (n: number) => "<|im_start|>".repeat(n);

describe("the same tokens as llama_tokenize", () => {
  it("on the test model's Qwen3 vocabulary: 600 mixed texts, as a prompt and as plain text", async () => {
    const specials = specialTexts(qwen);
    expect(specials.split).toEqual(expect.arrayContaining(["<|im_start|>", "<|im_end|>", "<tool_call>", "<think>"]));
    expect(await differences(qwen, mixedTexts(specials, 1, 600))).toEqual([]);
  });

  it("on a special-token flood and on one special text run into the next", async () => {
    const texts = [
      flood(2000),
      "<tool_call>".repeat(2000),
      "<|im_start|>user\nhi<tool_call>x</tool_call><|im_end|>\n".repeat(300),
      "<|im_start|".repeat(500) + "|>",
      "<|im_start|><|im_end".repeat(300),
      "",
      " ",
    ];
    expect(await differences(qwen, texts)).toEqual([]);
  });

  for (const file of llamaCppVocabFiles())
    it(`on llama.cpp's ${basename(file)}: 150 mixed texts, as a prompt and as plain text`, async () => {
      const native = await loadVocabOnly(file);
      try {
        expect(await differences(native, mixedTexts(specialTexts(native), 2, 150))).toEqual([]);
      } finally {
        native.dispose();
      }
    });
});

describe("work", () => {
  it("grows linearly with a special-token flood (counted, not timed)", async () => {
    const works = [];
    for (const n of [10_000, 20_000, 40_000]) {
      const out = await qwen.tokenize(flood(n), { special: true }).done;
      expect(out.tokens?.length).toBe(n);
      works.push(out.work);
    }
    for (const k of ["scannedBytes", "occurrences", "checkedBytes", "pieces"] as const) {
      expect(works[1]![k]).toBe(2 * works[0]![k]);
      expect(works[2]![k]).toBe(4 * works[0]![k]);
    }
    // No plain text between the tokens: llama_tokenize is never called.
    expect(works.map((w) => w.llamaCalls)).toEqual([0, 0, 0]);
  });

  it("gives llama_tokenize only plain pieces, each once", async () => {
    const text = "<|im_start|>user\nhello<|im_end|>\n".repeat(1000);
    const out = await qwen.tokenize(text, { special: true }).done;
    expect(out.work.llamaCalls).toBe(2000); // "user\nhello" and "\n" per turn
    expect(out.work.llamaBytes).toBe(1000 * "user\nhello\n".length);
  });
});

describe("the length bound", () => {
  it("refuses a flood of 100,000 special tokens before reading it, and 10,000 before tokenizing any", async () => {
    const big = await qwen.tokenize(flood(100_000), { special: true, maxTokens: 4095 }).done;
    expect(big).toMatchObject({ tokens: null, tooLong: true, cancelled: false });
    expect(big.atLeast).toBeGreaterThan(4095);
    expect(big.work.scannedBytes).toBe(0); // the bound from the length alone
    const ten = await qwen.tokenize(flood(10_000), { special: true, maxTokens: 4095 }).done;
    expect(ten).toMatchObject({ tokens: null, tooLong: true, atLeast: 10_000 });
    expect(ten.work.llamaCalls).toBe(0);
  });

  it("stops once the tokens so far and the bound on the rest pass the limit", async () => {
    const text = "<|im_start|>user\nhello there<|im_end|>\n".repeat(2000);
    const out = await qwen.tokenize(text, { special: true, maxTokens: 1000 }).done;
    expect(out.tooLong).toBe(true);
    expect(out.work.llamaCalls).toBeLessThan(1000);
    expect(out.atLeast).toBeLessThanOrEqual((await tokenizeAll(qwen, text, true)).length);
  });

  it("is never above the whole count (Qwen3 and llama.cpp's SPM and phi-3 vocabularies)", async () => {
    expect(await boundProblems(qwen, mixedTexts(specialTexts(qwen), 3, 200))).toEqual([]);
    for (const name of ["ggml-vocab-llama-spm.gguf", "ggml-vocab-phi-3.gguf", "ggml-vocab-gemma-4.gguf"]) {
      const file = llamaCppVocabFiles().find((f) => basename(f) === name)!;
      const native = await loadVocabOnly(file);
      try {
        expect(await boundProblems(native, mixedTexts(specialTexts(native), 4, 100))).toEqual([]);
      } finally {
        native.dispose();
      }
    }
  });
});

describe("cancel()", () => {
  it("ends a job that would otherwise never end, before it tokenizes anything", async () => {
    process.env.TOOLMASK_TEST_TOKENIZE_HOLD = "HOLD-UNTIL-CANCELLED";
    try {
      const job = qwen.tokenize(`<|im_start|>user\nHOLD-UNTIL-CANCELLED${flood(100)}`, { special: true });
      await new Promise((r) => setTimeout(r, 20));
      job.cancel();
      const out = await job.done;
      expect(out).toMatchObject({ tokens: null, cancelled: true, tooLong: false });
      expect(out.work.llamaCalls).toBe(0);
    } finally {
      delete process.env.TOOLMASK_TEST_TOKENIZE_HOLD;
    }
    // Without the mark the same text is tokenized.
    expect((await qwen.tokenize("HOLD-UNTIL-CANCELLED", { special: true }).done).tokens?.length).toBeGreaterThan(0);
  });
});
