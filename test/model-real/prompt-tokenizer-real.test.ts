// The prompt tokenizer (native/llama/prompt_tokenizer.hpp) on each real model's vocabulary (from
// `npm run models`, loaded without its weights): the same tokens as llama.cpp's own llama_tokenize
// on texts mixing its special-token texts, parts and overlaps of them, whitespace and plain text,
// as a prompt and as plain text, and a length bound never above the whole count. A model that is
// not there is skipped with one line saying how to fetch it, except under CI=true.
import { describe, expect, it } from "vitest";
import { boundProblems, differences, loadVocabOnly, mixedTexts, specialTexts } from "../support/prompt-tokenizer.js";
import { listModels } from "../support/models-script.js";

const models = await listModels();
const inCi = process.env.CI === "true";
const HOW = "fetch them with `npm run models`";

describe("the prompt tokenizer on real vocabularies", () => {
  for (const m of models) {
    if (!m.present && !inCi) {
      it.skip(`${m.name}: not fetched (${HOW})`, () => {});
      continue;
    }
    it(`${m.name}: 400 mixed texts tokenized as llama_tokenize does; the bound never above the count`, async () => {
      if (!m.present) throw new Error(`CI=true and ${m.path} is missing: ${HOW}`);
      const native = await loadVocabOnly(m.path);
      try {
        const sets = specialTexts(native);
        expect(sets.split.length).toBeGreaterThan(0);
        expect(await differences(native, mixedTexts(sets, 5, 400))).toEqual([]);
        expect(await boundProblems(native, mixedTexts(sets, 6, 100))).toEqual([]);
      } finally {
        native.dispose();
      }
    });
  }
});
