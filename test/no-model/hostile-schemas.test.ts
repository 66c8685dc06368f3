// The hostile-schema suite's fast cases (scripts/lib/hostile-schemas.mjs): each compiles into a
// tool grammar on Qwen3's vocabulary whose random walks parse as complete calls, or is refused
// while the grammar is built and lowered, with the error, limit and path the case names; the
// server answers every refusal with a 400. Time and memory per case: npm run bench:schemas.
import { describe, expect, it } from "vitest";
import { buildToolGrammar, compileGrammar, GrammarLimitError } from "../../src/index.js";
import { toApiError } from "../../src/server/errors.js";
import { HOSTILE_CASES } from "../../scripts/lib/hostile-schemas.mjs";
import { walkCalls } from "../support/schema-walks.js";
import { qwen3 } from "../support/vocabs.js";

const cases = HOSTILE_CASES.filter((c) => c.fast && !("native" in c.expect));

describe("hostile schemas", () => {
  it.each(cases.map((c) => [c.name, c] as const))(
    "%s",
    (_name, c) => {
      const options = {
        dialect: c.dialect,
        tools: c.tools(),
        toolChoice: "required" as const,
        parallelToolCalls: false,
        maxValueLength: 12,
        ...c.options,
      };
      if ("compiles" in c.expect) {
        // maxValueLength keeps raw values short so walks end; the schemas' own bounds stay as they are
        const r = walkCalls(options, c.expect.walks, "finishes" in c.expect ? 300 : undefined);
        expect(r.failures).toEqual([]);
        if ("finishes" in c.expect) expect(r.finished).toBe(0);
        else expect(r.finished).toBeGreaterThan(c.expect.walks / 2);
        return;
      }
      let error: unknown;
      try {
        compileGrammar(buildToolGrammar({ ...options, maxValueLength: undefined }), qwen3());
      } catch (e) {
        error = e;
      }
      expect(error, "refused").toBeInstanceOf(Error);
      const e = error as Error & { limit?: string; path?: string };
      if ("native" in c.expect) throw new Error("native refusals are measured by bench:schemas, not tested here");
      if ("limit" in c.expect) {
        expect(e, e.message).toBeInstanceOf(GrammarLimitError);
        expect(e.limit).toBe(c.expect.limit);
      } else {
        expect(e.name, e.message).toBe(c.expect.error);
      }
      expect(e.path).toBe(c.expect.path);
      expect(e.message.startsWith(`${c.expect.path}: `), e.message).toBe(true);
      const api = toApiError(e);
      expect(api.status).toBe(400);
      expect(api.param).toBe("tools");
    },
    120_000,
  );
});
