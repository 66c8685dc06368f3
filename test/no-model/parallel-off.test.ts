// Parallel calls off means one call: with `parallelToolCalls: false` (parallel_tool_calls: false,
// disable_parallel_tool_use) the answer ends after its call in every dialect. The grammar offers
// only the end of the turn there — no text, no second call in any syntax (a model kept writing
// could put a second call where the parser reads content) — and the parser reads a second call as
// an invalid entry ("a second call, but parallelToolCalls is false") or as content, never as a
// second call.
import { describe, expect, it } from "vitest";
import { writeCall, writeOutput } from "../../scripts/lib/dialect-writer.mjs";
import {
  buildToolGrammar,
  compileGrammar,
  dialects,
  getDialect,
  parseToolCalls,
  type ToolChoice,
} from "../../src/index.js";
import { grammarAccepts } from "../../src/parser/validate.js";
import { FILE_TOOLS } from "../support/tools.js";
import { qwen3 } from "../support/vocabs.js";

const ARGS: Array<[string, string, string]> = [["path", JSON.stringify("a.txt"), "a.txt"]];
const CHOICES: ToolChoice[] = ["auto", "required", { type: "function", function: { name: "read" } }];
const options = (dialect: string, toolChoice: ToolChoice, parallelToolCalls: boolean) => ({
  dialect,
  tools: FILE_TOOLS,
  toolChoice,
  parallelToolCalls,
});

/** The token ids the grammar allows after `text`, or undefined where it refuses `text`. */
function allowedAfter(dialect: string, choice: ToolChoice, parallel: boolean, text: string): number[] | undefined {
  const vocab = qwen3();
  const m = compileGrammar(buildToolGrammar(options(dialect, choice, parallel)), vocab).createMatcher();
  if (!m.acceptString(text)) return undefined;
  if (m.isTerminated()) return [];
  const mask = m.allocateBitmask();
  m.fillNextTokenBitmask(mask);
  const ids: number[] = [];
  for (let id = 0; id < mask.length * 32; id++) if ((mask[id >>> 5]! >>> (id & 31)) & 1) ids.push(id);
  return ids;
}

// gpt-oss's answer ends at its first call's <|call|>, an end-of-generation token, whatever
// parallelToolCalls says (docs/dialects.md "Calls after the answer's end").
const ONE_CALL_DIALECTS = dialects.filter((d) => getDialect(d).call.kind !== "harmony");

describe.each(ONE_CALL_DIALECTS)("%s with parallel calls off", (dialect) => {
  const spec = getDialect(dialect);
  const one = writeOutput(spec, [writeCall(spec, "read", ARGS)]);
  const eog = new Set(qwen3().endOfGenerationIds);

  it.each(CHOICES.map((c) => [JSON.stringify(c), c] as const))(
    "%s: after the call only the end of the turn is allowed",
    (_name, choice) => {
      const r = parseToolCalls(one, options(dialect, choice, false));
      expect(
        r.toolCalls.map((c) => c.function.name),
        one,
      ).toEqual(["read"]);
      expect(grammarAccepts(buildToolGrammar(options(dialect, choice, false)), one), one).toBe(true);
      const allowed = allowedAfter(dialect, choice, false, one);
      expect(allowed, one).toBeDefined();
      expect(
        allowed!.filter((id) => !eog.has(id)),
        `tokens other than the end of the turn allowed after ${JSON.stringify(one)}`,
      ).toEqual([]);
      for (const after of ["\nDone.", " ", "\n"])
        expect(grammarAccepts(buildToolGrammar(options(dialect, choice, false)), one + after), after).toBe(false);
    },
  );

  it("a second call is refused by the grammar and read as invalid by the parser", () => {
    const second = writeCall(spec, "read", ARGS, { index: 1 });
    const written = writeOutput(spec, [writeCall(spec, "read", ARGS), second]);
    // llama3's answer is one call object (its writer drops the rest): the second follows it as text
    const two = written === one ? `${one}\n${second}` : written;
    const o = options(dialect, "auto", false);
    expect(grammarAccepts(buildToolGrammar(o), two), two).toBe(false);
    const r = parseToolCalls(two, o);
    expect(r.toolCalls.length, two).toBeLessThanOrEqual(1);
  });
});
