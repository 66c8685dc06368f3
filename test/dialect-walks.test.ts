// Grammar → parser: random walks of the native matcher on Qwen3 (any allowed token, then
// end of generation where allowed) always parse as complete calls with every required
// argument and declared names only.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, getDialect, parseToolCalls } from "../src/index.js";
import { triggerOf } from "../src/dialects/spec.js";
import { rng } from "./support/tokenize.js";
import { FILE_TOOLS, TYPED_TOOLS } from "./support/tools.js";
import { allowedIds, qwen3 } from "./support/vocabs.js";

const WALKS = 40;

describe.each(["qwen3-coder", "hermes", "seed-oss", "mistral", "deepseek-v3.1", "glm-4.5", "minimax-m2", "gpt-oss", "mistral-nemo", "llama3"])("%s: walks of the mask parse complete", (dialect) => {
  const configs = [["file tools, required", FILE_TOOLS, "required"], ["typed tools, required", TYPED_TOOLS, "required"]] as const;
  // The JSON-argument dialects share one argument grammar, and GLM/MiniMax type XML values as
  // qwen3-coder does (xmlValue): typed tools once is enough.
  for (const [label, tools, toolChoice] of ["mistral", "seed-oss", "deepseek-v3.1", "glm-4.5", "minimax-m2", "gpt-oss", "mistral-nemo", "llama3"].includes(dialect) ? configs.slice(0, 1) : configs) {
    it(label, () => {
      const v = qwen3();
      const options = { dialect, tools, toolChoice, parallelToolCalls: false, maxValueLength: 12 };
      const g = compileGrammar(buildToolGrammar(options), v);
      const m = g.createMatcher();
      const mask = m.allocateBitmask();
      const r = rng(dialect.length * 100 + label.length);
      const eog = new Set(v.endOfGenerationIds);
      let finished = 0;
      for (let w = 0; w < WALKS; w++) {
        m.reset();
        // Content before the first call is free text a random walk would wander in forever:
        // start at the trigger, as a model that calls does.
        const trigger = triggerOf(getDialect(dialect));
        expect(m.acceptString(trigger)).toBe(true);
        const ids: number[] = [];
        for (let step = 0; step < 400 && !m.isTerminated(); step++) {
          m.fillNextTokenBitmask(mask);
          const allowed = allowedIds(mask);
          expect(allowed.length).toBeGreaterThan(0);
          const ends = allowed.filter((id) => eog.has(id));
          // Prefer short, structural tokens so walks finish; stop as soon as the grammar allows.
          const id = ends.length ? ends[0]! : allowed[Math.floor(r() * Math.min(allowed.length, r() < 0.5 ? 40 : allowed.length))]!;
          expect(m.acceptToken(id)).toBe(true);
          if (!eog.has(id)) ids.push(id);
        }
        if (!m.isTerminated()) continue;
        finished++;
        const text = trigger + Buffer.concat(ids.map((id) => Buffer.from(v.tokenBytes(id)))).toString("utf8");
        const res = parseToolCalls(text, options);
        expect(res.incomplete, text).toEqual([]);
        expect(res.toolCalls.length, text).toBe(1);
        const call = res.toolCalls[0]!;
        const tool = tools.find((t) => t.function.name === call.function.name)!;
        expect(tool, text).toBeDefined();
        const args = JSON.parse(call.function.arguments);
        for (const req of tool.function.parameters.required) expect(args, text).toHaveProperty(req);
        expect(res.finishReason).toBe("tool_calls");
      }
      expect(finished).toBeGreaterThan(WALKS / 2);
    }, 300_000);  // minutes on a loaded 2-core machine
  }
});
